#include "widgets/roofline_plot.h"

#include "widgets/outcome_style.h"
#include "widgets/value_format.h"

#include <qcustomplot.h>

#include <QElapsedTimer>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ak {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPickRadiusPx = 8.0;
constexpr int kMarkerDiameter = 9;
constexpr Outcome kOutcomes[] = {Outcome::Baseline, Outcome::Kept, Outcome::Reverted, Outcome::Failed};

// The outcome's shape in the kernel's colour, pre-rendered (QCustomPlot blits pixmaps quickly).
constexpr qsizetype kLongPath = 200;  // path vertices above which a path is drawn aliased

// Drops the inner vertices of straight runs of a path in log-log space (the plot's axes): a kernel's
// frontier often climbs at one intensity, and drawing costs per segment (antialiased strokes), not per
// pixel. A vertex stays when the path turns or reverses there.
QVector<QCPCurveData> straightened(const QVector<QCPCurveData>& path)
{
    if (path.size() < 3)
        return path;
    const auto logOf = [](const QCPCurveData& d, double* x, double* y) {
        if (!(d.key > 0) || !(d.value > 0))
            return false;
        *x = std::log(d.key);
        *y = std::log(d.value);
        return true;
    };
    QVector<QCPCurveData> out;
    out.reserve(path.size());
    out.append(path.front());
    for (qsizetype i = 1; i + 1 < path.size(); ++i) {
        double ax, ay, bx, by, cx, cy;
        if (logOf(out.back(), &ax, &ay) && logOf(path[i], &bx, &by) && logOf(path[i + 1], &cx, &cy)) {
            const double ux = bx - ax, uy = by - ay, vx = cx - bx, vy = cy - by;
            const double cross = ux * vy - uy * vx;
            const double dot = ux * vx + uy * vy;
            const double scale = std::hypot(ux, uy) * std::hypot(vx, vy);
            if (std::fabs(cross) <= 1e-9 * scale && dot >= 0)
                continue;  // on the way from the last kept vertex to the next one
        }
        out.append(path[i]);
    }
    out.append(path.back());
    for (qsizetype i = 0; i < out.size(); ++i)
        out[i].t = double(i);
    return out;
}

QPixmap markerPixmap(Outcome outcome, const QColor& color)
{
    const qreal ratio = qApp ? qApp->devicePixelRatio() : 1.0;
    QPixmap pixmap(QSize(kMarkerDiameter + 2, kMarkerDiameter + 2) * ratio);
    pixmap.setDevicePixelRatio(ratio);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    const QRectF box(1.5, 1.5, kMarkerDiameter - 1, kMarkerDiameter - 1);
    switch (outcome) {
    case Outcome::Kept:
        painter.setPen(QPen(color.darker(130), 1.0));
        painter.setBrush(color);
        painter.drawEllipse(box);
        break;
    case Outcome::Reverted:
        painter.setPen(QPen(color, 1.5));
        painter.setBrush(QColor(255, 255, 255, 200));
        painter.drawEllipse(box);
        break;
    case Outcome::Baseline:
        painter.setPen(QPen(color.darker(150), 1.0));
        painter.setBrush(color);
        painter.drawRect(box);
        break;
    case Outcome::Failed:
        painter.setPen(QPen(color, 2.0));
        painter.drawLine(box.topLeft(), box.bottomRight());
        painter.drawLine(box.topRight(), box.bottomLeft());
        break;
    }
    return pixmap;
}

QString formatNumber(double v, int decimals) { return QLocale().toString(v, 'f', decimals); }

void setLogAxis(QCPAxis* axis)
{
    axis->setScaleType(QCPAxis::stLogarithmic);
    auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
    ticker->setLogBase(10);
    ticker->setSubTickCount(8);
    axis->setTicker(ticker);
    axis->setNumberFormat(QStringLiteral("gb"));
    axis->setNumberPrecision(4);
}

}  // namespace

