// Tests app/pages/roofline_page.cpp with widgets/roofline_plot.cpp: the roofs of the session's GPU
// per dtype (datasheet and measured), where every experiment lands (intensity = TFLOP/s·1000 / GB/s),
// the PyTorch baseline and the starter -> best path, filters, and that a click selects.
#include "app/pages/roofline_page.h"
#include "analysis/gpu_specs.h"
#include "experiment_fixtures.h"
#include "app/profile_document.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QtTest>

#include <cmath>

using namespace ak;
using ak::test::experiment;
using Kind = RooflinePlot::Roof::Kind;

namespace {

constexpr auto K = Outcome::Kept;
constexpr auto B = Outcome::Baseline;
constexpr auto R = Outcome::Reverted;
constexpr auto F = Outcome::Failed;
constexpr auto PASS = Correctness::Pass;
const std::optional<double> none;

//            #  kernel     outcome correct.     speedup tflops latency GB/s
std::vector<Experiment> experiments()
{
    return {
        experiment(0, "rmsnorm", B, PASS, 1.0, 1.2, 50.0, 1200),     // intensity 1.0
        experiment(1, "rmsnorm", K, PASS, 2.0, 2.4, 25.0, 2400),     // best rmsnorm: baseline at 1.2
        experiment(2, "rmsnorm", R, PASS, 0.9, 1.0, 55.0, 1000),
        experiment(3, "matmul", B, PASS, 0.5, 400.0, 900.0, 4000),   // intensity 100
        experiment(4, "matmul", K, PASS, 1.25, 500.0, 720.0, 5000),
        experiment(5, "rmsnorm", F, Correctness::Fail, none, none, none, none),  // not placed
    };
}

SnapshotPtr snapshot(const std::vector<Experiment>& list)
{
    auto s = std::make_shared<SessionSnapshot>();
    s->dir = QStringLiteral("/tmp/roofline-test");
    s->info.name = "roofline-test";
    s->info.gpu = "NVIDIA H200";
    s->info.gpu_compute_capability = "9.0";
    s->experiments = list;
    return s;
}

const RooflinePlot::Roof* roofNamed(const RooflinePage& page, Kind kind, bool measured)
{
    for (const auto& r : page.roofs()) {
        if (r.kind == kind && r.measured == measured)
            return &r;
    }
    return nullptr;
}

}  // namespace

class TestRooflinePage : public QObject {
    Q_OBJECT

private slots:
    void roofsComeFromTheGpuSpecPerDtype()
    {
        RooflinePage page;
        page.setSession(snapshot(experiments()), experiments());
        const std::optional<GpuSpec> spec = find_gpu_spec("NVIDIA H200", 9, 0);
        QVERIFY(spec);
        QCOMPARE(page.dtype(), QStringLiteral("bf16"));
        const RooflinePlot::Roof* hbm = roofNamed(page, Kind::Memory, false);
        QVERIFY(hbm);
        QCOMPARE(hbm->value, 4800.0);  // H200 HBM3e, 4.8 TB/s
        std::vector<double> compute;
        for (const auto& r : page.roofs())
            if (r.kind == Kind::Compute)
                compute.push_back(r.value);
        // Tensor cores bf16 and CUDA cores fp32, both from the datasheet.
        QCOMPARE(compute, (std::vector<double>{*spec->bf16_tflops, *spec->fp32_tflops}));
        QVERIFY(std::abs(page.ridge() - *spec->bf16_tflops * 1000.0 / 4800.0) < 1e-9);
        page.setDtype(QStringLiteral("fp32"));
        QCOMPARE(page.roofs().size(), std::size_t(2));  // HBM and the CUDA cores
        QVERIFY(std::abs(page.ridge() - *spec->fp32_tflops * 1000.0 / 4800.0) < 1e-9);
        QVERIFY(!roofNamed(page, Kind::Memory, true));  // nothing measured without a profile
    }

