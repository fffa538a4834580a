// Tests widgets/kernel_editor.cpp: shows the best source editable, tracks "modified" against it,
// emits runEditRequested with the edited text and description, reverts, keeps an edit when a newer
// best arrives, and switches kernels.
#include "widgets/kernel_editor.h"
#include "widgets/source_view.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

using namespace ak;

namespace {
const QString kBest = QStringLiteral("// @autokernel type rmsnorm\n__global__ void k() {}\n");
const QString kNewBest = QStringLiteral("// @autokernel type rmsnorm\n__global__ void k() { /* v2 */ }\n");
}  // namespace

class TestKernelEditor : public QObject {
    Q_OBJECT
private slots:
    void showsTheBestSourceEditableAndUnmodified() {
        KernelEditor editor;
        QSignalSpy selected(&editor, &KernelEditor::kernelSelected);
        editor.setKernels({QStringLiteral("rmsnorm"), QStringLiteral("softmax")});
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.first().first().toString(), QStringLiteral("rmsnorm"));
        editor.setBestSource(QStringLiteral("rmsnorm"), kBest, 7);
        QCOMPARE(editor.sourceView()->toPlainText(), kBest);
        QVERIFY(!editor.sourceView()->isReadOnly());
        QVERIFY(!editor.isModified());
        QVERIFY(!editor.runButton()->isEnabled());  // nothing to run yet
        QVERIFY(!editor.revertButton()->isEnabled());
        QVERIFY(editor.modifiedLabel()->text().contains(QLatin1String("7")));
    }

    void typingMarksModifiedAndRunEmitsTheEditedText() {
        KernelEditor editor;
        editor.setKernels({QStringLiteral("rmsnorm")});
        editor.setBestSource(QStringLiteral("rmsnorm"), kBest, 3);
        QSignalSpy modified(&editor, &KernelEditor::modifiedChanged);
        QSignalSpy run(&editor, &KernelEditor::runEditRequested);

        editor.sourceView()->moveCursor(QTextCursor::End);
        QTest::keyClicks(editor.sourceView(), QStringLiteral("// unrolled"));
        QVERIFY(editor.isModified());
        QCOMPARE(modified.count(), 1);
        QCOMPARE(modified.first().first().toBool(), true);
        QCOMPARE(editor.modifiedLabel()->text(), QStringLiteral("modified"));
        QVERIFY(editor.runButton()->isEnabled());
        QVERIFY(!editor.kernelCombo()->isEnabled());  // no switching away from an edit

        editor.descriptionEdit()->setText(QStringLiteral("  unroll   by 4 "));
        QTest::mouseClick(editor.runButton(), Qt::LeftButton);
        QCOMPARE(run.count(), 1);
        const QList<QVariant> args = run.first();
        QCOMPARE(args.at(0).toString(), QStringLiteral("rmsnorm"));
        QCOMPARE(args.at(1).toString(), kBest + QStringLiteral("// unrolled"));
        QCOMPARE(args.at(2).toString(), QStringLiteral("unroll by 4"));
        QVERIFY(!editor.statusLabel()->text().isEmpty());
    }

    void emptyDescriptionBecomesUserEdit() {
        KernelEditor editor;
        editor.setKernels({QStringLiteral("rmsnorm")});
        editor.setBestSource(QStringLiteral("rmsnorm"), kBest);
        QSignalSpy run(&editor, &KernelEditor::runEditRequested);
        editor.sourceView()->setPlainText(kNewBest);
        QTest::keyClick(editor.descriptionEdit(), Qt::Key_Return);
        QCOMPARE(run.count(), 1);
        QCOMPARE(run.first().at(1).toString(), kNewBest);
        QCOMPARE(run.first().at(2).toString(), QStringLiteral("user edit"));
    }

    void editingBackToTheBestIsNotModified() {
        KernelEditor editor;
        editor.setKernels({QStringLiteral("rmsnorm")});
        editor.setBestSource(QStringLiteral("rmsnorm"), kBest);
        editor.sourceView()->moveCursor(QTextCursor::End);
        QTest::keyClicks(editor.sourceView(), QStringLiteral("x"));
        QVERIFY(editor.isModified());
        QTest::keyClick(editor.sourceView(), Qt::Key_Backspace);
        QVERIFY(!editor.isModified());
        QVERIFY(!editor.runButton()->isEnabled());
    }

    void revertRestoresTheBest() {
        KernelEditor editor;
        editor.setKernels({QStringLiteral("rmsnorm")});
        editor.setBestSource(QStringLiteral("rmsnorm"), kBest);
        editor.sourceView()->setPlainText(QStringLiteral("broken"));
        QVERIFY(editor.isModified());
        QSignalSpy modified(&editor, &KernelEditor::modifiedChanged);
        QTest::mouseClick(editor.revertButton(), Qt::LeftButton);
        QCOMPARE(editor.source(), kBest);
        QVERIFY(!editor.isModified());
        QCOMPARE(modified.count(), 1);
        QCOMPARE(modified.first().first().toBool(), false);
    }

    void aNewerBestReplacesAnUnmodifiedText() {
        KernelEditor editor;
        editor.setKernels({QStringLiteral("rmsnorm")});
        editor.setBestSource(QStringLiteral("rmsnorm"), kBest, 1);
        editor.setBestSource(QStringLiteral("rmsnorm"), kNewBest, 4);
        QCOMPARE(editor.source(), kNewBest);
        QCOMPARE(editor.baseExperiment(), 4);
        QVERIFY(editor.noticeLabel()->isHidden());
    }

    void aNewerBestKeepsTheEditAndSaysSo() {
        KernelEditor editor;
        editor.setKernels({QStringLiteral("rmsnorm")});
        editor.setBestSource(QStringLiteral("rmsnorm"), kBest, 1);
        editor.sourceView()->setPlainText(QStringLiteral("my edit"));
        editor.setBestSource(QStringLiteral("rmsnorm"), kNewBest, 9);
        QCOMPARE(editor.source(), QStringLiteral("my edit"));
        QVERIFY(editor.isModified());
        QVERIFY(!editor.noticeLabel()->isHidden());
        QVERIFY(editor.noticeLabel()->text().contains(QLatin1String("9")));
        editor.revertEdit();
        QCOMPARE(editor.source(), kNewBest);  // revert loads the newer best
        QVERIFY(editor.noticeLabel()->isHidden());
    }

    void sourcesOfOtherKernelsAreIgnored() {
        KernelEditor editor;
        editor.setKernels({QStringLiteral("rmsnorm"), QStringLiteral("softmax")});
        editor.setBestSource(QStringLiteral("rmsnorm"), kBest);
        editor.setBestSource(QStringLiteral("softmax"), QStringLiteral("softmax source"));
        QCOMPARE(editor.source(), kBest);
    }

    void choosingAnotherKernelAsksForItsBest() {
        KernelEditor editor;
        editor.setKernels({QStringLiteral("rmsnorm"), QStringLiteral("softmax")});
        editor.setBestSource(QStringLiteral("rmsnorm"), kBest);
        QSignalSpy selected(&editor, &KernelEditor::kernelSelected);
        editor.kernelCombo()->setCurrentIndex(1);
        emit editor.kernelCombo()->activated(1);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.first().first().toString(), QStringLiteral("softmax"));
        QCOMPARE(editor.kernelName(), QStringLiteral("softmax"));
        QVERIFY(editor.source().isEmpty());           // until the window delivers it
        QVERIFY(!editor.sourceView()->isEnabled());
        editor.setBestSource(QStringLiteral("softmax"), QStringLiteral("softmax source"), 2);
        QCOMPARE(editor.source(), QStringLiteral("softmax source"));
        QVERIFY(editor.sourceView()->isEnabled());
    }

    void runBlockedShowsWhy() {
        KernelEditor editor;
        editor.setKernels({QStringLiteral("rmsnorm")});
        editor.setBestSource(QStringLiteral("rmsnorm"), kBest);
        editor.sourceView()->setPlainText(QStringLiteral("edit"));
        editor.setRunAllowed(false, QStringLiteral("another process is writing this session"));
        QVERIFY(!editor.runButton()->isEnabled());
        QCOMPARE(editor.runButton()->toolTip(), QStringLiteral("another process is writing this session"));
        QSignalSpy run(&editor, &KernelEditor::runEditRequested);
        QTest::keyClick(editor.descriptionEdit(), Qt::Key_Return);
        QCOMPARE(run.count(), 0);
        editor.setRunAllowed(true);
        QVERIFY(editor.runButton()->isEnabled());
    }

    void keepsTheKernelWhenTheListIsRefreshed() {
        KernelEditor editor;
        editor.setKernels({QStringLiteral("rmsnorm"), QStringLiteral("softmax")});
        editor.selectKernel(QStringLiteral("softmax"));
        editor.setBestSource(QStringLiteral("softmax"), QStringLiteral("s"));
        QSignalSpy selected(&editor, &KernelEditor::kernelSelected);
        editor.setKernels({QStringLiteral("matmul"), QStringLiteral("softmax")});
        QCOMPARE(editor.kernelName(), QStringLiteral("softmax"));
        QCOMPARE(editor.source(), QStringLiteral("s"));
        QCOMPARE(selected.count(), 0);
        editor.setKernels({});
        QVERIFY(editor.kernelName().isEmpty());
        QVERIFY(editor.source().isEmpty());
    }
};

QTEST_MAIN(TestKernelEditor)
#include "test_kernel_editor.moc"
