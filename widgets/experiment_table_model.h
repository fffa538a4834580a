#pragma once
// The experiments of a session as a table: one row per experiment, in the order given.
//
// Roles:
//   Qt::DisplayRole     formatted text (locale-aware numbers, no units: the header carries them)
//   SortRole            raw value: numbers as double (missing = NaN, sorted last by
//   (= Qt::UserRole)    ExperimentFilterModel), text as QString, enums as their int value
//   Qt::ToolTipRole     description / failure detail / kernel file
//   Qt::ForegroundRole  outcome colour (outcome column), correctness colour (correctness column)
//   Qt::DecorationRole  outcome marker (outcome column), the same shapes and colours as TimelinePlot
//   NumberRole, OutcomeRole, KernelTypeRole, SearchTextRole  (any column) for proxies and views
#include "session/experiment.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QString>

#include <vector>

namespace ak {

class ExperimentTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NumberColumn,
        KernelColumn,
        OutcomeColumn,
        CorrectnessColumn,
        LatencyColumn,
        SpeedupColumn,
        ThroughputColumn,
        BandwidthColumn,
        PctPeakColumn,
        BoundColumn,
        AgentColumn,
        StartedColumn,
        DurationColumn,
        DescriptionColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole,
        NumberRole,       // int: experiment number
        OutcomeRole,      // int: static_cast<int>(ak::Outcome)
        KernelTypeRole,   // QString: kernel_type
        SearchTextRole,   // QString: description, kernel type, agent and detail, newline-separated
    };

    explicit ExperimentTableModel(QObject* parent = nullptr);
    ~ExperimentTableModel() override;

    // Replaces every row (model reset).
    void setExperiments(std::vector<Experiment> experiments);
    // Appends rows at the end (rowsInserted); what the live watcher calls.
    void appendExperiments(const std::vector<Experiment>& experiments);

    // Row must be valid (0 <= row < rowCount()).
    const Experiment& experimentAt(int row) const;
    // Row of the experiment with this number, -1 if none.
    int rowOfExperiment(int number) const;

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    // Text fields converted once per row, so data() hands out shared QStrings.
    struct Row {
        Experiment experiment;
        QString kernel;
        QString agent;
        QString started;
        QString description;
        QString searchText;
    };
    static Row makeRow(Experiment experiment);
    void indexRows(int first);

    std::vector<Row> m_rows;
    QHash<int, int> m_rowOfNumber;
};

}  // namespace ak
