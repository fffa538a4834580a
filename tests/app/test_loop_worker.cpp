// LoopWorker: the loop runs on its own thread with a scripted evaluator and agent; its events arrive
// as signals on the GUI thread while that thread keeps running timers; pause, step, resume, stop,
// user sources, one-shot overrides and shutdown (graceful, cancelled, detached) behave as documented.
#include "app/loop_worker.h"

#include "sample_session.h"
#include "scripted_loop.h"
#include "session/session.h"
#include "util/error.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>

using namespace ak;
using ak::test::ScriptedAgent;
using ak::test::ScriptedEvaluator;

namespace {

// Records what the worker emitted, checking each signal arrives on the GUI thread.
struct Recorder {
    QList<Experiment> finished;
    QStringList summaries;
    QList<LoopState> states;
    QStringList logs;
    QStringList started;
    bool offGuiThread = false;

    void attach(LoopWorker& worker) {
        QObject::connect(&worker, &LoopWorker::experimentFinished, &worker,
                         [this](const Experiment& e, const QString& summary) {
                             check();
                             finished << e;
                             summaries << summary;
                         });
        QObject::connect(&worker, &LoopWorker::stateChanged, &worker, [this](LoopState s) {
            check();
            states << s;
        });
        QObject::connect(&worker, &LoopWorker::experimentStarted, &worker,
                         [this](const QString& kernel, const QString& description) {
                             check();
                             started << QString(kernel + QStringLiteral(": ") + description);
                         });
        QObject::connect(&worker, &LoopWorker::logLine, &worker, [this](const QString& line) {
            check();
            logs << line;
        });
    }
    void check() {
        if (QThread::currentThread() != qApp->thread()) offGuiThread = true;
    }
};

std::vector<Experiment> experimentsOnDisk(const QString& dir) {
    return Session::open(test::toPath(dir), OpenOptions{true}).experiments();
}

}  // namespace

class TestLoopWorker : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void experiments_arrive_on_the_gui_thread_while_it_stays_responsive();
    void pause_step_resume_and_stop_between_evaluations();
    void a_user_source_runs_as_the_next_experiment();
    void a_one_shot_run_evaluates_one_edit_and_ends();
    void overrides_record_without_evaluating();
    void commands_without_a_run_are_refused_and_a_second_start_too();
    void a_session_that_cannot_be_opened_ends_the_run_with_the_reason();
    void without_a_gpu_the_default_evaluator_says_why();
    void destruction_lets_the_evaluation_in_flight_finish_and_records_it();
    void shutdown_cancels_a_stuck_evaluation_and_records_nothing();
    void shutdown_detaches_a_thread_that_will_not_end();
    void agents_get_the_playbook_and_the_kernel_contract();

private:
    LoopRunSettings settings(std::optional<int> maxExperiments = std::nullopt) const;
    void useScripted(LoopWorker& worker);

    std::unique_ptr<QTemporaryDir> m_tmp;
    QString m_dir;
    std::shared_ptr<ScriptedEvaluator> m_evaluator;
    std::shared_ptr<std::atomic<int>> m_proposals;
};

void TestLoopWorker::init() {
    m_tmp = std::make_unique<QTemporaryDir>();
    QVERIFY(m_tmp->isValid());
    m_dir = m_tmp->filePath(QStringLiteral("session"));
    test::createSampleSession(test::toPath(m_dir));
    m_evaluator = std::make_shared<ScriptedEvaluator>();
    m_proposals = std::make_shared<std::atomic<int>>(0);
}

void TestLoopWorker::cleanup() {
    // No loop thread outlives a test (a detached one is waited for by its test).
    QTRY_COMPARE_WITH_TIMEOUT(LoopWorker::liveThreads(), 0, 10000);
}

LoopRunSettings TestLoopWorker::settings(std::optional<int> maxExperiments) const {
    LoopRunSettings s;
    s.sessionDir = m_dir;
    s.agent.kind = "scripted";
    s.options.steering.target_kernel = "rmsnorm";
    s.options.measure_unmeasured_best = false;
    s.budget.max_experiments = maxExperiments;
    return s;
}