    void measuredCeilingsOfTheProfileAreSeparateRoofs()
    {
        RooflinePage page;
        page.setSession(snapshot(experiments()), experiments());
        auto data = std::make_shared<profile::Profile>();
        MeasuredCeilings ceilings;
        ceilings.device_name = "NVIDIA H200";
        ceilings.copy_gb_s = {{134217728, 3705.0}, {4294967296, 4257.0}};
        ceilings.gemm_tflops = {{DType::bf16, 721.0}};
        data->ceilings = ceilings;
        auto document = std::make_shared<ProfileDocument>();
        document->path = QStringLiteral("p.json");
        document->data = data;
        page.setProfile(document);
        const RooflinePlot::Roof* copy = roofNamed(page, Kind::Memory, true);
        const RooflinePlot::Roof* gemm = roofNamed(page, Kind::Compute, true);
        QVERIFY(copy && gemm);
        QCOMPARE(copy->value, 4257.0);  // the largest measured copy
        QCOMPARE(gemm->value, 721.0);
        QVERIFY(gemm->label.contains(QStringLiteral("GEMM")));
        page.setDtype(QStringLiteral("fp16"));  // no fp16 GEMM measured
        QVERIFY(!roofNamed(page, Kind::Compute, true));
    }

    // Without a profile that has them, the session's ceilings.json gives the measured roofs; the
    // profile's win when both exist; with neither the label says where they would come from.
    void measuredCeilingsOfTheSessionAreUsedWhenTheProfileHasNone()
    {
        RooflinePage page;
        page.setSession(snapshot(experiments()), experiments());
        QVERIFY(!roofNamed(page, Kind::Memory, true));
        QVERIFY2(page.gpuLabel()->text().contains(QStringLiteral("autokernel ceilings --json")),
                 qPrintable(page.gpuLabel()->text()));

        auto withCeilings = std::make_shared<SessionSnapshot>(*snapshot(experiments()));
        auto measured = std::make_shared<MeasuredCeilings>();
        measured->device_name = "NVIDIA H200";
        measured->measured_utc = "2026-12-02T08:00:00Z";
        measured->copy_gb_s = {{16777216, 3100.0}, {1073741824, 4010.0}};
        measured->gemm_tflops = {{DType::bf16, 690.0}};
        withCeilings->ceilings = measured;
        page.setSessionReports(withCeilings);  // as after ceilings.json appeared on disk
        const RooflinePlot::Roof* copy = roofNamed(page, Kind::Memory, true);
        const RooflinePlot::Roof* gemm = roofNamed(page, Kind::Compute, true);
        QVERIFY(copy && gemm);
        QCOMPARE(copy->value, 4010.0);
        QCOMPARE(gemm->value, 690.0);
        QVERIFY2(page.gpuLabel()->text().contains(QStringLiteral("ceilings.json")), qPrintable(page.gpuLabel()->text()));

        // A profile with its own ceilings takes precedence (they were measured with the profile).
        auto data = std::make_shared<profile::Profile>();
        MeasuredCeilings own;
        own.device_name = "NVIDIA H200";
        own.copy_gb_s = {{134217728, 3705.0}};
        own.gemm_tflops = {{DType::bf16, 721.0}};
        data->ceilings = own;
        auto document = std::make_shared<ProfileDocument>();
        document->path = QStringLiteral("p.json");
        document->data = data;
        page.setProfile(document);
        QCOMPARE(roofNamed(page, Kind::Memory, true)->value, 3705.0);
        QVERIFY2(page.gpuLabel()->text().contains(QStringLiteral("from the profile")), qPrintable(page.gpuLabel()->text()));
        // A profile without ceilings (the bundled demo's): the session's again.
        auto bare = std::make_shared<ProfileDocument>();
        bare->path = QStringLiteral("demo-profile.json");
        bare->data = std::make_shared<profile::Profile>();
        page.setProfile(bare);
        QCOMPARE(roofNamed(page, Kind::Memory, true)->value, 4010.0);

        // A damaged ceilings.json is named.
        auto damaged = std::make_shared<SessionSnapshot>(*snapshot(experiments()));
        damaged->ceilingsError = QStringLiteral("/s/ceilings.json: ceilings: missing field 'device_name'");
        page.setSessionReports(damaged);
        QVERIFY(!roofNamed(page, Kind::Memory, true));
        QVERIFY2(page.gpuLabel()->text().contains(QStringLiteral("missing field 'device_name'")),
                 qPrintable(page.gpuLabel()->text()));
    }

