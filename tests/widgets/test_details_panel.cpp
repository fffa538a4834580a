// Tests widgets/details_panel.cpp: every results.tsv column is shown with its exact value, commits
// are monospace and selectable, missing values are empty, and clear() empties everything.
#include "experiment_fixtures.h"
#include "session/results_table.h"
#include "widgets/details_panel.h"
#include "widgets/outcome_style.h"

#include <QFontInfo>
#include <QLabel>
#include <QLocale>
#include <QtTest>

using namespace ak;

namespace {

Experiment full() {
    Experiment e = test::experiment(17, "rmsnorm", Outcome::Kept, Correctness::Pass, 1.2345, 0.7341, 40.213, 3342.4);
    e.tag = "h200-run";
    e.kernel_file = "kernels/rmsnorm.cu";
    e.pct_peak = 78.25;
    e.peak_vram_mb = 512;
    e.description = "16-byte loads, one warp per row";
    e.commit = "0123456789abcdef0123456789abcdef01234567";
    e.parent_commit = "89abcdef0123456789abcdef0123456789abcdef";
    e.bound = Bound::Memory;
    e.agent = "llm:gpt-5";
    e.started_utc = "2026-11-29T08:15:02Z";
    e.duration_s = 6.5;
    e.latency_iqr_us = 0.25;
    e.detail = "stage 1: 12 shapes PASS\nstage 2: bf16 PASS";
    return e;
}

}  // namespace

class TestDetailsPanel : public QObject {
    Q_OBJECT
private slots:
    void init() { QLocale::setDefault(QLocale::c()); }

    void showsEveryResultsColumn() {
        QStringList columns;
        for (std::string_view c : results_columns()) columns << QString::fromUtf8(c.data(), qsizetype(c.size()));
        QStringList keys = DetailsPanel::fieldKeys();
        QCOMPARE(QSet<QString>(keys.begin(), keys.end()), QSet<QString>(columns.begin(), columns.end()));
        QCOMPARE(keys.size(), columns.size());

        DetailsPanel panel;
        panel.setExperiment(full());
        for (const QString& column : columns) QVERIFY2(!panel.valueOf(column).isEmpty(), qPrintable(column));
    }

    void valuesAreExact() {
        DetailsPanel panel;
        panel.setExperiment(full());
        const QMap<QString, QString> expected{
            {QStringLiteral("experiment"), QStringLiteral("17")},
            {QStringLiteral("tag"), QStringLiteral("h200-run")},
            {QStringLiteral("kernel_type"), QStringLiteral("rmsnorm")},
            {QStringLiteral("throughput_tflops"), QStringLiteral("0.7341")},
            {QStringLiteral("latency_us"), QStringLiteral("40.213")},
            {QStringLiteral("pct_peak"), QStringLiteral("78.25")},
            {QStringLiteral("speedup_vs_pytorch"), QStringLiteral("1.2345")},
            {QStringLiteral("correctness"), QStringLiteral("PASS")},
            {QStringLiteral("peak_vram_mb"), QStringLiteral("512")},
            {QStringLiteral("description"), QStringLiteral("16-byte loads, one warp per row")},
            {QStringLiteral("outcome"), OutcomeStyle::outcomeName(Outcome::Kept)},
            {QStringLiteral("commit"), QStringLiteral("0123456789abcdef0123456789abcdef01234567")},
            {QStringLiteral("parent_commit"), QStringLiteral("89abcdef0123456789abcdef0123456789abcdef")},
            {QStringLiteral("kernel_file"), QStringLiteral("kernels/rmsnorm.cu")},
            {QStringLiteral("bandwidth_gb_s"), QStringLiteral("3342.4")},
            {QStringLiteral("bound"), QStringLiteral("memory")},
            {QStringLiteral("agent"), QStringLiteral("llm:gpt-5")},
            {QStringLiteral("started_utc"), QStringLiteral("2026-11-29T08:15:02Z")},
            {QStringLiteral("duration_s"), QStringLiteral("6.5")},
            {QStringLiteral("latency_iqr_us"), QStringLiteral("0.25")},
            {QStringLiteral("detail"), QStringLiteral("stage 1: 12 shapes PASS\nstage 2: bf16 PASS")},
        };
        for (auto it = expected.begin(); it != expected.end(); ++it) QCOMPARE(panel.valueOf(it.key()), it.value());
        QCOMPARE(panel.valueOf(QStringLiteral("no_such_column")), QString());
    }

    void commitsAreMonospaceAndSelectable() {
        DetailsPanel panel;
        panel.setExperiment(full());
        for (const QString& key : {QStringLiteral("commit"), QStringLiteral("parent_commit")}) {
            auto* label = panel.findChild<QLabel*>(key);
            QVERIFY(label != nullptr);
            QVERIFY(QFontInfo(label->font()).fixedPitch());
            QVERIFY(label->textInteractionFlags().testFlag(Qt::TextSelectableByMouse));
        }
    }

    void outcomeAndCorrectnessAreColoured() {
        DetailsPanel panel;
        Experiment e = full();
        e.outcome = Outcome::Failed;
        e.correctness = Correctness::Timeout;
        panel.setExperiment(e);
        QCOMPARE(panel.valueOf(QStringLiteral("correctness")), QStringLiteral("TIMEOUT"));
        const QString failedColour = OutcomeStyle::color(Outcome::Failed).name();
        QVERIFY(panel.findChild<QLabel*>(QStringLiteral("outcome"))->styleSheet().contains(failedColour));
        QVERIFY(panel.findChild<QLabel*>(QStringLiteral("correctness"))->styleSheet().contains(failedColour));
    }

    void missingValuesAreEmptyAndClearEmptiesAll() {
        DetailsPanel panel;
        Experiment e = test::experiment(3, "softmax", Outcome::Failed, Correctness::Crash, {}, {}, {}, {});
        panel.setExperiment(e);
        QVERIFY(panel.hasExperiment());
        QCOMPARE(panel.valueOf(QStringLiteral("latency_us")), QString());
        QCOMPARE(panel.valueOf(QStringLiteral("speedup_vs_pytorch")), QString());
        QCOMPARE(panel.valueOf(QStringLiteral("experiment")), QStringLiteral("3"));
        panel.clear();
        QVERIFY(!panel.hasExperiment());
        for (const QString& key : DetailsPanel::fieldKeys()) QVERIFY2(panel.valueOf(key).isEmpty(), qPrintable(key));
    }
};

QTEST_MAIN(TestDetailsPanel)
#include "test_details_panel.moc"
