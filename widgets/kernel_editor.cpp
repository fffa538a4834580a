#include "widgets/kernel_editor.h"

#include "widgets/source_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace ak {

KernelEditor::KernelEditor(QWidget* parent) : QWidget(parent) {
    m_kernelCombo = new QComboBox(this);
    m_kernelCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_modifiedLabel = new QLabel(this);

    m_notice = new QLabel(this);
    m_notice->setWordWrap(true);
    m_notice->setVisible(false);
    m_notice->setStyleSheet(QStringLiteral("QLabel { color: #8a5a00; }"));

    m_view = new SourceView(this);
    m_view->setReadOnly(false);

    m_description = new QLineEdit(this);
    m_description->setPlaceholderText(tr("user edit"));
    m_description->setToolTip(tr("One line recorded as the experiment's description"));
    m_runButton = new QPushButton(tr("Run my edit as the next experiment"), this);
    m_revertButton = new QPushButton(tr("Revert edit"), this);
    m_revertButton->setToolTip(tr("Throw the edit away and show the current best again"));

    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Kernel:"), this));
    top->addWidget(m_kernelCombo);
    top->addStretch(1);
    top->addWidget(m_modifiedLabel);

    auto* describe = new QHBoxLayout;
    describe->addWidget(new QLabel(tr("Description:"), this));
    describe->addWidget(m_description, 1);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_runButton);
    buttons->addWidget(m_revertButton);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_notice);
    layout->addWidget(m_view, 1);
    layout->addLayout(describe);
    layout->addLayout(buttons);
    layout->addWidget(m_status);

    connect(m_view, &QPlainTextEdit::textChanged, this, &KernelEditor::onTextChanged);
    connect(m_kernelCombo, &QComboBox::activated, this, &KernelEditor::onKernelActivated);
    connect(m_runButton, &QPushButton::clicked, this, &KernelEditor::requestRun);
    connect(m_description, &QLineEdit::returnPressed, this, &KernelEditor::requestRun);
    connect(m_revertButton, &QPushButton::clicked, this, &KernelEditor::revertEdit);
    updateControls();
}

KernelEditor::~KernelEditor() = default;

void KernelEditor::setKernels(const QStringList& kernelNames) {
    {
        const QSignalBlocker blocker(m_kernelCombo);
        m_kernelCombo->clear();
        m_kernelCombo->addItems(kernelNames);
    }
    if (kernelNames.isEmpty()) {
        m_kernel.clear();
        m_base.clear();
        m_baseExperiment = -1;
        m_hasBase = false;
        m_notice->setVisible(false);
        showBase();
        return;
    }
    if (kernelNames.contains(m_kernel)) {
        const QSignalBlocker blocker(m_kernelCombo);
        m_kernelCombo->setCurrentIndex(int(kernelNames.indexOf(m_kernel)));
        updateControls();
        return;
    }
    selectKernel(kernelNames.first());
}

QStringList KernelEditor::kernels() const {
    QStringList out;
    for (int i = 0; i < m_kernelCombo->count(); ++i) out << m_kernelCombo->itemText(i);
    return out;
}

void KernelEditor::selectKernel(const QString& kernelName) {
    const int index = m_kernelCombo->findText(kernelName);
    if (index < 0 || kernelName == m_kernel) return;
    {
        const QSignalBlocker blocker(m_kernelCombo);
        m_kernelCombo->setCurrentIndex(index);
    }
    m_kernel = kernelName;
    m_base.clear();
    m_baseExperiment = -1;
    m_hasBase = false;
    m_notice->setVisible(false);
    m_status->clear();
    showBase();
    emit kernelSelected(kernelName);
}

void KernelEditor::onKernelActivated(int index) {
    if (index < 0) return;
    const QString name = m_kernelCombo->itemText(index);
    if (name == m_kernel) return;
    selectKernel(name);
}

