#pragma once
// The CUDA C++ syntax highlighter of source and diff views: KSyntaxHighlighting (KF6) when the
// build found it (AK_HAVE_KF6_SYNTAX_HIGHLIGHTING), otherwise BuiltinCudaHighlighter.
#include <QString>

class QSyntaxHighlighter;
class QTextDocument;

namespace ak {

// Creates a highlighter owned by (and attached to) `document`.
QSyntaxHighlighter* createSourceHighlighter(QTextDocument* document);

// "KF6SyntaxHighlighting <version>" or "built-in"; shown in the about box and --version.
QString highlighterName();

}  // namespace ak