    void theProfilesGroupsAreLabelledPoints()
    {
        RooflinePage page;
        page.setSession(snapshot(experiments()), experiments());
        auto breakdown = std::make_shared<profile::Breakdown>();
        profile::BreakdownGroup gemm;
        gemm.type_label = "matmul";
        gemm.op = "aten::addmm";
        gemm.share = 0.4;
        profile::Headroom h;
        h.achieved_tflops = 300.0;
        h.achieved_gb_s = 1500.0;  // intensity 200
        gemm.headroom = h;
        profile::BreakdownGroup unknown;  // no shapes, no headroom: not drawn
        unknown.type_label = "other";
        unknown.op = "aten::add";
        breakdown->groups = {gemm, unknown};
        auto document = std::make_shared<ProfileDocument>();
        document->data = std::make_shared<profile::Profile>();
        document->breakdown = breakdown;
        page.setProfile(document);
        const auto& points = page.plot()->extraPoints();
        QCOMPARE(points.size(), std::size_t(1));
        QCOMPARE(points[0].intensity, 200.0);
        QCOMPARE(points[0].tflops, 300.0);
        QVERIFY(points[0].label.contains(QStringLiteral("aten::addmm")));
    }

    void experimentsSitAtTheirIntensityAndThroughput()
    {
        RooflinePage page;
        page.setSession(snapshot(experiments()), experiments());
        RooflinePlot* plot = page.plot();
        QCOMPARE(plot->positionOf(0), std::optional<QPointF>(QPointF(1.0, 1.2)));
        QCOMPARE(plot->positionOf(3), std::optional<QPointF>(QPointF(100.0, 400.0)));
        QCOMPARE(plot->positionOf(5), std::nullopt);  // failed without metrics
        QCOMPARE(plot->shownCount(), 5);
        // Bytes view: y is the achieved bandwidth.
        page.viewCombo()->setCurrentIndex(1);
        QCOMPARE(plot->view(), RooflinePlot::View::Bytes);
        QCOMPARE(plot->positionOf(0), std::optional<QPointF>(QPointF(1.0, 1200.0)));
        QCOMPARE(plot->positionOf(4), std::optional<QPointF>(QPointF(100.0, 5000.0)));
    }

    void baselineAndPathPerKernel()
    {
        RooflinePage page;
        page.setSession(snapshot(experiments()), experiments());
        RooflinePlot* plot = page.plot();
        // The best rmsnorm (#1, 2x) did 2.4 TFLOP/s: PyTorch took twice as long, 1.2 TFLOP/s.
        QCOMPARE(plot->baselineOf(QStringLiteral("rmsnorm")), std::optional<QPointF>(QPointF(1.0, 1.2)));
        QCOMPARE(plot->baselineOf(QStringLiteral("matmul")), std::optional<QPointF>(QPointF(100.0, 400.0)));
        QCOMPARE(plot->pathOf(QStringLiteral("rmsnorm")), (std::vector<int>{0, 1}));
        QCOMPARE(plot->pathOf(QStringLiteral("matmul")), (std::vector<int>{3, 4}));
        QVERIFY(plot->kernelColor(QStringLiteral("rmsnorm")) != plot->kernelColor(QStringLiteral("matmul")));
        QVERIFY(plot->tooltipOf(1).contains(QStringLiteral("#1")));
    }

