#include "widgets/agent_panel.h"

#include "engine/kernel_contract.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSet>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace ak {
namespace {

constexpr int kKindSearch = 0;
constexpr int kKindLlm = 1;
constexpr int kKindCommand = 2;
constexpr int kLogLines = 5000;

QDoubleSpinBox* doubleSpin(QWidget* parent, double min, double max, double step, int decimals, double value,
                           const QString& suffix, const QString& zeroText = QString()) {
    auto* spin = new QDoubleSpinBox(parent);
    spin->setRange(min, max);
    spin->setSingleStep(step);
    spin->setDecimals(decimals);
    spin->setValue(value);
    if (!suffix.isEmpty()) spin->setSuffix(suffix);
    if (!zeroText.isEmpty()) spin->setSpecialValueText(zeroText);
    return spin;
}

QSpinBox* intSpin(QWidget* parent, int min, int max, int value, const QString& zeroText = QString()) {
    auto* spin = new QSpinBox(parent);
    spin->setRange(min, max);
    spin->setValue(value);
    if (!zeroText.isEmpty()) spin->setSpecialValueText(zeroText);
    return spin;
}

std::string utf8(const QString& text) { return text.toStdString(); }

}  // namespace

QString AgentPanel::stateName(LoopState state) {
    switch (state) {
    case LoopState::Idle: return tr("Idle");
    case LoopState::Running: return tr("Running");
    case LoopState::Paused: return tr("Paused");
    case LoopState::Stopping: return tr("Stopping");
    case LoopState::Finished: return tr("Finished");
    }
    return QString();
}

QColor AgentPanel::stateColor(LoopState state) {
    switch (state) {
    case LoopState::Idle: return QColor(0x70, 0x70, 0x70);
    case LoopState::Running: return QColor(0x1b, 0x8a, 0x2f);
    case LoopState::Paused: return QColor(0xc0, 0x7a, 0x00);
    case LoopState::Stopping: return QColor(0xb0, 0x30, 0x20);
    case LoopState::Finished: return QColor(0x1f, 0x5f, 0xb0);
    }
    return QColor(Qt::black);
}

AgentPanel::AgentPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildStatusBox());
    layout->addWidget(buildAgentBox());
    layout->addWidget(buildSteeringBox());
    connect(m_kind, &QComboBox::currentIndexChanged, this, &AgentPanel::updateRevertsRule);
    connect(m_strategy, &QComboBox::currentIndexChanged, this, &AgentPanel::updateRevertsRule);
    updateRevertsRule();

    auto* logBox = new QGroupBox(tr("Log"), this);
    m_log = new QPlainTextEdit(logBox);
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(kLogLines);
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto* logLayout = new QVBoxLayout(logBox);
    logLayout->addWidget(m_log);
    layout->addWidget(logBox, 1);

    setState(LoopState::Idle);
    updateKeyStatus();
    refillTunables();
}

AgentPanel::~AgentPanel() = default;

QWidget* AgentPanel::buildStatusBox() {
    auto* box = new QGroupBox(tr("Loop"), this);
    m_stateLabel = new QLabel(box);
    QFont bold = m_stateLabel->font();
    bold.setBold(true);
    m_stateLabel->setFont(bold);
    m_kernelLabel = new QLabel(box);
    m_experimentLabel = new QLabel(box);
    m_experimentLabel->setWordWrap(true);
    m_experimentLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_start = new QPushButton(tr("Start"), box);
    m_pause = new QPushButton(tr("Pause"), box);
    m_step = new QPushButton(tr("Step"), box);
    m_stop = new QPushButton(tr("Stop"), box);
    m_pause->setToolTip(tr("Pause after the experiment in flight"));
    m_stop->setToolTip(tr("Finish and record the experiment in flight, then stop"));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_start);
    buttons->addWidget(m_pause);
    buttons->addWidget(m_step);
    buttons->addWidget(m_stop);

    auto* form = new QFormLayout;
    form->addRow(tr("State:"), m_stateLabel);
    form->addRow(tr("Kernel:"), m_kernelLabel);
    form->addRow(tr("Experiment:"), m_experimentLabel);

    auto* layout = new QVBoxLayout(box);
    layout->addLayout(form);
    layout->addLayout(buttons);

    connect(m_start, &QPushButton::clicked, this, [this] { emit startRequested(runRequest()); });
    connect(m_pause, &QPushButton::clicked, this, &AgentPanel::onPauseClicked);
    connect(m_step, &QPushButton::clicked, this, &AgentPanel::onStepClicked);
    connect(m_stop, &QPushButton::clicked, this, &AgentPanel::stopRequested);
    return box;
}

