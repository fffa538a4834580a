// Tests app/pages/compare_page.cpp: every metric side by side with the delta (right - left) and the
// ratio (right / left), the verdicts, the source diff between the two, and pinning a baseline.
#include "app/pages/compare_page.h"
#include "experiment_fixtures.h"
#include "widgets/diff_view.h"

#include <QLocale>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

using namespace ak;
using ak::test::experiment;

namespace {

std::vector<Experiment> experiments()
{
    std::vector<Experiment> list = {
        experiment(0, "rmsnorm", Outcome::Baseline, Correctness::Pass, 1.0, 0.5, 50.0, 2000),
        experiment(1, "rmsnorm", Outcome::Kept, Correctness::Pass, 1.25, 0.625, 40.0, 2500),
        experiment(2, "rmsnorm", Outcome::Failed, Correctness::Fail, std::nullopt, std::nullopt, std::nullopt, std::nullopt),
    };
    list[1].commit = "1111111111111111111111111111111111111111";
    list[0].commit = "0000000000000000000000000000000000000000";
    list[2].detail = "FAIL at smoke: 12 elements differ";
    return list;
}

SnapshotPtr snapshot()
{
    auto s = std::make_shared<SessionSnapshot>();
    s->dir = QStringLiteral("/tmp/compare-test");
    s->experiments = experiments();
    return s;
}

QString num(double v, int decimals) { return QLocale().toString(v, 'f', decimals); }

ShapeTiming timing(const std::string& shape, double us, double baselineUs, double gbs)
{
    ShapeTiming t;
    t.shape = shape;
    t.dtype = "fp16";
    t.median_us = us;
    t.iqr_us = us * 0.02;
    t.baseline_name = "at::rms_norm";
    t.baseline_median_us = baselineUs;
    t.speedup = baselineUs / us;
    t.gb_s = gbs;
    t.pct_peak = gbs / 4800.0 * 100.0;
    t.bound = "memory";
    return t;
}

RecordedTimings recorded(std::vector<ShapeTiming> shapes)
{
    RecordedTimings r;
    r.recorded = true;
    r.shapes = std::move(shapes);
    return r;
}

// The sources result the shell would deliver for right #right vs left #left.
SourcesResult sourcesFor(int right, int left, RecordedTimings rightTimings, RecordedTimings leftTimings)
{
    SourcesResult s;
    s.number = right;
    s.compareNumber = left;
    s.timings = std::move(rightTimings);
    s.compareTimings = std::move(leftTimings);
    return s;
}

}  // namespace

class TestComparePage : public QObject {
    Q_OBJECT

private slots:
    void showsEveryMetricWithDeltaAndRatio()
    {
        ComparePage page;
        page.setSession(snapshot(), experiments());
        page.setSelection(1, 0);  // right: #1, left: #0
        QCOMPARE(page.leftExperiment(), 0);
        QCOMPARE(page.rightExperiment(), 1);
        using C = ComparePage::Column;
        QCOMPARE(page.cellText(QStringLiteral("latency_us"), C::LeftColumn), num(50, 2));
        QCOMPARE(page.cellText(QStringLiteral("latency_us"), C::RightColumn), num(40, 2));
        QCOMPARE(page.cellText(QStringLiteral("latency_us"), C::DeltaColumn), num(-10, 2));
        QCOMPARE(page.cellText(QStringLiteral("latency_us"), C::RatioColumn), num(0.8, 3) + QStringLiteral("×"));
        QCOMPARE(page.cellText(QStringLiteral("bandwidth_gb_s"), C::DeltaColumn), QStringLiteral("+") + num(500, 1));
        QCOMPARE(page.cellText(QStringLiteral("bandwidth_gb_s"), C::RatioColumn), num(1.25, 3) + QStringLiteral("×"));
        QCOMPARE(page.cellText(QStringLiteral("speedup_vs_pytorch"), C::DeltaColumn), QStringLiteral("+") + num(0.25, 3));
        QCOMPARE(page.cellText(QStringLiteral("throughput_tflops"), C::RatioColumn), num(1.25, 3) + QStringLiteral("×"));
        // Verdicts: outcome differs, correctness does not.
        QCOMPARE(page.cellText(QStringLiteral("outcome"), C::DeltaColumn), ComparePage::tr("differs"));
        QCOMPARE(page.cellText(QStringLiteral("correctness"), C::DeltaColumn), QString());
    }

    void aMissingMetricHasNoDelta()
    {
        ComparePage page;
        page.setSession(snapshot(), experiments());
        page.setSelection(2, 1);
        using C = ComparePage::Column;
        QCOMPARE(page.cellText(QStringLiteral("latency_us"), C::LeftColumn), num(40, 2));
        QCOMPARE(page.cellText(QStringLiteral("latency_us"), C::RightColumn), QString());
        QCOMPARE(page.cellText(QStringLiteral("latency_us"), C::DeltaColumn), QString());
        QCOMPARE(page.cellText(QStringLiteral("detail"), C::RightColumn), QStringLiteral("FAIL at smoke: 12 elements differ"));
    }

