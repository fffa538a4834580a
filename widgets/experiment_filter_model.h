#pragma once
// Sorting and filtering on top of ExperimentTableModel (or any model offering its roles).
//
// Sorting uses ExperimentTableModel::SortRole: numbers numerically, text case-insensitively and
// missing numbers (NaN) last in BOTH sort orders.
// A row is shown when all three filters accept it:
//   - free text: every whitespace-separated word occurs (case-insensitive) in the description,
//     kernel type, agent or detail (SearchTextRole); empty = all;
//   - kernel type: equal to KernelTypeRole; empty = all;
//   - outcome: the row's outcome is in the visible set (all four by default).
#include "session/experiment.h"

#include <QSortFilterProxyModel>
#include <QStringList>

#include <initializer_list>

namespace ak {

class ExperimentFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit ExperimentFilterModel(QObject* parent = nullptr);

    void setFilterText(const QString& text);
    QString filterText() const { return m_text; }

    void setKernelType(const QString& kernelType);  // empty = all kernels
    QString kernelType() const { return m_kernelType; }

    void setOutcomeVisible(Outcome outcome, bool visible);
    bool isOutcomeVisible(Outcome outcome) const;
    void setVisibleOutcomes(std::initializer_list<Outcome> outcomes);  // exactly these
    void showAllOutcomes();

    // Experiment number of a proxy row, -1 for an invalid row.
    int experimentNumberAt(int proxyRow) const;
    // Proxy row of an experiment, -1 when it is filtered out or unknown.
    int proxyRowOfExperiment(int number) const;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    static unsigned bitOf(Outcome outcome) { return 1u << static_cast<unsigned>(outcome); }
    static constexpr unsigned kAllOutcomes = 0xFu;

    QString m_text;
    QStringList m_words;
    QString m_kernelType;
    unsigned m_outcomes = kAllOutcomes;
};

}  // namespace ak