RooflinePlot::RooflinePlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setPlottingHint(QCP::phFastPolylines, true);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    setLogAxis(m_plot->xAxis);
    setLogAxis(m_plot->yAxis);
    m_plot->xAxis->setLabel(tr("Arithmetic intensity (FLOP/byte)"));
    m_plot->yAxis->setLabel(tr("Achieved TFLOP/s"));
    m_plot->setMouseTracking(true);

    m_baselines = m_plot->addGraph();
    m_baselines->setName(tr("PyTorch baseline"));
    m_baselines->setLineStyle(QCPGraph::lsNone);
    m_baselines->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, QPen(Qt::black, 1.5), Qt::NoBrush, 11));
    m_extraGraph = m_plot->addGraph();
    m_extraGraph->setName(tr("profile groups"));
    m_extraGraph->setLineStyle(QCPGraph::lsNone);
    m_extraGraph->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(QColor(90, 90, 90), 1.2), QColor(255, 215, 0), 10));
    m_selection = m_plot->addGraph();
    m_selection->setLineStyle(QCPGraph::lsNone);
    m_selection->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(OutcomeStyle::selectionColor(), 2.5), Qt::NoBrush, 15));
    m_selection->removeFromLegend();

    // The legend sits outside the axis rect, on the right: it never covers a point.
    m_plot->legend->setVisible(true);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
    auto* legendLayout = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(0, 1, legendLayout);
    legendLayout->addElement(0, 0, m_plot->legend);
    legendLayout->setMargins(QMargins(0, 6, 6, 6));
    m_plot->plotLayout()->setColumnStretchFactor(1, 0.001);
    legendLayout->setRowStretchFactor(0, 0.001);
    legendLayout->addElement(1, 0, new QCPLayoutElement(m_plot));  // pushes the legend to the top

    connect(m_plot, &QCustomPlot::mouseMove, this, &RooflinePlot::onMouseMove);
    connect(m_plot, &QCustomPlot::mousePress, this, &RooflinePlot::onMousePress);
    connect(m_plot, &QCustomPlot::mouseRelease, this, &RooflinePlot::onMouseRelease);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] { resetView(); });
    rebuildPoints();
}

RooflinePlot::~RooflinePlot() = default;

std::optional<QPointF> RooflinePlot::placement(const Experiment& e)
{
    if (!e.throughput_tflops || !e.bandwidth_gb_s || *e.throughput_tflops <= 0 || *e.bandwidth_gb_s <= 0)
        return std::nullopt;
    if (!std::isfinite(*e.throughput_tflops) || !std::isfinite(*e.bandwidth_gb_s))
        return std::nullopt;
    return QPointF(*e.throughput_tflops * 1000.0 / *e.bandwidth_gb_s, *e.throughput_tflops);
}

void RooflinePlot::setRoofs(const std::vector<Roof>& roofs, double ridge)
{
    m_roofs = roofs;
    m_ridge = ridge;
    rebuildRoofs();
    fitRanges();
    m_plot->replot();
}

void RooflinePlot::setExperiments(const std::vector<Experiment>& experiments)
{
    m_points.clear();
    m_indexOfNumber.clear();
    m_experiments.clear();
    m_kernels.clear();
    m_selected = -1;
    addExperiments(experiments);
    rebuildPoints();
    fitRanges();
    m_plot->replot();
}

void RooflinePlot::appendExperiments(const std::vector<Experiment>& experiments)
{
    addExperiments(experiments);
    rebuildPoints();
    m_plot->replot();
}

void RooflinePlot::setExtraPoints(const std::vector<ExtraPoint>& points)
{
    m_extra = points;
    rebuildPoints();
    fitRanges();
    m_plot->replot();
}

void RooflinePlot::addExperiments(const std::vector<Experiment>& experiments)
{
    m_experiments.reserve(m_experiments.size() + experiments.size());
    for (const Experiment& e : experiments) {
        const int kernel = kernelIndex(e.kernel_type);
        m_experiments.push_back(e);
        const std::optional<QPointF> at = placement(e);
        if (!at)
            continue;
        m_indexOfNumber.insert(e.number, m_points.size());
        m_points.push_back({e.number, kernel, e.outcome, e.on_frontier(), at->x(), at->y(),
                            e.speedup_vs_pytorch && *e.speedup_vs_pytorch > 0 ? *e.speedup_vs_pytorch : kNaN});
    }
}

int RooflinePlot::kernelIndex(const std::string& kernelType)
{
    const QString name = QString::fromStdString(kernelType);
    const auto it = std::find(m_kernels.begin(), m_kernels.end(), name);
    if (it != m_kernels.end())
        return int(it - m_kernels.begin());
    m_kernels.push_back(name);
    return int(m_kernels.size()) - 1;
}

QColor RooflinePlot::kernelColor(const QString& kernelType) const
{
    const auto it = std::find(m_kernels.begin(), m_kernels.end(), kernelType);
    const int index = it == m_kernels.end() ? 0 : int(it - m_kernels.begin());
    return OutcomeStyle::kernelColor(index);
}