void TestLoopWorker::useScripted(LoopWorker& worker) {
    const std::shared_ptr<ScriptedEvaluator> evaluator = m_evaluator;
    const std::shared_ptr<std::atomic<int>> proposals = m_proposals;
    worker.setEvaluatorFactory([evaluator](const QString&) -> std::shared_ptr<Evaluator> { return evaluator; });
    worker.setAgentFactory([proposals](const AgentSettings&) -> std::unique_ptr<Agent> {
        return std::make_unique<ScriptedAgent>(proposals);
    });
}

void TestLoopWorker::experiments_arrive_on_the_gui_thread_while_it_stays_responsive() {
    LoopWorker worker;
    useScripted(worker);
    AgentSettings seen;
    const std::shared_ptr<std::atomic<int>> proposals = m_proposals;
    worker.setAgentFactory([&seen, proposals](const AgentSettings& s) -> std::unique_ptr<Agent> {
        seen = s;  // read after the run has ended
        return std::make_unique<ScriptedAgent>(proposals);
    });
    m_evaluator->setDelayMs(150);
    Recorder recorder;
    recorder.attach(worker);
    QSignalSpy finished(&worker, &LoopWorker::runFinished);

    int ticks = 0;
    QTimer timer;
    timer.setInterval(10);
    connect(&timer, &QTimer::timeout, [&ticks] { ++ticks; });
    timer.start();

    QElapsedTimer clock;
    clock.start();
    QVERIFY(worker.start(settings(3)));
    QVERIFY(worker.isRunning());
    QVERIFY(finished.wait(20000));
    const qint64 ms = clock.elapsed();

    QCOMPARE(finished.first().first().toString(), QString());  // no error
    QVERIFY(!worker.isRunning());
    QVERIFY(!recorder.offGuiThread);
    QCOMPARE(recorder.finished.size(), 3);
    QCOMPARE(recorder.finished[0].number, test::kSampleExperimentCount);
    QCOMPARE(recorder.finished[2].number, test::kSampleExperimentCount + 2);
    QCOMPARE(recorder.finished[0].outcome, Outcome::Kept);
    QCOMPARE(recorder.finished[0].description, std::string("candidate 1"));
    QVERIFY(recorder.summaries[0].startsWith(QStringLiteral("#7 rmsnorm kept")));
    QCOMPARE(recorder.started.size(), 3);
    QCOMPARE(recorder.started[0], QStringLiteral("rmsnorm: candidate 1"));
    QVERIFY(recorder.states.contains(LoopState::Running));
    QCOMPARE(recorder.states.last(), LoopState::Finished);
    QCOMPARE(worker.state(), LoopState::Finished);
    // The GUI thread kept turning: the 10 ms timer fired through the three 150 ms evaluations.
    QVERIFY2(ms >= 450, qPrintable(QString::number(ms)));
    QVERIFY2(ticks >= int(ms / 10 / 3), qPrintable(QStringLiteral("%1 ticks in %2 ms").arg(ticks).arg(ms)));
    // The agent was made for this session, and the run wrote to it.
    QCOMPARE(seen.kind, std::string("scripted"));
    QCOMPARE(QString::fromStdString(seen.session_dir.string()), m_dir);
    QVERIFY(static_cast<bool>(seen.log));
    QCOMPARE(int(experimentsOnDisk(m_dir).size()), test::kSampleExperimentCount + 3);
}

