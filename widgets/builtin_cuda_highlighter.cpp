#include "widgets/builtin_cuda_highlighter.h"

#include <QFont>

#include <algorithm>
#include <vector>

namespace ak {
namespace {

enum BlockState { Normal = 0, InBlockComment = 1 };

// Sorted once; looked up with QStringView so highlighting allocates nothing per identifier.
std::vector<QString> sortedWords(std::initializer_list<const char*> words) {
    std::vector<QString> out;
    out.reserve(words.size());
    for (const char* w : words) out.push_back(QString::fromLatin1(w));
    std::sort(out.begin(), out.end());
    return out;
}

const std::vector<QString>& keywords() {
    static const std::vector<QString> words = sortedWords({
        // C++
        "alignas", "alignof", "asm", "auto", "break", "case", "catch", "class", "const", "consteval",
        "constexpr", "constinit", "const_cast", "continue", "decltype", "default", "delete", "do",
        "dynamic_cast", "else", "enum", "explicit", "extern", "false", "for", "friend", "goto", "if", "inline",
        "mutable", "namespace", "new", "noexcept", "nullptr", "operator", "private", "protected", "public",
        "register", "reinterpret_cast", "return", "sizeof", "static", "static_assert", "static_cast", "struct",
        "switch", "template", "this", "throw", "true", "try", "typedef", "typename", "union", "using",
        "virtual", "volatile", "while",
        // CUDA qualifiers and attributes
        "__global__", "__device__", "__host__", "__shared__", "__constant__", "__managed__", "__restrict__",
        "__forceinline__", "__noinline__", "__launch_bounds__", "__align__", "__grid_constant__",
        // CUDA built-in variables
        "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize",
        // CUDA synchronisation, warp and memory intrinsics
        "__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or", "__syncwarp",
        "__threadfence", "__threadfence_block", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
        "__shfl_xor_sync", "__ballot_sync", "__any_sync", "__all_sync", "__activemask", "__ldg", "__ldcg",
        "__stcg", "atomicAdd", "atomicSub", "atomicMax", "atomicMin", "atomicCAS", "atomicExch",
    });
    return words;
}

const std::vector<QString>& types() {
    static const std::vector<QString> words = sortedWords({
        "void", "bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "size_t",
        "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
        "half", "half2", "__half", "__half2", "__nv_bfloat16", "__nv_bfloat162", "nv_bfloat16", "nv_bfloat162",
        "char2", "char4", "uchar4", "short2", "int2", "int3", "int4", "uint2", "uint4", "float2", "float3",
        "float4", "double2", "dim3", "cudaStream_t",
    });
    return words;
}

bool contains(const std::vector<QString>& sorted, QStringView word) {
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), word,
                                     [](const QString& a, QStringView b) { return QStringView(a) < b; });
    return it != sorted.end() && QStringView(*it) == word;
}

bool isIdentifierStart(QChar c) { return c.isLetter() || c == QLatin1Char('_'); }
bool isIdentifierPart(QChar c) { return c.isLetterOrNumber() || c == QLatin1Char('_'); }

QTextCharFormat makeFormat(const QColor& color, bool bold = false, bool italic = false) {
    QTextCharFormat f;
    f.setForeground(color);
    if (bold) f.setFontWeight(QFont::Bold);
    if (italic) f.setFontItalic(true);
    return f;
}

}  // namespace

BuiltinCudaHighlighter::BuiltinCudaHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {
    m_formats[static_cast<int>(Token::Keyword)] = makeFormat(QColor(0x1f, 0x3f, 0x9f), true);
    m_formats[static_cast<int>(Token::Type)] = makeFormat(QColor(0x00, 0x6e, 0x7a));
    m_formats[static_cast<int>(Token::Number)] = makeFormat(QColor(0x9c, 0x27, 0xb0));
    m_formats[static_cast<int>(Token::String)] = makeFormat(QColor(0x2e, 0x7d, 0x32));
    m_formats[static_cast<int>(Token::Preprocessor)] = makeFormat(QColor(0xa0, 0x52, 0x00));
    m_formats[static_cast<int>(Token::Comment)] = makeFormat(QColor(0x75, 0x75, 0x75), false, true);
}

