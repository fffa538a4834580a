// Tests widgets/experiment_table_model.cpp: structure (QAbstractItemModelTester), every column's
// display text and raw sort value, tooltips, colours, appends and experiment lookups.
#include "experiment_fixtures.h"
#include "widgets/experiment_table_model.h"
#include "widgets/outcome_style.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QElapsedTimer>
#include <QIcon>
#include <QLocale>
#include <QSignalSpy>
#include <QtTest>

#include <cmath>

using namespace ak;
using ak::test::experiment;
using Model = ExperimentTableModel;

class TestExperimentTableModel : public QObject {
    Q_OBJECT

    static Experiment fullExperiment() {
        Experiment e = experiment(12, "rmsnorm", Outcome::Kept, Correctness::Pass, 1.4567, 0.734, 40.213, 3342.4);
        e.pct_peak = 78.26;
        e.bound = Bound::Memory;
        e.agent = "llm:gpt-5";
        e.started_utc = "2026-11-29T08:15:02Z";
        e.duration_s = 6.54;
        e.description = "vectorized 16-byte loads";
        e.detail = "rows=4096 cols=8192 bf16";
        return e;
    }

    static QString text(const Model& m, int row, int column) {
        return m.data(m.index(row, column), Qt::DisplayRole).toString();
    }
    static QVariant sortValue(const Model& m, int row, int column) { return m.data(m.index(row, column), Model::SortRole); }

private slots:
    void init() { QLocale::setDefault(QLocale::c()); }
    void cleanup() { QLocale::setDefault(QLocale::c()); }

