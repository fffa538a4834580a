#include "app/loop_worker.h"

#include "engine/evaluator_client.h"
#include "engine/evaluator_preflight.h"
#include "engine/kernel_contract.h"
#include "loop/evaluator.h"
#include "session/session.h"
#include "util/error.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QThread>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <signal.h>
#include <sys/types.h>

namespace ak {
namespace {

std::atomic<int> g_liveThreads{0};

QString qtext(const std::string& s) { return QString::fromStdString(s); }

// The evaluator worker process behind EvaluatorClient, cancellable from another thread: the client
// serialises its calls with a mutex (so worker_pid() would wait for the evaluation in flight), hence
// the pid of the process serving the current evaluation is noted before it starts.
class ProcessEvaluator : public CancellableEvaluator {
public:
    explicit ProcessEvaluator(std::shared_ptr<EvaluatorClient> client) : client_(std::move(client)) {}
    ~ProcessEvaluator() override { client_->shutdown(); }

    EvaluationResult evaluate(const EvaluationRequest& request) override {
        if (!client_->worker_pid()) {
            std::string why;
            if (!client_->start(&why)) throw Error(ErrorKind::Gpu, "the evaluator worker did not start: " + why);
        }
        pid_.store(client_->worker_pid().value_or(0));
        EvaluationResult result = client_->evaluate(request);
        pid_.store(0);
        return result;
    }
    void cancel() override {
        const int pid = pid_.exchange(0);
        if (pid > 0) ::kill(static_cast<pid_t>(pid), SIGKILL);
    }

private:
    std::shared_ptr<EvaluatorClient> client_;
    std::atomic<int> pid_{0};
};

std::shared_ptr<Evaluator> makeProcessEvaluator(const QString& sessionDir) {
    const Preflight preflight = evaluator_preflight();
    if (!preflight.ok()) throw Error(ErrorKind::Gpu, preflight.message);
    EvaluatorClientOptions options;
    options.worker_path = preflight.evaluator_path;
    options.stderr_log_path = (std::filesystem::path(sessionDir.toStdString()) / ".git" / "autokernel-evaluator.log").string();
    return std::make_shared<ProcessEvaluator>(std::make_shared<EvaluatorClient>(std::move(options)));
}

// The evaluator of a run that evaluates nothing (a budget of 0 experiments: overrides only).
class NoEvaluator : public Evaluator {
public:
    EvaluationResult evaluate(const EvaluationRequest&) override {
        throw Error(ErrorKind::Internal, "this run was started to evaluate nothing");
    }
};

QString readText(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return QString();
    return QString::fromUtf8(file.readAll());
}

// Wraps the run's evaluator: once cancelled, no evaluation result reaches the controller (it throws
// instead, which ends the loop without recording the abandoned experiment).
class GuardedEvaluator : public Evaluator {
public:
    explicit GuardedEvaluator(std::shared_ptr<Evaluator> inner) : inner_(std::move(inner)) {}
    EvaluationResult evaluate(const EvaluationRequest& request) override {
        if (cancelled_) throw Error(ErrorKind::Internal, "the evaluation was cancelled");
        EvaluationResult result = inner_->evaluate(request);
        if (cancelled_) throw Error(ErrorKind::Internal, "the evaluation was cancelled");
        return result;
    }
    void cancel() {
        cancelled_ = true;
        if (auto* c = dynamic_cast<CancellableEvaluator*>(inner_.get())) c->cancel();
    }
    bool cancelled() const { return cancelled_; }

private:
    std::shared_ptr<Evaluator> inner_;
    std::atomic<bool> cancelled_{false};
};

}  // namespace

// Shared by the LoopWorker (GUI thread) and its loop thread; outlives a detached thread.
struct LoopWorker::Shared {
    std::mutex mutex;
    LoopWorker* owner = nullptr;             // null once the worker let the thread go
    LoopController* controller = nullptr;    // while the controller exists
    bool ended = false;                      // the controller is gone: commands are refused
    std::vector<LoopCommand> pending;        // posted before the controller existed
    std::shared_ptr<GuardedEvaluator> evaluator;
    bool cancelRequested = false;
    QString finishError;
};

// The controller's events, delivered on the GUI thread as the worker's signals.
class LoopWorkerBridge : public LoopObserver {
public:
    explicit LoopWorkerBridge(std::shared_ptr<LoopWorker::Shared> shared) : shared_(std::move(shared)) {}

