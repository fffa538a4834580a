#include "app/pages/profile_page.h"

#include "analysis/amdahl.h"
#include "app/profile_document.h"
#include "engine/kernel_type.h"
#include "session/verify_report.h"
#include "widgets/breakdown_model.h"
#include "widgets/outcome_style.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ak {

namespace {

constexpr double kPresets[] = {1.5, 2.0, 3.0, 5.0};
constexpr int kSliderSteps = 10;  // the slider moves in 0.1x steps
constexpr int kStackedGroups = 5;  // each type's bar shows its five largest groups, then the rest

QString num(double v, int decimals) { return QLocale().toString(v, 'f', decimals); }

QCustomPlot* makeChart()
{
    auto* plot = new QCustomPlot;
    plot->setMinimumHeight(170);
    plot->setNoAntialiasingOnDrag(true);
    return plot;
}

QSharedPointer<QCPAxisTickerText> typeTicker(const std::vector<QString>& labels)
{
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (std::size_t i = 0; i < labels.size(); ++i)
        ticker->addTick(double(i + 1), labels[i]);
    return ticker;
}

}  // namespace

ProfilePage::ProfilePage(QWidget* parent) : Page(parent)
{
    setObjectName(QStringLiteral("profilePage"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    auto* top = new QHBoxLayout;
    m_file = new QLabel;
    m_file->setObjectName(QStringLiteral("profileFileLabel"));
    m_file->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* open = new QPushButton(tr("Open Profile…"));
    connect(open, &QPushButton::clicked, this, &ProfilePage::openProfileRequested);
    m_origin = new QPushButton(tr("Open the Session’s Profile"));
    m_origin->setObjectName(QStringLiteral("openOriginProfile"));
    m_origin->setVisible(false);
    connect(m_origin, &QPushButton::clicked, this, [this] {
        const QString file = originProfileFile();
        if (!file.isEmpty())
            emit openProfileFileRequested(file);
    });
    m_optimize = new QPushButton(tr("Optimize Selected…"));
    m_optimize->setObjectName(QStringLiteral("optimizeSelected"));
    connect(m_optimize, &QPushButton::clicked, this, [this] {
        const QStringList types = selectedKernelTypes();
        if (!types.isEmpty())
            emit optimizeRequested(types);
    });
    top->addWidget(m_file, 1);
    top->addWidget(m_origin);
    top->addWidget(open);
    top->addWidget(m_optimize);
    layout->addLayout(top);
    m_summary = new QLabel;
    m_summary->setObjectName(QStringLiteral("profileSummary"));
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);

    // Left: bar chart over the tree.
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 3, 0);
    m_bars = makeChart();
    m_bars->setObjectName(QStringLiteral("profileBars"));
    m_filter = new QLineEdit;
    m_filter->setObjectName(QStringLiteral("profileFilter"));
    m_filter->setPlaceholderText(tr("Filter by type, op or kernel name…"));
    m_filter->setClearButtonEnabled(true);
    m_model = new BreakdownModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(BreakdownModel::SortRole);
    m_proxy->setRecursiveFilteringEnabled(true);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(BreakdownModel::NameColumn);
    m_tree = new QTreeView;
    m_tree->setObjectName(QStringLiteral("profileTree"));
    m_tree->setModel(m_proxy);
    m_tree->setSortingEnabled(true);
    m_tree->sortByColumn(BreakdownModel::TimeColumn, Qt::DescendingOrder);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tree->header()->setStretchLastSection(true);
    m_tree->setColumnWidth(BreakdownModel::NameColumn, 300);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& index) {
        if (index.isValid())
            setWhatIfType(index.data(BreakdownModel::TypeLabelRole).toString());
    });
    connect(m_tree->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] { updateOptimize(); });
    leftLayout->addWidget(m_bars, 2);
    leftLayout->addWidget(m_filter);
    leftLayout->addWidget(m_tree, 3);

    // Right: the what-if.
    auto* right = new QGroupBox(tr("What if a kernel type were faster?"));
    auto* rightLayout = new QVBoxLayout(right);
    auto* controls = new QGridLayout;
    m_typeCombo = new QComboBox;
    m_typeCombo->setObjectName(QStringLiteral("whatIfType"));
    m_slider = new QSlider(Qt::Horizontal);
    m_slider->setObjectName(QStringLiteral("whatIfSlider"));
    m_slider->setRange(1 * kSliderSteps, 10 * kSliderSteps);
    m_spin = new QDoubleSpinBox;
    m_spin->setObjectName(QStringLiteral("whatIfSpin"));
    m_spin->setRange(1.0, 10.0);
    m_spin->setDecimals(2);
    m_spin->setSingleStep(0.1);
    m_spin->setSuffix(QStringLiteral("×"));
    auto* typeLabel = new QLabel(tr("&Type:"));
    typeLabel->setBuddy(m_typeCombo);
    auto* speedLabel = new QLabel(tr("&Speed-up:"));
    speedLabel->setBuddy(m_spin);
    controls->addWidget(typeLabel, 0, 0);
    controls->addWidget(m_typeCombo, 0, 1, 1, 2);
    controls->addWidget(speedLabel, 1, 0);
    controls->addWidget(m_slider, 1, 1);
    controls->addWidget(m_spin, 1, 2);
    auto* buttons = new QHBoxLayout;
    for (double preset : kPresets) {
        auto* button = new QPushButton(num(preset, preset == std::floor(preset) ? 0 : 1) + QStringLiteral("×"));
        button->setObjectName(QStringLiteral("preset%1").arg(int(preset * 10)));
        m_presets.insert(int(preset * 10), button);
        buttons->addWidget(button);
        connect(button, &QPushButton::clicked, this, [this, preset] { setSpeedup(whatIfType(), preset); });
    }
    m_measured = new QPushButton(tr("Measured"));
    m_measured->setObjectName(QStringLiteral("presetMeasured"));
    connect(m_measured, &QPushButton::clicked, this, [this] {
        if (const std::optional<double> s = measuredSpeedup(whatIfType()))
            setSpeedup(whatIfType(), std::clamp(*s, 1.0, 10.0));
    });
    m_reset = new QPushButton(tr("Reset all"));
    connect(m_reset, &QPushButton::clicked, this, [this] {
        m_speedups.clear();
        updateWhatIf();
    });
    buttons->addWidget(m_measured);
    buttons->addStretch(1);
    buttons->addWidget(m_reset);
    controls->addLayout(buttons, 2, 0, 1, 3);
    rightLayout->addLayout(controls);
    m_projection = new QLabel;
    m_projection->setObjectName(QStringLiteral("whatIfProjection"));
    m_projection->setWordWrap(true);
    m_projection->setTextFormat(Qt::RichText);
    rightLayout->addWidget(m_projection);
    m_verify = new QLabel;
    m_verify->setObjectName(QStringLiteral("verifiedSpeedup"));
    m_verify->setWordWrap(true);
    m_verify->setTextFormat(Qt::RichText);
    m_verify->setVisible(false);
    rightLayout->addWidget(m_verify);
    m_beforeAfter = makeChart();
    m_beforeAfter->setObjectName(QStringLiteral("whatIfBeforeAfter"));
    m_curve = makeChart();
    m_curve->setObjectName(QStringLiteral("whatIfCurve"));
    rightLayout->addWidget(m_beforeAfter, 1);
    rightLayout->addWidget(m_curve, 1);

    connect(m_typeCombo, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_updating)
            updateWhatIf();
    });
    connect(m_slider, &QSlider::valueChanged, this, [this](int value) {
        if (!m_updating)
            setSpeedup(whatIfType(), double(value) / kSliderSteps);
    });
    connect(m_spin, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        if (!m_updating)
            setSpeedup(whatIfType(), value);
    });

    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(left);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);
    rebuildBreakdown();
}

