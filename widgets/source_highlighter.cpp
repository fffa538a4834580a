#include "widgets/source_highlighter.h"

#include "widgets/builtin_cuda_highlighter.h"

#include <QTextDocument>

#ifdef AK_HAVE_KF6_SYNTAX_HIGHLIGHTING
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/SyntaxHighlighter>
#include <KSyntaxHighlighting/Theme>
#endif

namespace ak {

#ifdef AK_HAVE_KF6_SYNTAX_HIGHLIGHTING
namespace {
KSyntaxHighlighting::Repository& repository() {
    static KSyntaxHighlighting::Repository repo;  // loads the definitions once
    return repo;
}
}  // namespace

QSyntaxHighlighter* createSourceHighlighter(QTextDocument* document) {
    auto* highlighter = new KSyntaxHighlighting::SyntaxHighlighter(document);
    KSyntaxHighlighting::Definition definition = repository().definitionForName(QStringLiteral("CUDA"));
    if (!definition.isValid()) definition = repository().definitionForName(QStringLiteral("C++"));
    highlighter->setDefinition(definition);
    highlighter->setTheme(repository().defaultTheme(KSyntaxHighlighting::Repository::LightTheme));
    highlighter->rehighlight();
    return highlighter;
}

QString highlighterName() {
    return QStringLiteral("KF6SyntaxHighlighting ") + QStringLiteral(AK_KF6_SYNTAX_HIGHLIGHTING_VERSION);
}
#else
QSyntaxHighlighter* createSourceHighlighter(QTextDocument* document) { return new BuiltinCudaHighlighter(document); }

QString highlighterName() { return QStringLiteral("built-in"); }
#endif

}  // namespace ak