QWidget* AgentPanel::buildAgentBox() {
    auto* box = new QGroupBox(tr("Agent"), this);
    m_kind = new QComboBox(box);
    m_kind->addItem(tr("Search (built in, offline)"), QStringLiteral("search"));
    m_kind->addItem(tr("LLM (OpenAI-compatible endpoint)"), QStringLiteral("llm"));
    m_kind->addItem(tr("Command (your own tool)"), QStringLiteral("command"));
    m_kindPages = new QStackedWidget(box);

    // search
    auto* search = new QWidget(m_kindPages);
    m_strategy = new QComboBox(search);
    m_strategy->addItem(tr("Sweep: tier by tier"), QStringLiteral("sweep"));
    m_strategy->addItem(tr("Evolve: global search"), QStringLiteral("evolve"));
    m_seed = intSpin(search, 0, 1000000000, 0, tr("random"));
    m_seed->setToolTip(tr("Seed of the evolve strategy's random choices; the same seed repeats a run"));
    auto* searchForm = new QFormLayout(search);
    searchForm->setContentsMargins(0, 0, 0, 0);
    searchForm->addRow(tr("Strategy:"), m_strategy);
    searchForm->addRow(tr("Seed:"), m_seed);
    m_kindPages->addWidget(search);

    // llm
    auto* llm = new QWidget(m_kindPages);
    m_endpoint = new QLineEdit(llm);
    m_endpoint->setPlaceholderText(QStringLiteral("http://localhost:8000/v1"));
    m_model = new QLineEdit(llm);
    m_keyVariable = new QLineEdit(QStringLiteral("OPENAI_API_KEY"), llm);
    m_keyVariable->setToolTip(tr("The name of the environment variable that holds the API key. The key "
                                 "itself is never entered, stored or logged here."));
    m_keyStatus = new QLabel(llm);
    m_llmTimeout = doubleSpin(llm, 1, 3600, 10, 0, 300, tr(" s"));
    auto* keyRow = new QHBoxLayout;
    keyRow->addWidget(m_keyVariable, 1);
    keyRow->addWidget(m_keyStatus);
    auto* llmForm = new QFormLayout(llm);
    llmForm->setContentsMargins(0, 0, 0, 0);
    llmForm->addRow(tr("Endpoint:"), m_endpoint);
    llmForm->addRow(tr("Model:"), m_model);
    llmForm->addRow(tr("API key variable:"), keyRow);
    llmForm->addRow(tr("Timeout:"), m_llmTimeout);
    m_kindPages->addWidget(llm);

    // command
    auto* command = new QWidget(m_kindPages);
    m_commandTemplate = new QLineEdit(command);
    m_commandTemplate->setPlaceholderText(QStringLiteral("my-agent --file {file} --context {context}"));
    m_commandTemplate->setToolTip(tr("Runs on a scratch copy of the kernel; whatever the command leaves in "
                                     "{file} is the candidate. {context} names a file with the playbook, "
                                     "the history and your hint."));
    m_commandTimeout = doubleSpin(command, 1, 86400, 60, 0, 900, tr(" s"));
    auto* commandForm = new QFormLayout(command);
    commandForm->setContentsMargins(0, 0, 0, 0);
    commandForm->addRow(tr("Command:"), m_commandTemplate);
    commandForm->addRow(tr("Timeout:"), m_commandTimeout);
    m_kindPages->addWidget(command);

    m_budgetExperiments = intSpin(box, 0, 1000000, 0, tr("unlimited"));
    m_budgetHours = doubleSpin(box, 0, 1000, 0.5, 1, 0, tr(" h"), tr("unlimited"));
    auto* budget = new QHBoxLayout;
    budget->addWidget(m_budgetExperiments);
    budget->addWidget(new QLabel(tr("experiments or"), box));
    budget->addWidget(m_budgetHours);

    auto* form = new QFormLayout;
    form->addRow(tr("Kind:"), m_kind);
    form->addRow(tr("Budget:"), budget);
    auto* layout = new QVBoxLayout(box);
    layout->addLayout(form);
    layout->addWidget(m_kindPages);

    connect(m_kind, &QComboBox::currentIndexChanged, m_kindPages, &QStackedWidget::setCurrentIndex);
    connect(m_keyVariable, &QLineEdit::textChanged, this, &AgentPanel::updateKeyStatus);
    return box;
}

