// MainWindow's agent loop: the agent panel and kernel editor docks, loop experiments reaching the
// table and timeline exactly once, one-shot edits and overrides when no loop runs, the context menu's
// overrides with their reasons, and closing the window while a loop runs (scripted evaluator and agent).
#include "app/loop_worker.h"
#include "app/main_window.h"
#include "sample_session.h"
#include "scripted_loop.h"
#include "widgets/agent_panel.h"
#include "widgets/experiment_filter_model.h"
#include "widgets/experiment_table_model.h"
#include "widgets/kernel_editor.h"
#include "widgets/source_view.h"
#include "widgets/timeline_plot.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <functional>
#include <memory>
#include <set>

using namespace ak;

namespace {

struct Fixture {
    std::unique_ptr<MainWindow> window;
    std::shared_ptr<test::ScriptedEvaluator> evaluator = std::make_shared<test::ScriptedEvaluator>();
    std::shared_ptr<std::atomic<int>> proposals = std::make_shared<std::atomic<int>>(0);
    QStringList messages;
};

std::unique_ptr<Fixture> makeFixture()
{
    auto f = std::make_unique<Fixture>();
    MainWindow::Options options;
    options.useSettings = false;
    f->window = std::make_unique<MainWindow>(options);
    f->window->setMessageHandler([m = &f->messages](const QString& title, const QString& text) {
        m->append(title + QStringLiteral(": ") + text);
    });
    const std::shared_ptr<test::ScriptedEvaluator> evaluator = f->evaluator;
    const std::shared_ptr<std::atomic<int>> proposals = f->proposals;
    f->window->loopWorker()->setEvaluatorFactory(
        [evaluator](const QString&) -> std::shared_ptr<Evaluator> { return evaluator; });
    f->window->loopWorker()->setAgentFactory([proposals](const AgentSettings&) -> std::unique_ptr<Agent> {
        return std::make_unique<test::ScriptedAgent>(proposals);
    });
    f->window->resize(1600, 1000);
    f->window->show();
    return f;
}

bool openAndWait(MainWindow& window, const QString& dir)
{
    QSignalSpy loaded(&window, &MainWindow::sessionLoaded);
    window.openSession(dir);
    return QTest::qWaitFor([&] { return !loaded.isEmpty(); }, 15000) &&
           QTest::qWaitFor([&] { return window.isSettled(); }, 15000);
}

QString fileText(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

// Each experiment number appears once in the window's list and in the table.
bool noDuplicates(const MainWindow& window)
{
    std::set<int> numbers;
    for (const Experiment& e : window.experiments()) {
        if (!numbers.insert(e.number).second)
            return false;
    }
    return int(numbers.size()) == window.tableModel()->rowCount();
}

struct MenuEntry {
    bool enabled = false;
    QString toolTip;
};

// Runs `open` (which pops up a menu) and reads the menu's actions (text -> entry), then closes it.
QHash<QString, MenuEntry> menuOpenedBy(const std::function<void()>& open)
{
    QHash<QString, MenuEntry> entries;
    QTimer::singleShot(0, [&entries] {
        auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
        if (!menu)
            return;
        for (QAction* action : menu->actions()) {
            if (!action->text().isEmpty())
                entries.insert(action->text(), {action->isEnabled(), action->toolTip()});
        }
        menu->close();
    });
    open();
    return entries;
}

// The table's context menu on experiment `number`.
QHash<QString, MenuEntry> contextMenuOf(MainWindow& window, int number)
{
    return menuOpenedBy([&window, number] {
        const int row = window.filterModel()->proxyRowOfExperiment(number);
        const QModelIndex index = window.filterModel()->index(row, ExperimentTableModel::DescriptionColumn);
        window.tableView()->scrollTo(index);
        emit window.tableView()->customContextMenuRequested(window.tableView()->visualRect(index).center());
    });
}

// The same menu, asked for by a right click on the timeline's point of experiment `number`.
QHash<QString, MenuEntry> timelineMenuOf(MainWindow& window, int number)
{
    return menuOpenedBy([&window, number] {
        emit window.timeline()->experimentContextMenuRequested(number, window.mapToGlobal(QPoint(10, 10)));
    });
}

}  // namespace

class TestMainWindowLoop : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void the_docks_need_a_session_and_show_the_current_best();
    void a_loop_started_from_the_panel_fills_table_and_timeline_once();
    void an_edit_runs_as_a_one_shot_experiment_when_no_loop_runs();
    void overrides_run_one_shot_when_no_loop_runs();
    void the_context_menu_offers_overrides_with_reasons();
    void closing_the_window_with_a_running_loop_does_not_hang();

private:
    std::unique_ptr<QTemporaryDir> m_root;
    QString m_dir;
};

void TestMainWindowLoop::init()
{
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    m_dir = m_root->filePath(QStringLiteral("session"));
    test::createSampleSession(test::toPath(m_dir));
}

void TestMainWindowLoop::cleanup()
{
    QTRY_COMPARE_WITH_TIMEOUT(LoopWorker::liveThreads(), 0, 10000);
}

