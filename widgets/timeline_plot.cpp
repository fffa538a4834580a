#include "widgets/timeline_plot.h"

#include "widgets/outcome_style.h"

#include <qcustomplot.h>

#include <QPainter>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ak {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kClickRadiusPx = 8.0;

double valueOr(const std::optional<double>& v) { return v ? *v : kNaN; }

// Markers are pre-rendered pixmaps (the table's icons come from the same drawing code): QCustomPlot
// blits them, which is what keeps a 10,000-point replot within a frame.
QCPScatterStyle scatterFor(Outcome outcome) {
    return QCPScatterStyle(OutcomeStyle::markerPixmap(outcome, TimelinePlot::kMarkerDiameter));
}

QCPGraph* makeScatterGraph(QCustomPlot* plot, const QString& name, const QCPScatterStyle& style) {
    QCPGraph* g = plot->addGraph();
    g->setName(name);
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(style);
    g->setAdaptiveSampling(true);
    return g;
}

}  // namespace

TimelinePlot::TimelinePlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);

    m_plot->setPlottingHint(QCP::phFastPolylines, true);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->xAxis->setLabel(tr("Experiment #"));
    // Experiment numbers are integers: ticks on whole multiples only.
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_plot->xAxis->setTicker(ticker);
    m_plot->yAxis->setLabel(metricLabel(m_metric));

    // Draw order: frontiers under the markers, the selection ring on top.
    m_plot->addLayer(QStringLiteral("frontiers"), m_plot->layer(QStringLiteral("main")), QCustomPlot::limBelow);
    m_frontier = m_plot->addGraph();
    m_frontier->setName(tr("running best"));
    m_frontier->setLineStyle(QCPGraph::lsStepLeft);
    m_frontier->setPen(QPen(OutcomeStyle::frontierColor(), 2.0));
    m_frontier->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssNone));
    m_reverted = makeScatterGraph(m_plot, tr("reverted"), scatterFor(Outcome::Reverted));
    m_failed = makeScatterGraph(m_plot, tr("failed"), scatterFor(Outcome::Failed));
    m_kept = makeScatterGraph(m_plot, tr("kept"), scatterFor(Outcome::Kept));
    m_selection = makeScatterGraph(m_plot, tr("selected"),
                                   QCPScatterStyle(QCPScatterStyle::ssCircle,
                                                   QPen(OutcomeStyle::selectionColor(), 2.5), Qt::NoBrush, 14));
    m_selection->removeFromLegend();

    // The legend is a row above the axes: it never covers a point.
    m_plot->legend->setVisible(true);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(4);  // two rows fit a narrow plot without eliding names
    m_plot->legend->setIconSize(16, 10);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->legend->setMargins(QMargins(4, 2, 4, 0));
    // Legend order: kept, reverted, failed, running best.
    m_plot->legend->clearItems();
    for (QCPGraph* g : {m_kept, m_reverted, m_failed, m_frontier}) g->addToLegend();

    connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this] {
        if (!m_settingRange) m_userMovedX = true;
    });
    connect(m_plot, &QCustomPlot::mousePress, this, &TimelinePlot::onMousePress);
    connect(m_plot, &QCustomPlot::mouseRelease, this, &TimelinePlot::onMouseRelease);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { resetView(); });
}

TimelinePlot::~TimelinePlot() = default;

QString TimelinePlot::metricLabel(Metric metric) {
    switch (metric) {
    case Metric::Speedup: return tr("Speedup vs PyTorch (×)");
    case Metric::Throughput: return tr("Throughput (TFLOP/s)");
    case Metric::Latency: return tr("Latency (µs)");
    case Metric::Bandwidth: return tr("Bandwidth (GB/s)");
    }
    return QString();
}

int TimelinePlot::kernelIndex(const std::string& kernelType) {
    const QString name = QString::fromStdString(kernelType);
    for (std::size_t i = 0; i < m_kernels.size(); ++i)
        if (m_kernels[i] == name) return static_cast<int>(i);
    m_kernels.push_back(name);
    return static_cast<int>(m_kernels.size()) - 1;
}