void AgentPanel::updateRevertsRule() {
    const bool sweep = m_kind->currentData().toString() == QLatin1String("search") &&
                       m_strategy->currentData().toString() == QLatin1String("sweep");
    if (sweep && m_maxRevertsValue < 0) {
        m_maxRevertsValue = m_maxReverts->value();
        m_maxReverts->setSpecialValueText(tr("does not apply to the sweep"));
        m_maxReverts->setValue(m_maxReverts->minimum());
        m_maxReverts->setEnabled(false);
        m_maxReverts->setToolTip(tr("The sweep is a bounded search: it moves on from a kernel when every "
                                    "configuration was tried, not after reverts in a row"));
    } else if (!sweep && m_maxRevertsValue >= 0) {
        m_maxReverts->setSpecialValueText(tr("off"));
        m_maxReverts->setValue(m_maxRevertsValue);
        m_maxRevertsValue = -1;
        m_maxReverts->setEnabled(true);
        m_maxReverts->setToolTip(QString());
    }
}

QWidget* AgentPanel::buildSteeringBox() {
    auto* box = new QGroupBox(tr("Steering"), this);
    m_target = new QComboBox(box);
    m_target->addItem(tr("Chosen by the orchestrator"), QString());
    m_focusTier = intSpin(box, 0, 6, 0, tr("none"));
    m_focusTier->setToolTip(tr("The search agent sweeps only this tier of the playbook"));
    m_frozen = new QListWidget(box);
    m_frozen->setToolTip(tr("Checked tunables stay at their current value"));
    m_frozen->setMaximumHeight(120);
    m_frozenNote = new QLabel(box);
    m_frozenNote->setWordWrap(true);
    m_threshold = doubleSpin(box, 0, 100, 0.1, 2, 1.0, tr(" %"));
    m_threshold->setToolTip(tr("A candidate is kept when it beats the best by more than this and by "
                               "more than the measured noise"));

    const MoveOnRules defaults;
    m_maxReverts = intSpin(box, 0, 100000, defaults.max_consecutive_reverts, tr("off"));
    m_ceilingPct = doubleSpin(box, 0, 100, 1, 0, defaults.ceiling_fraction * 100.0, tr(" %"), tr("off"));
    m_maxHours = doubleSpin(box, 0, 1000, 0.5, 2, defaults.max_hours, tr(" h"), tr("off"));
    m_targetSpeedup = doubleSpin(box, 0, 1000, 0.1, 2, defaults.target_speedup, tr("×"), tr("off"));

    m_hint = new QPlainTextEdit(box);
    m_hint->setPlaceholderText(tr("A hint for LLM and command agents, e.g. “try two rows per warp”"));
    m_hint->setMaximumHeight(80);
    m_applySteering = new QPushButton(tr("Apply steering"), box);
    m_applySteering->setToolTip(tr("Send these settings to the running loop; they apply after the "
                                   "experiment in flight"));

    auto* moveOn = new QGroupBox(tr("Move on from a kernel after"), box);
    auto* moveOnForm = new QFormLayout(moveOn);
    moveOnForm->addRow(tr("Reverts in a row:"), m_maxReverts);
    moveOnForm->addRow(tr("Share of its ceiling:"), m_ceilingPct);
    moveOnForm->addRow(tr("Hours on it:"), m_maxHours);
    moveOnForm->addRow(tr("Speed-up over the starter:"), m_targetSpeedup);

    auto* form = new QFormLayout;
    form->addRow(tr("Target kernel:"), m_target);
    form->addRow(tr("Focus tier:"), m_focusTier);
    form->addRow(tr("Frozen tunables:"), m_frozen);
    form->addRow(QString(), m_frozenNote);
    form->addRow(tr("Keep threshold:"), m_threshold);
    auto* layout = new QVBoxLayout(box);
    layout->addLayout(form);
    layout->addWidget(moveOn);
    layout->addWidget(new QLabel(tr("Hint:"), box));
    layout->addWidget(m_hint);
    layout->addWidget(m_applySteering, 0, Qt::AlignRight);

    connect(m_target, &QComboBox::currentIndexChanged, this, &AgentPanel::refillTunables);
    connect(m_applySteering, &QPushButton::clicked, this,
            [this] { emit steerRequested(steering(), keepThreshold(), moveOnRules()); });
    return box;
}

// ---- state -------------------------------------------------------------------------------------------

void AgentPanel::setState(LoopState state) {
    m_state = state;
    m_stateLabel->setText(stateName(state));
    m_stateLabel->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(stateColor(state).name()));
    updateButtons();
}

void AgentPanel::setCurrentKernel(const QString& kernelName) {
    m_currentKernel = kernelName;
    m_kernelLabel->setText(kernelName.isEmpty() ? tr("none yet") : kernelName);
    if (m_target->currentData().toString().isEmpty()) refillTunables();
}