    void on_state_changed(LoopState state) override {
        send([state](LoopWorker* w) { w->applyState(state); });
    }
    void on_kernel_changed(const std::string& kernel, const std::string& reason) override {
        send([k = qtext(kernel), r = qtext(reason)](LoopWorker* w) { emit w->kernelChanged(k, r); });
    }
    void on_experiment_started(const std::string& kernel, const std::string& description) override {
        send([k = qtext(kernel), d = qtext(description)](LoopWorker* w) { emit w->experimentStarted(k, d); });
    }
    void on_experiment_finished(const Experiment& e, const EvaluationResult&, const KeepDecision& d) override {
        send([e, summary = LoopWorker::summaryOf(e, d)](LoopWorker* w) { emit w->experimentFinished(e, summary); });
    }
    void on_log(const std::string& line) override { log(qtext(line)); }
    void log(const QString& line) {
        send([line](LoopWorker* w) { emit w->logLine(line); });
    }

private:
    // Queued to the owner's thread; dropped when the owner is gone (Qt discards calls queued to a
    // deleted receiver, and a detached thread finds no owner).
    template <typename Fn>
    void send(Fn fn) {
        std::lock_guard lock(shared_->mutex);
        if (LoopWorker* owner = shared_->owner)
            QMetaObject::invokeMethod(owner, [owner, fn = std::move(fn)] { fn(owner); }, Qt::QueuedConnection);
    }
    std::shared_ptr<LoopWorker::Shared> shared_;
};

QString LoopWorker::summaryOf(const Experiment& e, const KeepDecision& decision) {
    const QString kernel = QFileInfo(qtext(e.kernel_file)).completeBaseName();
    QString outcome;
    switch (e.outcome) {
    case Outcome::Baseline: outcome = tr("baseline"); break;
    case Outcome::Kept: outcome = tr("kept"); break;
    case Outcome::Reverted: outcome = tr("reverted"); break;
    case Outcome::Failed: outcome = tr("failed"); break;
    }
    QString why = e.outcome == Outcome::Failed ? qtext(e.detail) : qtext(decision.reason);
    why = why.section(QLatin1Char('\n'), 0, 0);
    if (why.size() > 160) why = why.left(157) + QStringLiteral("…");
    const QString latency = e.latency_us ? tr(" (%1 µs)").arg(*e.latency_us, 0, 'f', 2) : QString();
    return why.isEmpty() ? tr("#%1 %2 %3%4").arg(e.number).arg(kernel, outcome, latency)
                         : tr("#%1 %2 %3%4: %5").arg(e.number).arg(kernel, outcome, latency, why);
}

int LoopWorker::liveThreads() { return g_liveThreads.load(); }

LoopWorker::LoopWorker(QObject* parent)
    : QObject(parent), m_shared(std::make_shared<Shared>()), m_evaluatorFactory(makeProcessEvaluator),
      m_agentFactory([](const AgentSettings& s) { return make_agent(s); }) {
    qRegisterMetaType<ak::LoopState>();
    qRegisterMetaType<ak::Experiment>();
    m_shared->owner = this;
}

LoopWorker::~LoopWorker() {
    shutdown();
    std::lock_guard lock(m_shared->mutex);
    m_shared->owner = nullptr;
}

void LoopWorker::setEvaluatorFactory(EvaluatorFactory factory) { m_evaluatorFactory = std::move(factory); }

void LoopWorker::setAgentFactory(AgentFactory factory) { m_agentFactory = std::move(factory); }

bool LoopWorker::isRunning() const { return m_thread != nullptr; }

bool LoopWorker::start(const LoopRunSettings& settings) {
    if (m_thread) {
        emit logLine(tr("A loop is already running on %1.").arg(m_sessionDir));
        return false;
    }
    m_sessionDir = settings.sessionDir;
    m_stopRequested = false;
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->pending = settings.initialCommands;
        m_shared->controller = nullptr;
        m_shared->ended = false;
        m_shared->evaluator.reset();
        m_shared->cancelRequested = false;
    }
    std::shared_ptr<Shared> shared = m_shared;
    EvaluatorFactory evaluatorFactory = m_evaluatorFactory;
    AgentFactory agentFactory = m_agentFactory;

    m_thread = QThread::create([shared, settings, evaluatorFactory, agentFactory] {
        ++g_liveThreads;
        LoopWorkerBridge bridge(shared);
        QString error;
        std::shared_ptr<GuardedEvaluator> evaluator;
        try {
            Session session = Session::open(settings.sessionDir.toStdString(), OpenOptions{false});
            for (const std::string& w : session.warnings()) bridge.log(tr("session: %1").arg(qtext(w)));

            AgentSettings agentSettings = settings.agent;
            agentSettings.session_dir = session.dir();
            agentSettings.log = [&bridge](const std::string& line) { bridge.log(qtext(line)); };
            std::unique_ptr<Agent> agent = agentFactory(agentSettings);

            const bool evaluatesNothing = settings.budget.max_experiments && *settings.budget.max_experiments <= 0;
            evaluator = std::make_shared<GuardedEvaluator>(
                evaluatesNothing ? std::make_shared<NoEvaluator>() : evaluatorFactory(settings.sessionDir));
            LoopController controller(session, *evaluator, std::move(agent), settings.options);
            controller.add_observer(&bridge);
            {
                std::lock_guard lock(shared->mutex);
                shared->evaluator = evaluator;
                if (shared->cancelRequested) evaluator->cancel();
                for (LoopCommand& c : shared->pending) controller.post(std::move(c));
                shared->pending.clear();
                shared->controller = &controller;
            }
            struct Detach {  // the controller is going: no more commands for it
                LoopWorker::Shared& shared;
                ~Detach() {
                    std::lock_guard lock(shared.mutex);
                    shared.controller = nullptr;
                    shared.ended = true;
                }
            } detach{*shared};
            controller.run(settings.budget);
        } catch (const std::exception& e) {
            if (evaluator && evaluator->cancelled()) {
                error = tr("The evaluation in flight was cancelled; nothing was recorded for it.");
            } else {
                error = qtext(e.what());
                bridge.log(tr("The loop could not go on: %1").arg(error));
            }
        }
        {
            std::lock_guard lock(shared->mutex);
            shared->controller = nullptr;
            shared->ended = true;
            shared->evaluator.reset();
            shared->finishError = error;
        }
        evaluator.reset();  // the evaluator worker process shuts down here, on the loop thread
        --g_liveThreads;
    });
    m_thread->setObjectName(QStringLiteral("ak-loop"));
    // Queued from the loop thread; the id ignores a late notice of an earlier run's thread.
    const quint64 runId = ++m_runId;
    connect(m_thread, &QThread::finished, this, [this, runId] {
        if (runId == m_runId) onThreadFinished();
    });
    m_thread->start();
    return true;
}