ProfilePage::~ProfilePage() = default;

QPushButton* ProfilePage::presetButton(double speedup) const { return m_presets.value(int(std::lround(speedup * 10)), nullptr); }

void ProfilePage::setSession(const SnapshotPtr& session, const std::vector<Experiment>& experiments)
{
    m_session = session;
    m_experiments = session ? experiments : std::vector<Experiment>{};
    updateOrigin();
    updateWhatIf();
}

QStringList ProfilePage::selectedKernelTypes() const
{
    QStringList types;
    const auto add = [&types](const QString& label) {
        if (!label.isEmpty() && parse_kernel_type(label.toStdString()) && !types.contains(label))
            types.append(label);
    };
    if (!m_profile || !m_profile->breakdown)
        return types;
    for (const QModelIndex& index : m_tree->selectionModel()->selectedRows())
        add(index.data(BreakdownModel::TypeLabelRole).toString());
    if (types.isEmpty())
        add(whatIfType());
    return types;
}

void ProfilePage::updateOptimize()
{
    const QStringList types = selectedKernelTypes();
    m_optimize->setEnabled(!types.isEmpty());
    m_optimize->setToolTip(types.isEmpty()
                               ? tr("Open a profile and select kernel types in the tree to make a session of them")
                               : tr("Make a new session that optimizes %1, as “autokernel new --from-profile” does")
                                     .arg(types.join(QStringLiteral(", "))));
}

