#pragma once
// A small CUDA C++ highlighter, used when KSyntaxHighlighting (KF6) is not available.
// Highlights C++ and CUDA keywords (__global__, __shared__, threadIdx, __syncthreads, ...), types,
// numbers, string and character literals, preprocessor lines, and // and /* */ comments (a block
// comment may span lines: the block state carries it to the next line).
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace ak {

class BuiltinCudaHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    enum class Token { Keyword, Type, Number, String, Preprocessor, Comment };

    explicit BuiltinCudaHighlighter(QTextDocument* document);

    QTextCharFormat formatOf(Token token) const;

protected:
    void highlightBlock(const QString& text) override;

private:
    QTextCharFormat m_formats[6];
};

}  // namespace ak
