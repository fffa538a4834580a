#pragma once
// The agent panel: start, pause / resume, step and stop the optimization loop, choose the agent and
// its settings, steer the running loop, and see its state at all times.
//
//   state     a coloured label (idle, running, paused, stopping, finished), the current kernel and
//             the current experiment; the buttons are enabled per state (see setState())
//   agent     search (strategy sweep | evolve, seed), LLM (endpoint, model, the NAME of the
//             environment variable holding the API key, never the key itself, with whether it is
//             set, timeout) or command (template, timeout); a budget (experiments, hours)
//   steering  target kernel, focus tier, frozen tunables (the kernel's @autokernel tunables), keep
//             threshold, move-on rules and a hint; "Apply steering" sends them to a running loop,
//             and Start uses them from the beginning
//   log       the loop's log lines
//
// The panel only collects and emits: it knows nothing of threads or sessions.
#include "loop/agent.h"
#include "loop/agent_factory.h"
#include "loop/loop_controller.h"
#include "loop/move_on_rules.h"

#include <QColor>
#include <QHash>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;

namespace ak {

// Everything Start asks for.
struct AgentRunRequest {
    AgentSettings agent;             // kind and that kind's settings (session_dir and log unset)
    LoopBudget budget;               // unset limits: run until stopped or every kernel moved on from
    Steering steering;
    double keepThreshold = 0.01;     // required gain as a fraction (1 % = 0.01)
    MoveOnRules moveOn;
    bool singleStep = false;         // Step pressed while idle: run one experiment, then pause
};

class AgentPanel : public QWidget {
    Q_OBJECT
public:
    explicit AgentPanel(QWidget* parent = nullptr);
    ~AgentPanel() override;

    // The loop's state: enables the buttons and colours the state label.
    //   Idle, Finished  Start, Step (one experiment, then pause)
    //   Running         Pause, Step (one more, then pause), Stop, Apply steering
    //   Paused          Resume (the pause button), Step, Stop, Apply steering
    //   Stopping        nothing (the loop finishes the evaluation in flight)
    void setState(LoopState state);
    LoopState state() const { return m_state; }
    // The kernel being worked on and the experiment in flight (or the last one's summary).
    void setCurrentKernel(const QString& kernelName);
    void setCurrentExperiment(const QString& text);
    // Disables Start and Step with a reason (no session, another process writes it, ...); empty
    // reason: allowed.
    void setStartBlocked(const QString& reason);

    // The session's kernels (the target kernel choices) and their current best sources, whose
    // @autokernel tunables fill the frozen-tunables list.
    void setKernels(const QStringList& kernelNames);
    void setKernelSource(const QString& kernelName, const QString& source);
    // Agent kinds this build can make (ak::built_agent_kinds()); the others are shown disabled.
    void setAvailableAgentKinds(const std::vector<std::string>& kinds);

    void appendLog(const QString& line);
    void clearLog();

    // What the fields say now.
    AgentRunRequest runRequest() const;
    Steering steering() const;
    double keepThreshold() const;    // fraction
    MoveOnRules moveOnRules() const;
    // The kernel whose tunables the frozen list shows: the target kernel, else the current kernel.
    QString tunablesKernel() const;