QString ProfilePage::originProfileFile() const
{
    if (!m_session || !m_session->info.profile || m_session->info.profile->file.empty())
        return {};
    const QString file = QString::fromStdString(m_session->info.profile->file);
    QFileInfo given(file);
    if (given.isFile())
        return given.absoluteFilePath();
    if (given.isRelative()) {
        const QFileInfo besideSession(QFileInfo(m_session->dir).dir(), file);
        if (besideSession.isFile())
            return besideSession.absoluteFilePath();
    }
    // A session that carries its profile (copied in, e.g. from the machine it was made on): the file
    // of that name inside the session folder.
    const QFileInfo inside(QDir(m_session->dir), given.fileName());
    if (!given.fileName().isEmpty() && inside.isFile())
        return inside.absoluteFilePath();
    return {};
}

void ProfilePage::updateOrigin()
{
    const QString file = originProfileFile();
    const bool isOpen = !file.isEmpty() && m_profile && QFileInfo(m_profile->path).absoluteFilePath() == file;
    m_origin->setVisible(!file.isEmpty());
    m_origin->setEnabled(!isOpen);
    m_origin->setToolTip(file.isEmpty() ? QString()
                                        : (isOpen ? tr("The profile this session was made from is open: %1")
                                                  : tr("Open the profile this session was made from: %1"))
                                              .arg(QDir::toNativeSeparators(file)));
}

std::optional<double> ProfilePage::verifiedSpeedup() const
{
    if (!m_session || !m_session->verify)
        return std::nullopt;
    return m_session->verify->measured_speedup();
}

void ProfilePage::updateVerified()
{
    if (!m_session || (!m_session->verify && m_session->verifyError.isEmpty())) {
        m_verify->clear();
        m_verify->setVisible(false);
        return;
    }
    m_verify->setVisible(true);
    if (!m_session->verify) {
        m_verify->setText(tr("verify.json could not be read: %1").arg(m_session->verifyError.toHtmlEscaped()));
        return;
    }
    const VerifyReport& r = *m_session->verify;
    const QString predicted = r.predicted_speedup ? tr("%1×").arg(num(*r.predicted_speedup, 3)) : tr("unknown");
    const QString when = QString::fromStdString(r.created_utc).toHtmlEscaped();
    if (const std::optional<double> measured = r.measured_speedup()) {
        m_verify->setText(tr("<b>Measured end to end: %1×</b> (autokernel verify, %2, %3) · predicted from the "
                             "session’s kernel speed-ups %4 · projected here %5×")
                              .arg(num(*measured, 3), QString::fromStdString(r.verdict).toHtmlEscaped(), when, predicted,
                                   num(m_projected, 3)));
    } else {
        m_verify->setText(tr("autokernel verify (%1): %2, no end-to-end measurement. %3")
                              .arg(when, QString::fromStdString(r.verdict).toHtmlEscaped(),
                                   QString::fromStdString(r.detail).toHtmlEscaped()));
    }
    m_verify->setToolTip(QString::fromStdString(format_verify_report(r)));
}

void ProfilePage::setSessionReports(const SnapshotPtr& session)
{
    m_session = session;
    updateVerified();
}

void ProfilePage::appendExperiments(const std::vector<Experiment>& added)
{
    m_experiments.insert(m_experiments.end(), added.begin(), added.end());
    updateWhatIf();
}

void ProfilePage::setProfile(const ProfilePtr& profile)
{
    m_profile = profile;
    m_speedups.clear();
    rebuildBreakdown();
    updateOrigin();
}