void TestLoopWorker::pause_step_resume_and_stop_between_evaluations() {
    LoopWorker worker;
    useScripted(worker);
    m_evaluator->setGated(true);
    Recorder recorder;
    recorder.attach(worker);
    QSignalSpy finished(&worker, &LoopWorker::runFinished);

    QVERIFY(worker.start(settings()));
    QTRY_COMPARE(m_evaluator->requests(), 1);        // the first evaluation is in flight
    QVERIFY(worker.pause());
    m_evaluator->grant(100);                         // from now on evaluations run freely
    QTRY_COMPARE(worker.state(), LoopState::Paused);
    QCOMPARE(recorder.finished.size(), 1);           // the one in flight finished and was recorded
    QTest::qWait(300);
    QCOMPARE(m_evaluator->requests(), 1);            // and nothing more while paused

    QVERIFY(worker.step());
    QTRY_COMPARE(recorder.finished.size(), 2);
    QTRY_COMPARE(worker.state(), LoopState::Paused);
    QTest::qWait(300);
    QCOMPARE(m_evaluator->requests(), 2);            // exactly one experiment per step

    QVERIFY(worker.resume());
    QTRY_VERIFY(recorder.finished.size() >= 4);
    QVERIFY(worker.stop());
    QCOMPARE(worker.state(), LoopState::Stopping);   // shown at once, before the loop answers
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.first().first().toString(), QString());
    QCOMPARE(worker.state(), LoopState::Finished);
    const int recorded = int(recorder.finished.size());
    QCOMPARE(int(experimentsOnDisk(m_dir).size()), test::kSampleExperimentCount + recorded);
    QCOMPARE(m_evaluator->requests(), recorded);     // every evaluation was recorded, none lost
}

void TestLoopWorker::a_user_source_runs_as_the_next_experiment() {
    LoopWorker worker;
    useScripted(worker);
    Recorder recorder;
    recorder.attach(worker);
    QSignalSpy finished(&worker, &LoopWorker::runFinished);
    LoopRunSettings s = settings();
    s.options.start_paused = true;
    QVERIFY(worker.start(s));
    // Posted at once: kept by the worker until the controller exists, then applied in order.
    const QString source = QStringLiteral("// my hand-tuned rmsnorm\n// latency 50\n__global__ void k() {}\n");
    QVERIFY(worker.runSource(QStringLiteral("rmsnorm"), source, QStringLiteral("hand-tuned")));
    QVERIFY(worker.step());
    QTRY_COMPARE(recorder.finished.size(), 1);
    QTRY_COMPARE(worker.state(), LoopState::Paused);
    const Experiment e = recorder.finished.first();
    QCOMPARE(e.agent, std::string("user"));
    QCOMPARE(e.description, std::string("hand-tuned"));
    QCOMPARE(e.outcome, Outcome::Kept);
    QCOMPARE(*m_proposals, 0);  // the agent was not asked
    QVERIFY(worker.stop());
    QVERIFY(finished.wait(10000));
    const Session session = Session::open(test::toPath(m_dir), OpenOptions{true});
    QCOMPARE(QString::fromStdString(session.source_of(session.experiments().back())), source);
}

void TestLoopWorker::a_one_shot_run_evaluates_one_edit_and_ends() {
    LoopWorker worker;
    useScripted(worker);
    Recorder recorder;
    recorder.attach(worker);
    QSignalSpy finished(&worker, &LoopWorker::runFinished);
    LoopRunSettings s = settings(1);
    s.initialCommands.emplace_back(std::in_place_type<command::RunSource>, "rmsnorm",
                                   "// latency 500\n__global__ void k() {}\n", "slow edit");
    QVERIFY(worker.start(s));
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.first().first().toString(), QString());
    QCOMPARE(recorder.finished.size(), 1);
    QCOMPARE(recorder.finished.first().description, std::string("slow edit"));
    QCOMPARE(recorder.finished.first().outcome, Outcome::Reverted);  // slower than the best
    QVERIFY(recorder.summaries.first().contains(QStringLiteral("reverted")));
    QCOMPARE(m_evaluator->requests(), 1);
    QCOMPARE(*m_proposals, 0);
}