double RooflinePlot::viewY(double intensity, double tflops) const
{
    return m_view == View::Flops ? tflops : tflops * 1000.0 / intensity;  // GB/s = FLOP/s / (FLOP/byte)
}

bool RooflinePlot::shown(const Point& p) const
{
    if (!m_outcomeVisible[static_cast<int>(p.outcome)])
        return false;
    return m_kernelFilter.isEmpty() || m_kernels[std::size_t(p.kernel)] == m_kernelFilter;
}

void RooflinePlot::setView(View view)
{
    if (view == m_view)
        return;
    m_view = view;
    m_plot->yAxis->setLabel(view == View::Flops ? tr("Achieved TFLOP/s") : tr("Achieved GB/s"));
    rebuildRoofs();
    rebuildPoints();
    fitRanges();
    m_plot->replot();
}

void RooflinePlot::setKernelFilter(const QString& kernelType)
{
    m_kernelFilter = kernelType;
    rebuildPoints();
    m_plot->replot();
}

void RooflinePlot::setOutcomeVisible(Outcome outcome, bool visible)
{
    m_outcomeVisible[static_cast<int>(outcome)] = visible;
    rebuildPoints();
    m_plot->replot();
}

bool RooflinePlot::outcomeVisible(Outcome outcome) const { return m_outcomeVisible[static_cast<int>(outcome)]; }

std::vector<int> RooflinePlot::pathOf(const QString& kernelType) const
{
    std::vector<int> path;
    for (const Point& p : m_points) {
        if (p.onFrontier && m_kernels[std::size_t(p.kernel)] == kernelType)
            path.push_back(p.number);
    }
    return path;
}

QVector<QPointF> RooflinePlot::drawnPathOf(const QString& kernelType) const
{
    QVector<QPointF> out;
    for (std::size_t i = 0; i < m_pathCurves.size(); ++i) {
        if (m_kernels[std::size_t(m_pathKernels[i])] != kernelType)
            continue;
        for (auto it = m_pathCurves[i]->data()->constBegin(); it != m_pathCurves[i]->data()->constEnd(); ++it)
            out.append(QPointF(it->key, it->value));
    }
    return out;
}

std::optional<QPointF> RooflinePlot::baselineOf(const QString& kernelType) const
{
    // The strongest PyTorch baseline did the same work in speed-up times the kernel's latency.
    const Point* best = nullptr;
    for (const Point& p : m_points) {
        if (!p.onFrontier || std::isnan(p.speedup) || m_kernels[std::size_t(p.kernel)] != kernelType)
            continue;
        if (!best || p.speedup > best->speedup)
            best = &p;
    }
    if (!best)
        return std::nullopt;
    return QPointF(best->intensity, best->tflops / best->speedup);
}

int RooflinePlot::shownCount() const
{
    return int(std::count_if(m_points.begin(), m_points.end(), [this](const Point& p) { return shown(p); }));
}

