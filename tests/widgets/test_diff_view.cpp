// Tests widgets/diff_view.cpp: exact rendered hunks (headers, gutters, +/- lines) for a known pair
// of texts, the whole-file toggle, identical and empty texts, and the line colours and gutter labels
// the text view gets.
#include "widgets/diff_view.h"
#include "widgets/outcome_style.h"
#include "widgets/source_view.h"

#include <QCheckBox>
#include <QTextBlock>
#include <QtTest>

using namespace ak;

namespace {

QString oldText() {
    return QStringLiteral(
        "#include <cuda_fp16.h>\n"
        "__global__ void k(float* x) {\n"
        "    int i = threadIdx.x;\n"
        "    float v = x[i];\n"
        "    v = v * 2.0f;\n"
        "    x[i] = v;\n"
        "    // a\n"
        "    // b\n"
        "    // c\n"
        "    // d\n"
        "    // e\n"
        "    // f (removed)\n"
        "    // g\n"
        "}\n");
}

QString newText() {
    QString t = oldText();
    t.replace(QStringLiteral("float* x"), QStringLiteral("float* __restrict__ x"));
    t.remove(QStringLiteral("    // f (removed)\n"));
    return t;
}

}  // namespace

class TestDiffView : public QObject {
    Q_OBJECT
private slots:
    void changesOnlyShowsTwoHunksWithThreeLinesOfContext() {
        DiffView view;
        view.setTexts(oldText(), newText(), QStringLiteral("exp 3"), QStringLiteral("exp 4"));
        QVERIFY(!view.wholeFile());
        QCOMPARE(view.hunkCount(), 2);
        QCOMPARE(view.insertedCount(), 1);
        QCOMPARE(view.deletedCount(), 2);
        const QStringList expected{
            QStringLiteral("@@ -1,5 +1,5 @@"),
            QStringLiteral("   1  1 #include <cuda_fp16.h>"),
            QStringLiteral("-  2    __global__ void k(float* x) {"),
            QStringLiteral("+     2 __global__ void k(float* __restrict__ x) {"),
            QStringLiteral("   3  3     int i = threadIdx.x;"),
            QStringLiteral("   4  4     float v = x[i];"),
            QStringLiteral("   5  5     v = v * 2.0f;"),
            QStringLiteral("@@ -9,6 +9,5 @@"),
            QStringLiteral("   9  9     // c"),
            QStringLiteral("  10 10     // d"),
            QStringLiteral("  11 11     // e"),
            QStringLiteral("- 12        // f (removed)"),
            QStringLiteral("  13 12     // g"),
            QStringLiteral("  14 13 }"),
        };
        QCOMPARE(view.renderedLines(), expected);
    }

    void textViewHoldsCodeWithGutterLabelsAndLineColours() {
        DiffView view;
        view.setTexts(oldText(), newText(), QStringLiteral("a"), QStringLiteral("b"));
        SourceView* text = view.textView();
        QCOMPARE(text->blockCount(), 14);
        QCOMPARE(text->document()->findBlockByNumber(3).text(),
                 QStringLiteral("__global__ void k(float* __restrict__ x) {"));
        QCOMPARE(text->gutterLabels().at(0), QString());  // hunk header
        QCOMPARE(text->gutterLabels().at(2), QStringLiteral(" 2    -"));
        QCOMPARE(text->gutterLabels().at(3), QStringLiteral("    2 +"));
        QCOMPARE(text->gutterLabels().at(4), QStringLiteral(" 3  3  "));

        QMap<int, QColor> backgrounds;
        for (const QTextEdit::ExtraSelection& s : text->extraSelections())
            if (s.format.hasProperty(QTextFormat::BackgroundBrush))
                backgrounds.insert(s.cursor.blockNumber(), s.format.background().color());
        QCOMPARE(backgrounds.value(0), OutcomeStyle::hunkHeaderBackground());
        QCOMPARE(backgrounds.value(2), OutcomeStyle::deletedLineBackground());
        QCOMPARE(backgrounds.value(3), OutcomeStyle::insertedLineBackground());
        QCOMPARE(backgrounds.value(7), OutcomeStyle::hunkHeaderBackground());
        QCOMPARE(backgrounds.value(11), OutcomeStyle::deletedLineBackground());
        QCOMPARE(backgrounds.size(), 5);  // context lines keep the normal background
        QVERIFY(text->isReadOnly());
    }

    void wholeFileShowsOneHunkWithEveryLine() {
        DiffView view;
        view.setTexts(oldText(), newText(), QString(), QString());
        view.setWholeFile(true);
        QCOMPARE(view.hunkCount(), 1);
        const QStringList lines = view.renderedLines();
        QCOMPARE(lines.size(), 1 + 14 + 1);  // header, 14 old lines, 1 inserted
        QCOMPARE(lines.first(), QStringLiteral("@@ -1,14 +1,13 @@"));
        QVERIFY(lines.contains(QStringLiteral("   7  7     // a")));
        QCOMPARE(lines.last(), QStringLiteral("  14 13 }"));
        // The toggle is the checkbox; switching back restores the two hunks.
        QCheckBox* box = view.findChild<QCheckBox*>();
        QVERIFY(box != nullptr && box->isChecked());
        box->click();
        QVERIFY(!view.wholeFile());
        QCOMPARE(view.hunkCount(), 2);
    }

    void identicalTextsHaveNoHunks() {
        DiffView view;
        view.setTexts(oldText(), oldText(), QString(), QString());
        QCOMPARE(view.hunkCount(), 0);
        QVERIFY(view.renderedLines().isEmpty());
        view.setWholeFile(true);
        QCOMPARE(view.hunkCount(), 0);
        QCOMPARE(view.renderedLines().size(), 14);
        QCOMPARE(view.renderedLines().first(), QStringLiteral("   1  1 #include <cuda_fp16.h>"));
        QVERIFY(view.textView()->extraSelections().isEmpty());
    }

    void newFileIsAllInsertions() {
        DiffView view;
        view.setTexts(QString(), QStringLiteral("int a;\nint b;\n"), QString(), QString());
        QCOMPARE(view.renderedLines(),
                 (QStringList{QStringLiteral("@@ -0,0 +1,2 @@"), QStringLiteral("+   1 int a;"),
                              QStringLiteral("+   2 int b;")}));
        view.clear();
        QCOMPARE(view.hunkCount(), 0);
        QVERIFY(view.renderedLines().isEmpty());
        QCOMPARE(view.textView()->toPlainText(), QString());
    }
};

QTEST_MAIN(TestDiffView)
#include "test_diff_view.moc"
