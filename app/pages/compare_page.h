#pragma once
// The Compare page: two experiments side by side. The left side is the compared experiment (the
// shell's "compare" of the selection: ctrl-click a second row, "Compare with…" in an experiment's
// menu, or a pinned baseline), the right side the selected experiment.
//
// The table shows every metric of results.tsv for both with the delta (right − left) and the ratio
// (right / left), coloured by whether the right side is better (lower latency, higher everything
// else); then the same per timing shape, from the timing trailers of the two commits
// (session/shape_timing.h, delivered with the sources): our latency, the baseline's, the speed-up,
// TFLOP/s and/or GB/s, % of peak and the spread, matched by shape and dtype; a side whose commit has
// no trailers says "not recorded", a shape only one side timed says "not timed" on the other. Then
// the verdicts (correctness, outcome, bound, agent, detail). Below it the source diff from left to
// right (widgets/diff_view, fed by the shell's one sources request).
//
// "Pin as baseline" keeps the left side while the selection moves: the shell then ignores other
// requests to change the compared experiment until it is unpinned (pinChanged).
#include "app/pages/page.h"

#include <QHash>
#include <QStringList>

#include <optional>

class QLabel;
class QPushButton;
class QTableWidget;

namespace ak {

class DiffView;

class ComparePage : public Page {
    Q_OBJECT
public:
    enum Column { MetricColumn, LeftColumn, RightColumn, DeltaColumn, RatioColumn, ColumnCount };

    explicit ComparePage(QWidget* parent = nullptr);

    void setSession(const SnapshotPtr& session, const std::vector<Experiment>& experiments) override;
    void appendExperiments(const std::vector<Experiment>& added) override;
    void setSelection(int selected, int compare) override;
    void showSources(const SourcesResult& sources) override;

    int leftExperiment() const { return m_left; }
    int rightExperiment() const { return m_right; }
    int pinnedExperiment() const { return m_pinned; }
    // Pins `number` as the left side (-1 unpins) and tells the shell (pinChanged).
    void pin(int number);

    // The text of a row's cell; rows are keyed by their results.tsv column name ("latency_us", ...),
    // per-shape rows by "shape:<shape> <dtype>:<field>" with field us, baseline_us, speedup, tflops,
    // gb_s, pct_peak or iqr_us (e.g. "shape:4096x4096 fp16:us"); "shapes" is the per-shape section's
    // status row while no shape can be shown. A row that is not shown has no text.
    QString cellText(const QString& key, Column column) const;
    QString cellToolTip(const QString& key, Column column) const;
    // The per-shape rows' keys in table order (only their "us" rows), e.g. "shape:4096x4096 fp16".
    QStringList shapeKeys() const;
    QTableWidget* table() const { return m_table; }
    DiffView* diffView() const { return m_diff; }
    QPushButton* pinButton() const { return m_pinButton; }

signals:
    void pinChanged(int number);

private:
    const Experiment* experiment(int number) const;
    void refill();
    enum class Better { Lower, Higher, Neither };
    int addRow(const QString& key, const QString& title);
    void fillNumbers(int row, std::optional<double> left, std::optional<double> right, int decimals, Better better);
    void addSection(const QString& key, const QString& title);
    void fillShapes(const Experiment* left, const Experiment* right);

    std::vector<Experiment> m_experiments;
    QHash<int, std::size_t> m_indexOfNumber;
    QHash<QString, int> m_rowOfKey;
    QStringList m_shapeKeys;
    // The timings of the pair (m_timingsLeft, m_timingsRight) as the last sources result delivered them.
    bool m_timingsLoaded = false;
    int m_timingsLeft = -1;
    int m_timingsRight = -1;
    RecordedTimings m_leftTimings;
    RecordedTimings m_rightTimings;
    QString m_timingsError;
    int m_left = -1;
    int m_right = -1;
    int m_pinned = -1;
    QLabel* m_title = nullptr;
    QPushButton* m_pinButton = nullptr;
    QTableWidget* m_table = nullptr;
    DiffView* m_diff = nullptr;
};

}  // namespace ak
