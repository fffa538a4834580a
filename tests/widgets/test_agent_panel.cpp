// Tests widgets/agent_panel.cpp: buttons enabled per loop state, the signals and the values they
// carry (agent settings, budget, steering, keep threshold, move-on rules), the frozen-tunables list
// filled from the kernel's @autokernel lines, and the API-key variable shown as set / not set only.
#include "widgets/agent_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QtTest>

#include <chrono>

using namespace ak;

namespace {

const QString kSource = QStringLiteral(
    "// @autokernel type rmsnorm\n"
    "// @autokernel tunable BLOCK_THREADS = 256 {64, 128, 256, 512} tier 1 -- threads per block\n"
    "// @autokernel tunable VEC = 1 {1, 2, 4, 8} tier 2 -- elements per load\n"
    "__global__ void k() {}\n");

// Which of start / pause / step / stop / apply are enabled, as a string like "SP.T." for tests.
QString enabled(const AgentPanel& p) {
    QString s;
    s += p.startButton()->isEnabled() ? QLatin1Char('S') : QLatin1Char('.');
    s += p.pauseButton()->isEnabled() ? QLatin1Char('P') : QLatin1Char('.');
    s += p.stepButton()->isEnabled() ? QLatin1Char('T') : QLatin1Char('.');
    s += p.stopButton()->isEnabled() ? QLatin1Char('X') : QLatin1Char('.');
    s += p.applySteeringButton()->isEnabled() ? QLatin1Char('A') : QLatin1Char('.');
    return s;
}

AgentRunRequest requestOf(const QSignalSpy& spy, int i = 0) { return spy.at(i).at(0).value<AgentRunRequest>(); }

}  // namespace

class TestAgentPanel : public QObject {
    Q_OBJECT
private slots:
    void buttonsFollowTheState() {
        AgentPanel panel;
        QCOMPARE(enabled(panel), QStringLiteral("S.T.."));
        panel.setState(LoopState::Running);
        QCOMPARE(enabled(panel), QStringLiteral(".PTXA"));
        QCOMPARE(panel.pauseButton()->text(), QStringLiteral("Pause"));
        QVERIFY(!panel.agentKindCombo()->isEnabled());  // the agent is fixed while a loop runs
        panel.setState(LoopState::Paused);
        QCOMPARE(enabled(panel), QStringLiteral(".PTXA"));
        QCOMPARE(panel.pauseButton()->text(), QStringLiteral("Resume"));
        panel.setState(LoopState::Stopping);
        QCOMPARE(enabled(panel), QStringLiteral("....."));
        panel.setState(LoopState::Finished);
        QCOMPARE(enabled(panel), QStringLiteral("S.T.."));
        QVERIFY(panel.agentKindCombo()->isEnabled());
    }

    void stateLabelNamesAndColoursTheState() {
        AgentPanel panel;
        panel.setState(LoopState::Paused);
        QCOMPARE(panel.stateLabel()->text(), QStringLiteral("Paused"));
        QVERIFY(panel.stateLabel()->styleSheet().contains(AgentPanel::stateColor(LoopState::Paused).name()));
        QVERIFY(AgentPanel::stateColor(LoopState::Running) != AgentPanel::stateColor(LoopState::Paused));
        panel.setCurrentKernel(QStringLiteral("softmax"));
        panel.setCurrentExperiment(QStringLiteral("#12 vector width 4"));
        QCOMPARE(panel.kernelLabel()->text(), QStringLiteral("softmax"));
        QCOMPARE(panel.experimentLabel()->text(), QStringLiteral("#12 vector width 4"));
    }

    void blockedStartSaysWhy() {
        AgentPanel panel;
        panel.setStartBlocked(QStringLiteral("no session is open"));
        QCOMPARE(enabled(panel), QStringLiteral("....."));
        QCOMPARE(panel.startButton()->toolTip(), QStringLiteral("no session is open"));
        panel.setStartBlocked(QString());
        QCOMPARE(enabled(panel), QStringLiteral("S.T.."));
    }

    void pauseStepStopEmitPerState() {
        AgentPanel panel;
        QSignalSpy pause(&panel, &AgentPanel::pauseRequested);
        QSignalSpy resume(&panel, &AgentPanel::resumeRequested);
        QSignalSpy step(&panel, &AgentPanel::stepRequested);
        QSignalSpy stop(&panel, &AgentPanel::stopRequested);
        QSignalSpy start(&panel, &AgentPanel::startRequested);
        panel.setState(LoopState::Running);
        QTest::mouseClick(panel.pauseButton(), Qt::LeftButton);
        QTest::mouseClick(panel.stepButton(), Qt::LeftButton);
        panel.setState(LoopState::Paused);
        QTest::mouseClick(panel.pauseButton(), Qt::LeftButton);
        QTest::mouseClick(panel.stopButton(), Qt::LeftButton);
        QCOMPARE(pause.count(), 1);
        QCOMPARE(resume.count(), 1);
        QCOMPARE(step.count(), 1);
        QCOMPARE(stop.count(), 1);
        QCOMPARE(start.count(), 0);
    }