void KernelEditor::setBestSource(const QString& kernelName, const QString& source, int experiment) {
    if (m_kernel.isEmpty() && m_kernelCombo->findText(kernelName) >= 0) {
        const QSignalBlocker blocker(m_kernelCombo);
        m_kernelCombo->setCurrentIndex(m_kernelCombo->findText(kernelName));
        m_kernel = kernelName;
    }
    if (kernelName != m_kernel) return;
    const bool unchanged = m_hasBase && source == m_base && experiment == m_baseExperiment;
    if (unchanged) return;
    const bool keepEdit = isModified();
    m_base = source;
    m_baseExperiment = experiment;
    m_hasBase = true;
    if (keepEdit) {
        m_notice->setText(experiment >= 0
                              ? tr("A newer best of %1 arrived (experiment %2). Your edit is kept; "
                                   "“Revert edit” loads the new best.")
                                    .arg(kernelName)
                                    .arg(experiment)
                              : tr("A newer best of %1 arrived. Your edit is kept; “Revert edit” loads the "
                                   "new best.")
                                    .arg(kernelName));
        m_notice->setVisible(source != m_view->toPlainText());
        onTextChanged();
        return;
    }
    m_notice->setVisible(false);
    showBase();
}

QString KernelEditor::kernelName() const { return m_kernel; }

QString KernelEditor::source() const { return m_view->toPlainText(); }

bool KernelEditor::isModified() const { return m_modified; }

void KernelEditor::setRunAllowed(bool allowed, const QString& reason) {
    m_runAllowed = allowed;
    m_runBlockedReason = allowed ? QString() : reason;
    updateControls();
}

void KernelEditor::setStatus(const QString& text) { m_status->setText(text); }

void KernelEditor::revertEdit() {
    m_notice->setVisible(false);
    showBase();
}

void KernelEditor::showBase() {
    const bool wasModified = m_modified;
    {
        m_settingText = true;
        m_view->setSource(m_base);
        m_settingText = false;
    }
    m_modified = false;
    updateControls();
    if (wasModified) emit modifiedChanged(false);
}

void KernelEditor::onTextChanged() {
    if (m_settingText) return;
    const bool modified = m_hasBase && m_view->toPlainText() != m_base;
    if (!modified) m_notice->setVisible(false);
    if (modified == m_modified) return;
    m_modified = modified;
    updateControls();
    emit modifiedChanged(modified);
}

void KernelEditor::requestRun() {
    if (!m_runButton->isEnabled()) return;
    QString description = m_description->text().simplified();
    if (description.isEmpty()) description = tr("user edit");
    m_status->setText(tr("Submitted: your edit of %1 runs as the next experiment.").arg(m_kernel));
    emit runEditRequested(m_kernel, m_view->toPlainText(), description);
}

void KernelEditor::updateControls() {
    const bool haveKernel = !m_kernel.isEmpty() && m_hasBase;
    m_view->setEnabled(haveKernel);
    m_revertButton->setEnabled(m_modified);
    // Switching kernels would throw the edit away: the user runs or reverts it first.
    m_kernelCombo->setEnabled(!m_modified && m_kernelCombo->count() > 0);
    m_kernelCombo->setToolTip(m_modified ? tr("Run or revert your edit before switching kernels")
                                         : tr("The kernel whose current best is edited"));
    m_runButton->setEnabled(haveKernel && m_modified && m_runAllowed);
    if (!m_runAllowed)
        m_runButton->setToolTip(m_runBlockedReason);
    else if (!m_modified)
        m_runButton->setToolTip(tr("Edit the source first: the unchanged best needs no new experiment"));
    else
        m_runButton->setToolTip(tr("Evaluate the edited source as the next experiment of %1").arg(m_kernel));
    if (m_modified) {
        m_modifiedLabel->setText(tr("modified"));
        m_modifiedLabel->setStyleSheet(QStringLiteral("QLabel { color: #b06000; font-weight: bold; }"));
    } else if (haveKernel) {
        m_modifiedLabel->setText(m_baseExperiment >= 0 ? tr("current best (experiment %1)").arg(m_baseExperiment)
                                                       : tr("current best"));
        m_modifiedLabel->setStyleSheet(QString());
    } else {
        m_modifiedLabel->setText(m_kernel.isEmpty() ? tr("no kernel") : tr("loading…"));
        m_modifiedLabel->setStyleSheet(QString());
    }
}

}  // namespace ak
