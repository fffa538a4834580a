#pragma once
// Everything about one experiment: every results.tsv column (label with its unit, value as
// selectable text), commits in monospace, outcome and correctness in their colours, and the
// failure detail in full. Numbers show in their shortest exact form, as results.tsv stores them.
#include "session/experiment.h"

#include <QHash>
#include <QString>
#include <QStringList>
#include <QWidget>

class QLabel;
class QPlainTextEdit;

namespace ak {

class DetailsPanel : public QWidget {
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget* parent = nullptr);
    ~DetailsPanel() override;

    void setExperiment(const Experiment& experiment);
    void clear();
    bool hasExperiment() const { return m_hasExperiment; }

    // Shown text of a field, by its results.tsv column name ("latency_us", "commit", ...);
    // empty for a missing value or an unknown key.
    QString valueOf(const QString& fieldKey) const;
    // The results.tsv column names the panel shows, in display order.
    static QStringList fieldKeys();

private:
    QLabel* m_title = nullptr;
    QHash<QString, QLabel*> m_values;
    QPlainTextEdit* m_detail = nullptr;
    bool m_hasExperiment = false;
};

}  // namespace ak
