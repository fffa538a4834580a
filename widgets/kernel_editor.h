#pragma once
// Edit a kernel by hand and run the edit as the loop's next experiment.
//
// Shows the current best source of one kernel (the "base") in an editable, highlighted SourceView.
// Any difference from the base marks the editor modified; "Run my edit as the next experiment"
// emits runEditRequested() with the kernel, the edited text and the one-line description, and
// "Revert edit" brings the base back. When a newer best arrives while the user is editing the same
// kernel, the edit is kept and a notice says so (Revert edit loads the new best).
//
// The editor only shows and asks: where the source comes from and how the edit runs is the window's
// business.
#include <QString>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace ak {

class SourceView;

class KernelEditor : public QWidget {
    Q_OBJECT
public:
    explicit KernelEditor(QWidget* parent = nullptr);
    ~KernelEditor() override;

    // The kernels the user can pick from (KernelEntry::name). Keeps the current kernel when it is
    // still listed; otherwise selects the first one (kernelSelected() follows) or, for an empty list,
    // clears the editor.
    void setKernels(const QStringList& kernelNames);
    QStringList kernels() const;

    // The current best of `kernelName` (from experiment `experiment`, -1 when unknown). Selects that
    // kernel when none is selected. For the shown kernel: replaces the text when it is not modified;
    // otherwise the edit stays and a notice names the newer best. For another kernel: ignored.
    void setBestSource(const QString& kernelName, const QString& source, int experiment = -1);

    QString kernelName() const;       // the selected kernel ("" when none)
    QString source() const;           // the editor's text
    QString baseSource() const { return m_base; }
    int baseExperiment() const { return m_baseExperiment; }
    bool isModified() const;

    // Enables or disables running edits; `reason` (shown as the button's tooltip) says why not.
    void setRunAllowed(bool allowed, const QString& reason = QString());
    // A line under the buttons, e.g. "Queued as the next experiment." or what became of it.
    void setStatus(const QString& text);

    // Selects a kernel; emits kernelSelected() when it changes. An edit is thrown away (the user's
    // kernel combo is disabled while the text is modified, so only the window can do this).
    void selectKernel(const QString& kernelName);
    // Throws away the edit: the text becomes the base again.
    void revertEdit();

    // The parts, for tests.
    SourceView* sourceView() const { return m_view; }
    QComboBox* kernelCombo() const { return m_kernelCombo; }
    QLineEdit* descriptionEdit() const { return m_description; }
    QPushButton* runButton() const { return m_runButton; }
    QPushButton* revertButton() const { return m_revertButton; }
    QLabel* modifiedLabel() const { return m_modifiedLabel; }
    QLabel* noticeLabel() const { return m_notice; }
    QLabel* statusLabel() const { return m_status; }

signals:
    // The user picked another kernel: the window should deliver its best through setBestSource().
    void kernelSelected(const QString& kernelName);
    // "Run my edit as the next experiment". `description` is never empty ("user edit" by default).
    void runEditRequested(const QString& kernelName, const QString& source, const QString& description);
    // The modified state changed (the text now differs from the base, or no longer does).
    void modifiedChanged(bool modified);

private:
    void onTextChanged();
    void onKernelActivated(int index);
    void requestRun();
    void showBase();
    void updateControls();

    SourceView* m_view = nullptr;
    QComboBox* m_kernelCombo = nullptr;
    QLineEdit* m_description = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_revertButton = nullptr;
    QLabel* m_modifiedLabel = nullptr;
    QLabel* m_notice = nullptr;
    QLabel* m_status = nullptr;

    QString m_kernel;
    QString m_base;
    int m_baseExperiment = -1;
    bool m_hasBase = false;
    bool m_modified = false;
    bool m_runAllowed = true;
    QString m_runBlockedReason;
    bool m_settingText = false;
};

}  // namespace ak