void TestLoopWorker::overrides_record_without_evaluating() {
    LoopWorker worker;
    useScripted(worker);
    int evaluatorsMade = 0;  // a run of 0 experiments needs no evaluator (and no GPU)
    worker.setEvaluatorFactory([&evaluatorsMade](const QString&) -> std::shared_ptr<Evaluator> {
        ++evaluatorsMade;
        throw Error(ErrorKind::Gpu, "no GPU here");
    });
    Recorder recorder;
    recorder.attach(worker);
    QSignalSpy finished(&worker, &LoopWorker::runFinished);
    LoopRunSettings s = settings(0);
    s.initialCommands.emplace_back(std::in_place_type<command::BranchFrom>, 2);
    QVERIFY(worker.start(s));
    QVERIFY(finished.wait(10000));
    QCOMPARE(recorder.finished.size(), 1);
    const Experiment e = recorder.finished.first();
    QCOMPARE(e.number, test::kSampleExperimentCount);
    QCOMPARE(e.description, std::string("branch from exp 2"));
    QCOMPARE(e.outcome, Outcome::Kept);

    // Force revert of that kept record, in a second one-shot run of the same worker.
    LoopRunSettings again = settings(0);
    again.initialCommands.emplace_back(std::in_place_type<command::ForceRevert>);
    QVERIFY(worker.start(again));
    QVERIFY(finished.wait(10000));
    QCOMPARE(recorder.finished.size(), 2);
    QCOMPARE(recorder.finished.last().description, std::string("force revert of exp 7"));
    QCOMPARE(finished.last().first().toString(), QString());
    QCOMPARE(evaluatorsMade, 0);
    QCOMPARE(int(experimentsOnDisk(m_dir).size()), test::kSampleExperimentCount + 2);
}

void TestLoopWorker::commands_without_a_run_are_refused_and_a_second_start_too() {
    LoopWorker worker;
    useScripted(worker);
    QVERIFY(!worker.pause());
    QVERIFY(!worker.stop());
    QVERIFY(!worker.forceKeep());
    QVERIFY(!worker.runSource(QStringLiteral("rmsnorm"), QStringLiteral("x"), QStringLiteral("y")));
    m_evaluator->setGated(true);
    QSignalSpy finished(&worker, &LoopWorker::runFinished);
    QSignalSpy logs(&worker, &LoopWorker::logLine);
    QVERIFY(worker.start(settings()));
    QVERIFY(!worker.start(settings()));
    QVERIFY(!logs.isEmpty());
    QVERIFY(logs.last().first().toString().contains(QStringLiteral("already running")));
    QTRY_COMPARE(m_evaluator->requests(), 1);
    QVERIFY(worker.stop());
    m_evaluator->grant(1);
    QVERIFY(finished.wait(10000));
    QVERIFY(!worker.pause());  // over again
}

void TestLoopWorker::a_session_that_cannot_be_opened_ends_the_run_with_the_reason() {
    LoopWorker worker;
    useScripted(worker);
    QSignalSpy finished(&worker, &LoopWorker::runFinished);
    LoopRunSettings s = settings();
    s.sessionDir = m_tmp->filePath(QStringLiteral("no-such-session"));
    QVERIFY(worker.start(s));
    QVERIFY(finished.wait(10000));
    QVERIFY(finished.first().first().toString().contains(QStringLiteral("no-such-session")));
    QCOMPARE(worker.state(), LoopState::Finished);
    QCOMPARE(m_evaluator->requests(), 0);
}

void TestLoopWorker::without_a_gpu_the_default_evaluator_says_why() {
    if (!qEnvironmentVariableIsEmpty("AK_EVALUATOR")) QSKIP("AK_EVALUATOR is set: an evaluator may exist");
    LoopWorker worker;  // the default evaluator factory (evaluator_preflight), a scripted agent
    const std::shared_ptr<std::atomic<int>> proposals = m_proposals;
    worker.setAgentFactory([proposals](const AgentSettings&) -> std::unique_ptr<Agent> {
        return std::make_unique<ScriptedAgent>(proposals);
    });
    QSignalSpy finished(&worker, &LoopWorker::runFinished);
    QVERIFY(worker.start(settings(1)));
    QVERIFY(finished.wait(20000));
    const QString error = finished.first().first().toString();
    // On a machine with a GPU and an evaluator the run would succeed; CI has neither.
    if (error.isEmpty()) QSKIP("this machine has a GPU and an evaluator");
    QVERIFY2(error.contains(QStringLiteral("GPU"), Qt::CaseInsensitive) ||
                 error.contains(QStringLiteral("evaluator"), Qt::CaseInsensitive),
             qPrintable(error));
    QCOMPARE(int(experimentsOnDisk(m_dir).size()), test::kSampleExperimentCount);
}