void LoopWorker::onThreadFinished() {
    if (!m_thread) return;
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
    QString error;
    {
        std::lock_guard lock(m_shared->mutex);
        error = m_shared->finishError;
        m_shared->finishError.clear();
    }
    m_stopRequested = false;
    applyState(LoopState::Finished);
    emit runFinished(error);
}

void LoopWorker::applyState(LoopState state) {
    // After Stop, a Running or Paused sent before the loop saw the command is stale.
    if (m_stopRequested && (state == LoopState::Running || state == LoopState::Paused)) return;
    if (state == m_state) return;
    m_state = state;
    emit stateChanged(state);
}

LoopState LoopWorker::state() const { return m_state; }

QString LoopWorker::sessionDir() const { return m_sessionDir; }

bool LoopWorker::post(LoopCommand command) {
    if (!m_thread) return false;
    std::lock_guard lock(m_shared->mutex);
    if (m_shared->ended) return false;
    if (m_shared->controller)
        m_shared->controller->post(std::move(command));
    else
        m_shared->pending.push_back(std::move(command));
    return true;
}

bool LoopWorker::stop() {
    if (!post(command::Stop{})) return false;
    m_stopRequested = true;
    applyState(LoopState::Stopping);
    return true;
}

bool LoopWorker::runSource(const QString& kernelName, const QString& source, const QString& description) {
    return post(command::RunSource{kernelName.toStdString(), source.toStdString(), description.toStdString()});
}

bool LoopWorker::shutdown(int graceMs, int cancelMs) {
    if (!m_thread) return true;
    stop();
    if (m_thread->wait(QDeadlineTimer(graceMs))) {
        onThreadFinished();
        return true;
    }
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->cancelRequested = true;
        if (m_shared->evaluator) m_shared->evaluator->cancel();
    }
    emit logLine(tr("The evaluation in flight did not finish within %1 s: cancelling it.").arg(graceMs / 1000.0));
    if (m_thread->wait(QDeadlineTimer(cancelMs))) {
        onThreadFinished();
        return true;
    }
    // Leave the thread to finish on its own: it owns everything it uses, and it no longer reaches us.
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->owner = nullptr;
    }
    QThread* thread = m_thread;
    m_thread = nullptr;
    disconnect(thread, nullptr, this, nullptr);
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    m_shared = std::make_shared<Shared>();
    m_shared->owner = this;
    m_stopRequested = false;
    applyState(LoopState::Finished);
    emit runFinished(tr("The loop thread did not end in time and was left to finish on its own."));
    return false;
}

LoopOptions loopOptionsWithAgentTexts(QStringList* missing) {
    LoopOptions options;
    QStringList candidates;
    const QString resources = qEnvironmentVariable("AK_RESOURCES_DIR");
    if (!resources.isEmpty()) candidates << QDir(resources).filePath(QStringLiteral("playbook.md"));
    candidates << QDir(QCoreApplication::applicationDirPath())
                      .filePath(QStringLiteral("../share/autokernel-workbench/playbook.md"));
#ifdef AK_DEMO_SESSION_SOURCE_DIR
    // The source tree's resources/ (beside resources/demo-session).
    candidates << QFileInfo(QStringLiteral(AK_DEMO_SESSION_SOURCE_DIR)).dir().filePath(QStringLiteral("playbook.md"));
#endif
    for (const QString& path : candidates) {
        const QString text = readText(path);
        if (text.isEmpty()) continue;
        options.playbook = text.toStdString();
        break;
    }
    if (options.playbook.empty() && missing)
        *missing << LoopWorker::tr("No playbook for the agents (looked in: %1).").arg(candidates.join(QStringLiteral(", ")));
    const QString contract =
        QFileInfo(QString::fromStdString(kernels_include_dir())).dir().filePath(QStringLiteral("README.md"));
    options.contract = readText(contract).toStdString();
    if (options.contract.empty() && missing)
        *missing << LoopWorker::tr("No kernel contract for the agents (looked for %1).").arg(contract);
    return options;
}

}  // namespace ak