void AgentPanel::setCurrentExperiment(const QString& text) { m_experimentLabel->setText(text); }

void AgentPanel::setStartBlocked(const QString& reason) {
    m_startBlocked = reason;
    updateButtons();
}

void AgentPanel::onPauseClicked() {
    if (m_state == LoopState::Paused)
        emit resumeRequested();
    else if (m_state == LoopState::Running)
        emit pauseRequested();
}

void AgentPanel::onStepClicked() {
    if (m_state == LoopState::Running || m_state == LoopState::Paused) {
        emit stepRequested();
        return;
    }
    AgentRunRequest request = runRequest();
    request.singleStep = true;
    emit startRequested(request);
}

void AgentPanel::updateButtons() {
    const bool idle = m_state == LoopState::Idle || m_state == LoopState::Finished;
    const bool active = m_state == LoopState::Running || m_state == LoopState::Paused;
    const bool canStart = idle && m_startBlocked.isEmpty();
    m_start->setEnabled(canStart);
    m_start->setToolTip(m_startBlocked.isEmpty() ? tr("Start the loop with these settings") : m_startBlocked);
    m_pause->setEnabled(active);
    m_pause->setText(m_state == LoopState::Paused ? tr("Resume") : tr("Pause"));
    m_step->setEnabled(active || canStart);
    m_step->setToolTip(idle ? (m_startBlocked.isEmpty() ? tr("Run one experiment, then pause") : m_startBlocked)
                            : tr("Run one more experiment, then pause"));
    m_stop->setEnabled(active);
    m_applySteering->setEnabled(active);
    m_kind->setEnabled(idle);
    m_kindPages->setEnabled(idle);
    m_budgetExperiments->setEnabled(idle);
    m_budgetHours->setEnabled(idle);
}

// ---- agent ---------------------------------------------------------------------------------------------

void AgentPanel::setAvailableAgentKinds(const std::vector<std::string>& kinds) {
    auto* model = qobject_cast<QStandardItemModel*>(m_kind->model());
    for (int i = 0; i < m_kind->count(); ++i) {
        const std::string kind = utf8(m_kind->itemData(i).toString());
        const bool available = std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
        if (QStandardItem* item = model ? model->item(i) : nullptr) item->setEnabled(available);
        m_kind->setItemData(i, available ? QVariant() : QVariant(tr("Not built into this program")), Qt::ToolTipRole);
    }
    // Move off a kind that cannot be made.
    const std::string current = utf8(m_kind->currentData().toString());
    if (std::find(kinds.begin(), kinds.end(), current) == kinds.end()) {
        for (int i = 0; i < m_kind->count(); ++i) {
            if (std::find(kinds.begin(), kinds.end(), utf8(m_kind->itemData(i).toString())) != kinds.end()) {
                m_kind->setCurrentIndex(i);
                break;
            }
        }
    }
}

void AgentPanel::updateKeyStatus() {
    const QString name = m_keyVariable->text().trimmed();
    if (name.isEmpty()) {
        m_keyStatus->setText(tr("none: requests carry no key"));
        m_keyStatus->setStyleSheet(QString());
        return;
    }
    // Only whether it is set; the value is never read into the GUI.
    const bool set = !qEnvironmentVariableIsEmpty(name.toLocal8Bit().constData());
    m_keyStatus->setText(set ? tr("set") : tr("not set"));
    m_keyStatus->setStyleSheet(set ? QStringLiteral("QLabel { color: #1b8a2f; }")
                                   : QStringLiteral("QLabel { color: #b03020; }"));
}

AgentRunRequest AgentPanel::runRequest() const {
    AgentRunRequest r;
    AgentSettings& a = r.agent;
    a.kind = utf8(m_kind->currentData().toString());
    a.search_strategy = utf8(m_strategy->currentData().toString());
    a.seed = static_cast<std::uint64_t>(m_seed->value());
    a.llm_endpoint = utf8(m_endpoint->text().trimmed());
    a.llm_model = utf8(m_model->text().trimmed());
    a.llm_key_env = utf8(m_keyVariable->text().trimmed());
    a.llm_timeout_s = m_llmTimeout->value();
    a.command_template = utf8(m_commandTemplate->text().trimmed());
    a.command_timeout_s = m_commandTimeout->value();
    if (m_budgetExperiments->value() > 0) r.budget.max_experiments = m_budgetExperiments->value();
    if (m_budgetHours->value() > 0)
        r.budget.max_time = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double, std::ratio<3600>>(m_budgetHours->value()));
    r.steering = steering();
    r.keepThreshold = keepThreshold();
    r.moveOn = moveOnRules();
    return r;
}