    // The drawn path merges straight runs (a frontier climbing at one intensity is one segment) and keeps
    // every turn; a path of hundreds of vertices is drawn thin and aliased (the replot stays cheap).
    void thePathIsDrawnWithItsTurnsOnly()
    {
        std::vector<Experiment> list = {
            experiment(0, "rmsnorm", B, PASS, 1.0, 1.2, 50.0, 1200),  // intensity 1.0 throughout ...
            experiment(1, "rmsnorm", K, PASS, 2.0, 2.4, 25.0, 2400),
            experiment(2, "rmsnorm", K, PASS, 3.0, 3.6, 16.7, 3600),
            experiment(3, "rmsnorm", K, PASS, 4.0, 4.8, 12.5, 4800),
            experiment(4, "rmsnorm", K, PASS, 5.0, 6.0, 10.0, 3000),  // ... then intensity 2.0
        };
        RooflinePage page;
        page.setSession(snapshot(list), list);
        RooflinePlot* plot = page.plot();
        QCOMPARE(plot->pathOf(QStringLiteral("rmsnorm")), (std::vector<int>{0, 1, 2, 3, 4}));
        const QVector<QPointF> drawn = plot->drawnPathOf(QStringLiteral("rmsnorm"));
        QCOMPARE(drawn.size(), 3);
        QCOMPARE(drawn[0], QPointF(1.0, 1.2));
        QCOMPARE(drawn[1], QPointF(1.0, 4.8));
        QCOMPARE(drawn[2], QPointF(2.0, 6.0));

        // A zigzag keeps every vertex; 300 of them draw aliased.
        std::vector<Experiment> zigzag;
        for (int i = 0; i < 300; ++i)
            zigzag.push_back(experiment(i, "rmsnorm", i == 0 ? B : K, PASS, 1.0, i % 2 ? 2.0 : 1.0, 50.0, i % 3 ? 1000 : 1500));
        page.setSession(snapshot(zigzag), zigzag);
        QCOMPARE(plot->drawnPathOf(QStringLiteral("rmsnorm")).size(), 300);
        bool aliased = false;
        for (int i = 0; i < plot->plot()->plottableCount(); ++i) {
            if (auto* c = qobject_cast<QCPCurve*>(plot->plot()->plottable(i)); c && c->dataCount() == 300)
                aliased = !c->antialiased();
        }
        QVERIFY(aliased);
    }

    void filtersHidePoints()
    {
        RooflinePage page;
        page.setSession(snapshot(experiments()), experiments());
        RooflinePlot* plot = page.plot();
        page.kernelCombo()->setCurrentIndex(page.kernelCombo()->findData(QStringLiteral("matmul")));
        QCOMPARE(plot->shownCount(), 2);
        QCOMPARE(plot->positionOf(0), std::nullopt);
        page.kernelCombo()->setCurrentIndex(0);
        page.outcomeCheckBox(Outcome::Reverted)->setChecked(false);
        QCOMPARE(plot->shownCount(), 4);
        QCOMPARE(plot->positionOf(2), std::nullopt);
    }

    void clickingAPointAsksToSelectIt()
    {
        RooflinePage page;
        page.resize(1000, 700);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.setSession(snapshot(experiments()), experiments());
        QCustomPlot* p = page.plot()->plot();
        p->replot();
        const QPoint at(qRound(p->xAxis->coordToPixel(100.0)), qRound(p->yAxis->coordToPixel(500.0)));
        QSignalSpy activated(&page, &Page::experimentActivated);
        QTest::mouseClick(p, Qt::LeftButton, Qt::NoModifier, at);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.first().first().toInt(), 4);
        // The shell answers with setSelection: the ring moves there.
        page.setSelection(4, -1);
        QCOMPARE(page.plot()->selectedExperiment(), 4);
        // Empty space selects nothing.
        QTest::mouseClick(p, Qt::LeftButton, Qt::NoModifier, QPoint(p->axisRect()->left() + 3, p->axisRect()->top() + 3));
        QCOMPARE(activated.count(), 1);
    }

    void appendedExperimentsAppear()
    {
        RooflinePage page;
        std::vector<Experiment> first = experiments();
        page.setSession(snapshot(first), first);
        page.appendExperiments({experiment(6, "softmax", K, PASS, 1.5, 0.5, 10.0, 2000)});
        QCOMPARE(page.plot()->positionOf(6), std::optional<QPointF>(QPointF(0.25, 0.5)));
        QVERIFY(page.kernelCombo()->findData(QStringLiteral("softmax")) > 0);
    }

    void anUnknownGpuDrawsNoRoofsAndSaysSo()
    {
        RooflinePage page;
        auto s = std::const_pointer_cast<SessionSnapshot>(snapshot(experiments()));
        s->info.gpu = "none";
        page.setSession(s, experiments());
        QVERIFY(page.roofs().empty());
        QVERIFY(!page.gpuLabel()->text().isEmpty());
        QCOMPARE(page.plot()->positionOf(0), std::optional<QPointF>(QPointF(1.0, 1.2)));
    }
};

QTEST_MAIN(TestRooflinePage)
#include "test_roofline_page.moc"
