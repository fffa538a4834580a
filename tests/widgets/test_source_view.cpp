// Tests widgets/source_view.cpp: read-only by default, monospace, no wrapping, highlighter attached,
// gutter shows line numbers or custom labels and grows with them.
#include "widgets/source_view.h"

#include <QFontInfo>
#include <QSyntaxHighlighter>
#include <QtTest>

using namespace ak;

class TestSourceView : public QObject {
    Q_OBJECT
private slots:
    void isAReadOnlyMonospaceCodeView() {
        SourceView view;
        QVERIFY(view.isReadOnly());
        QVERIFY(QFontInfo(view.font()).fixedPitch());
        QCOMPARE(view.lineWrapMode(), QPlainTextEdit::NoWrap);
        QVERIFY(view.highlighter() != nullptr);
        QCOMPARE(view.highlighter()->document(), view.document());
    }

    void setSourceReplacesTextAndCustomLabels() {
        SourceView view;
        view.setSource(QStringLiteral("a\nb"));
        view.setGutterLabels({QStringLiteral("x"), QStringLiteral("y")});
        view.setSource(QStringLiteral("one\ntwo\nthree"));
        QCOMPARE(view.toPlainText(), QStringLiteral("one\ntwo\nthree"));
        QCOMPARE(view.blockCount(), 3);
        QVERIFY(view.gutterLabels().isEmpty());
    }

    void gutterWidensForWiderLabels() {
        SourceView view;
        view.setSource(QStringLiteral("x"));
        const int lineNumbers = view.gutterWidth();
        view.setGutterLabels({QStringLiteral("1234 1234 +")});
        QVERIFY(view.gutterWidth() > lineNumbers);
        QVERIFY(view.viewport()->x() >= view.gutterWidth());  // the text starts right of the gutter
    }

    void editableModeHighlightsTheCurrentLine() {
        SourceView view;
        view.setSource(QStringLiteral("int a;\nint b;"));
        QVERIFY(view.extraSelections().isEmpty());
        view.setReadOnly(false);
        view.moveCursor(QTextCursor::End);
        QCOMPARE(view.extraSelections().size(), 1);
        QCOMPARE(view.extraSelections().first().cursor.blockNumber(), 1);
        QTest::keyClicks(&view, QStringLiteral(" // edited"));
        QCOMPARE(view.toPlainText(), QStringLiteral("int a;\nint b; // edited"));
    }
};

QTEST_MAIN(TestSourceView)
#include "test_source_view.moc"
