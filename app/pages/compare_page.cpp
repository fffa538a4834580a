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
    // Compact rows: the headline metrics, the per-shape section and the verdicts fit one screen.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setStretchLastSection(true);

    m_diff = new DiffView;
    m_diff->setObjectName(QStringLiteral("compareDiffPage"));
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(m_table);
    splitter->addWidget(m_diff);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);
    refill();
    for (int c = LeftColumn; c < ColumnCount; ++c)
        m_table->setColumnWidth(c, 170);
}

void ComparePage::setSession(const SnapshotPtr& session, const std::vector<Experiment>& experiments)
{
    m_experiments = session ? experiments : std::vector<Experiment>{};
    m_indexOfNumber.clear();
    for (std::size_t i = 0; i < m_experiments.size(); ++i)
        m_indexOfNumber.insert(m_experiments[i].number, i);
    m_left = m_right = -1;
    m_pinned = -1;
    m_timingsLoaded = false;
    m_leftTimings = m_rightTimings = RecordedTimings{};
    m_timingsError.clear();
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
    if (right && left && sources.number == m_right && sources.compareNumber == m_left) {
        m_timingsLoaded = true;
        m_timingsLeft = m_left;
        m_timingsRight = m_right;
        m_leftTimings = sources.compareTimings;
        m_rightTimings = sources.timings;
        m_timingsError = sources.timingsError;
        refill();
    }
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

QString ComparePage::cellToolTip(const QString& key, Column column) const
{
    const int row = m_rowOfKey.value(key, -1);
    return row < 0 ? QString() : m_table->item(row, column)->toolTip();
}

QStringList ComparePage::shapeKeys() const { return m_shapeKeys; }

int ComparePage::addRow(const QString& key, const QString& title)
{
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    for (int c = 0; c < ColumnCount; ++c)
        m_table->setItem(row, c, new QTableWidgetItem);
    m_table->item(row, MetricColumn)->setText(title);
    m_rowOfKey.insert(key, row);
    return row;
}

void ComparePage::addSection(const QString& key, const QString& title)
{
    const int row = addRow(key, title);
    QFont bold = m_table->font();
    bold.setBold(true);
    m_table->item(row, MetricColumn)->setFont(bold);
    m_table->item(row, MetricColumn)->setBackground(palette().color(QPalette::AlternateBase));
    m_table->setSpan(row, MetricColumn, 1, ColumnCount);
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

    m_table->clearSpans();
    m_table->setRowCount(0);
    m_rowOfKey.clear();
    m_shapeKeys.clear();
    addSection(QStringLiteral("section:results"), tr("Results (results.tsv)"));
    for (const MetricRow& m : kMetricRows) {
        const int row = addRow(QString::fromLatin1(m.key), metricTitle(QString::fromLatin1(m.key)));
        std::optional<double> l, r;
        if (left)
            l = left->*m.value;
        if (right)
            r = right->*m.value;
        fillNumbers(row, l, r, m.decimals, m.lowerIsBetter ? Better::Lower : Better::Higher);
    }
    addSection(QStringLiteral("section:shapes"), tr("Per timing shape (from the experiments’ commits)"));
    fillShapes(left, right);
    addSection(QStringLiteral("section:verdicts"), tr("Verdicts"));
    for (const char* k : kTextRows) {
        const QString key = QString::fromLatin1(k);
        const int row = addRow(key, metricTitle(key));
        const QString l = left ? textOf(*left, key) : QString();
        const QString r = right ? textOf(*right, key) : QString();
        m_table->item(row, LeftColumn)->setText(l);
        m_table->item(row, LeftColumn)->setToolTip(left && key == QLatin1String("detail") ? QString::fromStdString(left->detail) : l);
        m_table->item(row, RightColumn)->setText(r);
        m_table->item(row, RightColumn)->setToolTip(right && key == QLatin1String("detail") ? QString::fromStdString(right->detail) : r);
        m_table->item(row, DeltaColumn)->setText(left && right && l != r ? tr("differs") : QString());
    }
    m_table->resizeColumnToContents(MetricColumn);
}

void ComparePage::fillNumbers(int row, std::optional<double> l, std::optional<double> r, int decimals, Better better)
{
    const QLocale locale;
    m_table->item(row, LeftColumn)->setText(l ? locale.toString(*l, 'f', decimals) : QString());
    m_table->item(row, RightColumn)->setText(r ? locale.toString(*r, 'f', decimals) : QString());
    QString delta, ratio;
    QColor color = palette().color(QPalette::Text);
    if (l.has_value() && r.has_value()) {
        const double lv = l.value(), rv = r.value();
        const double d = rv - lv;
        delta = (d > 0 ? QStringLiteral("+") : QString()) + locale.toString(d, 'f', decimals);
        if (lv != 0)
            ratio = locale.toString(rv / lv, 'f', 3) + QStringLiteral("×");
        if (d != 0 && better != Better::Neither)
            color = (d < 0) == (better == Better::Lower) ? OutcomeStyle::color(Outcome::Kept).darker(120)
                                                         : OutcomeStyle::color(Outcome::Failed);
    }
    m_table->item(row, DeltaColumn)->setText(delta);
    m_table->item(row, DeltaColumn)->setForeground(color);
    m_table->item(row, RatioColumn)->setText(ratio);
    m_table->item(row, RatioColumn)->setForeground(color);
}

void ComparePage::fillShapes(const Experiment* left, const Experiment* right)
{
    const QString statusKey = QStringLiteral("shapes");
    const QString statusTitle = tr("Timings per shape");
    if (!left || !right) {
        addRow(statusKey, statusTitle);
        return;
    }
    if (!m_timingsLoaded || m_timingsLeft != m_left || m_timingsRight != m_right) {
        const int row = addRow(statusKey, statusTitle);
        m_table->item(row, LeftColumn)->setText(tr("reading…"));
        m_table->item(row, RightColumn)->setText(tr("reading…"));
        return;
    }
    const QString notRecorded = tr("not recorded");
    const QString notRecordedTip = tr("This experiment’s commit has no per-shape timings: it was recorded before "
                                      "the workbench wrote them, imported, or recorded without an evaluation.");
    const QString notTimed = tr("not timed");
    const QString notTimedTip = tr("The evaluator timed no shape of this experiment, or not this one.");

    // Shapes matched by (shape, dtype): the right side's order, then what only the left side has.
    struct Pair {
        QString key;
        const ShapeTiming* left = nullptr;
        const ShapeTiming* right = nullptr;
    };
    std::vector<Pair> pairs;
    const auto keyOf = [](const ShapeTiming& t) -> QString {
        return QString::fromStdString(t.shape) + QLatin1Char(' ') + QString::fromStdString(t.dtype);
    };
    const auto pairOf = [&](const QString& key) -> Pair& {
        for (Pair& p : pairs)
            if (p.key == key)
                return p;
        pairs.push_back(Pair{key});
        return pairs.back();
    };
    for (const ShapeTiming& t : m_rightTimings.shapes)
        if (Pair& p = pairOf(keyOf(t)); !p.right)
            p.right = &t;
    for (const ShapeTiming& t : m_leftTimings.shapes)
        if (Pair& p = pairOf(keyOf(t)); !p.left)
            p.left = &t;

    if (!m_timingsError.isEmpty()) {
        const int row = addRow(QStringLiteral("timings_error"), tr("Timings"));
        m_table->item(row, LeftColumn)->setText(m_timingsError);
        m_table->item(row, LeftColumn)->setToolTip(m_timingsError);
        m_table->setSpan(row, LeftColumn, 1, ColumnCount - LeftColumn);
    }
    const auto problemsText = [](const RecordedTimings& t) {
        return t.problems.empty() ? QString() : tr("%n problem(s)", nullptr, int(t.problems.size()));
    };
    const auto problemsTip = [](const RecordedTimings& t) {
        QStringList lines;
        for (const std::string& p : t.problems)
            lines.append(QString::fromStdString(p));
        return lines.join(QLatin1Char('\n'));
    };
    if (!m_leftTimings.problems.empty() || !m_rightTimings.problems.empty()) {
        const int row = addRow(QStringLiteral("timing_problems"), tr("Damaged timing trailers"));
        m_table->item(row, LeftColumn)->setText(problemsText(m_leftTimings));
        m_table->item(row, LeftColumn)->setToolTip(problemsTip(m_leftTimings));
        m_table->item(row, RightColumn)->setText(problemsText(m_rightTimings));
        m_table->item(row, RightColumn)->setToolTip(problemsTip(m_rightTimings));
    }
    if (pairs.empty()) {
        const int row = addRow(statusKey, statusTitle);
        const auto status = [&](const RecordedTimings& t, int column) {
            m_table->item(row, column)->setText(t.recorded ? notTimed : notRecorded);
            m_table->item(row, column)->setToolTip(t.recorded ? notTimedTip : notRecordedTip);
        };
        status(m_leftTimings, LeftColumn);
        status(m_rightTimings, RightColumn);
        return;
    }

    QFont bold = m_table->font();
    bold.setBold(true);
    for (const Pair& p : pairs) {
        const QString prefix = QStringLiteral("shape:") + p.key;
        m_shapeKeys.append(prefix);
        const int header = addRow(prefix, p.key);
        m_table->item(header, MetricColumn)->setFont(bold);
        const auto sideStatus = [&](const ShapeTiming* t, const RecordedTimings& all, int column) {
            if (t)
                return;
            m_table->item(header, column)->setText(all.recorded ? notTimed : notRecorded);
            m_table->item(header, column)->setToolTip(all.recorded ? notTimedTip : notRecordedTip);
        };
        sideStatus(p.left, m_leftTimings, LeftColumn);
        sideStatus(p.right, m_rightTimings, RightColumn);

        const auto value = [](const ShapeTiming* t, std::optional<double> ShapeTiming::*field) {
            return t ? t->*field : std::optional<double>{};
        };
        const auto add = [&](const char* field, const QString& title, std::optional<double> ShapeTiming::*member,
                             int decimals, Better better) {
            const int row = addRow(prefix + QLatin1Char(':') + QLatin1String(field), QStringLiteral("    ") + title);
            fillNumbers(row, value(p.left, member), value(p.right, member), decimals, better);
            return row;
        };
        add("us", tr("Latency, ours (µs)"), &ShapeTiming::median_us, 2, Better::Lower);
        const ShapeTiming* named = p.right && !p.right->baseline_name.empty() ? p.right : p.left;
        const QString baseline = named && !named->baseline_name.empty() ? QString::fromStdString(named->baseline_name)
                                                                        : tr("baseline");
        const int baselineRow = add("baseline_us", tr("Latency, %1 (µs)").arg(baseline), &ShapeTiming::baseline_median_us, 2,
                                    Better::Neither);
        m_table->item(baselineRow, MetricColumn)
            ->setToolTip(tr("The strongest PyTorch baseline, re-timed in each experiment’s run: its delta is run-to-run "
                            "variation, not a change of ours."));
        add("speedup", tr("Speed-up vs baseline"), &ShapeTiming::speedup, 3, Better::Higher);
        const auto either = [&](std::optional<double> ShapeTiming::*member) {
            return value(p.left, member).has_value() || value(p.right, member).has_value();
        };
        if (either(&ShapeTiming::tflops))
            add("tflops", tr("Throughput (TFLOP/s)"), &ShapeTiming::tflops, 3, Better::Higher);
        if (either(&ShapeTiming::gb_s))
            add("gb_s", tr("Bandwidth (GB/s)"), &ShapeTiming::gb_s, 1, Better::Higher);
        add("pct_peak", tr("% of peak"), &ShapeTiming::pct_peak, 1, Better::Higher);
        add("iqr_us", tr("Latency spread, IQR (µs)"), &ShapeTiming::iqr_us, 2, Better::Lower);
    }
}

}  // namespace ak
