// Tests widgets/breakdown_model.cpp: the tree type -> group -> kernel of a breakdown, its columns
// (time per iteration, share, calls, launch configuration, headroom), numeric sorting through a
// proxy, recursive filtering, and the model's consistency (QAbstractItemModelTester).
#include "widgets/breakdown_model.h"

#include <QAbstractItemModelTester>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QtTest>

using namespace ak;
using namespace ak::profile;

namespace {

std::shared_ptr<Breakdown> breakdown()
{
    auto b = std::make_shared<Breakdown>();
    b->timeline.activity_sum_ns = 1'000'000;  // 1 ms of GPU time over 2 iterations
    b->timeline.iterations = 2;
    BreakdownType matmul;
    matmul.type_label = "matmul";
    matmul.total_ns = 600'000;
    matmul.per_iteration_us = 300;
    matmul.share = 0.6;
    matmul.launches = 40;
    BreakdownType other;
    other.type_label = "other";
    other.total_ns = 150'000;
    other.per_iteration_us = 75;
    other.share = 0.15;
    other.launches = 7;
    BreakdownType softmax;
    softmax.type_label = "softmax";
    softmax.total_ns = 250'000;
    softmax.per_iteration_us = 125;
    softmax.share = 0.25;
    softmax.launches = 12;
    b->types = {matmul, softmax, other};

    BreakdownGroup addmm;
    addmm.type_label = "matmul";
    addmm.op = "aten::addmm";
    addmm.input_shapes = "[8x768, 768x2304]";
    addmm.dtype = "bf16";
    addmm.module_path = "blocks.0.attn";
    addmm.kernel_names = {"nvjet_sm90_tst_128x256", "cublasLt_splitKreduce"};
    addmm.calls = 20;
    addmm.launches = 40;
    addmm.total_ns = 600'000;
    addmm.per_iteration_us = 300;
    addmm.share = 0.6;
    Headroom h;
    h.memory_bound = false;
    h.achieved_tflops = 420.5;
    h.pct_of_ceiling = 58.3;
    h.ceiling_source = "measured GEMM bf16";
    addmm.headroom = h;
    BreakdownGroup soft;
    soft.type_label = "softmax";
    soft.op = "aten::_softmax";
    soft.kernel_names = {"cunn_SoftMaxForward"};
    soft.calls = 12;
    soft.total_ns = 250'000;
    soft.per_iteration_us = 125;
    soft.share = 0.25;
    BreakdownGroup misc;
    misc.type_label = "other";
    misc.op = "elementwise_kernel";
    misc.kernel_names = {"elementwise_kernel"};
    misc.calls = 7;
    misc.total_ns = 150'000;
    misc.per_iteration_us = 75;
    misc.share = 0.15;
    b->groups = {addmm, soft, misc};

    KernelNameStats gemm{"nvjet_sm90_tst_128x256", {}};
    gemm.stats.count = 20;
    gemm.stats.total_ns = 500'000;
    gemm.stats.mean_ns = 25'000;
    KernelNameStats reduce{"cublasLt_splitKreduce", {}};
    reduce.stats.count = 20;
    reduce.stats.total_ns = 100'000;
    reduce.stats.mean_ns = 5'000;
    KernelNameStats sm{"cunn_SoftMaxForward", {}};
    sm.stats.count = 12;
    sm.stats.total_ns = 250'000;
    sm.stats.mean_ns = 20'833;
    KernelNameStats ew{"elementwise_kernel", {}};
    ew.stats.count = 7;
    ew.stats.total_ns = 150'000;
    ew.stats.mean_ns = 21'428;
    b->kernels = {gemm, sm, ew, reduce};
    return b;
}

QString num(double v, int decimals) { return QLocale().toString(v, 'f', decimals); }

}  // namespace

class TestBreakdownModel : public QObject {
    Q_OBJECT

private slots:
    void theTreeIsConsistent()
    {
        BreakdownModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setBreakdown(breakdown());
        model.setBreakdown(nullptr);
        model.setBreakdown(breakdown());
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setRecursiveFilteringEnabled(true);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setFilterFixedString(QStringLiteral("SoftMax"));
        proxy.setFilterFixedString(QString());
    }

