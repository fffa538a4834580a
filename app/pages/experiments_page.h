#pragma once
// The Experiments page: the session's experiments as a filterable table (left), its history as a
// timeline (right top) and the selected experiment's diff, source and details (right bottom).
//
// Selection is one thing shown in three places: clicking a table row or a plot point asks the shell
// to select the experiment (experimentActivated), and the shell's setSelection() moves the row, the
// plot's ring and the tabs. Ctrl-clicking a second row asks for it as the compared experiment
// ("Diff vs selected"). Filters hide rows, never the selection: a hidden selected experiment stays
// selected in the plot and the tabs and its row comes back with it.
#include "app/pages/page.h"
#include "widgets/timeline_plot.h"

#include <QHash>

#include <functional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSettings;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QTableView;

namespace ak {

class DetailsPanel;
class DiffView;
class ExperimentFilterModel;
class ExperimentTableModel;
class SourceView;

class ExperimentsPage : public Page {
    Q_OBJECT
public:
    enum Tab { ParentDiffTab, CompareDiffTab, SourceTab, DetailsTab };

    explicit ExperimentsPage(QWidget* parent = nullptr);
    ~ExperimentsPage() override;

    void setSession(const SnapshotPtr& session, const std::vector<Experiment>& experiments) override;
    void appendExperiments(const std::vector<Experiment>& added) override;
    void setSelection(int selected, int compare) override;
    void showSources(const SourcesResult& sources) override;

    void setMetric(TimelinePlot::Metric metric);
    TimelinePlot::Metric metric() const;
    void showCompareTab();
    // Splitters, hidden columns and the metric, under the "ui/" keys of `settings`.
    void restoreLayout(QSettings& settings);
    void saveLayout(QSettings& settings) const;

    QTableView* tableView() const { return m_table; }
    ExperimentTableModel* tableModel() const { return m_model; }
    ExperimentFilterModel* filterModel() const { return m_filter; }
    TimelinePlot* timeline() const { return m_plot; }
    DiffView* parentDiffView() const { return m_parentDiff; }
    DiffView* compareDiffView() const { return m_compareDiff; }
    SourceView* sourceView() const { return m_source; }
    DetailsPanel* detailsPanel() const { return m_details; }
    QTabWidget* tabs() const { return m_tabs; }
    QLineEdit* filterEdit() const { return m_filterEdit; }
    QComboBox* kernelCombo() const { return m_kernelCombo; }
    QCheckBox* outcomeCheckBox(Outcome outcome) const;
    QComboBox* metricCombo() const { return m_metricCombo; }

signals:
    void metricChanged(ak::TimelinePlot::Metric metric);
    // "Compare With…" on the page (the shell asks for the number).
    void compareDialogRequested();

private:
    void buildFilterBar(QWidget* left);
    void buildTable(QWidget* left);
    QWidget* buildTimeline();
    void buildTabs();
    const Experiment* experiment(int number) const;
    void changeFilter(const std::function<void()>& change);
    void selectRow(int number);
    void clearShown();
    void updateKernelCombo();
    void onCurrentRowChanged();
    void onTableSelectionChanged();
    void showTableContextMenu(const QPoint& pos);
    void showHeaderContextMenu(const QPoint& pos);

    std::vector<Experiment> m_experiments;
    QHash<int, std::size_t> m_indexOfNumber;
    int m_selected = -1;
    int m_compare = -1;
    bool m_syncing = false;  // the table's selection is being set from here; ignore its echoes

    QSplitter* m_mainSplitter = nullptr;
    QSplitter* m_rightSplitter = nullptr;
    QLineEdit* m_filterEdit = nullptr;
    QComboBox* m_kernelCombo = nullptr;
    QHash<int, QCheckBox*> m_outcomeBoxes;
    QTableView* m_table = nullptr;
    ExperimentTableModel* m_model = nullptr;
    ExperimentFilterModel* m_filter = nullptr;
    TimelinePlot* m_plot = nullptr;
    QComboBox* m_metricCombo = nullptr;
    QTabWidget* m_tabs = nullptr;
    DiffView* m_parentDiff = nullptr;
    QStackedWidget* m_compareStack = nullptr;
    DiffView* m_compareDiff = nullptr;
    SourceView* m_source = nullptr;
    DetailsPanel* m_details = nullptr;
};

}  // namespace ak