void TestLoopWorker::destruction_lets_the_evaluation_in_flight_finish_and_records_it() {
    auto worker = std::make_unique<LoopWorker>();
    useScripted(*worker);
    m_evaluator->setDelayMs(400);
    QVERIFY(worker->start(settings()));
    QTRY_COMPARE(m_evaluator->requests(), 1);
    QElapsedTimer clock;
    clock.start();
    worker.reset();  // Stop, then the evaluation in flight finishes within the grace period
    QVERIFY2(clock.elapsed() < 3000, qPrintable(QString::number(clock.elapsed())));
    QCOMPARE(LoopWorker::liveThreads(), 0);
    QVERIFY(!m_evaluator->cancelled());
    QCOMPARE(m_evaluator->requests(), 1);
    QCOMPARE(int(experimentsOnDisk(m_dir).size()), test::kSampleExperimentCount + 1);
}

void TestLoopWorker::shutdown_cancels_a_stuck_evaluation_and_records_nothing() {
    LoopWorker worker;
    useScripted(worker);
    m_evaluator->setGated(true);  // never granted: only cancel() ends the evaluation
    QSignalSpy finished(&worker, &LoopWorker::runFinished);
    QVERIFY(worker.start(settings()));
    QTRY_COMPARE(m_evaluator->requests(), 1);
    QElapsedTimer clock;
    clock.start();
    QVERIFY(worker.shutdown(200, 5000));
    QVERIFY2(clock.elapsed() < 3000, qPrintable(QString::number(clock.elapsed())));
    QVERIFY(m_evaluator->cancelled());
    QVERIFY(!worker.isRunning());
    QCOMPARE(finished.size(), 1);
    QVERIFY(finished.first().first().toString().contains(QStringLiteral("cancelled")));
    QCOMPARE(worker.state(), LoopState::Finished);
    QCOMPARE(int(experimentsOnDisk(m_dir).size()), test::kSampleExperimentCount);
}

void TestLoopWorker::shutdown_detaches_a_thread_that_will_not_end() {
    m_evaluator->setGated(true);
    m_evaluator->setHonourCancel(false);  // an evaluation that ignores cancelling
    QElapsedTimer clock;
    {
        LoopWorker worker;
        useScripted(worker);
        QSignalSpy finished(&worker, &LoopWorker::runFinished);
        QVERIFY(worker.start(settings()));
        QTRY_COMPARE(m_evaluator->requests(), 1);
        clock.start();
        QVERIFY(!worker.shutdown(100, 100));
        QVERIFY(clock.elapsed() < 2000);
        QVERIFY(!worker.isRunning());
        QCOMPARE(finished.size(), 1);
        QVERIFY(!finished.first().first().toString().isEmpty());
        QVERIFY(!worker.pause());  // the detached run takes no commands
    }  // the worker is gone; its thread still runs
    QCOMPARE(LoopWorker::liveThreads(), 1);
    m_evaluator->grant(1);
    QTRY_COMPARE_WITH_TIMEOUT(LoopWorker::liveThreads(), 0, 10000);
    // The abandoned evaluation was not recorded.
    QCOMPARE(int(experimentsOnDisk(m_dir).size()), test::kSampleExperimentCount);
}

void TestLoopWorker::agents_get_the_playbook_and_the_kernel_contract() {
    QStringList missing;
    const LoopOptions options = loopOptionsWithAgentTexts(&missing);
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QLatin1Char('\n'))));
    QVERIFY(QString::fromStdString(options.playbook).contains(QStringLiteral("tier"), Qt::CaseInsensitive));
    QVERIFY(QString::fromStdString(options.contract).contains(QStringLiteral("@autokernel")));

    qputenv("AK_RESOURCES_DIR", m_tmp->path().toUtf8());  // a playbook of the user's own comes first
    QFile own(m_tmp->filePath(QStringLiteral("playbook.md")));
    QVERIFY(own.open(QIODevice::WriteOnly));
    own.write("my own playbook\n");
    own.close();
    const LoopOptions mine = loopOptionsWithAgentTexts();
    qunsetenv("AK_RESOURCES_DIR");
    QCOMPARE(mine.playbook, std::string("my own playbook\n"));
}

QTEST_MAIN(TestLoopWorker)
#include "test_loop_worker.moc"