void RooflinePlot::rebuildPoints()
{
    for (QCPGraph* g : m_pointGraphs)
        m_plot->removeGraph(g);
    for (QCPCurve* c : m_pathCurves)
        m_plot->removePlottable(c);
    m_pointGraphs.clear();
    m_pathCurves.clear();
    m_pathKernels.clear();

    const std::size_t kernels = m_kernels.size();
    std::vector<QVector<QCPGraphData>> data(kernels * 4);
    std::vector<QVector<QCPCurveData>> paths(kernels);
    for (const Point& p : m_points) {
        const std::size_t k = std::size_t(p.kernel);
        const double y = viewY(p.intensity, p.tflops);
        if (p.onFrontier && (m_kernelFilter.isEmpty() || m_kernels[k] == m_kernelFilter))
            paths[k].append(QCPCurveData(double(paths[k].size()), p.intensity, y));
        if (shown(p))
            data[k * 4 + std::size_t(p.outcome)].append(QCPGraphData(p.intensity, y));
    }
    for (std::size_t k = 0; k < kernels; ++k) {
        const QColor color = OutcomeStyle::kernelColor(int(k));
        if (paths[k].size() > 1) {
            auto* curve = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
            const QVector<QCPCurveData> path = straightened(paths[k]);
            // A long path (hundreds of kept experiments) is drawn as a thin aliased line: antialiased
            // wide strokes cost about ten times as much per segment and the path would dominate the replot.
            const bool longPath = path.size() > kLongPath;
            curve->setPen(QPen(color, longPath ? 1.0 : 1.5, Qt::SolidLine));
            curve->setAntialiased(!longPath);
            curve->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssNone));
            curve->data()->set(path, true);
            curve->removeFromLegend();
            curve->setLayer(QStringLiteral("main"));
            m_pathCurves.push_back(curve);
            m_pathKernels.push_back(int(k));
        }
        bool named = false;  // the kept graph carries the kernel's legend entry
        for (Outcome outcome : kOutcomes) {
            QVector<QCPGraphData>& d = data[k * 4 + std::size_t(outcome)];
            QCPGraph* g = m_plot->addGraph();
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(QCPScatterStyle(markerPixmap(outcome, color)));
            g->setAdaptiveSampling(true);
            g->data()->set(d, false);
            // One legend entry per kernel (its colour); the outcome filters name the shapes.
            if (!named && outcome == Outcome::Kept && (m_kernelFilter.isEmpty() || m_kernels[k] == m_kernelFilter)) {
                g->setName(m_kernels[k]);
                named = true;
            } else {
                g->removeFromLegend();
            }
            m_pointGraphs.push_back(g);
        }
    }

    // Baselines and extra points.
    QVector<QCPGraphData> baselines;
    for (const QString& kernel : m_kernels) {
        if (!m_kernelFilter.isEmpty() && kernel != m_kernelFilter)
            continue;
        if (const std::optional<QPointF> b = baselineOf(kernel))
            baselines.append(QCPGraphData(b->x(), viewY(b->x(), b->y())));
    }
    m_baselines->data()->set(baselines, false);
    QVector<QCPGraphData> extra;
    for (const ExtraPoint& p : m_extra) {
        if (p.intensity > 0 && p.tflops > 0)
            extra.append(QCPGraphData(p.intensity, viewY(p.intensity, p.tflops)));
    }
    m_extraGraph->data()->set(extra, false);
    if (extra.isEmpty())
        m_extraGraph->removeFromLegend();
    else
        m_extraGraph->addToLegend();
    if (baselines.isEmpty())
        m_baselines->removeFromLegend();
    else
        m_baselines->addToLegend();
    // The selection ring on top of everything.
    m_selection->setLayer(QStringLiteral("main"));
    m_plot->removeGraph(m_selection);
    m_selection = m_plot->addGraph();
    m_selection->setLineStyle(QCPGraph::lsNone);
    m_selection->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(OutcomeStyle::selectionColor(), 2.5), Qt::NoBrush, 15));
    m_selection->removeFromLegend();
    updateSelection();
}

