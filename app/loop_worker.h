#pragma once
// Runs the optimization loop (ak::LoopController) on a thread of its own and bridges it to Qt.
//
// start() opens the session writable on the loop thread (the viewer keeps its own read-only copy,
// refreshed by the file watcher), makes the evaluator (the isolated evaluator worker process, or the
// one a test injected), makes the agent (ak::make_agent, or a test's factory), and runs the
// controller until its budget is spent, every kernel has been moved on from, or Stop. The GUI thread
// never waits on an evaluation: the loop's events come back as queued signals, and commands go
// straight into the controller's thread-safe queue (applied between evaluations).
//
// Commands posted before the controller exists (start() returned, the thread is still opening the
// session) are kept and posted first, so a start followed at once by Step or Pause is not lost.
// Commands while no run is in progress are refused (post() returns false).
//
// Shutdown (shutdown(), the destructor): Stop is posted and the evaluation in flight may finish for
// a grace period; after that it is cancelled (the evaluator worker process is killed, nothing is
// recorded for it) and the loop ends. If the thread still does not end, it is left to finish on its
// own, detached from this object, so closing the window never hangs.
#include "loop/agent_factory.h"
#include "loop/evaluator.h"
#include "loop/loop_controller.h"

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <vector>

class QThread;

namespace ak {

// An evaluator that can abandon the evaluation in flight; cancel() is called from another thread
// (the GUI's, at shutdown) while evaluate() runs. The default one kills the evaluator worker process.
class CancellableEvaluator : public Evaluator {
public:
    virtual void cancel() = 0;
};

// What one run needs. loopOptionsWithAgentTexts() gives options with the playbook and the kernel
// contract filled in.
struct LoopRunSettings {
    QString sessionDir;
    AgentSettings agent;                     // session_dir and log are filled in by the worker
    LoopOptions options;
    LoopBudget budget;
    // Posted before run(): a Step after start_paused (one experiment, then pause), or the override
    // of a one-shot run (e.g. ForceKeep with a budget of 0 experiments).
    std::vector<LoopCommand> initialCommands;
};

class LoopWorker : public QObject {
    Q_OBJECT
public:
    // Makes the evaluator of a run on the loop thread; throws ak::Error with a plain message when it
    // cannot (no GPU, no evaluator built). The default checks evaluator_preflight() and runs the
    // evaluator worker process (its stderr goes to <session>/.git/autokernel-evaluator.log). Runs
    // with a budget of 0 experiments (one-shot overrides) make no evaluator at all.
    using EvaluatorFactory = std::function<std::shared_ptr<Evaluator>(const QString& sessionDir)>;
    using AgentFactory = std::function<std::unique_ptr<Agent>(const AgentSettings&)>;

    explicit LoopWorker(QObject* parent = nullptr);
    ~LoopWorker() override;  // shutdown()

    // For tests (and a future remote evaluator): replaces the default factories. Set before start().
    void setEvaluatorFactory(EvaluatorFactory factory);
    void setAgentFactory(AgentFactory factory);

    // Starts a run on the loop thread. False (with logLine() saying why) when a run is in progress.
    bool start(const LoopRunSettings& settings);
    // A run is in progress (from start() until runFinished()).
    bool isRunning() const;
    // The state as last reported to the GUI thread (Stopping from stop() on).
    LoopState state() const;
    // The session the current (or last) run works on.
    QString sessionDir() const;

    // Thread-safe; false when no run is in progress (the command is dropped).
    bool post(LoopCommand command);
    bool pause() { return post(command::Pause{}); }
    bool resume() { return post(command::Resume{}); }
    bool step() { return post(command::Step{}); }
    bool stop();
    bool steer(const command::Steer& steer) { return post(steer); }
    bool runSource(const QString& kernelName, const QString& source, const QString& description);
    bool forceKeep() { return post(command::ForceKeep{}); }
    bool forceRevert() { return post(command::ForceRevert{}); }
    bool branchFrom(int experiment) { return post(command::BranchFrom{experiment}); }

    // Stops the run: posts Stop, lets the evaluation in flight finish for `graceMs`, then cancels it
    // and waits `cancelMs` more. True when the loop thread has ended (false: it was detached).
    bool shutdown(int graceMs = 3000, int cancelMs = 5000);

    // One line describing a finished experiment and the keep decision, as experimentFinished() sends
    // it, e.g. "#12 rmsnorm kept (41.20 µs): kept: +4.1% > max(1.0% threshold, 0.8% spread)".
    static QString summaryOf(const Experiment& experiment, const KeepDecision& decision);
    // Loop threads of all workers that have not ended yet (detached ones included).
    static int liveThreads();

signals:
    void stateChanged(ak::LoopState state);
    void kernelChanged(const QString& kernelName, const QString& reason);
    void experimentStarted(const QString& kernelName, const QString& description);
    // `summary`: summaryOf() the experiment and its keep decision.
    void experimentFinished(const ak::Experiment& experiment, const QString& summary);
    void logLine(const QString& line);
    // The run is over and the thread has ended; `error` is empty when it ended normally (budget,
    // stop, nothing left), else why it could not start or went wrong.
    void runFinished(const QString& error);

private:
    friend class LoopWorkerBridge;
    struct Shared;
    void onThreadFinished();
    void applyState(LoopState state);

    std::shared_ptr<Shared> m_shared;
    QThread* m_thread = nullptr;
    EvaluatorFactory m_evaluatorFactory;
    AgentFactory m_agentFactory;
    QString m_sessionDir;
    LoopState m_state = LoopState::Idle;
    bool m_stopRequested = false;
    quint64 m_runId = 0;
};

}  // namespace ak

namespace ak {
// Default loop options with the texts agents read: the playbook ($AK_RESOURCES_DIR/playbook.md, the
// installed share/autokernel-workbench/playbook.md, or the source tree's resources/playbook.md) and
// the kernel contract (kernels/README.md beside the kernels' include folder). `missing` receives a
// line for each text that was not found.
LoopOptions loopOptionsWithAgentTexts(QStringList* missing = nullptr);
}  // namespace ak

Q_DECLARE_METATYPE(ak::LoopState)
Q_DECLARE_METATYPE(ak::Experiment)