    void passesModelTesterWhileSettingAndAppending() {
        Model model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setExperiments(test::manyExperiments(50));
        model.appendExperiments({experiment(50, "softmax", Outcome::Kept, Correctness::Pass, 2.0, 1.0, 10.0, 100.0)});
        model.appendExperiments({});
        model.setExperiments({});
        model.appendExperiments(test::manyExperiments(3));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), int(Model::ColumnCount));
    }

    void displayTextOfEveryColumn() {
        Model model;
        model.setExperiments({fullExperiment()});
        QCOMPARE(text(model, 0, Model::NumberColumn), QStringLiteral("12"));
        QCOMPARE(text(model, 0, Model::KernelColumn), QStringLiteral("rmsnorm"));
        QCOMPARE(text(model, 0, Model::OutcomeColumn), QStringLiteral("kept"));
        QCOMPARE(text(model, 0, Model::CorrectnessColumn), QStringLiteral("PASS"));
        QCOMPARE(text(model, 0, Model::LatencyColumn), QStringLiteral("40.21"));
        QCOMPARE(text(model, 0, Model::SpeedupColumn), QStringLiteral("1.46×"));
        QCOMPARE(text(model, 0, Model::ThroughputColumn), QStringLiteral("0.73"));
        QCOMPARE(text(model, 0, Model::BandwidthColumn), QStringLiteral("3342"));
        QCOMPARE(text(model, 0, Model::PctPeakColumn), QStringLiteral("78.3"));
        QCOMPARE(text(model, 0, Model::BoundColumn), QStringLiteral("memory"));
        QCOMPARE(text(model, 0, Model::AgentColumn), QStringLiteral("llm:gpt-5"));
        QCOMPARE(text(model, 0, Model::StartedColumn), QStringLiteral("2026-11-29 08:15:02"));
        QCOMPARE(text(model, 0, Model::DurationColumn), QStringLiteral("6.5"));
        QCOMPARE(text(model, 0, Model::DescriptionColumn), QStringLiteral("vectorized 16-byte loads"));
    }

    void numbersFollowTheDefaultLocale() {
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
        Model model;
        model.setExperiments({fullExperiment()});
        QCOMPARE(text(model, 0, Model::LatencyColumn), QStringLiteral("40,21"));
        QCOMPARE(text(model, 0, Model::SpeedupColumn), QStringLiteral("1,46×"));
    }

    void latencyDecimalsShrinkAsItGrows() {
        Model model;
        model.setExperiments({experiment(0, "matmul", Outcome::Kept, Correctness::Pass, 1.0, 1.0, 123.456, 1.0),
                              experiment(1, "matmul", Outcome::Kept, Correctness::Pass, 1.0, 1.0, 5251.8, 1.0)});
        QCOMPARE(text(model, 0, Model::LatencyColumn), QStringLiteral("123.5"));
        QCOMPARE(text(model, 1, Model::LatencyColumn), QStringLiteral("5252"));
    }

    void missingValuesShowEmptyAndSortAsNaN() {
        Model model;
        model.setExperiments({experiment(3, "softmax", Outcome::Failed, Correctness::Crash, std::nullopt,
                                         std::nullopt, std::nullopt, std::nullopt)});
        for (int column : {Model::LatencyColumn, Model::SpeedupColumn, Model::ThroughputColumn, Model::BandwidthColumn,
                           Model::PctPeakColumn, Model::DurationColumn}) {
            QVERIFY2(text(model, 0, column).isEmpty(), qPrintable(QString::number(column)));
            const QVariant v = sortValue(model, 0, column);
            QCOMPARE(v.typeId(), int(QMetaType::Double));
            QVERIFY(std::isnan(v.toDouble()));
        }
        QCOMPARE(text(model, 0, Model::CorrectnessColumn), QStringLiteral("CRASH"));
        QCOMPARE(text(model, 0, Model::OutcomeColumn), QStringLiteral("failed"));
    }

    void sortRoleHoldsRawValues() {
        Model model;
        model.setExperiments({fullExperiment()});
        QCOMPARE(sortValue(model, 0, Model::NumberColumn).toDouble(), 12.0);
        QCOMPARE(sortValue(model, 0, Model::LatencyColumn).toDouble(), 40.213);
        QCOMPARE(sortValue(model, 0, Model::SpeedupColumn).toDouble(), 1.4567);
        QCOMPARE(sortValue(model, 0, Model::ThroughputColumn).toDouble(), 0.734);
        QCOMPARE(sortValue(model, 0, Model::BandwidthColumn).toDouble(), 3342.4);
        QCOMPARE(sortValue(model, 0, Model::PctPeakColumn).toDouble(), 78.26);
        QCOMPARE(sortValue(model, 0, Model::DurationColumn).toDouble(), 6.54);
        QCOMPARE(sortValue(model, 0, Model::OutcomeColumn).toDouble(), double(int(Outcome::Kept)));
        QCOMPARE(sortValue(model, 0, Model::KernelColumn).toString(), QStringLiteral("rmsnorm"));
        QCOMPARE(sortValue(model, 0, Model::StartedColumn).toString(), QStringLiteral("2026-11-29 08:15:02"));
    }

    void customRolesDescribeTheExperiment() {
        Model model;
        model.setExperiments({fullExperiment()});
        for (int column = 0; column < Model::ColumnCount; ++column) {
            const QModelIndex i = model.index(0, column);
            QCOMPARE(i.data(Model::NumberRole).toInt(), 12);
            QCOMPARE(i.data(Model::OutcomeRole).toInt(), int(Outcome::Kept));
            QCOMPARE(i.data(Model::KernelTypeRole).toString(), QStringLiteral("rmsnorm"));
        }
        const QString search = model.index(0, 0).data(Model::SearchTextRole).toString();
        QVERIFY(search.contains(QStringLiteral("vectorized")));
        QVERIFY(search.contains(QStringLiteral("llm:gpt-5")));
        QVERIFY(search.contains(QStringLiteral("rows=4096")));
    }

    void tooltipsCarryDescriptionAndDetail() {
        Model model;
        model.setExperiments({fullExperiment()});
        QCOMPARE(model.index(0, Model::DescriptionColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("vectorized 16-byte loads\nrows=4096 cols=8192 bf16"));
        QCOMPARE(model.index(0, Model::CorrectnessColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("rows=4096 cols=8192 bf16"));
        QCOMPARE(model.index(0, Model::KernelColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("kernels/rmsnorm.cu"));
    }

    void outcomeColoursMatchTheTimeline() {
        Model model;
        model.setExperiments({experiment(0, "a", Outcome::Baseline, Correctness::Pass, 1, 1, 1, 1),
                              experiment(1, "a", Outcome::Kept, Correctness::Pass, 1, 1, 1, 1),
                              experiment(2, "a", Outcome::Reverted, Correctness::Pass, 1, 1, 1, 1),
                              experiment(3, "a", Outcome::Failed, Correctness::Fail, {}, {}, {}, {})});
        for (int row = 0; row < 4; ++row) {
            const Outcome outcome = model.experimentAt(row).outcome;
            const QModelIndex i = model.index(row, Model::OutcomeColumn);
            QCOMPARE(i.data(Qt::ForegroundRole).value<QBrush>().color(), OutcomeStyle::color(outcome));
            const QIcon icon = i.data(Qt::DecorationRole).value<QIcon>();
            QVERIFY(!icon.isNull());
            QVERIFY(!model.index(row, Model::LatencyColumn).data(Qt::DecorationRole).isValid());
        }
        QCOMPARE(model.index(3, Model::CorrectnessColumn).data(Qt::ForegroundRole).value<QBrush>().color(),
                 OutcomeStyle::color(Outcome::Failed));
        QCOMPARE(model.index(1, Model::CorrectnessColumn).data(Qt::ForegroundRole).value<QBrush>().color(),
                 OutcomeStyle::color(Outcome::Kept));
        QVERIFY(OutcomeStyle::color(Outcome::Kept) != OutcomeStyle::color(Outcome::Reverted));
        QVERIFY(OutcomeStyle::color(Outcome::Kept) != OutcomeStyle::color(Outcome::Failed));
    }

    void headersNameEveryColumnWithUnits() {
        Model model;
        QStringList headers;
        for (int c = 0; c < Model::ColumnCount; ++c)
            headers << model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
        QCOMPARE(headers, (QStringList{QStringLiteral("#"), QStringLiteral("Kernel"), QStringLiteral("Outcome"),
                                       QStringLiteral("Correctness"), QStringLiteral("Latency (µs)"),
                                       QStringLiteral("Speedup vs PyTorch"), QStringLiteral("TFLOP/s"),
                                       QStringLiteral("GB/s"), QStringLiteral("% peak"), QStringLiteral("Bound"),
                                       QStringLiteral("Agent"), QStringLiteral("Started (UTC)"),
                                       QStringLiteral("Duration (s)"), QStringLiteral("Description")}));
        QVERIFY(!model.headerData(Model::ColumnCount, Qt::Horizontal).isValid());
    }

    void appendInsertsRowsAtTheEnd() {
        Model model;
        model.setExperiments(test::manyExperiments(5));
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.appendExperiments({experiment(5, "x", Outcome::Kept, Correctness::Pass, 1, 1, 1, 1),
                                 experiment(6, "y", Outcome::Kept, Correctness::Pass, 1, 1, 1, 1)});
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(inserted.at(0).at(1).toInt(), 5);
        QCOMPARE(inserted.at(0).at(2).toInt(), 6);
        QCOMPARE(model.rowCount(), 7);
        QCOMPARE(model.experimentAt(6).kernel_type, std::string("y"));
        QCOMPARE(text(model, 5, Model::KernelColumn), QStringLiteral("x"));
    }

    void rowOfExperimentFindsNumbersNotInRowOrder() {
        Model model;
        model.setExperiments({experiment(7, "a", Outcome::Kept, Correctness::Pass, 1, 1, 1, 1),
                              experiment(2, "a", Outcome::Kept, Correctness::Pass, 1, 1, 1, 1)});
        model.appendExperiments({experiment(40, "a", Outcome::Kept, Correctness::Pass, 1, 1, 1, 1)});
        QCOMPARE(model.rowOfExperiment(7), 0);
        QCOMPARE(model.rowOfExperiment(2), 1);
        QCOMPARE(model.rowOfExperiment(40), 2);
        QCOMPARE(model.rowOfExperiment(3), -1);
        model.setExperiments({});
        QCOMPARE(model.rowOfExperiment(7), -1);
    }

    // 10,000 rows: building, formatting every cell and looking every row up must stay far below a
    // frame budget per operation; the bound is loose (a shared CI machine) but catches quadratic work.
    void tenThousandRowsStayFast() {
        Model model;
        QElapsedTimer timer;
        timer.start();
        model.setExperiments(test::manyExperiments(10000));
        qint64 checksum = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            for (int column = 0; column < Model::ColumnCount; ++column)
                checksum += model.data(model.index(row, column)).toString().size();
            QCOMPARE(model.rowOfExperiment(row), row);
        }
        for (int i = 0; i < 1000; ++i)
            model.appendExperiments({experiment(10000 + i, "a", Outcome::Kept, Correctness::Pass, 1, 1, 1, 1)});
        const qint64 ms = timer.elapsed();
        qInfo("10,000 rows: set + 140,000 cells formatted + 1,000 single appends in %lld ms", ms);
        QVERIFY(checksum > 0);
        QCOMPARE(model.rowCount(), 11000);
        QVERIFY2(ms < 2000, qPrintable(QString::number(ms)));
    }
};

QTEST_MAIN(TestExperimentTableModel)
#include "test_experiment_table_model.moc"
