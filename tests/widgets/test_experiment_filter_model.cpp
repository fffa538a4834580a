// Tests widgets/experiment_filter_model.cpp: free-text, kernel and outcome filters (alone and
// combined, also while rows are appended), sorting by raw values with missing values last.
#include "experiment_fixtures.h"
#include "widgets/experiment_filter_model.h"
#include "widgets/experiment_table_model.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QtTest>

using namespace ak;
using ak::test::experiment;
using Table = ExperimentTableModel;

class TestExperimentFilterModel : public QObject {
    Q_OBJECT

    // 0 baseline rmsnorm, 1 kept rmsnorm, 2 reverted softmax, 3 failed rmsnorm, 4 kept softmax, 5 reverted matmul
    static std::vector<Experiment> sample() {
        std::vector<Experiment> v{
            experiment(0, "rmsnorm", Outcome::Baseline, Correctness::Pass, 1.0, 0.5, 50.0, 2000),
            experiment(1, "rmsnorm", Outcome::Kept, Correctness::Pass, 1.3, 0.6, 38.5, 2600),
            experiment(2, "softmax", Outcome::Reverted, Correctness::Pass, 0.9, 0.2, 70.0, 1500),
            experiment(3, "rmsnorm", Outcome::Failed, Correctness::Fail, {}, {}, {}, {}),
            experiment(4, "softmax", Outcome::Kept, Correctness::Pass, 1.8, 0.4, 21.0, 3100),
            experiment(5, "matmul", Outcome::Reverted, Correctness::Pass, 0.7, 300.0, {}, {}),
        };
        v[1].description = "Vectorized loads with float4";
        v[2].description = "warp shuffle reduction";
        v[3].description = "tile 128";
        v[3].detail = "stage 2 shape 4096x8192 bf16: max abs error 0.5";
        v[4].agent = "llm:Qwen3-Coder";
        v[5].description = "tile 64 with cp.async";
        return v;
    }

    static QList<int> numbers(const ExperimentFilterModel& proxy) {
        QList<int> out;
        for (int r = 0; r < proxy.rowCount(); ++r) out << proxy.experimentNumberAt(r);
        return out;
    }

    Table* m_table = nullptr;
    ExperimentFilterModel* m_proxy = nullptr;
    QAbstractItemModelTester* m_tester = nullptr;

private slots:
    void init() {
        m_table = new Table(this);
        m_table->setExperiments(sample());
        m_proxy = new ExperimentFilterModel(this);
        m_proxy->setSourceModel(m_table);
        m_tester = new QAbstractItemModelTester(m_proxy, QAbstractItemModelTester::FailureReportingMode::QtTest, this);
    }
    void cleanup() {
        delete m_tester;
        delete m_proxy;
        delete m_table;
    }

    void showsEverythingByDefault() {
        QCOMPARE(numbers(*m_proxy), (QList<int>{0, 1, 2, 3, 4, 5}));
        for (Outcome o : {Outcome::Baseline, Outcome::Kept, Outcome::Reverted, Outcome::Failed})
            QVERIFY(m_proxy->isOutcomeVisible(o));
    }

    void textFilterIsCaseInsensitiveOverDescriptionKernelAgentAndDetail() {
        m_proxy->setFilterText(QStringLiteral("VECTORIZED"));
        QCOMPARE(numbers(*m_proxy), (QList<int>{1}));
        m_proxy->setFilterText(QStringLiteral("softMAX"));  // kernel type
        QCOMPARE(numbers(*m_proxy), (QList<int>{2, 4}));
        m_proxy->setFilterText(QStringLiteral("qwen3"));  // agent
        QCOMPARE(numbers(*m_proxy), (QList<int>{4}));
        m_proxy->setFilterText(QStringLiteral("max abs error"));  // detail, every word must match
        QCOMPARE(numbers(*m_proxy), (QList<int>{3}));
        m_proxy->setFilterText(QStringLiteral("tile async"));  // words anywhere, all required
        QCOMPARE(numbers(*m_proxy), (QList<int>{5}));
        m_proxy->setFilterText(QStringLiteral("no such words"));
        QCOMPARE(m_proxy->rowCount(), 0);
        m_proxy->setFilterText(QStringLiteral("   "));
        QCOMPARE(m_proxy->rowCount(), 6);
    }

    void kernelFilterMatchesTheKernelTypeExactly() {
        m_proxy->setKernelType(QStringLiteral("rmsnorm"));
        QCOMPARE(numbers(*m_proxy), (QList<int>{0, 1, 3}));
        m_proxy->setKernelType(QStringLiteral("rms"));
        QCOMPARE(m_proxy->rowCount(), 0);
        m_proxy->setKernelType(QString());
        QCOMPARE(m_proxy->rowCount(), 6);
    }

    void outcomeFilterShowsOnlyTheChosenOutcomes() {
        m_proxy->setVisibleOutcomes({Outcome::Kept, Outcome::Baseline});
        QCOMPARE(numbers(*m_proxy), (QList<int>{0, 1, 4}));
        m_proxy->setOutcomeVisible(Outcome::Failed, true);
        QCOMPARE(numbers(*m_proxy), (QList<int>{0, 1, 3, 4}));
        m_proxy->setOutcomeVisible(Outcome::Kept, false);
        QCOMPARE(numbers(*m_proxy), (QList<int>{0, 3}));
        QVERIFY(!m_proxy->isOutcomeVisible(Outcome::Kept));
        m_proxy->setVisibleOutcomes({});
        QCOMPARE(m_proxy->rowCount(), 0);
        m_proxy->showAllOutcomes();
        QCOMPARE(m_proxy->rowCount(), 6);
    }