    void stepWhileIdleStartsASingleStep() {
        AgentPanel panel;
        QSignalSpy start(&panel, &AgentPanel::startRequested);
        QSignalSpy step(&panel, &AgentPanel::stepRequested);
        QTest::mouseClick(panel.stepButton(), Qt::LeftButton);
        QCOMPARE(step.count(), 0);
        QCOMPARE(start.count(), 1);
        QVERIFY(requestOf(start).singleStep);
        QTest::mouseClick(panel.startButton(), Qt::LeftButton);
        QCOMPARE(start.count(), 2);
        QVERIFY(!requestOf(start, 1).singleStep);
    }

    void startCarriesTheSearchSettingsAndBudget() {
        AgentPanel panel;
        panel.setKernels({QStringLiteral("rmsnorm"), QStringLiteral("softmax")});
        panel.strategyCombo()->setCurrentIndex(panel.strategyCombo()->findData(QStringLiteral("evolve")));
        panel.seedSpin()->setValue(42);
        panel.budgetExperimentsSpin()->setValue(25);
        panel.budgetHoursSpin()->setValue(1.5);
        panel.targetKernelCombo()->setCurrentIndex(panel.targetKernelCombo()->findData(QStringLiteral("softmax")));
        panel.focusTierSpin()->setValue(2);
        panel.keepThresholdSpin()->setValue(2.5);
        panel.hintEdit()->setPlainText(QStringLiteral("  try two rows per warp \n"));
        QSignalSpy start(&panel, &AgentPanel::startRequested);
        QTest::mouseClick(panel.startButton(), Qt::LeftButton);
        QCOMPARE(start.count(), 1);
        const AgentRunRequest r = requestOf(start);
        QCOMPARE(r.agent.kind, std::string("search"));
        QCOMPARE(r.agent.search_strategy, std::string("evolve"));
        QCOMPARE(r.agent.seed, std::uint64_t(42));
        QVERIFY(r.budget.max_experiments.has_value());
        QCOMPARE(*r.budget.max_experiments, 25);
        QVERIFY(r.budget.max_time.has_value());
        QCOMPARE(std::chrono::duration_cast<std::chrono::seconds>(*r.budget.max_time).count(), 5400);
        QCOMPARE(r.steering.target_kernel, std::string("softmax"));
        QCOMPARE(r.steering.focus_tier, 2);
        QCOMPARE(r.steering.hint, std::string("try two rows per warp"));
        QCOMPARE(r.keepThreshold, 0.025);
    }

    // The default agent is the sweep, a bounded search: "reverts in a row" does not apply to it, and
    // the panel says so instead of showing "5".
    void revertsInARowDoesNotApplyToTheSweep() {
        AgentPanel panel;
        QCOMPARE(panel.agentKindCombo()->currentData().toString(), QStringLiteral("search"));
        QCOMPARE(panel.strategyCombo()->currentData().toString(), QStringLiteral("sweep"));
        QVERIFY(!panel.maxRevertsSpin()->isEnabled());
        QCOMPARE(panel.maxRevertsSpin()->text(), panel.maxRevertsSpin()->specialValueText());
        QVERIFY(!panel.maxRevertsSpin()->text().contains(QLatin1Char('5')));
        panel.strategyCombo()->setCurrentIndex(panel.strategyCombo()->findData(QStringLiteral("evolve")));
        QVERIFY(panel.maxRevertsSpin()->isEnabled());
        QCOMPARE(panel.maxRevertsSpin()->value(), MoveOnRules{}.max_consecutive_reverts);
        panel.strategyCombo()->setCurrentIndex(panel.strategyCombo()->findData(QStringLiteral("sweep")));
        panel.agentKindCombo()->setCurrentIndex(panel.agentKindCombo()->findData(QStringLiteral("llm")));
        QVERIFY(panel.maxRevertsSpin()->isEnabled());
        QCOMPARE(panel.maxRevertsSpin()->value(), MoveOnRules{}.max_consecutive_reverts);
    }

