#pragma once
// The roofline as a log-log scatter plot: x = arithmetic intensity (FLOP/byte), y = achieved TFLOP/s
// (the FLOP/s view) or achieved GB/s (the bytes/s view).
//
// What it draws:
//   roofs        each a labelled line: memory roofs (datasheet HBM bandwidth, measured copy) rise with
//                slope 1 in the FLOP/s view and are flat in the bytes/s view; compute roofs (tensor-core
//                and CUDA-core peaks, measured GEMM) are flat in the FLOP/s view. Each ends where it
//                meets the highest roof of the other kind. The ridge point (datasheet peak / HBM
//                bandwidth) is a dashed vertical line.
//   experiments  every experiment with both a throughput and a bandwidth (intensity = TFLOP/s·1000 /
//                GB/s: the metrics it was measured with); colour per kernel, marker per outcome
//                (the timeline's shapes: filled circle kept, hollow circle reverted, square baseline,
//                cross failed)
//   paths        per kernel the starter -> best path: the passing kept experiments in record order
//   baselines    per kernel the strongest PyTorch baseline: the kernel's best experiment's metrics
//                divided by its speed-up (same work, baseline latency), drawn as a star
//   extra points diamonds given by the caller (the open profile's groups); the first point of each
//                kind (its label up to the first space, e.g. the type) carries its label
//
// Interaction: hovering a point shows a tooltip with its metrics; a click selects it
// (experimentClicked), a right click asks for its menu; wheel and drag zoom and pan both axes,
// double-click resets the view. The kernel filter and the outcome filters hide points without
// rebuilding the roofs.
#include "session/experiment.h"

#include <QColor>
#include <QHash>
#include <QPointF>
#include <QVector>
#include <QString>
#include <QWidget>

#include <optional>
#include <vector>

class QCustomPlot;
class QCPCurve;
class QCPGraph;
class QMouseEvent;

namespace ak {

class RooflinePlot : public QWidget {
    Q_OBJECT
public:
    enum class View { Flops, Bytes };

    struct Roof {
        enum class Kind { Memory, Compute };
        Kind kind = Kind::Memory;
        double value = 0;   // GB/s for memory roofs, TFLOP/s for compute roofs
        QString label;      // e.g. "HBM3e 4.8 TB/s (datasheet)"
        bool measured = false;
    };
    // A labelled point given by the caller (a profile group): intensity in FLOP/byte, TFLOP/s.
    struct ExtraPoint {
        QString label;
        double intensity = 0;
        double tflops = 0;
    };

    explicit RooflinePlot(QWidget* parent = nullptr);
    ~RooflinePlot() override;

    // Roofs and the ridge point (FLOP/byte; 0 = none) of the GPU and dtype shown.
    void setRoofs(const std::vector<Roof>& roofs, double ridge);
    void setExperiments(const std::vector<Experiment>& experiments);
    void appendExperiments(const std::vector<Experiment>& experiments);
    void setExtraPoints(const std::vector<ExtraPoint>& points);
    const std::vector<ExtraPoint>& extraPoints() const { return m_extra; }

    void setView(View view);
    View view() const { return m_view; }
    void setKernelFilter(const QString& kernelType);  // empty = all kernels
    QString kernelFilter() const { return m_kernelFilter; }
    void setOutcomeVisible(Outcome outcome, bool visible);
    bool outcomeVisible(Outcome outcome) const;

    // Highlights an experiment (-1 clears); shown only when it is placed and not filtered out.
    void selectExperiment(int number);
    int selectedExperiment() const { return m_selected; }

    // Where an experiment sits: (intensity, TFLOP/s), or nullopt when it lacks a throughput or bandwidth.
    static std::optional<QPointF> placement(const Experiment& e);
    // Its position in the current view's data coordinates, when shown.
    std::optional<QPointF> positionOf(int number) const;
    // The shown experiment within 8 px of `pos` (pixels of plot()), the nearest; -1 if none.
    int experimentAt(const QPointF& pos) const;
    // The tooltip text of an experiment.
    QString tooltipOf(int number) const;
    // The PyTorch baseline point of a kernel type in (intensity, TFLOP/s), when known.
    std::optional<QPointF> baselineOf(const QString& kernelType) const;
    // The starter -> best path of a kernel type: experiment numbers in record order.
    std::vector<int> pathOf(const QString& kernelType) const;
    // The vertices of the drawn path of a kernel type (log-log straight runs merged: a frontier that
    // climbs at one intensity is one segment), in (intensity, view y); empty when it draws none.
    QVector<QPointF> drawnPathOf(const QString& kernelType) const;
    // The colour of a kernel type (assigned in order of appearance).
    QColor kernelColor(const QString& kernelType) const;
    int shownCount() const;

    QCustomPlot* plot() const { return m_plot; }
    double lastReplotMs() const;
    void resetView();

signals:
    void experimentClicked(int number);
    void experimentContextMenuRequested(int number, const QPoint& globalPos);

private:
    struct Point {
        int number;
        int kernel;
        Outcome outcome;
        bool onFrontier;
        double intensity;
        double tflops;
        double speedup;  // NaN when unknown
    };
    void addExperiments(const std::vector<Experiment>& experiments);
    int kernelIndex(const std::string& kernelType);
    double viewY(double intensity, double tflops) const;
    bool shown(const Point& p) const;
    void rebuildPoints();
    void rebuildRoofs();
    void updateSelection();
    void fitRanges();
    void onMouseMove(QMouseEvent* event);
    void onMousePress(QMouseEvent* event);
    void onMouseRelease(QMouseEvent* event);

    QCustomPlot* m_plot = nullptr;
    std::vector<Point> m_points;
    QHash<int, std::size_t> m_indexOfNumber;
    std::vector<Experiment> m_experiments;  // for tooltips
    std::vector<QString> m_kernels;
    std::vector<Roof> m_roofs;
    double m_ridge = 0;
    std::vector<ExtraPoint> m_extra;
    View m_view = View::Flops;
    QString m_kernelFilter;
    bool m_outcomeVisible[4] = {true, true, true, true};
    int m_selected = -1;

    std::vector<QCPGraph*> m_pointGraphs;  // one per kernel x outcome
    std::vector<QCPCurve*> m_pathCurves;
    std::vector<int> m_pathKernels;  // the kernel index of each path curve
    std::vector<QCPCurve*> m_roofCurves;
    QCPGraph* m_baselines = nullptr;
    QCPGraph* m_extraGraph = nullptr;
    QCPGraph* m_selection = nullptr;
    QPointF m_pressPos;
    int m_hovered = -1;
};

}  // namespace ak