std::optional<double> ProfilePage::measuredSpeedup(const QString& typeLabel) const
{
    std::optional<double> best;
    const std::string type = typeLabel.toStdString();
    for (const Experiment& e : m_experiments) {
        if (e.kernel_type == type && e.on_frontier() && e.speedup_vs_pytorch && *e.speedup_vs_pytorch > 0)
            best = std::max(best.value_or(0.0), *e.speedup_vs_pytorch);
    }
    return best;
}

double ProfilePage::shareOf(const QString& typeLabel) const
{
    if (!m_profile || !m_profile->breakdown)
        return 0;
    for (const profile::BreakdownType& t : m_profile->breakdown->types) {
        if (QString::fromStdString(t.type_label) == typeLabel)
            return t.share;
    }
    return 0;
}

QString ProfilePage::whatIfType() const { return m_typeCombo->currentData().toString(); }

void ProfilePage::setWhatIfType(const QString& typeLabel)
{
    const int index = m_typeCombo->findData(typeLabel);
    if (index >= 0 && index != m_typeCombo->currentIndex())
        m_typeCombo->setCurrentIndex(index);
}

double ProfilePage::speedupOf(const QString& typeLabel) const
{
    const auto it = m_speedups.find(typeLabel);
    return it == m_speedups.end() ? 1.0 : it->second;
}

void ProfilePage::setSpeedup(const QString& typeLabel, double speedup)
{
    if (typeLabel.isEmpty())
        return;
    speedup = std::clamp(speedup, 1.0, 10.0);
    if (speedup == 1.0)
        m_speedups.erase(typeLabel);
    else
        m_speedups[typeLabel] = speedup;
    updateWhatIf();
}

void ProfilePage::rebuildBreakdown()
{
    const profile::Breakdown* b = m_profile && m_profile->breakdown ? m_profile->breakdown.get() : nullptr;
    m_model->setBreakdown(b ? m_profile->breakdown : nullptr, b ? m_profile->launches : QHash<QString, KernelLaunchInfo>{});
    m_tree->sortByColumn(BreakdownModel::TimeColumn, Qt::DescendingOrder);
    {
        const QSignalBlocker blocker(m_typeCombo);
        m_typeCombo->clear();
        if (b) {
            for (const profile::BreakdownType& t : b->types)
                m_typeCombo->addItem(tr("%1 (%2 %)").arg(QString::fromStdString(t.type_label), num(t.share * 100.0, 1)),
                                     QString::fromStdString(t.type_label));
        }
    }
    if (!b) {
        m_file->setText(tr("No profile open: File ▸ Open Profile… (a profile.json written by “autokernel profile”)."));
        m_file->setToolTip(QString());
        m_summary->clear();
    } else {
        // The file's name; where it lies is in the tooltip (a long absolute path crowds out the summary).
        m_file->setText(tr("Profile: %1").arg(QFileInfo(m_profile->path).fileName()));
        m_file->setToolTip(QDir::toNativeSeparators(QFileInfo(m_profile->path).absoluteFilePath()));
        const profile::GpuTimeline& t = b->timeline;
        const double iters = t.iterations > 0 ? t.iterations : 1;
        const double wall = double(t.wall_ns);
        m_summary->setText(
            tr("GPU busy %1 ms of %2 ms wall per iteration · idle %3 % · %4 kernel launches · %5 % of kernel time "
               "attributed to an op · %6 % in the nine kernel types")
                .arg(num(double(t.busy_ns) / 1e6 / iters, 2), num(wall / 1e6 / iters, 2),
                     num(wall > 0 ? 100.0 * double(t.idle_ns) / wall : 0.0, 1), QLocale().toString(qulonglong(t.kernels)),
                     num(100.0 * b->attributed_share, 1), num(100.0 * b->classified_share, 1)));
        m_summary->setToolTip(QString::fromStdString(b->ceiling_note));
    }
    m_tree->expandToDepth(0);
    drawBars();
    updateWhatIf();
}