    void unlimitedBudgetLeavesLimitsUnset() {
        AgentPanel panel;
        const AgentRunRequest r = panel.runRequest();
        QVERIFY(!r.budget.max_experiments.has_value());
        QVERIFY(!r.budget.max_time.has_value());
        QVERIFY(r.steering.target_kernel.empty());  // the orchestrator chooses
        QCOMPARE(r.moveOn.max_consecutive_reverts, MoveOnRules{}.max_consecutive_reverts);
        QCOMPARE(r.moveOn.ceiling_fraction, MoveOnRules{}.ceiling_fraction);
    }

    void llmSettingsCarryTheVariableNameNeverTheKey() {
        qputenv("AK_TEST_PANEL_KEY", "sk-secret-value");
        qunsetenv("AK_TEST_PANEL_MISSING");
        AgentPanel panel;
        panel.agentKindCombo()->setCurrentIndex(panel.agentKindCombo()->findData(QStringLiteral("llm")));
        panel.endpointEdit()->setText(QStringLiteral(" http://127.0.0.1:8080/v1 "));
        panel.modelEdit()->setText(QStringLiteral("qwen-coder"));
        panel.keyVariableEdit()->setText(QStringLiteral("AK_TEST_PANEL_KEY"));
        QCOMPARE(panel.keyStatusLabel()->text(), QStringLiteral("set"));
        panel.llmTimeoutSpin()->setValue(45);
        const AgentRunRequest r = panel.runRequest();
        QCOMPARE(r.agent.kind, std::string("llm"));
        QCOMPARE(r.agent.llm_endpoint, std::string("http://127.0.0.1:8080/v1"));
        QCOMPARE(r.agent.llm_model, std::string("qwen-coder"));
        QCOMPARE(r.agent.llm_key_env, std::string("AK_TEST_PANEL_KEY"));
        QCOMPARE(r.agent.llm_timeout_s, 45.0);
        // The key's value appears nowhere in the panel.
        for (const QLabel* label : panel.findChildren<QLabel*>())
            QVERIFY(!label->text().contains(QLatin1String("sk-secret")));
        for (const QLineEdit* edit : panel.findChildren<QLineEdit*>())
            QVERIFY(!edit->text().contains(QLatin1String("sk-secret")));
        panel.keyVariableEdit()->setText(QStringLiteral("AK_TEST_PANEL_MISSING"));
        QCOMPARE(panel.keyStatusLabel()->text(), QStringLiteral("not set"));
    }

    void commandSettings() {
        AgentPanel panel;
        panel.agentKindCombo()->setCurrentIndex(panel.agentKindCombo()->findData(QStringLiteral("command")));
        panel.commandTemplateEdit()->setText(QStringLiteral("my-agent --file {file} --context {context}"));
        panel.commandTimeoutSpin()->setValue(120);
        const AgentRunRequest r = panel.runRequest();
        QCOMPARE(r.agent.kind, std::string("command"));
        QCOMPARE(r.agent.command_template, std::string("my-agent --file {file} --context {context}"));
        QCOMPARE(r.agent.command_timeout_s, 120.0);
    }

    void kindsNotBuiltAreDisabledAndNotChosen() {
        AgentPanel panel;
        panel.agentKindCombo()->setCurrentIndex(panel.agentKindCombo()->findData(QStringLiteral("llm")));
        panel.setAvailableAgentKinds({"search", "command"});
        QCOMPARE(panel.agentKindCombo()->currentData().toString(), QStringLiteral("search"));
        const auto* model = qobject_cast<QStandardItemModel*>(panel.agentKindCombo()->model());
        QVERIFY(model);
        QVERIFY(!model->item(panel.agentKindCombo()->findData(QStringLiteral("llm")))->isEnabled());
        QVERIFY(model->item(panel.agentKindCombo()->findData(QStringLiteral("command")))->isEnabled());
    }

