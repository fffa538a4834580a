// Tests widgets/builtin_cuda_highlighter.cpp (and createSourceHighlighter in source_highlighter.cpp):
// the format each token class gets, block comments that span lines, preprocessor lines, and that
// words inside comments and strings are not keywords.
#include "widgets/builtin_cuda_highlighter.h"
#include "widgets/source_highlighter.h"

#include <QPlainTextEdit>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <QtTest>

using namespace ak;
using Token = BuiltinCudaHighlighter::Token;

namespace {

const char* const kSource =
    "#include <cuda_fp16.h>  // half\n"                                  // 0
    "__global__ void rms(const float* __restrict__ x, int n) {\n"       // 1
    "    __shared__ float partial[32]; /* a block comment\n"           // 2
    "       spanning __syncthreads lines */ int i = threadIdx.x;\n"     // 3
    "    const char* s = \"__device__ in a string\";\n"                 // 4
    "    float eps = 1e-5f + 0x1Fu;\n"                                 // 5
    "    __syncthreads(); // done\n"                                    // 6
    "}\n";                                                              // 7

}  // namespace

class TestBuiltinCudaHighlighter : public QObject {
    Q_OBJECT

    QPlainTextEdit* m_edit = nullptr;
    QTextDocument* m_doc = nullptr;
    BuiltinCudaHighlighter* m_highlighter = nullptr;

    // Format at (block, column): the highlighter's range covering it, or an empty format.
    QTextCharFormat formatAt(int blockNumber, int column) const {
        const QTextBlock block = m_doc->findBlockByNumber(blockNumber);
        for (const QTextLayout::FormatRange& r : block.layout()->formats())
            if (column >= r.start && column < r.start + r.length) return r.format;
        return QTextCharFormat();
    }
    // Format of the first occurrence of `word` in the block, checked over its whole length.
    QTextCharFormat formatOfWord(int blockNumber, const QString& word) const {
        const QString text = m_doc->findBlockByNumber(blockNumber).text();
        const int at = int(text.indexOf(word));
        if (at < 0) {
            qWarning("'%s' not in block %d", qPrintable(word), blockNumber);
            return QTextCharFormat();
        }
        const QTextCharFormat first = formatAt(blockNumber, at);
        for (int i = at; i < at + word.size(); ++i)
            if (formatAt(blockNumber, i) != first) return QTextCharFormat();
        return first;
    }
    bool is(int blockNumber, const QString& word, Token token) const {
        return formatOfWord(blockNumber, word) == m_highlighter->formatOf(token);
    }

private slots:
    void init() {
        // In an editor, as the views use it: a document without a layout emits no contentsChange,
        // so a bare QTextDocument would not be re-highlighted on edits.
        m_edit = new QPlainTextEdit;
        m_doc = m_edit->document();
        m_highlighter = new BuiltinCudaHighlighter(m_doc);
        m_edit->setPlainText(QString::fromUtf8(kSource));
        QVERIFY(!m_doc->firstBlock().layout()->formats().isEmpty());
    }
    void cleanup() { delete m_edit; }

    void tokenFormatsDiffer() {
        const Token all[] = {Token::Keyword, Token::Type, Token::Number, Token::String, Token::Preprocessor, Token::Comment};
        for (Token a : all)
            for (Token b : all)
                if (a != b) QVERIFY(m_highlighter->formatOf(a) != m_highlighter->formatOf(b));
    }

    void cudaQualifiersAndBuiltinsAreKeywords() {
        QVERIFY(is(1, QStringLiteral("__global__"), Token::Keyword));
        QVERIFY(is(1, QStringLiteral("__restrict__"), Token::Keyword));
        QVERIFY(is(1, QStringLiteral("const"), Token::Keyword));
        QVERIFY(is(2, QStringLiteral("__shared__"), Token::Keyword));
        QVERIFY(is(3, QStringLiteral("threadIdx"), Token::Keyword));
        QVERIFY(is(6, QStringLiteral("__syncthreads"), Token::Keyword));
    }

    void typesNumbersAndStrings() {
        QVERIFY(is(1, QStringLiteral("void"), Token::Type));
        QVERIFY(is(1, QStringLiteral("float"), Token::Type));
        QVERIFY(is(2, QStringLiteral("32"), Token::Number));
        QVERIFY(is(5, QStringLiteral("1e-5f"), Token::Number));
        QVERIFY(is(5, QStringLiteral("0x1Fu"), Token::Number));
        QVERIFY(is(4, QStringLiteral("\"__device__ in a string\""), Token::String));
        // Plain identifiers stay unformatted.
        QCOMPARE(formatOfWord(1, QStringLiteral("rms")), QTextCharFormat());
        QCOMPARE(formatOfWord(3, QStringLiteral(" i ")), QTextCharFormat());
    }

    void blockCommentSpansLines() {
        QVERIFY(is(2, QStringLiteral("/* a block comment"), Token::Comment));
        // The next line is still inside the comment: its keyword is comment-coloured...
        QVERIFY(is(3, QStringLiteral("spanning __syncthreads lines */"), Token::Comment));
        // ...until the comment closes; code after it is highlighted again.
        QVERIFY(is(3, QStringLiteral("int"), Token::Type));
        QVERIFY(is(3, QStringLiteral("threadIdx"), Token::Keyword));
        QCOMPARE(m_doc->findBlockByNumber(2).userState(), 1);
        QCOMPARE(m_doc->findBlockByNumber(3).userState(), 0);
    }

    void editingReopensAndClosesTheComment() {
        // Remove the closing "*/": every later line becomes comment.
        QTextCursor cursor(m_doc->findBlockByNumber(3));
        const int at = int(cursor.block().text().indexOf(QStringLiteral("*/")));
        cursor.setPosition(cursor.block().position() + at);
        cursor.setPosition(cursor.position() + 2, QTextCursor::KeepAnchor);
        cursor.removeSelectedText();
        QVERIFY(is(6, QStringLiteral("__syncthreads"), Token::Comment));
        QVERIFY(is(5, QStringLiteral("float"), Token::Comment));
    }

    void lineCommentsAndPreprocessor() {
        QVERIFY(is(0, QStringLiteral("#include <cuda_fp16.h>"), Token::Preprocessor));
        QVERIFY(is(0, QStringLiteral("// half"), Token::Comment));
        QVERIFY(is(6, QStringLiteral("// done"), Token::Comment));
    }

    void factoryAttachesAHighlighterAndNamesIt() {
        QTextDocument doc;
        QSyntaxHighlighter* h = createSourceHighlighter(&doc);
        QVERIFY(h != nullptr);
        QCOMPARE(h->document(), &doc);
        QCOMPARE(h->parent(), &doc);
        const QString name = highlighterName();
        if (name == QStringLiteral("built-in")) {
            QVERIFY(qobject_cast<BuiltinCudaHighlighter*>(h) != nullptr);
        } else {
            QVERIFY(name.startsWith(QStringLiteral("KF6SyntaxHighlighting ")));
            QVERIFY(qobject_cast<BuiltinCudaHighlighter*>(h) == nullptr);
        }
    }
};

QTEST_MAIN(TestBuiltinCudaHighlighter)
#include "test_builtin_cuda_highlighter.moc"