void TestMainWindowLoop::the_docks_need_a_session_and_show_the_current_best()
{
    auto f = makeFixture();
    MainWindow& w = *f->window;
    QVERIFY(w.agentDock()->isVisible() || w.kernelEditorDock()->isVisible());  // tabbed: one shows
    QVERIFY(!w.agentPanel()->startButton()->isEnabled());
    QCOMPARE(w.agentPanel()->startButton()->toolTip(), QStringLiteral("Open a session first."));
    QCOMPARE(w.loopStateLabel()->text(), QStringLiteral("Loop: Idle"));

    QVERIFY(openAndWait(w, m_dir));
    QVERIFY(w.agentPanel()->startButton()->isEnabled());
    QCOMPARE(w.kernelEditor()->kernels(), (QStringList{QStringLiteral("rmsnorm"), QStringLiteral("softmax")}));
    // The editor shows rmsnorm's current best (experiment 5), as the session's work tree holds it.
    QCOMPARE(w.kernelEditor()->kernelName(), QStringLiteral("rmsnorm"));
    QCOMPARE(w.kernelEditor()->source(), fileText(m_dir + QStringLiteral("/kernels/rmsnorm.cu")));
    QCOMPARE(w.kernelEditor()->baseExperiment(), test::kBestKeptExperiment);
    QVERIFY(!w.kernelEditor()->source().isEmpty());
    QVERIFY(w.overrideBlockedReason().isEmpty());
}

void TestMainWindowLoop::a_loop_started_from_the_panel_fills_table_and_timeline_once()
{
    auto f = makeFixture();
    MainWindow& w = *f->window;
    QVERIFY(openAndWait(w, m_dir));
    f->evaluator->setDelayMs(100);
    QSignalSpy finished(w.loopWorker(), &LoopWorker::runFinished);
    w.agentPanel()->budgetExperimentsSpin()->setValue(3);
    QTest::mouseClick(w.agentPanel()->startButton(), Qt::LeftButton);
    QTRY_VERIFY(w.loopStateLabel()->text().startsWith(QStringLiteral("Loop: Running")));
    QVERIFY(!w.agentPanel()->startButton()->isEnabled());
    QVERIFY(w.agentPanel()->stopButton()->isEnabled());
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.first().first().toString(), QString());
    QTRY_COMPARE_WITH_TIMEOUT(w.tableModel()->rowCount(), test::kSampleExperimentCount + 3, 10000);
    QCOMPARE(w.loopStateLabel()->text(), QStringLiteral("Loop: Finished"));
    QVERIFY(w.agentPanel()->startButton()->isEnabled());
    // The file watcher and the loop's own notice both asked for a refresh: still one row each.
    QTest::qWait(600);
    QCOMPARE(w.tableModel()->rowCount(), test::kSampleExperimentCount + 3);
    QVERIFY(noDuplicates(w));
    int kept = 0;
    for (const QPointF& p : w.timeline()->pointsOf(TimelinePlot::Series::Kept))
        kept += p.x() >= test::kSampleExperimentCount;
    QCOMPARE(kept, 3);
    QVERIFY(w.agentPanel()->logView()->toPlainText().contains(QStringLiteral("#9")));
    QVERIFY(f->messages.isEmpty());
}

void TestMainWindowLoop::an_edit_runs_as_a_one_shot_experiment_when_no_loop_runs()
{
    auto f = makeFixture();
    MainWindow& w = *f->window;
    QVERIFY(openAndWait(w, m_dir));
    KernelEditor* editor = w.kernelEditor();
    const QString edited = editor->source() + QStringLiteral("// latency 40\n");
    editor->sourceView()->setPlainText(edited);
    editor->descriptionEdit()->setText(QStringLiteral("hand-unrolled"));
    QVERIFY(editor->runButton()->isEnabled());
    QSignalSpy finished(w.loopWorker(), &LoopWorker::runFinished);
    QTest::mouseClick(editor->runButton(), Qt::LeftButton);
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.first().first().toString(), QString());
    QTRY_COMPARE_WITH_TIMEOUT(w.tableModel()->rowCount(), test::kSampleExperimentCount + 1, 10000);
    const Experiment& e = w.experiments().back();
    QCOMPARE(e.agent, std::string("user"));
    QCOMPARE(e.description, std::string("hand-unrolled"));
    QCOMPARE(e.outcome, Outcome::Kept);
    QCOMPARE(f->evaluator->requests(), 1);
    QCOMPARE(*f->proposals, 0);
    QVERIFY(editor->statusLabel()->text().contains(QStringLiteral("kept")));
    // The kept edit is the new best: the editor is no longer modified.
    QTRY_VERIFY(!editor->isModified());
    QCOMPARE(editor->baseExperiment(), e.number);
}