void ProfilePage::updateWhatIf()
{
    m_updating = true;
    const QString type = whatIfType();
    const double s = speedupOf(type);
    m_slider->setValue(int(std::lround(s * kSliderSteps)));
    m_spin->setValue(s);
    const std::optional<double> measured = measuredSpeedup(type);
    m_measured->setEnabled(measured.has_value());
    m_measured->setText(measured ? tr("Measured %1×").arg(num(*measured, 2)) : tr("Measured"));
    m_measured->setToolTip(measured ? tr("The session's best speed-up of %1 over PyTorch").arg(type)
                                    : tr("The open session has no passing kept experiment of this type"));
    m_updating = false;

    m_projected = 1.0;
    m_limit = 1.0;
    const profile::Breakdown* b = m_profile && m_profile->breakdown ? m_profile->breakdown.get() : nullptr;
    if (!b || type.isEmpty()) {
        m_projection->setText(b ? QString() : tr("Open a profile to project what a faster kernel buys end to end."));
        updateOptimize();
        updateVerified();
        drawBeforeAfter();
        drawCurve();
        return;
    }
    std::vector<double> fractions, speedups;
    for (const profile::BreakdownType& t : b->types) {
        fractions.push_back(std::clamp(t.share, 0.0, 1.0));
        speedups.push_back(speedupOf(QString::fromStdString(t.type_label)));
    }
    m_projected = amdahl_speedup(fractions, speedups);
    const double share = shareOf(type);
    m_limit = share < 1.0 ? amdahl_limit({share}) : std::numeric_limits<double>::infinity();
    QString chosen;
    for (const auto& [label, speedup] : m_speedups)
        chosen += (chosen.isEmpty() ? QString() : QStringLiteral(", ")) + label + QLatin1Char(' ') + num(speedup, 2) + QStringLiteral("×");
    m_projection->setText(
        tr("<b>Projected end to end: %1×</b> (%2)<br>%3 takes %4 % of GPU time: %5× makes the model %6× faster; "
           "even if it took no time at all, at most %7×.")
            .arg(num(m_projected, 3), chosen.isEmpty() ? tr("no speed-up chosen") : chosen, type, num(share * 100.0, 1),
                 num(s, 2), num(amdahl_speedup(std::clamp(share, 0.0, 1.0), s), 3),
                 std::isfinite(m_limit) ? num(m_limit, 2) : QStringLiteral("∞")));
    updateOptimize();
    updateVerified();
    drawBeforeAfter();
    drawCurve();
}

void ProfilePage::drawBars()
{
    m_bars->clearPlottables();
    const profile::Breakdown* b = m_profile && m_profile->breakdown ? m_profile->breakdown.get() : nullptr;
    std::vector<QString> labels;
    if (b) {
        const double iters = b->timeline.iterations > 0 ? b->timeline.iterations : 1;
        QCPBars* below = nullptr;
        for (int rank = 0; rank <= kStackedGroups; ++rank) {
            auto* bars = new QCPBars(m_bars->xAxis, m_bars->yAxis);
            QColor color = OutcomeStyle::kernelColor(0).lighter(100 + rank * 18);
            bars->setBrush(color);
            bars->setPen(QPen(Qt::white, 1));
            bars->setWidth(0.7);
            bars->setName(rank < kStackedGroups ? tr("group %1").arg(rank + 1) : tr("other groups"));
            if (below)
                bars->moveAbove(below);
            QVector<double> keys, values;
            for (std::size_t i = 0; i < b->types.size(); ++i) {
                std::vector<const profile::BreakdownGroup*> groups;  // in breakdown order: largest first
                for (const profile::BreakdownGroup& g : b->groups) {
                    if (g.type_label == b->types[i].type_label)
                        groups.push_back(&g);
                }
                double us = 0;
                for (std::size_t g = 0; g < groups.size(); ++g) {
                    if (rank < kStackedGroups ? int(g) == rank : int(g) >= kStackedGroups)
                        us += double(groups[g]->total_ns) / 1000.0 / iters;
                }
                keys.append(double(i + 1));
                values.append(us);
            }
            bars->setData(keys, values, true);
            below = bars;
        }
        for (const profile::BreakdownType& t : b->types)
            labels.push_back(QString::fromStdString(t.type_label));
    }
    m_bars->xAxis->setTicker(typeTicker(labels));
    m_bars->xAxis->setTickLabelRotation(labels.size() > 6 ? 30 : 0);
    m_bars->xAxis->setRange(0.4, double(labels.size()) + 0.6);
    m_bars->yAxis->setLabel(tr("GPU time (µs per iteration), stacked by group"));
    m_bars->rescaleAxes(true);
    m_bars->xAxis->setRange(0.4, double(labels.size()) + 0.6);
    m_bars->yAxis->setRangeLower(0);
    m_bars->replot();
}