    void showsTheSourceDiffBetweenThem()
    {
        ComparePage page;
        page.setSession(snapshot(), experiments());
        page.setSelection(1, 0);
        SourcesResult sources;
        sources.number = 1;
        sources.compareNumber = 0;
        sources.compareSource = QStringLiteral("a\nb\nc\n");
        sources.source = QStringLiteral("a\nB\nc\nd\n");
        page.showSources(sources);
        QCOMPARE(page.diffView()->insertedCount(), 2);
        QCOMPARE(page.diffView()->deletedCount(), 1);
        // Sources of another pair are not shown.
        sources.compareNumber = 2;
        page.showSources(sources);
        QCOMPARE(page.diffView()->insertedCount(), 0);
    }

    void showsEveryMetricPerTimingShapeWithDeltaAndRatio()
    {
        ComparePage page;
        page.setSession(snapshot(), experiments());
        page.setSelection(1, 0);
        using C = ComparePage::Column;
        // Until the commits' timings arrive the section says so.
        QCOMPARE(page.cellText(QStringLiteral("shapes"), C::LeftColumn), ComparePage::tr("reading…"));
        // Left #0 timed 4096x4096 and 8192x4096; right #1 timed 4096x4096 and 4096x16384.
        page.showSources(sourcesFor(1, 0,
                                    recorded({timing("4096x4096", 40.0, 56.0, 2500.0), timing("4096x16384", 150.0, 210.0, 2680.0)}),
                                    recorded({timing("4096x4096", 50.0, 55.0, 2000.0), timing("8192x4096", 100.0, 110.0, 2010.0)})));
        QCOMPARE(page.shapeKeys(), (QStringList{QStringLiteral("shape:4096x4096 fp16"), QStringLiteral("shape:4096x16384 fp16"),
                                                QStringLiteral("shape:8192x4096 fp16")}));
        QCOMPARE(page.cellText(QStringLiteral("shapes"), C::LeftColumn), QString());  // no status row now
        const QString k = QStringLiteral("shape:4096x4096 fp16:");
        QCOMPARE(page.cellText(k + QStringLiteral("us"), C::LeftColumn), num(50, 2));
        QCOMPARE(page.cellText(k + QStringLiteral("us"), C::RightColumn), num(40, 2));
        QCOMPARE(page.cellText(k + QStringLiteral("us"), C::DeltaColumn), num(-10, 2));
        QCOMPARE(page.cellText(k + QStringLiteral("us"), C::RatioColumn), num(0.8, 3) + QStringLiteral("×"));
        QCOMPARE(page.cellText(k + QStringLiteral("baseline_us"), C::DeltaColumn), QStringLiteral("+") + num(1, 2));
        QCOMPARE(page.cellText(k + QStringLiteral("baseline_us"), C::MetricColumn).trimmed(),
                 ComparePage::tr("Latency, %1 (µs)").arg(QStringLiteral("at::rms_norm")));
        QCOMPARE(page.cellText(k + QStringLiteral("speedup"), C::LeftColumn), num(1.1, 3));
        QCOMPARE(page.cellText(k + QStringLiteral("speedup"), C::RightColumn), num(1.4, 3));
        QCOMPARE(page.cellText(k + QStringLiteral("speedup"), C::DeltaColumn), QStringLiteral("+") + num(0.3, 3));
        QCOMPARE(page.cellText(k + QStringLiteral("speedup"), C::RatioColumn), num(1.4 / 1.1, 3) + QStringLiteral("×"));
        QCOMPARE(page.cellText(k + QStringLiteral("gb_s"), C::DeltaColumn), QStringLiteral("+") + num(500, 1));
        QCOMPARE(page.cellText(k + QStringLiteral("gb_s"), C::RatioColumn), num(1.25, 3) + QStringLiteral("×"));
        QCOMPARE(page.cellText(k + QStringLiteral("pct_peak"), C::DeltaColumn),
                 QStringLiteral("+") + num(500.0 / 4800.0 * 100.0, 1));
        QCOMPARE(page.cellText(k + QStringLiteral("iqr_us"), C::DeltaColumn), num(-0.2, 2));
        // No side measured TFLOP/s: no such row.
        QCOMPARE(page.cellText(k + QStringLiteral("tflops"), C::MetricColumn), QString());
        // A shape only one side timed: values on that side, "not timed" on the other, no delta.
        const QString only = QStringLiteral("shape:4096x16384 fp16");
        QCOMPARE(page.cellText(only, C::LeftColumn), ComparePage::tr("not timed"));
        QCOMPARE(page.cellText(only, C::RightColumn), QString());
        QCOMPARE(page.cellText(only + QStringLiteral(":us"), C::RightColumn), num(150, 2));
        QCOMPARE(page.cellText(only + QStringLiteral(":us"), C::DeltaColumn), QString());
        QCOMPARE(page.cellText(QStringLiteral("shape:8192x4096 fp16:us"), C::LeftColumn), num(100, 2));
        QCOMPARE(page.cellText(QStringLiteral("shape:8192x4096 fp16"), C::RightColumn), ComparePage::tr("not timed"));
        // The results.tsv rows are still there.
        QCOMPARE(page.cellText(QStringLiteral("latency_us"), C::DeltaColumn), num(-10, 2));
    }