// ---- steering ------------------------------------------------------------------------------------------

void AgentPanel::setKernels(const QStringList& kernelNames) {
    const QString target = m_target->currentData().toString();
    {
        const QSignalBlocker blocker(m_target);
        while (m_target->count() > 1) m_target->removeItem(1);
        for (const QString& name : kernelNames) m_target->addItem(name, name);
        const int index = m_target->findData(target);
        m_target->setCurrentIndex(index < 0 ? 0 : index);
    }
    for (auto it = m_sources.begin(); it != m_sources.end();) {
        if (kernelNames.contains(it.key()))
            ++it;
        else
            it = m_sources.erase(it);
    }
    refillTunables();
}

void AgentPanel::setKernelSource(const QString& kernelName, const QString& source) {
    const auto it = m_sources.constFind(kernelName);
    if (it != m_sources.constEnd() && *it == source) return;
    m_sources.insert(kernelName, source);
    if (kernelName == tunablesKernel()) refillTunables();
}

QString AgentPanel::tunablesKernel() const {
    const QString target = m_target->currentData().toString();
    return target.isEmpty() ? m_currentKernel : target;
}

void AgentPanel::refillTunables() {
    QSet<QString> checked;
    for (int i = 0; i < m_frozen->count(); ++i)
        if (m_frozen->item(i)->checkState() == Qt::Checked) checked.insert(m_frozen->item(i)->data(Qt::UserRole).toString());
    m_frozen->clear();

    const QString kernel = tunablesKernel();
    const auto it = m_sources.constFind(kernel);
    if (kernel.isEmpty() || it == m_sources.constEnd()) {
        m_frozenNote->setText(kernel.isEmpty() ? tr("Pick a target kernel to freeze its tunables.")
                                               : tr("The source of %1 is not loaded yet.").arg(kernel));
        return;
    }
    const KernelContract contract = parse_contract(it->toStdString());
    for (const Tunable& t : contract.tunables) {
        QStringList values;
        for (const std::string& v : t.allowed) values << QString::fromStdString(v);
        const QString name = QString::fromStdString(t.name);
        auto* item = new QListWidgetItem(tr("%1 = %2 (tier %3; %4)")
                                             .arg(name, QString::fromStdString(t.value))
                                             .arg(t.tier)
                                             .arg(values.join(QStringLiteral(", "))),
                                         m_frozen);
        item->setData(Qt::UserRole, name);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(checked.contains(name) ? Qt::Checked : Qt::Unchecked);
        if (!t.help.empty()) item->setToolTip(QString::fromStdString(t.help));
    }
    if (!contract.ok())
        m_frozenNote->setText(tr("The @autokernel lines of %1 have errors:\n%2")
                                  .arg(kernel, QString::fromStdString(contract.error_text(kernel.toStdString() + ".cu"))
                                                   .trimmed()));
    else if (contract.tunables.empty())
        m_frozenNote->setText(tr("%1 declares no tunables.").arg(kernel));
    else
        m_frozenNote->setText(tr("Tunables of %1.").arg(kernel));
}

Steering AgentPanel::steering() const {
    Steering s;
    s.target_kernel = utf8(m_target->currentData().toString());
    s.focus_tier = m_focusTier->value();
    for (int i = 0; i < m_frozen->count(); ++i)
        if (m_frozen->item(i)->checkState() == Qt::Checked)
            s.frozen_tunables.push_back(utf8(m_frozen->item(i)->data(Qt::UserRole).toString()));
    s.hint = utf8(m_hint->toPlainText().trimmed());
    return s;
}

double AgentPanel::keepThreshold() const { return m_threshold->value() / 100.0; }

MoveOnRules AgentPanel::moveOnRules() const {
    MoveOnRules r;
    // While the rule does not apply (the sweep) the user's value is kept, not the shown placeholder.
    r.max_consecutive_reverts = m_maxRevertsValue >= 0 ? m_maxRevertsValue : m_maxReverts->value();
    r.ceiling_fraction = m_ceilingPct->value() / 100.0;
    r.max_hours = m_maxHours->value();
    r.target_speedup = m_targetSpeedup->value();
    return r;
}

// ---- log -----------------------------------------------------------------------------------------------

void AgentPanel::appendLog(const QString& line) { m_log->appendPlainText(line); }

void AgentPanel::clearLog() { m_log->clear(); }

}  // namespace ak