void RooflinePlot::rebuildRoofs()
{
    for (QCPCurve* c : m_roofCurves)
        m_plot->removePlottable(c);
    m_roofCurves.clear();
    m_plot->clearItems();
    double topMemory = 0, topCompute = 0;
    for (const Roof& r : m_roofs) {
        if (r.value <= 0)
            continue;
        if (r.kind == Roof::Kind::Memory)
            topMemory = std::max(topMemory, r.value);
        else
            topCompute = std::max(topCompute, r.value);
    }
    const double xMin = 1e-3, xMax = 1e5;
    const auto addLine = [&](double x0, double t0, double x1, double t1, const QPen& pen, const QString& label,
                             bool labelAtStart) {
        auto* curve = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
        curve->setPen(pen);
        curve->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssNone));
        curve->data()->set({QCPCurveData(0, x0, viewY(x0, t0)), QCPCurveData(1, x1, viewY(x1, t1))}, true);
        curve->removeFromLegend();
        m_roofCurves.push_back(curve);
        if (label.isEmpty())
            return;
        auto* text = new QCPItemText(m_plot);
        text->position->setCoords(labelAtStart ? x0 : x1, viewY(labelAtStart ? x0 : x1, labelAtStart ? t0 : t1));
        text->setPositionAlignment(labelAtStart ? (Qt::AlignLeft | Qt::AlignBottom) : (Qt::AlignRight | Qt::AlignBottom));
        text->setText(label);
        text->setColor(pen.color().darker(120));
        text->setClipToAxisRect(true);
        text->setPadding(QMargins(4, 0, 4, 2));
    };
    for (const Roof& r : m_roofs) {
        if (r.value <= 0)
            continue;
        const QPen pen(r.measured ? QColor(200, 80, 0) : QColor(40, 40, 40), r.measured ? 1.6 : 2.0,
                       r.measured ? Qt::DashLine : Qt::SolidLine);
        if (r.kind == Roof::Kind::Memory) {
            // TFLOP/s = GB/s * FLOP/byte / 1000, up to the highest compute roof.
            const double xEnd = topCompute > 0 ? topCompute * 1000.0 / r.value : xMax;
            const double x0 = std::min(xMin, xEnd / 10);
            addLine(x0, r.value * x0 / 1000.0, xEnd, r.value * xEnd / 1000.0, pen, QString(), false);
            // The label on the slope, a decade and a half below the ridge: datasheet roofs above their
            // line, measured ones below it, so two close roofs do not print over each other.
            const double xLabel = m_view == View::Flops ? xEnd / 30.0 : xEnd / 10.0;
            auto* text = new QCPItemText(m_plot);
            text->position->setCoords(xLabel, viewY(xLabel, r.value * xLabel / 1000.0));
            text->setPositionAlignment(r.measured ? (Qt::AlignLeft | Qt::AlignTop) : (Qt::AlignRight | Qt::AlignBottom));
            text->setText(r.label);
            text->setColor(pen.color().darker(120));
            text->setPadding(QMargins(4, 2, 4, 2));
        } else {
            const double xStart = topMemory > 0 ? r.value * 1000.0 / topMemory : xMin;
            addLine(xStart, r.value, std::max(xMax, xStart * 10), r.value, pen, QString(), false);
            // The label at the right edge of the axes, above its roof (the roof runs past the view).
            auto* text = new QCPItemText(m_plot);
            if (m_view == View::Flops) {
                text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
                text->position->setCoords(0.995, r.value);
                text->setPositionAlignment(Qt::AlignRight | (r.measured ? Qt::AlignTop : Qt::AlignBottom));
            } else {  // the roof falls with slope -1: label where it starts
                text->position->setCoords(xStart, viewY(xStart, r.value));
                text->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
            }
            text->setText(r.label);
            text->setColor(pen.color().darker(120));
            text->setPadding(QMargins(4, 0, 4, 2));
        }
    }
    if (m_ridge > 0 && topCompute > 0) {
        const double yLow = m_view == View::Flops ? topCompute * 1e-6 : 1e-3;
        const double yHigh = m_view == View::Flops ? topCompute : topCompute * 1000.0 / m_ridge;
        auto* curve = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
        curve->setPen(QPen(QColor(120, 120, 120), 1.0, Qt::DotLine));
        curve->data()->set({QCPCurveData(0, m_ridge, yLow), QCPCurveData(1, m_ridge, yHigh * 1e3)}, true);
        curve->removeFromLegend();
        m_roofCurves.push_back(curve);
        auto* text = new QCPItemText(m_plot);
        text->position->setType(QCPItemPosition::ptPlotCoords);
        text->position->setCoords(m_ridge, yHigh);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        text->setText(tr("ridge %1 FLOP/B").arg(formatNumber(m_ridge, 0)));
        text->setColor(QColor(90, 90, 90));
        text->setPadding(QMargins(4, 4, 4, 0));
    }
    QStringList labelled;  // one label per kind (the text up to its first space): the largest comes first
    for (const ExtraPoint& p : m_extra) {
        if (p.intensity <= 0 || p.tflops <= 0)
            continue;
        const QString kind = p.label.section(QLatin1Char(' '), 0, 0);
        if (labelled.contains(kind))
            continue;
        labelled.append(kind);
        auto* text = new QCPItemText(m_plot);
        text->position->setCoords(p.intensity, viewY(p.intensity, p.tflops));
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        text->setText(p.label);
        text->setPadding(QMargins(8, 0, 0, 0));
        text->setColor(QColor(110, 90, 0));
    }
}

void RooflinePlot::selectExperiment(int number)
{
    m_selected = number;
    updateSelection();
    m_plot->replot();
}

void RooflinePlot::updateSelection()
{
    QVector<QCPGraphData> ring;
    if (const std::optional<QPointF> at = positionOf(m_selected))
        ring.append(QCPGraphData(at->x(), at->y()));
    m_selection->data()->set(ring, true);
}

std::optional<QPointF> RooflinePlot::positionOf(int number) const
{
    const auto it = m_indexOfNumber.constFind(number);
    if (it == m_indexOfNumber.constEnd())
        return std::nullopt;
    const Point& p = m_points[*it];
    if (!shown(p))
        return std::nullopt;
    return QPointF(p.intensity, viewY(p.intensity, p.tflops));
}

