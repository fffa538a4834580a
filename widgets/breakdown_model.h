#pragma once
// A profile's breakdown (core/profile/breakdown.h) as a tree for a QTreeView:
//   type ("matmul", ..., "other")
//     └ group: (op, input shapes, dtype), e.g. "aten::addmm [8x768, 768x2304] bf16"
//         └ kernel name (demangled)
// Columns: name, time per iteration (µs), share of GPU time (%), calls, mean per call (µs),
// grid / block, registers per thread, shared memory (bytes), achieved rate (GB/s when memory-bound,
// TFLOP/s when compute-bound, from the group's headroom), % of that ceiling, module path.
//
// Kernel rows show the kernel name's statistics over the whole profile (a kernel name launched by
// several groups shows the same numbers under each) and the launch configuration of its first
// launch. Every number is also available unformatted under SortRole, so a QSortFilterProxyModel sorts
// numerically; the name column filters (the proxy's recursive filtering keeps a match's parents).
#include "profile/breakdown.h"

#include <QAbstractItemModel>
#include <QHash>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace ak {

// The launch configuration of a kernel name (its first launch in the profile).
struct KernelLaunchInfo {
    std::array<std::uint32_t, 3> grid{};
    std::array<std::uint32_t, 3> block{};
    int registers_per_thread = 0;
    int shared_memory_bytes = 0;  // static + dynamic
};

class BreakdownModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        TimeColumn,
        ShareColumn,
        CallsColumn,
        MeanColumn,
        LaunchColumn,
        RegistersColumn,
        SharedMemoryColumn,
        AchievedColumn,
        CeilingColumn,
        ModuleColumn,
        ColumnCount
    };
    enum Level { TypeLevel, GroupLevel, KernelLevel };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int LevelRole = Qt::UserRole + 2;
    static constexpr int TypeLabelRole = Qt::UserRole + 3;  // the row's type ("matmul", "other")

    explicit BreakdownModel(QObject* parent = nullptr);
    ~BreakdownModel() override;

    // The breakdown to show (nullptr clears) and the launch configuration of each kernel name.
    void setBreakdown(std::shared_ptr<const profile::Breakdown> breakdown,
                      QHash<QString, KernelLaunchInfo> launches = {});
    const profile::Breakdown* breakdown() const { return m_breakdown.get(); }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The index of a type's row ("matmul"); invalid when absent.
    QModelIndex typeIndex(const QString& typeLabel) const;

private:
    struct Node {
        Level level = TypeLevel;
        int parent = -1;           // node index, -1 for types
        int row = 0;               // row under its parent
        std::vector<int> children;
        const profile::BreakdownType* type = nullptr;
        const profile::BreakdownGroup* group = nullptr;
        const profile::KernelNameStats* kernel = nullptr;
        QString kernelName;
    };
    QVariant display(const Node& node, int column) const;
    QVariant sortValue(const Node& node, int column) const;

    std::shared_ptr<const profile::Breakdown> m_breakdown;
    QHash<QString, KernelLaunchInfo> m_launches;
    QHash<QString, const profile::KernelNameStats*> m_kernelStats;
    std::vector<Node> m_nodes;
    std::vector<int> m_types;  // node indices of the top-level rows
};

}  // namespace ak