    void typesGroupsAndKernelsWithTheirShares()
    {
        BreakdownModel model;
        QHash<QString, KernelLaunchInfo> launches;
        KernelLaunchInfo gemm;
        gemm.grid = {132, 1, 1};
        gemm.block = {384, 1, 1};
        gemm.registers_per_thread = 168;
        gemm.shared_memory_bytes = 213'000;
        launches.insert(QStringLiteral("nvjet_sm90_tst_128x256"), gemm);
        model.setBreakdown(breakdown(), launches);
        QCOMPARE(model.rowCount(), 3);
        const QModelIndex matmul = model.index(0, 0);
        QCOMPARE(matmul.data().toString(), QStringLiteral("matmul"));
        QCOMPARE(model.index(0, BreakdownModel::ShareColumn).data().toString(), num(60.0, 1));
        QCOMPARE(model.index(1, BreakdownModel::ShareColumn).data().toString(), num(25.0, 1));
        QCOMPARE(model.index(2, BreakdownModel::ShareColumn).data().toString(), num(15.0, 1));
        QCOMPARE(model.index(0, BreakdownModel::TimeColumn).data().toString(), num(300.0, 1));
        QCOMPARE(model.rowCount(matmul), 1);
        const QModelIndex addmm = model.index(0, 0, matmul);
        QCOMPARE(addmm.data().toString(), QStringLiteral("aten::addmm [8x768, 768x2304] bf16"));
        QCOMPARE(model.index(0, BreakdownModel::CallsColumn, matmul).data().toString(), QStringLiteral("20"));
        QCOMPARE(model.index(0, BreakdownModel::MeanColumn, matmul).data().toString(), num(30.0, 2));  // 600 µs / 20
        QCOMPARE(model.index(0, BreakdownModel::AchievedColumn, matmul).data().toString(),
                 BreakdownModel::tr("%1 TFLOP/s").arg(num(420.5, 1)));
        QCOMPARE(model.index(0, BreakdownModel::CeilingColumn, matmul).data().toString(), num(58.3, 1));
        QCOMPARE(model.index(0, BreakdownModel::ModuleColumn, matmul).data().toString(), QStringLiteral("blocks.0.attn"));
        QCOMPARE(model.rowCount(addmm), 2);
        QCOMPARE(model.index(0, 0, addmm).data().toString(), QStringLiteral("nvjet_sm90_tst_128x256"));
        // Kernel rows: the name's statistics (250 µs per iteration, 50 % of GPU time) and its launch.
        QCOMPARE(model.index(0, BreakdownModel::TimeColumn, addmm).data().toString(), num(250.0, 1));
        QCOMPARE(model.index(0, BreakdownModel::ShareColumn, addmm).data().toString(), num(50.0, 1));
        QCOMPARE(model.index(0, BreakdownModel::LaunchColumn, addmm).data().toString(), QStringLiteral("132 / 384"));
        QCOMPARE(model.index(0, BreakdownModel::RegistersColumn, addmm).data().toString(), QStringLiteral("168"));
        QCOMPARE(model.index(1, BreakdownModel::LaunchColumn, addmm).data().toString(), QString());  // unknown
        QCOMPARE(model.index(0, 0, addmm).data(BreakdownModel::TypeLabelRole).toString(), QStringLiteral("matmul"));
        QCOMPARE(model.typeIndex(QStringLiteral("softmax")).row(), 1);
    }

    void sortsNumericallyAndFiltersKeepingParents()
    {
        BreakdownModel model;
        model.setBreakdown(breakdown());
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(BreakdownModel::SortRole);
        proxy.setRecursiveFilteringEnabled(true);
        proxy.setFilterCaseSensitivity(Qt::CaseInsensitive);
        proxy.sort(BreakdownModel::ShareColumn, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("other"));
        QCOMPARE(proxy.index(2, 0).data().toString(), QStringLiteral("matmul"));
        proxy.setFilterFixedString(QStringLiteral("splitk"));
        QCOMPARE(proxy.rowCount(), 1);
        const QModelIndex type = proxy.index(0, 0);
        QCOMPARE(type.data().toString(), QStringLiteral("matmul"));
        const QModelIndex group = proxy.index(0, 0, type);
        QCOMPARE(proxy.rowCount(group), 1);
        QCOMPARE(proxy.index(0, 0, group).data().toString(), QStringLiteral("cublasLt_splitKreduce"));
    }
};

QTEST_MAIN(TestBreakdownModel)
#include "test_breakdown_model.moc"
