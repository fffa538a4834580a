#pragma once
// The session's history as a scatter plot: x = experiment number, y = a chosen metric.
//
// Series (each a QCPGraph; colours and markers from OutcomeStyle):
//   Kept      kept and baseline experiments that have the metric: green filled circles
//   Reverted  reverted experiments that have the metric: grey hollow circles
//   Failed    failed experiments: red crosses at their value when they have one, otherwise on a
//             line below every other point (failedMarkerY()), since a failure has no valid metric
//   Frontier  the running best as a step line. Only experiments that are kept (or baseline) AND
//             PASS count. Latency: running minimum; the other metrics: running maximum. One point
//             per improvement, plus one at the last shown experiment so the line reaches the right.
//             With a kernel filter this is one line (Series::Frontier); with all kernels each kernel
//             has its own running best in its own colour (OutcomeStyle::kernelColor, frontierOf()),
//             since the values of different kernels are not one series.
//   Failed    with many failures (more than kDenseFailures shown) the crosses become thin ticks,
//             so a band of 10,000 failures stays readable as a density
//   Selected  the selected experiment (a ring), when it is plotted
//
// The legend sits above the plot, outside the axes, so it never covers a point.
//
// Interaction: mouse wheel zooms x, dragging pans x, double-click resets the view, a click on (or
// within 8 px of) a point selects it and emits experimentClicked(); a right click on a point selects it
// and emits experimentContextMenuRequested() (the main window shows the experiment's menu there).
#include "session/experiment.h"

#include <QPointF>
#include <QString>
#include <QVector>
#include <QWidget>

#include <optional>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QMouseEvent;

namespace ak {

class TimelinePlot : public QWidget {
    Q_OBJECT
public:
    enum class Metric { Speedup, Throughput, Latency, Bandwidth };
    enum class Series { Kept, Reverted, Failed, Frontier, Selected };
    static constexpr int kMarkerDiameter = 9;  // pixels
    static constexpr int kDenseFailures = 1000;

    explicit TimelinePlot(QWidget* parent = nullptr);
    ~TimelinePlot() override;

    void setExperiments(const std::vector<Experiment>& experiments);
    void appendExperiments(const std::vector<Experiment>& experiments);

    void setMetric(Metric metric);
    Metric metric() const { return m_metric; }
    void setKernelFilter(const QString& kernelType);  // empty = all kernels
    QString kernelFilter() const { return m_kernelFilter; }

    // Highlights an experiment (-1 clears). It shows only when plotted under the current filter/metric.
    void selectExperiment(int number);
    int selectedExperiment() const { return m_selected; }

    // What is plotted, for tests and exports: (experiment number, y) pairs in number order.
    QVector<QPointF> pointsOf(Series series) const;
    // The running best of one kernel when all kernels are shown (empty otherwise).
    QVector<QPointF> frontierOf(const QString& kernelType) const;
    // True when the failed markers are drawn as thin ticks (many failures shown).
    bool failedDrawnAsTicks() const { return m_failedTicks; }
    // The y at which failed experiments without a value are drawn.
    double failedMarkerY() const { return m_failedY; }
    QCustomPlot* plot() const { return m_plot; }
    // Duration of the last replot in milliseconds.
    double lastReplotMs() const;

    // Fits both axes to the data again (what double-click does).
    void resetView();

    // The plotted experiment within 8 px of `pos` (widget coordinates of plot()), the nearest one; -1 if none.
    int experimentAt(const QPointF& pos) const;

    // Translated axis title of a metric, with its unit.
    static QString metricLabel(Metric metric);

signals:
    void experimentClicked(int number);
    void experimentContextMenuRequested(int number, const QPoint& globalPos);

private:
    // What the plot needs of one experiment; kept compact so 10,000 of them rebuild quickly.
    struct Point {
        int number;
        int kernel;  // index into m_kernels
        Outcome outcome;
        bool onFrontier;
        double value[4];  // per Metric; NaN = missing
    };
    void addPoints(const std::vector<Experiment>& experiments);
    int kernelIndex(const std::string& kernelType);
    void rebuild();
    void updateSelection();
    void applyRanges(bool resetX);
    std::optional<QPointF> plottedPosition(int number) const;
    void onMousePress(QMouseEvent* event);
    void onMouseRelease(QMouseEvent* event);
    QCPGraph* graphOf(Series series) const;

    QCustomPlot* m_plot = nullptr;
    QCPGraph* m_kept = nullptr;
    QCPGraph* m_reverted = nullptr;
    QCPGraph* m_failed = nullptr;
    QCPGraph* m_frontier = nullptr;
    QCPGraph* m_selection = nullptr;
    std::vector<QCPGraph*> m_kernelFrontiers;  // per kernel (index into m_kernels), all-kernels view
    bool m_failedTicks = false;

    std::vector<Point> m_points;  // sorted by number
    std::vector<QString> m_kernels;
    Metric m_metric = Metric::Speedup;
    QString m_kernelFilter;
    int m_selected = -1;

    double m_failedY = 0.0;
    double m_yLower = 0.0, m_yUpper = 1.0;
    double m_xLower = 0.0, m_xUpper = 1.0;
    bool m_userMovedX = false;  // the user zoomed or panned: appends keep the view
    bool m_settingRange = false;
    QPointF m_pressPos;
};

}  // namespace ak