    void frozenTunablesComeFromTheKernelContract() {
        AgentPanel panel;
        panel.setKernels({QStringLiteral("rmsnorm"), QStringLiteral("softmax")});
        QCOMPARE(panel.frozenTunablesList()->count(), 0);  // no kernel chosen or current yet
        panel.setKernelSource(QStringLiteral("rmsnorm"), kSource);
        panel.setCurrentKernel(QStringLiteral("rmsnorm"));  // no target: the current kernel's tunables
        QCOMPARE(panel.tunablesKernel(), QStringLiteral("rmsnorm"));
        QCOMPARE(panel.frozenTunablesList()->count(), 2);
        QVERIFY(panel.frozenTunablesList()->item(0)->text().startsWith(QLatin1String("BLOCK_THREADS = 256")));
        QVERIFY(panel.frozenTunablesList()->item(1)->text().contains(QLatin1String("1, 2, 4, 8")));

        panel.frozenTunablesList()->item(1)->setCheckState(Qt::Checked);
        QCOMPARE(panel.steering().frozen_tunables, std::vector<std::string>{"VEC"});
        // A new best of the same kernel keeps what the user froze.
        panel.setKernelSource(QStringLiteral("rmsnorm"), QString(kSource).replace(QStringLiteral("VEC = 1"),
                                                                                  QStringLiteral("VEC = 4")));
        QCOMPARE(panel.frozenTunablesList()->count(), 2);
        QCOMPARE(panel.frozenTunablesList()->item(1)->checkState(), Qt::Checked);
        QVERIFY(panel.frozenTunablesList()->item(1)->text().startsWith(QLatin1String("VEC = 4")));

        // Targeting a kernel whose source is not loaded empties the list.
        panel.targetKernelCombo()->setCurrentIndex(panel.targetKernelCombo()->findData(QStringLiteral("softmax")));
        QCOMPARE(panel.tunablesKernel(), QStringLiteral("softmax"));
        QCOMPARE(panel.frozenTunablesList()->count(), 0);
        QVERIFY(panel.steering().frozen_tunables.empty());
    }

    void applySteeringEmitsTheSteerFields() {
        qRegisterMetaType<ak::Steering>();
        qRegisterMetaType<ak::MoveOnRules>();
        AgentPanel panel;
        panel.setKernels({QStringLiteral("rmsnorm")});
        panel.setKernelSource(QStringLiteral("rmsnorm"), kSource);
        panel.targetKernelCombo()->setCurrentIndex(panel.targetKernelCombo()->findData(QStringLiteral("rmsnorm")));
        panel.frozenTunablesList()->item(0)->setCheckState(Qt::Checked);
        panel.focusTierSpin()->setValue(1);
        panel.keepThresholdSpin()->setValue(0.5);
        // Reverts in a row apply to the evolve strategy (not to the bounded sweep).
        panel.strategyCombo()->setCurrentIndex(panel.strategyCombo()->findData(QStringLiteral("evolve")));
        panel.maxRevertsSpin()->setValue(8);
        panel.ceilingPercentSpin()->setValue(0);  // off
        panel.maxHoursSpin()->setValue(3.5);
        panel.targetSpeedupSpin()->setValue(1.5);
        panel.hintEdit()->setPlainText(QStringLiteral("use warp shuffles"));
        panel.setState(LoopState::Running);
        QSignalSpy steer(&panel, &AgentPanel::steerRequested);
        QTest::mouseClick(panel.applySteeringButton(), Qt::LeftButton);
        QCOMPARE(steer.count(), 1);
        const auto s = steer.first().at(0).value<ak::Steering>();
        QCOMPARE(s.target_kernel, std::string("rmsnorm"));
        QCOMPARE(s.focus_tier, 1);
        QCOMPARE(s.frozen_tunables, std::vector<std::string>{"BLOCK_THREADS"});
        QCOMPARE(s.hint, std::string("use warp shuffles"));
        QCOMPARE(steer.first().at(1).toDouble(), 0.005);
        const auto m = steer.first().at(2).value<ak::MoveOnRules>();
        QCOMPARE(m.max_consecutive_reverts, 8);
        QCOMPARE(m.ceiling_fraction, 0.0);
        QCOMPARE(m.max_hours, 3.5);
        QCOMPARE(m.target_speedup, 1.5);
        QVERIFY(panel.ceilingPercentSpin()->text() == QStringLiteral("off"));
    }

    void contractErrorsAreShown() {
        AgentPanel panel;
        panel.setKernels({QStringLiteral("rmsnorm")});
        panel.setKernelSource(QStringLiteral("rmsnorm"),
                              QStringLiteral("// @autokernel tunable VEC = 3 {1, 2, 4}\n__global__ void k() {}\n"));
        panel.setCurrentKernel(QStringLiteral("rmsnorm"));
        bool found = false;
        for (const QLabel* label : panel.findChildren<QLabel*>())
            found = found || (label->text().contains(QLatin1String("errors")) && label->text().contains(QLatin1String("VEC")));
        QVERIFY(found);
    }

    void logKeepsLines() {
        AgentPanel panel;
        panel.appendLog(QStringLiteral("loop started"));
        panel.appendLog(QStringLiteral("experiment 3: kept"));
        QCOMPARE(panel.logView()->toPlainText(), QStringLiteral("loop started\nexperiment 3: kept"));
        panel.clearLog();
        QVERIFY(panel.logView()->toPlainText().isEmpty());
    }
};

QTEST_MAIN(TestAgentPanel)
#include "test_agent_panel.moc"