void TestMainWindowLoop::overrides_run_one_shot_when_no_loop_runs()
{
    auto f = makeFixture();
    MainWindow& w = *f->window;
    QVERIFY(openAndWait(w, m_dir));
    QSignalSpy finished(w.loopWorker(), &LoopWorker::runFinished);
    w.branchFrom(2);
    QVERIFY(finished.wait(20000));
    QTRY_COMPARE_WITH_TIMEOUT(w.tableModel()->rowCount(), test::kSampleExperimentCount + 1, 10000);
    QCOMPARE(w.experiments().back().description, std::string("branch from exp 2"));
    w.forceRevertLast();
    QVERIFY(finished.wait(20000));
    QTRY_COMPARE_WITH_TIMEOUT(w.tableModel()->rowCount(), test::kSampleExperimentCount + 2, 10000);
    QCOMPARE(w.experiments().back().description,
             "force revert of exp " + std::to_string(test::kSampleExperimentCount));
    QCOMPARE(f->evaluator->requests(), 0);  // overrides evaluate nothing
    QVERIFY(noDuplicates(w));
    QVERIFY(f->messages.isEmpty());
}

void TestMainWindowLoop::the_context_menu_offers_overrides_with_reasons()
{
    auto f = makeFixture();
    MainWindow& w = *f->window;
    QVERIFY(openAndWait(w, m_dir));
    // #6 (softmax, kept) is the last experiment.
    QHash<QString, MenuEntry> menu = contextMenuOf(w, 6);
    QVERIFY2(menu.contains(QStringLiteral("Force Keep #6")), qPrintable(QStringList(menu.keys()).join(u',')));
    QVERIFY(!menu[QStringLiteral("Force Keep #6")].enabled);
    QVERIFY(menu[QStringLiteral("Force Keep #6")].toolTip.contains(QStringLiteral("already kept")));
    QVERIFY(menu[QStringLiteral("Force Revert #6")].enabled);
    QVERIFY(menu[QStringLiteral("Branch From #6")].enabled);
    // The timeline's right click opens the same menu and selects the experiment.
    const QHash<QString, MenuEntry> fromTimeline = timelineMenuOf(w, 4);
    QVERIFY2(fromTimeline.contains(QStringLiteral("Force Keep #4")), qPrintable(QStringList(fromTimeline.keys()).join(u',')));
    QVERIFY(fromTimeline.contains(QStringLiteral("Copy Commit Hash")));
    QCOMPARE(w.timeline()->selectedExperiment(), 4);
    // #4 failed and is not the last.
    menu = contextMenuOf(w, 4);
    QVERIFY(!menu[QStringLiteral("Force Keep #4")].enabled);
    QVERIFY(menu[QStringLiteral("Force Keep #4")].toolTip.contains(QStringLiteral("#6")));
    QVERIFY(!menu[QStringLiteral("Force Revert #4")].enabled);
    QVERIFY(!menu[QStringLiteral("Branch From #4")].enabled);
    QVERIFY(menu[QStringLiteral("Branch From #4")].toolTip.contains(QStringLiteral("did not pass")));

    // While a loop runs, the overrides go to it; while it stops, they wait.
    f->evaluator->setGated(true);
    QTest::mouseClick(w.agentPanel()->startButton(), Qt::LeftButton);
    QTRY_COMPARE(f->evaluator->requests(), 1);
    menu = contextMenuOf(w, 2);
    QVERIFY(menu[QStringLiteral("Branch From #2")].enabled);
    w.branchFrom(2);  // applied after the evaluation in flight
    QTest::mouseClick(w.agentPanel()->stopButton(), Qt::LeftButton);
    menu = contextMenuOf(w, 2);
    QVERIFY(!menu[QStringLiteral("Branch From #2")].enabled);
    QCOMPARE(menu[QStringLiteral("Branch From #2")].toolTip, QStringLiteral("Wait until the current operation has finished."));
    QSignalSpy finished(w.loopWorker(), &LoopWorker::runFinished);
    f->evaluator->grant(1);
    QVERIFY(finished.wait(20000));
    QTRY_COMPARE_WITH_TIMEOUT(w.tableModel()->rowCount(), test::kSampleExperimentCount + 2, 10000);
    // The evaluation in flight was recorded first, then the branch (between evaluations), then Stop.
    QCOMPARE(w.experiments().back().description, std::string("branch from exp 2"));
}

void TestMainWindowLoop::closing_the_window_with_a_running_loop_does_not_hang()
{
    auto f = makeFixture();
    MainWindow& w = *f->window;
    QVERIFY(openAndWait(w, m_dir));
    f->evaluator->setGated(true);  // the evaluation in flight only ends when cancelled
    QTest::mouseClick(w.agentPanel()->startButton(), Qt::LeftButton);
    QTRY_COMPARE(f->evaluator->requests(), 1);
    QElapsedTimer clock;
    clock.start();
    QVERIFY(w.close());
    QVERIFY2(clock.elapsed() < 9000, qPrintable(QString::number(clock.elapsed())));
    QVERIFY(f->evaluator->cancelled());
    QVERIFY(!w.loopWorker()->isRunning());
    QCOMPARE(LoopWorker::liveThreads(), 0);
    QVERIFY2(f->messages.isEmpty(), qPrintable(f->messages.join(u'\n')));  // no dialog while closing
    f->window.reset();
}

QTEST_MAIN(TestMainWindowLoop)
#include "test_main_window_loop.moc"
