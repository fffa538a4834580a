#include "app/pages/compare_page.h"

#include "widgets/diff_view.h"
#include "widgets/outcome_style.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>
#include <optional>

namespace ak {

namespace {

struct MetricRow {
    const char* key;                                  // results.tsv column
    std::optional<double> Experiment::*value;
    int decimals;
    bool lowerIsBetter;
};

const MetricRow kMetricRows[] = {
    {"latency_us", &Experiment::latency_us, 2, true},
    {"speedup_vs_pytorch", &Experiment::speedup_vs_pytorch, 3, false},
    {"throughput_tflops", &Experiment::throughput_tflops, 3, false},
    {"bandwidth_gb_s", &Experiment::bandwidth_gb_s, 1, false},
    {"pct_peak", &Experiment::pct_peak, 1, false},
    {"latency_iqr_us", &Experiment::latency_iqr_us, 2, true},
    {"peak_vram_mb", &Experiment::peak_vram_mb, 0, true},
    {"duration_s", &Experiment::duration_s, 1, true},
};

QString metricTitle(const QString& key)
{
    if (key == QLatin1String("latency_us")) return ComparePage::tr("Latency (µs)");
    if (key == QLatin1String("speedup_vs_pytorch")) return ComparePage::tr("Speed-up vs PyTorch");
    if (key == QLatin1String("throughput_tflops")) return ComparePage::tr("Throughput (TFLOP/s)");
    if (key == QLatin1String("bandwidth_gb_s")) return ComparePage::tr("Bandwidth (GB/s)");
    if (key == QLatin1String("pct_peak")) return ComparePage::tr("% of peak");
    if (key == QLatin1String("latency_iqr_us")) return ComparePage::tr("Latency spread, IQR (µs)");
    if (key == QLatin1String("peak_vram_mb")) return ComparePage::tr("Peak VRAM (MB)");
    if (key == QLatin1String("duration_s")) return ComparePage::tr("Evaluation time (s)");
    if (key == QLatin1String("kernel_type")) return ComparePage::tr("Kernel");
    if (key == QLatin1String("outcome")) return ComparePage::tr("Outcome");
    if (key == QLatin1String("correctness")) return ComparePage::tr("Correctness");
    if (key == QLatin1String("bound")) return ComparePage::tr("Bound");
    if (key == QLatin1String("agent")) return ComparePage::tr("Agent");
    if (key == QLatin1String("commit")) return ComparePage::tr("Commit");
    if (key == QLatin1String("description")) return ComparePage::tr("Description");
    if (key == QLatin1String("detail")) return ComparePage::tr("Verdict detail");
    return key;
}

const char* const kTextRows[] = {"kernel_type", "outcome", "correctness", "bound", "agent", "commit", "description", "detail"};

QString textOf(const Experiment& e, const QString& key)
{
    if (key == QLatin1String("kernel_type")) return QString::fromStdString(e.kernel_type);
    if (key == QLatin1String("outcome")) return OutcomeStyle::outcomeName(e.outcome);
    if (key == QLatin1String("correctness")) return OutcomeStyle::correctnessName(e.correctness);
    if (key == QLatin1String("bound")) return OutcomeStyle::boundName(e.bound);
    if (key == QLatin1String("agent")) return QString::fromStdString(e.agent);
    if (key == QLatin1String("commit")) return QString::fromStdString(e.commit.substr(0, 12));
    if (key == QLatin1String("description")) return QString::fromStdString(e.description);
    if (key == QLatin1String("detail")) return QString::fromStdString(e.detail).section(QLatin1Char('\n'), 0, 0);
    return {};
}

QString experimentLabel(const Experiment& e)
{
    return ComparePage::tr("#%1 %2 (%3)").arg(e.number).arg(QString::fromStdString(e.kernel_file),
                                                            QString::fromStdString(e.commit.substr(0, 8)));
}

}  // namespace

ComparePage::ComparePage(QWidget* parent) : Page(parent)
{
    setObjectName(QStringLiteral("comparePage"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    auto* bar = new QHBoxLayout;
    m_title = new QLabel;
    m_title->setObjectName(QStringLiteral("compareTitle"));
    m_title->setWordWrap(true);
    m_pinButton = new QPushButton;
    m_pinButton->setObjectName(QStringLiteral("pinButton"));
    m_pinButton->setCheckable(true);
    connect(m_pinButton, &QPushButton::clicked, this, [this](bool on) { pin(on ? m_left : -1); });
    bar->addWidget(m_title, 1);
    bar->addWidget(m_pinButton);
    layout->addLayout(bar);

    m_table = new QTableWidget(0, ColumnCount);
    m_table->setObjectName(QStringLiteral("compareTable"));
    m_table->setHorizontalHeaderLabels({tr("Metric"), tr("Left"), tr("Right"), tr("Δ (right − left)"), tr("Ratio (right / left)")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    int row = 0;
    for (const MetricRow& m : kMetricRows)
        m_rowOfKey.insert(QString::fromLatin1(m.key), row++);
    for (const char* key : kTextRows)
        m_rowOfKey.insert(QString::fromLatin1(key), row++);
    m_table->setRowCount(row);
    for (auto it = m_rowOfKey.cbegin(); it != m_rowOfKey.cend(); ++it) {
        for (int c = 0; c < ColumnCount; ++c)
            m_table->setItem(it.value(), c, new QTableWidgetItem);
        m_table->item(it.value(), MetricColumn)->setText(metricTitle(it.key()));
    }
    m_table->resizeColumnToContents(MetricColumn);
    for (int c = LeftColumn; c < ColumnCount; ++c)
        m_table->setColumnWidth(c, 170);

    m_diff = new DiffView;
    m_diff->setObjectName(QStringLiteral("compareDiffPage"));
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(m_table);
    splitter->addWidget(m_diff);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    layout->addWidget(splitter, 1);
    refill();
}

void ComparePage::setSession(const SnapshotPtr& session, const std::vector<Experiment>& experiments)
{
    m_experiments = session ? experiments : std::vector<Experiment>{};
    m_indexOfNumber.clear();
    for (std::size_t i = 0; i < m_experiments.size(); ++i)
        m_indexOfNumber.insert(m_experiments[i].number, i);
    m_left = m_right = -1;
    m_pinned = -1;
    m_diff->clear();
    refill();
}

void ComparePage::appendExperiments(const std::vector<Experiment>& added)
{
    for (const Experiment& e : added) {
        m_indexOfNumber.insert(e.number, m_experiments.size());
        m_experiments.push_back(e);
    }
}

const Experiment* ComparePage::experiment(int number) const
{
    const auto it = m_indexOfNumber.constFind(number);
    return it == m_indexOfNumber.constEnd() ? nullptr : &m_experiments[*it];
}

void ComparePage::setSelection(int selected, int compare)
{
    if (selected == m_right && compare == m_left)
        return;
    if (compare != m_left || selected != m_right)
        m_diff->clear();
    m_right = selected;
    m_left = compare;
    refill();
}

void ComparePage::pin(int number)
{
    m_pinned = number >= 0 && experiment(number) ? number : -1;
    refill();
    emit pinChanged(m_pinned);
}

void ComparePage::showSources(const SourcesResult& sources)
{
    const Experiment* right = experiment(sources.number);
    const Experiment* left = experiment(sources.compareNumber);
    if (!right || !left || sources.number != m_right || sources.compareNumber != m_left || !sources.error.isEmpty()) {
        m_diff->clear();
        return;
    }
    m_diff->setTexts(sources.compareSource, sources.source, experimentLabel(*left), experimentLabel(*right));
}

QString ComparePage::cellText(const QString& key, Column column) const
{
    const int row = m_rowOfKey.value(key, -1);
    return row < 0 ? QString() : m_table->item(row, column)->text();
}

void ComparePage::refill()
{
    const Experiment* left = experiment(m_left);
    const Experiment* right = experiment(m_right);
    if (!left || !right) {
        m_title->setText(right ? tr("Experiment #%1 is selected. Choose a second one to compare it with: ctrl-click "
                                    "a second row on the Experiments page, or right-click an experiment and choose "
                                    "“Compare with”.")
                                     .arg(m_right)
                               : tr("Select two experiments to compare them."));
    } else {
        m_title->setText(tr("Left: %1 — right: %2").arg(experimentLabel(*left), experimentLabel(*right)));
    }
    m_pinButton->setEnabled(left != nullptr || m_pinned >= 0);
    m_pinButton->setChecked(m_pinned >= 0);
    m_pinButton->setText(m_pinned >= 0 ? tr("Unpin baseline #%1").arg(m_pinned)
                                       : (left ? tr("Pin #%1 as baseline").arg(m_left) : tr("Pin as baseline")));
    m_table->setHorizontalHeaderItem(LeftColumn, new QTableWidgetItem(left ? tr("Left #%1").arg(m_left) : tr("Left")));
    m_table->setHorizontalHeaderItem(RightColumn, new QTableWidgetItem(right ? tr("Right #%1").arg(m_right) : tr("Right")));
    const QLocale locale;
    const QColor better = OutcomeStyle::color(Outcome::Kept).darker(120);
    const QColor worse = OutcomeStyle::color(Outcome::Failed);
    for (const MetricRow& m : kMetricRows) {
        const int row = m_rowOfKey.value(QString::fromLatin1(m.key));
        std::optional<double> l, r;
        if (left)
            l = left->*m.value;
        if (right)
            r = right->*m.value;
        m_table->item(row, LeftColumn)->setText(l ? locale.toString(*l, 'f', m.decimals) : QString());
        m_table->item(row, RightColumn)->setText(r ? locale.toString(*r, 'f', m.decimals) : QString());
        QString delta, ratio;
        QColor color = palette().color(QPalette::Text);
        if (l.has_value() && r.has_value()) {
            const double lv = l.value(), rv = r.value();
            const double d = rv - lv;
            delta = (d > 0 ? QStringLiteral("+") : QString()) + locale.toString(d, 'f', m.decimals);
            if (lv != 0)
                ratio = locale.toString(rv / lv, 'f', 3) + QStringLiteral("×");
            if (d != 0)
                color = (d < 0) == m.lowerIsBetter ? better : worse;
        }
        m_table->item(row, DeltaColumn)->setText(delta);
        m_table->item(row, DeltaColumn)->setForeground(color);
        m_table->item(row, RatioColumn)->setText(ratio);
        m_table->item(row, RatioColumn)->setForeground(color);
    }
    for (const char* k : kTextRows) {
        const QString key = QString::fromLatin1(k);
        const int row = m_rowOfKey.value(key);
        const QString l = left ? textOf(*left, key) : QString();
        const QString r = right ? textOf(*right, key) : QString();
        m_table->item(row, LeftColumn)->setText(l);
        m_table->item(row, LeftColumn)->setToolTip(left && key == QLatin1String("detail") ? QString::fromStdString(left->detail) : l);
        m_table->item(row, RightColumn)->setText(r);
        m_table->item(row, RightColumn)->setToolTip(right && key == QLatin1String("detail") ? QString::fromStdString(right->detail) : r);
        m_table->item(row, DeltaColumn)->setText(left && right && l != r ? tr("differs") : QString());
        m_table->item(row, RatioColumn)->setText(QString());
    }
}

}  // namespace ak