void TimelinePlot::addPoints(const std::vector<Experiment>& experiments) {
    m_points.reserve(m_points.size() + experiments.size());
    bool sorted = true;
    int kernel = -1;
    const std::string* lastKernel = nullptr;
    for (const Experiment& e : experiments) {
        if (lastKernel == nullptr || *lastKernel != e.kernel_type) {
            kernel = kernelIndex(e.kernel_type);
            lastKernel = &e.kernel_type;
        }
        if (!m_points.empty() && m_points.back().number > e.number) sorted = false;
        Point p{e.number, kernel, e.outcome, e.on_frontier(), {}};
        p.value[static_cast<int>(Metric::Speedup)] = valueOr(e.speedup_vs_pytorch);
        p.value[static_cast<int>(Metric::Throughput)] = valueOr(e.throughput_tflops);
        p.value[static_cast<int>(Metric::Latency)] = valueOr(e.latency_us);
        p.value[static_cast<int>(Metric::Bandwidth)] = valueOr(e.bandwidth_gb_s);
        m_points.push_back(p);
    }
    if (!sorted)
        std::stable_sort(m_points.begin(), m_points.end(),
                         [](const Point& a, const Point& b) { return a.number < b.number; });
}

void TimelinePlot::setExperiments(const std::vector<Experiment>& experiments) {
    m_points.clear();
    m_kernels.clear();
    addPoints(experiments);
    m_userMovedX = false;
    rebuild();
    applyRanges(true);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePlot::appendExperiments(const std::vector<Experiment>& experiments) {
    if (experiments.empty()) return;
    addPoints(experiments);
    rebuild();
    applyRanges(!m_userMovedX);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePlot::setMetric(Metric metric) {
    if (metric == m_metric) return;
    m_metric = metric;
    m_plot->yAxis->setLabel(metricLabel(metric));
    rebuild();
    applyRanges(false);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePlot::setKernelFilter(const QString& kernelType) {
    if (kernelType == m_kernelFilter) return;
    m_kernelFilter = kernelType;
    m_userMovedX = false;
    rebuild();
    applyRanges(true);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePlot::rebuild() {
    const int metric = static_cast<int>(m_metric);
    const bool minimize = m_metric == Metric::Latency;
    const bool allKernels = m_kernelFilter.isEmpty();
    const bool withFrontier = !allKernels;
    int filterKernel = -2;  // matches nothing unless found
    if (!allKernels) {
        for (std::size_t i = 0; i < m_kernels.size(); ++i)
            if (m_kernels[i] == m_kernelFilter) filterKernel = static_cast<int>(i);
    }

    QVector<double> keptX, keptY, revertedX, revertedY, failedX, failedY, frontierX, frontierY;
    // All kernels: one running best per kernel.
    std::vector<QVector<double>> kernelX(allKernels ? m_kernels.size() : 0), kernelY(kernelX.size());
    std::vector<double> kernelBest(kernelX.size(), kNaN);
    keptX.reserve(static_cast<qsizetype>(m_points.size()));
    keptY.reserve(static_cast<qsizetype>(m_points.size()));
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    double best = kNaN;
    bool anyShown = false;
    bool failedWithoutValue = false;
    double lastX = 0.0, firstX = 0.0;

    for (const Point& p : m_points) {
        if (!allKernels && p.kernel != filterKernel) continue;
        const double x = p.number;
        const double v = p.value[metric];
        const bool has = std::isfinite(v);
        if (!anyShown) firstX = x;
        anyShown = true;
        lastX = x;
        if (has) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        switch (p.outcome) {
        case Outcome::Baseline:
        case Outcome::Kept:
            if (has) keptX.push_back(x), keptY.push_back(v);
            break;
        case Outcome::Reverted:
            if (has) revertedX.push_back(x), revertedY.push_back(v);
            break;
        case Outcome::Failed:
            failedX.push_back(x);
            failedY.push_back(v);  // NaN placeholder until the marker line is known
            failedWithoutValue = failedWithoutValue || !has;
            break;
        }
        if (withFrontier && p.onFrontier && has && (std::isnan(best) || (minimize ? v < best : v > best))) {
            best = v;
            frontierX.push_back(x);
            frontierY.push_back(v);
        }
        if (allKernels && p.onFrontier && has) {
            double& kb = kernelBest[std::size_t(p.kernel)];
            if (std::isnan(kb) || (minimize ? v < kb : v > kb)) {
                kb = v;
                kernelX[std::size_t(p.kernel)].push_back(x);
                kernelY[std::size_t(p.kernel)].push_back(v);
            }
        }
    }
    if (!frontierX.isEmpty() && lastX > frontierX.back()) {
        frontierX.push_back(lastX);
        frontierY.push_back(best);
    }
    for (std::size_t k = 0; k < kernelX.size(); ++k) {
        if (!kernelX[k].isEmpty() && lastX > kernelX[k].back()) {
            kernelX[k].push_back(lastX);
            kernelY[k].push_back(kernelBest[k]);
        }
    }

    // y range: the values with 5 % margins; failures without a value sit on a line below them.
    if (!(lo <= hi)) lo = 0.0, hi = 1.0;
    double span = hi - lo;
    if (span <= 0.0) span = std::fabs(hi) > 0.0 ? std::fabs(hi) * 0.2 : 1.0;
    m_failedY = lo - 0.08 * span;
    m_yLower = (failedWithoutValue ? m_failedY : lo) - 0.05 * span;
    m_yUpper = hi + 0.05 * span;
    for (qsizetype i = 0; i < failedY.size(); ++i)
        if (std::isnan(failedY[i])) failedY[i] = m_failedY;
    m_xLower = anyShown ? firstX - 1.0 : 0.0;
    m_xUpper = anyShown ? lastX + 1.0 : 1.0;

    m_kept->setData(keptX, keptY, true);
    m_reverted->setData(revertedX, revertedY, true);
    m_failed->setData(failedX, failedY, true);
    m_frontier->setData(frontierX, frontierY, true);
    m_frontier->setName(tr("running best"));
    if (allKernels)
        m_frontier->removeFromLegend();
    else if (!m_plot->legend->hasItemWithPlottable(m_frontier))
        m_frontier->addToLegend();

    // Per-kernel running bests (all kernels shown): one graph per kernel, under the markers.
    while (m_kernelFrontiers.size() < kernelX.size()) {
        const int index = int(m_kernelFrontiers.size());
        QCPGraph* g = m_plot->addGraph();
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setPen(QPen(OutcomeStyle::kernelColor(index), 2.0));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssNone));
        g->setLayer(QStringLiteral("frontiers"));
        m_kernelFrontiers.push_back(g);
    }
    for (std::size_t k = 0; k < m_kernelFrontiers.size(); ++k) {
        QCPGraph* g = m_kernelFrontiers[k];
        const bool used = k < kernelX.size() && !kernelX[k].isEmpty();
        if (k < m_kernels.size())
            g->setName(tr("best: %1").arg(m_kernels[k]));
        if (used)
            g->setData(kernelX[k], kernelY[k], true);
        else
            g->data()->clear();
        g->setVisible(used);
        if (used && !m_plot->legend->hasItemWithPlottable(g))
            g->addToLegend();
        else if (!used)
            g->removeFromLegend();
    }

    // Thousands of failures: thin ticks instead of crosses, so the band reads as a density.
    const bool ticks = failedX.size() > kDenseFailures;
    if (ticks != m_failedTicks) {
        m_failedTicks = ticks;
        if (ticks) {
            QPixmap tick(3, kMarkerDiameter);
            tick.fill(Qt::transparent);
            QPainter painter(&tick);
            QColor color = OutcomeStyle::color(Outcome::Failed);
            color.setAlpha(150);
            painter.fillRect(QRect(1, 0, 1, kMarkerDiameter), color);
            painter.end();
            m_failed->setScatterStyle(QCPScatterStyle(tick));
        } else {
            m_failed->setScatterStyle(scatterFor(Outcome::Failed));
        }
    }
    updateSelection();
}

void TimelinePlot::applyRanges(bool resetX) {
    m_settingRange = true;
    m_plot->yAxis->setRange(m_yLower, m_yUpper);
    if (resetX) m_plot->xAxis->setRange(m_xLower, m_xUpper);
    m_settingRange = false;
}

void TimelinePlot::resetView() {
    m_userMovedX = false;
    applyRanges(true);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

std::optional<QPointF> TimelinePlot::plottedPosition(int number) const {
    for (QCPGraph* g : {m_kept, m_reverted, m_failed}) {
        const auto data = g->data();
        auto it = data->findBegin(number, false);
        if (it != data->constEnd() && it->key == number) return QPointF(it->key, it->value);
    }
    return std::nullopt;
}

void TimelinePlot::updateSelection() {
    const std::optional<QPointF> at = m_selected >= 0 ? plottedPosition(m_selected) : std::nullopt;
    if (at) m_selection->setData(QVector<double>{at->x()}, QVector<double>{at->y()}, true);
    else m_selection->data()->clear();
}

void TimelinePlot::selectExperiment(int number) {
    if (number == m_selected) return;
    m_selected = number;
    updateSelection();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QCPGraph* TimelinePlot::graphOf(Series series) const {
    switch (series) {
    case Series::Kept: return m_kept;
    case Series::Reverted: return m_reverted;
    case Series::Failed: return m_failed;
    case Series::Frontier: return m_frontier;
    case Series::Selected: return m_selection;
    }
    return nullptr;
}

QVector<QPointF> TimelinePlot::frontierOf(const QString& kernelType) const {
    QVector<QPointF> points;
    for (std::size_t k = 0; k < m_kernels.size() && k < m_kernelFrontiers.size(); ++k) {
        if (m_kernels[k] != kernelType) continue;
        const auto data = m_kernelFrontiers[k]->data();
        for (auto it = data->constBegin(); it != data->constEnd(); ++it) points.append(QPointF(it->key, it->value));
    }
    return points;
}

QVector<QPointF> TimelinePlot::pointsOf(Series series) const {
    QVector<QPointF> points;
    const auto data = graphOf(series)->data();
    points.reserve(data->size());
    for (auto it = data->constBegin(); it != data->constEnd(); ++it) points.append(QPointF(it->key, it->value));
    return points;
}

double TimelinePlot::lastReplotMs() const { return m_plot->replotTime(false); }

void TimelinePlot::onMousePress(QMouseEvent* event) { m_pressPos = event->position(); }

int TimelinePlot::experimentAt(const QPointF& pos) const {
    const QCPRange xRange = m_plot->xAxis->range();
    double bestDistance = kClickRadiusPx * kClickRadiusPx;
    int hit = -1;
    for (QCPGraph* g : {m_kept, m_reverted, m_failed}) {
        const auto data = g->data();
        // Only points within the click radius in x can hit: look at that key range.
        const double k1 = m_plot->xAxis->pixelToCoord(pos.x() - kClickRadiusPx);
        const double k2 = m_plot->xAxis->pixelToCoord(pos.x() + kClickRadiusPx);
        auto it = data->findBegin(std::max(std::min(k1, k2), xRange.lower), true);
        const auto end = data->findEnd(std::min(std::max(k1, k2), xRange.upper), true);
        for (; it != end; ++it) {
            const double dx = m_plot->xAxis->coordToPixel(it->key) - pos.x();
            const double dy = m_plot->yAxis->coordToPixel(it->value) - pos.y();
            const double d = dx * dx + dy * dy;
            if (d <= bestDistance) {
                bestDistance = d;
                hit = static_cast<int>(std::lround(it->key));
            }
        }
    }
    return hit;
}

void TimelinePlot::onMouseRelease(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton && event->button() != Qt::RightButton) return;
    if ((event->position() - m_pressPos).manhattanLength() > 3.0) return;  // a drag, not a click
    const int hit = experimentAt(event->position());
    if (hit < 0) return;
    selectExperiment(hit);
    if (event->button() == Qt::RightButton)
        emit experimentContextMenuRequested(hit, m_plot->mapToGlobal(event->position().toPoint()));
    else
        emit experimentClicked(hit);
}

}  // namespace ak