void ProfilePage::drawBeforeAfter()
{
    m_beforeAfter->clearPlottables();
    const profile::Breakdown* b = m_profile && m_profile->breakdown ? m_profile->breakdown.get() : nullptr;
    std::vector<QString> labels;
    if (b) {
        const double iters = b->timeline.iterations > 0 ? b->timeline.iterations : 1;
        auto* before = new QCPBars(m_beforeAfter->xAxis, m_beforeAfter->yAxis);
        auto* after = new QCPBars(m_beforeAfter->xAxis, m_beforeAfter->yAxis);
        before->setName(tr("now"));
        after->setName(tr("with the chosen speed-ups"));
        before->setBrush(QColor(160, 160, 160));
        after->setBrush(OutcomeStyle::color(Outcome::Kept));
        for (QCPBars* bars : {before, after}) {
            bars->setWidth(0.38);
            bars->setPen(Qt::NoPen);
        }
        QVector<double> keys, now, then;
        for (std::size_t i = 0; i < b->types.size(); ++i) {
            const double us = b->types[i].per_iteration_us > 0 ? b->types[i].per_iteration_us
                                                               : double(b->types[i].total_ns) / 1000.0 / iters;
            keys.append(double(i + 1));
            now.append(us);
            then.append(us / speedupOf(QString::fromStdString(b->types[i].type_label)));
            labels.push_back(QString::fromStdString(b->types[i].type_label));
        }
        QVector<double> leftKeys = keys, rightKeys = keys;
        for (double& k : leftKeys)
            k -= 0.2;
        for (double& k : rightKeys)
            k += 0.2;
        before->setData(leftKeys, now, true);
        after->setData(rightKeys, then, true);
        m_beforeAfter->legend->setVisible(true);
        m_beforeAfter->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    }
    m_beforeAfter->xAxis->setTicker(typeTicker(labels));
    m_beforeAfter->xAxis->setTickLabelRotation(labels.size() > 6 ? 30 : 0);
    m_beforeAfter->yAxis->setLabel(tr("µs per iteration"));
    m_beforeAfter->rescaleAxes(true);
    m_beforeAfter->xAxis->setRange(0.4, double(labels.size()) + 0.6);
    m_beforeAfter->yAxis->setRangeLower(0);
    m_beforeAfter->yAxis->setRangeUpper(m_beforeAfter->yAxis->range().upper * 1.25);  // room for the legend
    m_beforeAfter->replot();
}

void ProfilePage::drawCurve()
{
    m_curve->clearGraphs();
    m_curve->clearItems();
    const QString type = whatIfType();
    const double share = std::clamp(shareOf(type), 0.0, 1.0);
    if (!type.isEmpty() && m_profile && m_profile->breakdown) {
        QCPGraph* curve = m_curve->addGraph();
        curve->setPen(QPen(OutcomeStyle::frontierColor(), 2));
        QVector<double> xs, ys;
        for (int i = 0; i <= 90; ++i) {
            const double s = 1.0 + i * 0.1;
            xs.append(s);
            ys.append(amdahl_speedup(share, s));
        }
        curve->setData(xs, ys, true);
        if (std::isfinite(m_limit)) {
            QCPGraph* asymptote = m_curve->addGraph();
            asymptote->setPen(QPen(QColor(120, 120, 120), 1, Qt::DashLine));
            asymptote->setData(QVector<double>{1.0, 10.0}, QVector<double>{m_limit, m_limit}, true);
            auto* text = new QCPItemText(m_curve);
            text->position->setCoords(10.0, m_limit);
            text->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
            text->setText(tr("limit %1×").arg(num(m_limit, 2)));
            text->setColor(QColor(90, 90, 90));
        }
        QCPGraph* now = m_curve->addGraph();
        now->setLineStyle(QCPGraph::lsNone);
        now->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, OutcomeStyle::selectionColor(), 9));
        const double s = speedupOf(type);
        now->setData(QVector<double>{s}, QVector<double>{amdahl_speedup(share, s)}, true);
        m_curve->xAxis->setRange(1.0, 10.0);
        m_curve->yAxis->setRange(1.0, std::max(1.05, (std::isfinite(m_limit) ? m_limit : ys.back()) * 1.08));
    }
    m_curve->xAxis->setLabel(tr("speed-up of %1 (×)").arg(type));
    m_curve->yAxis->setLabel(tr("end to end (×)"));
    m_curve->replot();
}

}  // namespace ak