    // The parts, for tests.
    QPushButton* startButton() const { return m_start; }
    QPushButton* pauseButton() const { return m_pause; }
    QPushButton* stepButton() const { return m_step; }
    QPushButton* stopButton() const { return m_stop; }
    QPushButton* applySteeringButton() const { return m_applySteering; }
    QLabel* stateLabel() const { return m_stateLabel; }
    QLabel* kernelLabel() const { return m_kernelLabel; }
    QLabel* experimentLabel() const { return m_experimentLabel; }
    QComboBox* agentKindCombo() const { return m_kind; }
    QComboBox* strategyCombo() const { return m_strategy; }
    QSpinBox* seedSpin() const { return m_seed; }
    QLineEdit* endpointEdit() const { return m_endpoint; }
    QLineEdit* modelEdit() const { return m_model; }
    QLineEdit* keyVariableEdit() const { return m_keyVariable; }
    QLabel* keyStatusLabel() const { return m_keyStatus; }
    QDoubleSpinBox* llmTimeoutSpin() const { return m_llmTimeout; }
    QLineEdit* commandTemplateEdit() const { return m_commandTemplate; }
    QDoubleSpinBox* commandTimeoutSpin() const { return m_commandTimeout; }
    QSpinBox* budgetExperimentsSpin() const { return m_budgetExperiments; }
    QDoubleSpinBox* budgetHoursSpin() const { return m_budgetHours; }
    QComboBox* targetKernelCombo() const { return m_target; }
    QSpinBox* focusTierSpin() const { return m_focusTier; }
    QListWidget* frozenTunablesList() const { return m_frozen; }
    QDoubleSpinBox* keepThresholdSpin() const { return m_threshold; }
    QSpinBox* maxRevertsSpin() const { return m_maxReverts; }
    QDoubleSpinBox* ceilingPercentSpin() const { return m_ceilingPct; }
    QDoubleSpinBox* maxHoursSpin() const { return m_maxHours; }
    QDoubleSpinBox* targetSpeedupSpin() const { return m_targetSpeedup; }
    QPlainTextEdit* hintEdit() const { return m_hint; }
    QPlainTextEdit* logView() const { return m_log; }

    // Translated name of a state, as the state label shows it.
    static QString stateName(LoopState state);
    static QColor stateColor(LoopState state);

signals:
    void startRequested(const ak::AgentRunRequest& request);
    void pauseRequested();
    void resumeRequested();
    void stepRequested();
    void stopRequested();
    void steerRequested(const ak::Steering& steering, double keepThreshold, const ak::MoveOnRules& moveOn);

private:
    QWidget* buildStatusBox();
    QWidget* buildAgentBox();
    QWidget* buildSteeringBox();
    // The sweep is a bounded search: it ends a kernel by exhaustion, so "reverts in a row" does not
    // apply to it and its spin box says so (disabled) instead of showing a rule that never fires.
    void updateRevertsRule();
    void onPauseClicked();
    void onStepClicked();
    void updateButtons();
    void updateKeyStatus();
    void refillTunables();

    LoopState m_state = LoopState::Idle;
    QString m_currentKernel;
    QString m_startBlocked;
    QHash<QString, QString> m_sources;  // kernel -> current best source

    QLabel* m_stateLabel = nullptr;
    QLabel* m_kernelLabel = nullptr;
    QLabel* m_experimentLabel = nullptr;
    QPushButton* m_start = nullptr;
    QPushButton* m_pause = nullptr;
    QPushButton* m_step = nullptr;
    QPushButton* m_stop = nullptr;

    QComboBox* m_kind = nullptr;
    QStackedWidget* m_kindPages = nullptr;
    QComboBox* m_strategy = nullptr;
    QSpinBox* m_seed = nullptr;
    QLineEdit* m_endpoint = nullptr;
    QLineEdit* m_model = nullptr;
    QLineEdit* m_keyVariable = nullptr;
    QLabel* m_keyStatus = nullptr;
    QDoubleSpinBox* m_llmTimeout = nullptr;
    QLineEdit* m_commandTemplate = nullptr;
    QDoubleSpinBox* m_commandTimeout = nullptr;
    QSpinBox* m_budgetExperiments = nullptr;
    QDoubleSpinBox* m_budgetHours = nullptr;

    QComboBox* m_target = nullptr;
    QSpinBox* m_focusTier = nullptr;
    QListWidget* m_frozen = nullptr;
    QLabel* m_frozenNote = nullptr;
    QDoubleSpinBox* m_threshold = nullptr;
    QSpinBox* m_maxReverts = nullptr;
    int m_maxRevertsValue = -1;  // the user's value while the rule does not apply (-1: it applies)
    QDoubleSpinBox* m_ceilingPct = nullptr;
    QDoubleSpinBox* m_maxHours = nullptr;
    QDoubleSpinBox* m_targetSpeedup = nullptr;
    QPlainTextEdit* m_hint = nullptr;
    QPushButton* m_applySteering = nullptr;
    QPlainTextEdit* m_log = nullptr;
};

}  // namespace ak

Q_DECLARE_METATYPE(ak::AgentRunRequest)
Q_DECLARE_METATYPE(ak::Steering)
Q_DECLARE_METATYPE(ak::MoveOnRules)
