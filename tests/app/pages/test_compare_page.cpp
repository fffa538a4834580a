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
