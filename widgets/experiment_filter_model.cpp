#include "widgets/experiment_filter_model.h"

#include "widgets/experiment_table_model.h"

#include <cmath>

namespace ak {

ExperimentFilterModel::ExperimentFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(ExperimentTableModel::SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    setDynamicSortFilter(true);
}

void ExperimentFilterModel::setFilterText(const QString& text) {
    if (text == m_text) return;
    m_text = text;
    m_words = text.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    invalidateFilter();
}

void ExperimentFilterModel::setKernelType(const QString& kernelType) {
    if (kernelType == m_kernelType) return;
    m_kernelType = kernelType;
    invalidateFilter();
}

void ExperimentFilterModel::setOutcomeVisible(Outcome outcome, bool visible) {
    const unsigned next = visible ? (m_outcomes | bitOf(outcome)) : (m_outcomes & ~bitOf(outcome));
    if (next == m_outcomes) return;
    m_outcomes = next;
    invalidateFilter();
}

bool ExperimentFilterModel::isOutcomeVisible(Outcome outcome) const { return (m_outcomes & bitOf(outcome)) != 0; }

void ExperimentFilterModel::setVisibleOutcomes(std::initializer_list<Outcome> outcomes) {
    unsigned next = 0;
    for (Outcome o : outcomes) next |= bitOf(o);
    if (next == m_outcomes) return;
    m_outcomes = next;
    invalidateFilter();
}

void ExperimentFilterModel::showAllOutcomes() {
    if (m_outcomes == kAllOutcomes) return;
    m_outcomes = kAllOutcomes;
    invalidateFilter();
}

int ExperimentFilterModel::experimentNumberAt(int proxyRow) const {
    const QModelIndex i = index(proxyRow, 0);
    return i.isValid() ? i.data(ExperimentTableModel::NumberRole).toInt() : -1;
}

int ExperimentFilterModel::proxyRowOfExperiment(int number) const {
    const auto* table = qobject_cast<const ExperimentTableModel*>(sourceModel());
    if (table != nullptr) {
        const int sourceRow = table->rowOfExperiment(number);
        if (sourceRow < 0) return -1;
        return mapFromSource(table->index(sourceRow, 0)).row();
    }
    for (int r = 0; r < rowCount(); ++r)
        if (experimentNumberAt(r) == number) return r;
    return -1;
}

bool ExperimentFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    const QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
    if (m_outcomes != kAllOutcomes) {
        const int outcome = i.data(ExperimentTableModel::OutcomeRole).toInt();
        if ((m_outcomes & (1u << static_cast<unsigned>(outcome))) == 0) return false;
    }
    if (!m_kernelType.isEmpty() && i.data(ExperimentTableModel::KernelTypeRole).toString() != m_kernelType)
        return false;
    if (!m_words.isEmpty()) {
        const QString haystack = i.data(ExperimentTableModel::SearchTextRole).toString();
        for (const QString& word : m_words)
            if (!haystack.contains(word, Qt::CaseInsensitive)) return false;
    }
    return true;
}

bool ExperimentFilterModel::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    const QVariant l = left.data(sortRole());
    const QVariant r = right.data(sortRole());
    if (l.typeId() == QMetaType::Double && r.typeId() == QMetaType::Double) {
        const double a = l.toDouble();
        const double b = r.toDouble();
        const bool aMissing = std::isnan(a);
        const bool bMissing = std::isnan(b);
        if (aMissing || bMissing) {
            // The view reverses lessThan for a descending sort; invert here so missing stays last.
            if (aMissing == bMissing) return false;
            const bool missingIsGreater = sortOrder() == Qt::AscendingOrder;
            return aMissing ? !missingIsGreater : missingIsGreater;
        }
        return a < b;
    }
    return QString::compare(l.toString(), r.toString(), sortCaseSensitivity()) < 0;
}

}  // namespace ak
