#include "widgets/breakdown_model.h"

#include <QLocale>

namespace ak {

namespace {

QString num(double v, int decimals) { return QLocale().toString(v, 'f', decimals); }

QString dims(const std::array<std::uint32_t, 3>& d)
{
    QString text = QString::number(d[0]);
    if (d[1] > 1 || d[2] > 1)
        text += QStringLiteral("×") + QString::number(d[1]);
    if (d[2] > 1)
        text += QStringLiteral("×") + QString::number(d[2]);
    return text;
}

int iterations(const profile::Breakdown& b) { return b.timeline.iterations > 0 ? b.timeline.iterations : 1; }

}  // namespace

BreakdownModel::BreakdownModel(QObject* parent) : QAbstractItemModel(parent) {}

BreakdownModel::~BreakdownModel() = default;

void BreakdownModel::setBreakdown(std::shared_ptr<const profile::Breakdown> breakdown,
                                  QHash<QString, KernelLaunchInfo> launches)
{
    beginResetModel();
    m_breakdown = std::move(breakdown);
    m_launches = std::move(launches);
    m_nodes.clear();
    m_types.clear();
    m_kernelStats.clear();
    if (m_breakdown) {
        for (const profile::KernelNameStats& k : m_breakdown->kernels)
            m_kernelStats.insert(QString::fromStdString(k.name), &k);
        for (const profile::BreakdownType& t : m_breakdown->types) {
            const int typeNode = int(m_nodes.size());
            Node node;
            node.level = TypeLevel;
            node.row = int(m_types.size());
            node.type = &t;
            m_nodes.push_back(node);
            m_types.push_back(typeNode);
            for (const profile::BreakdownGroup& g : m_breakdown->groups) {
                if (g.type_label != t.type_label)
                    continue;
                const int groupNode = int(m_nodes.size());
                Node gn;
                gn.level = GroupLevel;
                gn.parent = typeNode;
                gn.row = int(m_nodes[std::size_t(typeNode)].children.size());
                gn.type = &t;
                gn.group = &g;
                m_nodes.push_back(gn);
                m_nodes[std::size_t(typeNode)].children.push_back(groupNode);
                for (const std::string& name : g.kernel_names) {
                    const int kernelNode = int(m_nodes.size());
                    Node kn;
                    kn.level = KernelLevel;
                    kn.parent = groupNode;
                    kn.row = int(m_nodes[std::size_t(groupNode)].children.size());
                    kn.type = &t;
                    kn.group = &g;
                    kn.kernelName = QString::fromStdString(name);
                    kn.kernel = m_kernelStats.value(kn.kernelName, nullptr);
                    m_nodes.push_back(kn);
                    m_nodes[std::size_t(groupNode)].children.push_back(kernelNode);
                }
            }
        }
    }
    endResetModel();
}

QModelIndex BreakdownModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid()) {
        if (row >= int(m_types.size()))
            return {};
        return createIndex(row, column, quintptr(m_types[std::size_t(row)]));
    }
    if (parent.column() != 0)
        return {};
    const Node& p = m_nodes[std::size_t(parent.internalId())];
    if (row >= int(p.children.size()))
        return {};
    return createIndex(row, column, quintptr(p.children[std::size_t(row)]));
}

QModelIndex BreakdownModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    const Node& n = m_nodes[std::size_t(child.internalId())];
    if (n.parent < 0)
        return {};
    return createIndex(m_nodes[std::size_t(n.parent)].row, 0, quintptr(n.parent));
}

int BreakdownModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return int(m_types.size());
    if (parent.column() != 0)
        return 0;
    return int(m_nodes[std::size_t(parent.internalId())].children.size());
}

int BreakdownModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QModelIndex BreakdownModel::typeIndex(const QString& typeLabel) const
{
    for (std::size_t i = 0; i < m_types.size(); ++i) {
        if (QString::fromStdString(m_nodes[std::size_t(m_types[i])].type->type_label) == typeLabel)
            return index(int(i), 0);
    }
    return {};
}

QVariant BreakdownModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Type / op / kernel");
    case TimeColumn: return tr("Time (µs/iter)");
    case ShareColumn: return tr("Share (%)");
    case CallsColumn: return tr("Calls");
    case MeanColumn: return tr("Mean (µs)");
    case LaunchColumn: return tr("Grid / block");
    case RegistersColumn: return tr("Registers");
    case SharedMemoryColumn: return tr("Shared mem (B)");
    case AchievedColumn: return tr("Achieved");
    case CeilingColumn: return tr("% of ceiling");
    case ModuleColumn: return tr("Module");
    default: return {};
    }
}

