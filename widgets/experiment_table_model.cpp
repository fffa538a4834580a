#include "widgets/experiment_table_model.h"

#include "widgets/outcome_style.h"
#include "widgets/value_format.h"

#include <QBrush>

#include <cmath>
#include <limits>

namespace ak {
namespace {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

QVariant sortValue(const std::optional<double>& value) { return value ? *value : kMissing; }

}  // namespace

ExperimentTableModel::ExperimentTableModel(QObject* parent) : QAbstractTableModel(parent) {}
ExperimentTableModel::~ExperimentTableModel() = default;

ExperimentTableModel::Row ExperimentTableModel::makeRow(Experiment experiment) {
    Row row;
    row.kernel = format::text(experiment.kernel_type);
    row.agent = format::text(experiment.agent);
    row.started = format::utcTimestamp(experiment.started_utc);
    row.description = format::text(experiment.description);
    row.searchText = row.description + QLatin1Char('\n') + row.kernel + QLatin1Char('\n') + row.agent +
                     QLatin1Char('\n') + format::text(experiment.detail);
    row.experiment = std::move(experiment);
    return row;
}

void ExperimentTableModel::indexRows(int first) {
    for (int r = first; r < static_cast<int>(m_rows.size()); ++r)
        m_rowOfNumber.insert(m_rows[static_cast<std::size_t>(r)].experiment.number, r);
}

void ExperimentTableModel::setExperiments(std::vector<Experiment> experiments) {
    beginResetModel();
    m_rows.clear();
    m_rows.reserve(experiments.size());
    for (Experiment& e : experiments) m_rows.push_back(makeRow(std::move(e)));
    m_rowOfNumber.clear();
    m_rowOfNumber.reserve(static_cast<qsizetype>(m_rows.size()));
    indexRows(0);
    endResetModel();
}

void ExperimentTableModel::appendExperiments(const std::vector<Experiment>& experiments) {
    if (experiments.empty()) return;
    const int first = rowCount();
    beginInsertRows(QModelIndex(), first, first + static_cast<int>(experiments.size()) - 1);
    for (const Experiment& e : experiments) m_rows.push_back(makeRow(e));
    indexRows(first);
    endInsertRows();
}

const Experiment& ExperimentTableModel::experimentAt(int row) const {
    Q_ASSERT(row >= 0 && row < rowCount());
    return m_rows[static_cast<std::size_t>(row)].experiment;
}

int ExperimentTableModel::rowOfExperiment(int number) const { return m_rowOfNumber.value(number, -1); }

int ExperimentTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ExperimentTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ExperimentTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return QVariant();
    const Row& row = m_rows[static_cast<std::size_t>(index.row())];
    const Experiment& e = row.experiment;
    const int column = index.column();

    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NumberColumn: return QString::number(e.number);
        case KernelColumn: return row.kernel;
        case OutcomeColumn: return OutcomeStyle::outcomeName(e.outcome);
        case CorrectnessColumn: return OutcomeStyle::correctnessName(e.correctness);
        case LatencyColumn: return format::latencyUs(e.latency_us);
        case SpeedupColumn: return format::speedup(e.speedup_vs_pytorch);
        case ThroughputColumn: return format::tflops(e.throughput_tflops);
        case BandwidthColumn: return format::bandwidth(e.bandwidth_gb_s);
        case PctPeakColumn: return format::percent(e.pct_peak);
        case BoundColumn: return OutcomeStyle::boundName(e.bound);
        case AgentColumn: return row.agent;
        case StartedColumn: return row.started;
        case DurationColumn: return format::seconds(e.duration_s);
        case DescriptionColumn: return row.description;
        }
        return QVariant();
    case SortRole:
        switch (column) {
        case NumberColumn: return double(e.number);
        case KernelColumn: return row.kernel;
        case OutcomeColumn: return double(static_cast<int>(e.outcome));
        case CorrectnessColumn: return double(static_cast<int>(e.correctness));
        case LatencyColumn: return sortValue(e.latency_us);
        case SpeedupColumn: return sortValue(e.speedup_vs_pytorch);
        case ThroughputColumn: return sortValue(e.throughput_tflops);
        case BandwidthColumn: return sortValue(e.bandwidth_gb_s);
        case PctPeakColumn: return sortValue(e.pct_peak);
        case BoundColumn: return double(static_cast<int>(e.bound));
        case AgentColumn: return row.agent;
        case StartedColumn: return row.started;  // ISO order is time order
        case DurationColumn: return sortValue(e.duration_s);
        case DescriptionColumn: return row.description;
        }
        return QVariant();
    case Qt::ToolTipRole:
        switch (column) {
        case KernelColumn: return format::text(e.kernel_file);
        case OutcomeColumn:
        case CorrectnessColumn:
            if (!e.detail.empty()) return format::text(e.detail);
            return QVariant();
        case DescriptionColumn:
            if (e.detail.empty()) return row.description;
            return row.description + QLatin1Char('\n') + format::text(e.detail);
        }
        return QVariant();
    case Qt::ForegroundRole:
        if (column == OutcomeColumn) return QBrush(OutcomeStyle::color(e.outcome));
        if (column == CorrectnessColumn) return QBrush(OutcomeStyle::correctnessColor(e.correctness));
        return QVariant();
    case Qt::DecorationRole:
        if (column == OutcomeColumn) return OutcomeStyle::icon(e.outcome);
        return QVariant();
    case Qt::TextAlignmentRole:
        switch (column) {
        case NumberColumn:
        case LatencyColumn:
        case SpeedupColumn:
        case ThroughputColumn:
        case BandwidthColumn:
        case PctPeakColumn:
        case DurationColumn: return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        }
        return QVariant();
    case NumberRole: return e.number;
    case OutcomeRole: return static_cast<int>(e.outcome);
    case KernelTypeRole: return row.kernel;
    case SearchTextRole: return row.searchText;
    }
    return QVariant();
}

QVariant ExperimentTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return QVariant();
    if (role == Qt::DisplayRole) {
        switch (section) {
        //: column header: experiment number
        case NumberColumn: return tr("#");
        case KernelColumn: return tr("Kernel");
        case OutcomeColumn: return tr("Outcome");
        case CorrectnessColumn: return tr("Correctness");
        case LatencyColumn: return tr("Latency (µs)");
        case SpeedupColumn: return tr("Speedup vs PyTorch");
        case ThroughputColumn: return tr("TFLOP/s");
        case BandwidthColumn: return tr("GB/s");
        case PctPeakColumn: return tr("% peak");
        case BoundColumn: return tr("Bound");
        case AgentColumn: return tr("Agent");
        case StartedColumn: return tr("Started (UTC)");
        case DurationColumn: return tr("Duration (s)");
        case DescriptionColumn: return tr("Description");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case LatencyColumn: return tr("Median kernel latency in microseconds");
        case SpeedupColumn: return tr("Speed-up against the strongest PyTorch baseline (eager or torch.compile)");
        case PctPeakColumn: return tr("Percent of the peak of the bound resource (compute or memory bandwidth)");
        case BoundColumn: return tr("Whether the kernel is compute- or memory-bound");
        case DurationColumn: return tr("Wall-clock time of the evaluation in seconds");
        }
    }
    return QVariant();
}

}  // namespace ak