    void aCommitWithoutTimingsSaysNotRecordedPerShape()
    {
        ComparePage page;
        page.setSession(snapshot(), experiments());
        page.setSelection(1, 0);
        using C = ComparePage::Column;
        // Neither commit has the trailers (an old session, the bundled demo): one status row.
        page.showSources(sourcesFor(1, 0, RecordedTimings{}, RecordedTimings{}));
        QVERIFY(page.shapeKeys().isEmpty());
        QCOMPARE(page.cellText(QStringLiteral("shapes"), C::LeftColumn), ComparePage::tr("not recorded"));
        QCOMPARE(page.cellText(QStringLiteral("shapes"), C::RightColumn), ComparePage::tr("not recorded"));
        QVERIFY(!page.cellToolTip(QStringLiteral("shapes"), C::LeftColumn).isEmpty());
        // Only the right one has them: each of its shapes says "not recorded" on the left.
        page.showSources(sourcesFor(1, 0, recorded({timing("4096x4096", 40.0, 56.0, 2500.0)}), RecordedTimings{}));
        QCOMPARE(page.shapeKeys(), QStringList{QStringLiteral("shape:4096x4096 fp16")});
        QCOMPARE(page.cellText(QStringLiteral("shape:4096x4096 fp16"), C::LeftColumn), ComparePage::tr("not recorded"));
        QCOMPARE(page.cellText(QStringLiteral("shape:4096x4096 fp16:us"), C::LeftColumn), QString());
        QCOMPARE(page.cellText(QStringLiteral("shape:4096x4096 fp16:us"), C::RightColumn), num(40, 2));
        QCOMPARE(page.cellText(QStringLiteral("shape:4096x4096 fp16:us"), C::DeltaColumn), QString());
        // A failed candidate: recorded, nothing timed.
        page.showSources(sourcesFor(1, 0, recorded({}), RecordedTimings{}));
        QCOMPARE(page.cellText(QStringLiteral("shapes"), C::RightColumn), ComparePage::tr("not timed"));
        QCOMPARE(page.cellText(QStringLiteral("shapes"), C::LeftColumn), ComparePage::tr("not recorded"));
    }

    void damagedTimingsAreNamedAndTimingsOfAnotherPairIgnored()
    {
        ComparePage page;
        page.setSession(snapshot(), experiments());
        page.setSelection(1, 0);
        using C = ComparePage::Column;
        RecordedTimings damaged = recorded({timing("4096x4096", 40.0, 56.0, 2500.0)});
        damaged.problems = {"Autokernel-Timing line 2 has no shape; skipped"};
        page.showSources(sourcesFor(1, 0, damaged, RecordedTimings{}));
        QCOMPARE(page.cellText(QStringLiteral("timing_problems"), C::RightColumn), ComparePage::tr("%n problem(s)", nullptr, 1));
        QVERIFY(page.cellToolTip(QStringLiteral("timing_problems"), C::RightColumn).contains(QStringLiteral("line 2 has no shape")));
        QCOMPARE(page.cellText(QStringLiteral("shape:4096x4096 fp16:us"), C::RightColumn), num(40, 2));
        // A result for another pair changes nothing.
        page.showSources(sourcesFor(2, 0, recorded({timing("1x1", 1.0, 1.0, 1.0)}), RecordedTimings{}));
        QCOMPARE(page.shapeKeys(), QStringList{QStringLiteral("shape:4096x4096 fp16")});
        // A new selection reads again; a commit that could not be read says why.
        page.setSelection(2, 1);
        QCOMPARE(page.cellText(QStringLiteral("shapes"), C::RightColumn), ComparePage::tr("reading…"));
        SourcesResult failed = sourcesFor(2, 1, RecordedTimings{}, RecordedTimings{});
        failed.timingsError = QStringLiteral("Could not read the timings of experiment 2: commit not found");
        page.showSources(failed);
        QVERIFY(page.cellText(QStringLiteral("timings_error"), C::LeftColumn).contains(QStringLiteral("commit not found")));
    }

    void pinningKeepsTheBaselineAndTellsTheShell()
    {
        ComparePage page;
        page.setSession(snapshot(), experiments());
        page.setSelection(1, 0);
        QSignalSpy pinned(&page, &ComparePage::pinChanged);
        QVERIFY(page.pinButton()->isEnabled());
        QTest::mouseClick(page.pinButton(), Qt::LeftButton);
        QCOMPARE(pinned.count(), 1);
        QCOMPARE(pinned.first().first().toInt(), 0);
        QCOMPARE(page.pinnedExperiment(), 0);
        QVERIFY(page.pinButton()->text().contains(QStringLiteral("#0")));
        QTest::mouseClick(page.pinButton(), Qt::LeftButton);
        QCOMPARE(pinned.last().first().toInt(), -1);
        QCOMPARE(page.pinnedExperiment(), -1);
    }
};

QTEST_MAIN(TestComparePage)
#include "test_compare_page.moc"