    void filtersCombine() {
        m_proxy->setKernelType(QStringLiteral("softmax"));
        m_proxy->setVisibleOutcomes({Outcome::Kept});
        QCOMPARE(numbers(*m_proxy), (QList<int>{4}));
        m_proxy->setFilterText(QStringLiteral("warp"));
        QCOMPARE(m_proxy->rowCount(), 0);
        m_proxy->setOutcomeVisible(Outcome::Reverted, true);
        QCOMPARE(numbers(*m_proxy), (QList<int>{2}));
    }

    void appendedRowsPassThroughTheActiveFilter() {
        m_proxy->setKernelType(QStringLiteral("softmax"));
        m_proxy->sort(Table::LatencyColumn, Qt::AscendingOrder);
        m_table->appendExperiments({experiment(6, "softmax", Outcome::Kept, Correctness::Pass, 2.5, 0.5, 15.0, 4000),
                                    experiment(7, "rmsnorm", Outcome::Kept, Correctness::Pass, 2.0, 0.7, 30.0, 3000)});
        QCOMPARE(numbers(*m_proxy), (QList<int>{6, 4, 2}));
        QCOMPARE(m_proxy->proxyRowOfExperiment(6), 0);
        QCOMPARE(m_proxy->proxyRowOfExperiment(7), -1);  // filtered out
        QCOMPARE(m_proxy->proxyRowOfExperiment(99), -1);  // unknown
    }

    void sortsNumbersNumericallyWithMissingLastInBothOrders() {
        m_proxy->sort(Table::LatencyColumn, Qt::AscendingOrder);
        // latencies: 0:50 1:38.5 2:70 3:- 4:21 5:-
        QCOMPARE(numbers(*m_proxy), (QList<int>{4, 1, 0, 2, 3, 5}));
        m_proxy->sort(Table::LatencyColumn, Qt::DescendingOrder);
        const QList<int> descending = numbers(*m_proxy);
        QCOMPARE(descending.mid(0, 4), (QList<int>{2, 0, 1, 4}));
        QCOMPARE(QSet<int>(descending.begin() + 4, descending.end()), (QSet<int>{3, 5}));
        m_proxy->sort(Table::ThroughputColumn, Qt::DescendingOrder);  // 300 must beat 0.6 (not text order)
        QCOMPARE(numbers(*m_proxy).first(), 5);
        QCOMPARE(numbers(*m_proxy).last(), 3);
    }

    void sortsTextCaseInsensitively() {
        m_table->appendExperiments({experiment(6, "Conv", Outcome::Kept, Correctness::Pass, 1, 1, 1, 1)});
        m_proxy->sort(Table::KernelColumn, Qt::AscendingOrder);
        QList<QString> kernels;
        for (int r = 0; r < m_proxy->rowCount(); ++r)
            kernels << m_proxy->index(r, Table::KernelColumn).data().toString();
        QCOMPARE(kernels.first(), QStringLiteral("Conv"));
        QCOMPARE(kernels.mid(1, 1), (QList<QString>{QStringLiteral("matmul")}));
        QCOMPARE(kernels.last(), QStringLiteral("softmax"));
    }

    void survivesResetWhileSortedAndFiltered() {
        m_proxy->sort(Table::SpeedupColumn, Qt::DescendingOrder);
        m_proxy->setFilterText(QStringLiteral("experiment"));
        m_table->setExperiments(test::manyExperiments(40));
        QCOMPARE(m_proxy->rowCount(), 40);
        const double first = m_proxy->index(0, Table::SpeedupColumn).data(Table::SortRole).toDouble();
        const double second = m_proxy->index(1, Table::SpeedupColumn).data(Table::SortRole).toDouble();
        QVERIFY(first >= second);
    }

    // Loose bound (shared CI machine) that still catches per-row work that is not constant.
    void tenThousandRowsSortAndFilterQuickly() {
        delete m_tester;  // the tester re-checks every row on each change; time the proxy alone
        m_tester = nullptr;
        m_table->setExperiments(test::manyExperiments(10000));
        int expected = 0;  // descriptions are "experiment <n>"
        for (int n = 0; n < 10000; ++n) expected += QString::number(n).contains(QStringLiteral("99")) ? 1 : 0;
        QElapsedTimer timer;
        timer.start();
        m_proxy->sort(Table::LatencyColumn, Qt::AscendingOrder);
        m_proxy->setFilterText(QStringLiteral("EXPERIMENT 99"));  // both words, anywhere
        const int matches = m_proxy->rowCount();
        m_proxy->setKernelType(QStringLiteral("softmax"));
        m_proxy->setFilterText(QString());
        const qint64 ms = timer.elapsed();
        qInfo("10,000 rows: sort + 3 filter changes in %lld ms", ms);
        QCOMPARE(matches, expected);
        QCOMPARE(m_proxy->rowCount(), 5000);
        QVERIFY2(ms < 1500, qPrintable(QString::number(ms)));
    }
};

QTEST_MAIN(TestExperimentFilterModel)
#include "test_experiment_filter_model.moc"