QTextCharFormat BuiltinCudaHighlighter::formatOf(Token token) const { return m_formats[static_cast<int>(token)]; }

void BuiltinCudaHighlighter::highlightBlock(const QString& text) {
    const qsizetype n = text.size();
    qsizetype i = 0;
    setCurrentBlockState(Normal);

    auto blockCommentFrom = [&](qsizetype start, qsizetype searchFrom) {
        const qsizetype end = text.indexOf(QLatin1String("*/"), searchFrom);
        if (end < 0) {
            setFormat(int(start), int(n - start), m_formats[static_cast<int>(Token::Comment)]);
            setCurrentBlockState(InBlockComment);
            return n;
        }
        setFormat(int(start), int(end + 2 - start), m_formats[static_cast<int>(Token::Comment)]);
        return end + 2;
    };

    if (previousBlockState() == InBlockComment) {
        i = blockCommentFrom(0, 0);
        if (i >= n) return;
    }

    // A preprocessor line: '#' as the first non-blank character; highlighted up to a comment.
    {
        qsizetype first = i;
        while (first < n && text.at(first).isSpace()) ++first;
        if (first < n && text.at(first) == QLatin1Char('#')) {
            qsizetype end = first;
            while (end < n && !(text.at(end) == QLatin1Char('/') && end + 1 < n &&
                                (text.at(end + 1) == QLatin1Char('/') || text.at(end + 1) == QLatin1Char('*'))))
                ++end;
            setFormat(int(first), int(end - first), m_formats[static_cast<int>(Token::Preprocessor)]);
            i = end;
        }
    }

    while (i < n) {
        const QChar c = text.at(i);
        const QChar next = i + 1 < n ? text.at(i + 1) : QChar();
        if (c == QLatin1Char('/') && next == QLatin1Char('/')) {
            setFormat(int(i), int(n - i), m_formats[static_cast<int>(Token::Comment)]);
            return;
        }
        if (c == QLatin1Char('/') && next == QLatin1Char('*')) {
            i = blockCommentFrom(i, i + 2);
            continue;
        }
        if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            qsizetype j = i + 1;
            while (j < n && text.at(j) != c) j += (text.at(j) == QLatin1Char('\\')) ? 2 : 1;
            j = std::min(j + 1, n);
            setFormat(int(i), int(j - i), m_formats[static_cast<int>(Token::String)]);
            i = j;
            continue;
        }
        if (c.isDigit() || (c == QLatin1Char('.') && next.isDigit())) {
            qsizetype j = i + 1;
            while (j < n) {
                const QChar d = text.at(j);
                const QChar prev = text.at(j - 1);
                const bool exponentSign = (d == QLatin1Char('+') || d == QLatin1Char('-')) &&
                                          (prev == QLatin1Char('e') || prev == QLatin1Char('E') ||
                                           prev == QLatin1Char('p') || prev == QLatin1Char('P')) &&
                                          !(text.at(i) == QLatin1Char('0') && j > i + 1 &&
                                            (text.at(i + 1) == QLatin1Char('x') || text.at(i + 1) == QLatin1Char('X')) &&
                                            (prev == QLatin1Char('e') || prev == QLatin1Char('E')));
                if (!(isIdentifierPart(d) || d == QLatin1Char('.') || d == QLatin1Char('\'') || exponentSign)) break;
                ++j;
            }
            setFormat(int(i), int(j - i), m_formats[static_cast<int>(Token::Number)]);
            i = j;
            continue;
        }
        if (isIdentifierStart(c)) {
            qsizetype j = i + 1;
            while (j < n && isIdentifierPart(text.at(j))) ++j;
            const QStringView word = QStringView(text).mid(i, j - i);
            if (contains(keywords(), word)) setFormat(int(i), int(j - i), m_formats[static_cast<int>(Token::Keyword)]);
            else if (contains(types(), word)) setFormat(int(i), int(j - i), m_formats[static_cast<int>(Token::Type)]);
            i = j;
            continue;
        }
        ++i;
    }
}

}  // namespace ak