QVariant BreakdownModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_breakdown)
        return {};
    const Node& node = m_nodes[std::size_t(index.internalId())];
    switch (role) {
    case Qt::DisplayRole: return display(node, index.column());
    case SortRole: return sortValue(node, index.column());
    case LevelRole: return int(node.level);
    case TypeLabelRole: return QString::fromStdString(node.type->type_label);
    case Qt::TextAlignmentRole:
        if (index.column() != NameColumn && index.column() != ModuleColumn && index.column() != LaunchColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole:
        if (index.column() == NameColumn) {
            if (node.level == KernelLevel)
                return node.kernelName;
            if (node.level == GroupLevel && node.group->headroom)
                return tr("ceiling: %1").arg(QString::fromStdString(node.group->headroom->ceiling_source));
        }
        return {};
    default: return {};
    }
}

QVariant BreakdownModel::sortValue(const Node& node, int column) const
{
    const int iters = iterations(*m_breakdown);
    switch (column) {
    case NameColumn: return display(node, column);
    case TimeColumn:
        if (node.level == TypeLevel) return node.type->per_iteration_us;
        if (node.level == GroupLevel) return node.group->per_iteration_us;
        return node.kernel ? double(node.kernel->stats.total_ns) / 1000.0 / iters : 0.0;
    case ShareColumn: {
        if (node.level == TypeLevel) return node.type->share;
        if (node.level == GroupLevel) return node.group->share;
        const double gpu = double(m_breakdown->timeline.activity_sum_ns);
        return node.kernel && gpu > 0 ? double(node.kernel->stats.total_ns) / gpu : 0.0;
    }
    case CallsColumn:
        if (node.level == TypeLevel) return qulonglong(node.type->launches);
        if (node.level == GroupLevel) return qulonglong(node.group->calls);
        return node.kernel ? qulonglong(node.kernel->stats.count) : 0ULL;
    case MeanColumn:
        if (node.level == KernelLevel) return node.kernel ? node.kernel->stats.mean_ns / 1000.0 : 0.0;
        if (node.level == GroupLevel && node.group->calls > 0)
            return double(node.group->total_ns) / 1000.0 / double(node.group->calls);
        return {};
    case RegistersColumn:
        if (node.level == KernelLevel && m_launches.contains(node.kernelName))
            return m_launches.value(node.kernelName).registers_per_thread;
        return {};
    case SharedMemoryColumn:
        if (node.level == KernelLevel && m_launches.contains(node.kernelName))
            return m_launches.value(node.kernelName).shared_memory_bytes;
        return {};
    case AchievedColumn:
        if (node.level == GroupLevel && node.group->headroom)
            return node.group->headroom->memory_bound ? node.group->headroom->achieved_gb_s
                                                      : node.group->headroom->achieved_tflops;
        return {};
    case CeilingColumn:
        if (node.level == GroupLevel && node.group->headroom) return node.group->headroom->pct_of_ceiling;
        return {};
    default: return display(node, column);
    }
}

QVariant BreakdownModel::display(const Node& node, int column) const
{
    switch (column) {
    case NameColumn:
        if (node.level == TypeLevel) return QString::fromStdString(node.type->type_label);
        if (node.level == GroupLevel) {
            QString text = QString::fromStdString(node.group->op);
            if (!node.group->input_shapes.empty())
                text += QLatin1Char(' ') + QString::fromStdString(node.group->input_shapes);
            if (!node.group->dtype.empty())
                text += QLatin1Char(' ') + QString::fromStdString(node.group->dtype);
            return text;
        }
        return node.kernelName;
    case TimeColumn: return num(sortValue(node, column).toDouble(), 1);
    case ShareColumn: return num(sortValue(node, column).toDouble() * 100.0, 1);
    case CallsColumn: return QLocale().toString(sortValue(node, column).toULongLong());
    case MeanColumn: {
        const QVariant v = sortValue(node, column);
        return v.isValid() ? num(v.toDouble(), 2) : QVariant();
    }
    case LaunchColumn:
        if (node.level == KernelLevel && m_launches.contains(node.kernelName)) {
            const KernelLaunchInfo& l = m_launches[node.kernelName];
            return dims(l.grid) + QStringLiteral(" / ") + dims(l.block);
        }
        return {};
    case RegistersColumn:
    case SharedMemoryColumn: {
        const QVariant v = sortValue(node, column);
        return v.isValid() ? QLocale().toString(v.toInt()) : QVariant();
    }
    case AchievedColumn:
        if (node.level == GroupLevel && node.group->headroom) {
            const profile::Headroom& h = *node.group->headroom;
            return h.memory_bound ? tr("%1 GB/s").arg(num(h.achieved_gb_s, 0))
                                  : tr("%1 TFLOP/s").arg(num(h.achieved_tflops, 1));
        }
        return {};
    case CeilingColumn:
        if (node.level == GroupLevel && node.group->headroom) return num(node.group->headroom->pct_of_ceiling, 1);
        return {};
    case ModuleColumn:
        if (node.level == GroupLevel) return QString::fromStdString(node.group->module_path);
        return {};
    default: return {};
    }
}

}  // namespace ak
