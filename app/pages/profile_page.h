#pragma once
// The Profile page: where a model's GPU time goes (an open profile.json's breakdown) and what
// optimizing a kernel type could buy end to end (Amdahl's law, interactive).
//
//   summary      GPU busy vs wall time, idle share, kernel launches, attribution coverage
//   bar chart    GPU time per type (µs per iteration), each bar stacked by its largest groups
//   tree         type -> (op, shapes, dtype) -> kernel name (widgets/breakdown_model), sortable,
//                filterable by name
//   what-if      per type a speed-up (slider and spin box 1x-10x, buttons 1.5/2/3/5, "measured": the
//                session's best speed-up for that kernel type); live: the projected end-to-end speed-up
//                of all chosen speed-ups together (core/analysis/amdahl), the limit if the type took no
//                time, before/after bars per type and the curve "end-to-end vs this type's speed-up"
//   verified     when the open session has a verify.json (`autokernel verify`): the measured end-to-end
//                speed-up beside the projection and verify's own prediction
//   optimize     "Optimize Selected…": asks the shell (optimizeRequested) for a new session made of the
//                kernel types selected in the tree (or the what-if type), as `autokernel new --from-profile`
//   origin       when the open session was made from a profile whose file still exists: a button that
//                opens it (openProfileFileRequested)
//
// The page renders and controls; the numbers come from core (profile/breakdown, analysis/amdahl).
// The profile arrives through Page::setProfile (the shell opens it off the GUI thread).
#include "app/pages/page.h"

#include <QHash>

#include <map>
#include <optional>

class QCustomPlot;
class QDoubleSpinBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSlider;
class QSortFilterProxyModel;
class QTreeView;

namespace ak {

class BreakdownModel;

class ProfilePage : public Page {
    Q_OBJECT
public:
    explicit ProfilePage(QWidget* parent = nullptr);
    ~ProfilePage() override;

    void setSession(const SnapshotPtr& session, const std::vector<Experiment>& experiments) override;
    void appendExperiments(const std::vector<Experiment>& added) override;
    void setSessionReports(const SnapshotPtr& session) override;
    void setProfile(const ProfilePtr& profile) override;

    // The type the what-if controls act on ("matmul", ..., "other").
    void setWhatIfType(const QString& typeLabel);
    QString whatIfType() const;
    // The assumed speed-up of a type (1 when none was chosen).
    void setSpeedup(const QString& typeLabel, double speedup);
    double speedupOf(const QString& typeLabel) const;
    // The session's best speed-up of a kernel type (passing kept experiments), when it has one.
    std::optional<double> measuredSpeedup(const QString& typeLabel) const;
    // End-to-end speed-up of all chosen speed-ups together, and the limit of the what-if type.
    double projectedSpeedup() const { return m_projected; }
    double whatIfLimit() const { return m_limit; }
    // The kernel types "Optimize Selected…" would make a session of: the types of the tree's selected
    // rows, else the what-if type; only the nine kernel types ("other" is left out).
    QStringList selectedKernelTypes() const;
    // The profile the open session was made from, when its file exists ("" otherwise): session.json's
    // profile file as given, else relative to the session folder's parent, else a file of its name
    // inside the session folder (a session that carries its profile).
    QString originProfileFile() const;
    // verify.json's measured end-to-end speed-up, when the open session has one.
    std::optional<double> verifiedSpeedup() const;

    BreakdownModel* breakdownModel() const { return m_model; }
    QSortFilterProxyModel* proxyModel() const { return m_proxy; }
    QTreeView* treeView() const { return m_tree; }
    QLineEdit* filterEdit() const { return m_filter; }
    QComboBox* whatIfTypeCombo() const { return m_typeCombo; }
    QSlider* speedupSlider() const { return m_slider; }
    QDoubleSpinBox* speedupSpin() const { return m_spin; }
    QPushButton* presetButton(double speedup) const;
    QPushButton* measuredButton() const { return m_measured; }
    QLabel* summaryLabel() const { return m_summary; }
    QLabel* projectionLabel() const { return m_projection; }
    QCustomPlot* breakdownChart() const { return m_bars; }
    QCustomPlot* beforeAfterChart() const { return m_beforeAfter; }
    QCustomPlot* curveChart() const { return m_curve; }
    QPushButton* optimizeButton() const { return m_optimize; }
    QPushButton* originButton() const { return m_origin; }
    QLabel* verifyLabel() const { return m_verify; }

signals:
    void openProfileRequested();
    void openProfileFileRequested(const QString& path);
    // Make a new session of these kernel types ("matmul", ...) from the open profile.
    void optimizeRequested(const QStringList& kernelTypes);

private:
    void rebuildBreakdown();
    void updateWhatIf();
    void drawBars();
    void drawBeforeAfter();
    void drawCurve();
    double shareOf(const QString& typeLabel) const;
    void updateOptimize();
    void updateOrigin();
    void updateVerified();

    ProfilePtr m_profile;
    SnapshotPtr m_session;
    std::vector<Experiment> m_experiments;
    std::map<QString, double> m_speedups;  // chosen speed-ups per type (absent: 1x)
    double m_projected = 1.0;
    double m_limit = 1.0;
    bool m_updating = false;

    QLabel* m_file = nullptr;
    QLabel* m_summary = nullptr;
    QLineEdit* m_filter = nullptr;
    BreakdownModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTreeView* m_tree = nullptr;
    QCustomPlot* m_bars = nullptr;
    QComboBox* m_typeCombo = nullptr;
    QSlider* m_slider = nullptr;
    QDoubleSpinBox* m_spin = nullptr;
    QHash<int, QPushButton*> m_presets;  // speed-up x10 -> button
    QPushButton* m_measured = nullptr;
    QPushButton* m_reset = nullptr;
    QLabel* m_projection = nullptr;
    QCustomPlot* m_beforeAfter = nullptr;
    QCustomPlot* m_curve = nullptr;
    QPushButton* m_optimize = nullptr;
    QPushButton* m_origin = nullptr;
    QLabel* m_verify = nullptr;
};

}  // namespace ak