void RooflinePlot::fitRanges()
{
    double xLo = std::numeric_limits<double>::max(), xHi = 0, yLo = std::numeric_limits<double>::max(), yHi = 0;
    const auto take = [&](double x, double y) {
        if (!(x > 0) || !(y > 0))
            return;
        xLo = std::min(xLo, x);
        xHi = std::max(xHi, x);
        yLo = std::min(yLo, y);
        yHi = std::max(yHi, y);
    };
    for (const Point& p : m_points)
        take(p.intensity, viewY(p.intensity, p.tflops));
    for (const ExtraPoint& p : m_extra)
        take(p.intensity, viewY(p.intensity, p.tflops));
    double topMemory = 0, topCompute = 0;
    for (const Roof& r : m_roofs)
        (r.kind == Roof::Kind::Memory ? topMemory : topCompute) = std::max(
            r.kind == Roof::Kind::Memory ? topMemory : topCompute, r.value);
    if (m_ridge > 0 && topCompute > 0)
        take(m_ridge * 4, viewY(m_ridge, topCompute));
    if (m_view == View::Bytes && topMemory > 0)
        take(xHi > 0 ? xHi : 1.0, topMemory);
    if (m_view == View::Flops && topCompute > 0 && xHi == 0)
        take(1.0, topCompute);
    if (xHi == 0) {
        xLo = 0.1;
        xHi = 1000;
        yLo = 0.1;
        yHi = 1000;
    }
    m_plot->xAxis->setRange(xLo / 3, xHi * 3);
    m_plot->yAxis->setRange(yLo / 3, yHi * 3);
}

void RooflinePlot::resetView()
{
    fitRanges();
    m_plot->replot();
}

double RooflinePlot::lastReplotMs() const { return m_plot->replotTime(); }

int RooflinePlot::experimentAt(const QPointF& pos) const
{
    int best = -1;
    double bestDistance = kPickRadiusPx * kPickRadiusPx;
    for (const Point& p : m_points) {
        if (!shown(p))
            continue;
        const double dx = m_plot->xAxis->coordToPixel(p.intensity) - pos.x();
        const double dy = m_plot->yAxis->coordToPixel(viewY(p.intensity, p.tflops)) - pos.y();
        const double d = dx * dx + dy * dy;
        if (d <= bestDistance) {
            bestDistance = d;
            best = p.number;
        }
    }
    return best;
}

QString RooflinePlot::tooltipOf(int number) const
{
    const auto it = m_indexOfNumber.constFind(number);
    if (it == m_indexOfNumber.constEnd())
        return {};
    const Point& p = m_points[*it];
    const Experiment* e = nullptr;
    for (const Experiment& x : m_experiments) {
        if (x.number == number) {
            e = &x;
            break;
        }
    }
    if (!e)
        return {};
    QString text = tr("#%1 %2 (%3)").arg(number).arg(QString::fromStdString(e->kernel_type), OutcomeStyle::outcomeName(e->outcome));
    text += QLatin1Char('\n') + tr("intensity %1 FLOP/B · %2 TFLOP/s · %3 GB/s")
                                    .arg(formatNumber(p.intensity, 3), formatNumber(p.tflops, 3),
                                         formatNumber(*e->bandwidth_gb_s, 0));
    if (e->latency_us)
        text += QLatin1Char('\n') + tr("latency %1 µs").arg(formatNumber(*e->latency_us, 2));
    if (e->speedup_vs_pytorch)
        text += tr(" · %1× vs PyTorch").arg(formatNumber(*e->speedup_vs_pytorch, 3));
    if (e->pct_peak)
        text += tr(" · %1% of peak").arg(formatNumber(*e->pct_peak, 1));
    if (!e->description.empty())
        text += QLatin1Char('\n') + QString::fromStdString(e->description);
    return text;
}

void RooflinePlot::onMouseMove(QMouseEvent* event)
{
    if (event->buttons() != Qt::NoButton)
        return;
    const int number = experimentAt(event->position());
    if (number == m_hovered)
        return;
    m_hovered = number;
    if (number < 0)
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), tooltipOf(number), m_plot);
}

void RooflinePlot::onMousePress(QMouseEvent* event) { m_pressPos = event->position(); }

void RooflinePlot::onMouseRelease(QMouseEvent* event)
{
    if ((event->position() - m_pressPos).manhattanLength() > 4)
        return;  // a drag, not a click
    const int number = experimentAt(event->position());
    if (number < 0)
        return;
    if (event->button() == Qt::LeftButton) {
        selectExperiment(number);
        emit experimentClicked(number);
    } else if (event->button() == Qt::RightButton) {
        selectExperiment(number);
        emit experimentContextMenuRequested(number, event->globalPosition().toPoint());
    }
}

}  // namespace ak
