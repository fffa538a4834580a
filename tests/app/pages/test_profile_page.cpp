// Tests app/pages/profile_page.cpp and app/profile_loader.cpp on a small profile written through
// core's profile.json writer and read back the way the workbench opens one: the tree shows the
// breakdown's shares, the summary its time line, and every what-if control changes the projection
// to what core/analysis/amdahl computes.
#include "analysis/amdahl.h"
#include "app/pages/profile_page.h"
#include "app/profile_loader.h"
#include "experiment_fixtures.h"
#include "profile/profile_json.h"
#include "widgets/breakdown_model.h"
#include "session/verify_report.h"
#include "app/session_snapshot.h"

#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <cmath>

using namespace ak;

namespace {

const char* const kGemm = "nvjet_sm90_tst_256x128_64x4_2x1_v_bz_coopA_TNT";
const char* const kSoftmax = "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)";
const char* const kElementwise = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)";

// Two iterations; per iteration: addmm 300 µs (60 %), softmax 125 µs (25 %), add 75 µs (15 %).
profile::Profile smallProfile()
{
    profile::Profile p;
    p.origin.model = "test";
    p.origin.gpu_name = "NVIDIA H200";
    p.origin.measured_iterations = 2;
    p.origin.dtype = "fp32";
    std::uint64_t t = 1'000'000;
    std::uint64_t id = 1;
    for (int it = 0; it < 2; ++it) {
        profile::IterationRecord rec;
        rec.index = it;
        rec.gpu_start_ns = t;
        const std::pair<const char*, std::pair<const char*, std::uint64_t>> launches[] = {
            {"aten::addmm", {kGemm, 300'000}}, {"aten::_softmax", {kSoftmax, 125'000}}, {"aten::add", {kElementwise, 75'000}}};
        for (const auto& [op, kernel] : launches) {
            profile::OpCall call;
            call.id = id;
            call.name = op;
            call.inputs = {{{64, 1024}, {1024, 1}, "fp32"}, {{1024, 1024}, {1024, 1}, "fp32"}};
            call.stack = {op};
            call.module_path = "blocks.0";
            call.iteration = it;
            p.ops.push_back(call);
            profile::KernelRecord k;
            k.name = kernel.first;
            k.start_ns = t;
            k.end_ns = t + kernel.second;
            t = k.end_ns + 10'000;  // 10 µs idle after every kernel
            k.grid = {132, 1, 1};
            k.block = {256, 1, 1};
            k.registers_per_thread = 40;
            k.static_smem_bytes = 1024;
            k.dynamic_smem_bytes = 512;
            k.correlation_id = id;
            k.op_id = id;
            k.iteration = it;
            p.kernels.push_back(k);
            ++id;
        }
        rec.gpu_end_ns = t;
        rec.wall_ms = double(t - rec.gpu_start_ns) / 1e6;
        p.iterations.push_back(rec);
    }
    return p;
}

QString num(double v, int decimals) { return QLocale().toString(v, 'f', decimals); }

}  // namespace

class TestProfilePage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("profile.json"));
        profile::write_profile_json(smallProfile(), m_path.toStdString());
    }

    void theLoaderReadsOffTheGuiThreadAndReportsBadFiles()
    {
        ProfileLoader loader;
        QSignalSpy loaded(&loader, &ProfileLoader::loaded);
        QSignalSpy failed(&loader, &ProfileLoader::failed);
        loader.open(m_path);
        QVERIFY(loader.isBusy());
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
        QVERIFY(!loader.isBusy());
        const auto profile = loaded.first().first().value<std::shared_ptr<const ProfileDocument>>();
        QVERIFY(profile && profile->breakdown);
        QCOMPARE(profile->data->kernels.size(), std::size_t(6));
        // A broken file: an error naming the file, nothing loaded.
        const QString bad = m_dir.filePath(QStringLiteral("bad.json"));
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"format_version\": 1, \"kernels\": 3}");
        file.close();
        loader.open(bad);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
        QVERIFY(failed.first().at(1).toString().contains(QStringLiteral("bad.json")));
        QCOMPARE(loaded.count(), 1);
    }

    void theTreeShowsTheBreakdownsShares()
    {
        ProfilePage page;
        const ProfilePtr profile = analyseProfile(m_path);
        page.setProfile(profile);
        const profile::Breakdown& b = *profile->breakdown;
        BreakdownModel* model = page.breakdownModel();
        QCOMPARE(model->rowCount(), int(b.types.size()));
        // The shares are the core's, and they are the fixture's 60 / 25 / 15 %.
        const std::pair<QString, double> expected[] = {
            {QStringLiteral("matmul"), 0.60}, {QStringLiteral("softmax"), 0.25}, {QStringLiteral("other"), 0.15}};
        for (const auto& [type, share] : expected) {
            const QModelIndex index = model->typeIndex(type);
            QVERIFY2(index.isValid(), qPrintable(type));
            const QModelIndex shareIndex = index.siblingAtColumn(BreakdownModel::ShareColumn);
            QVERIFY(std::abs(shareIndex.data(BreakdownModel::SortRole).toDouble() - share) < 1e-9);
            QCOMPARE(shareIndex.data().toString(), num(share * 100.0, 1));
            QCOMPARE(index.siblingAtColumn(BreakdownModel::TimeColumn).data().toString(),
                     num(b.types[std::size_t(index.row())].per_iteration_us, 1));
        }
        // Kernel rows carry the launch configuration.
        const QModelIndex matmul = model->typeIndex(QStringLiteral("matmul"));
        const QModelIndex kernel = model->index(0, 0, model->index(0, 0, matmul));
        QCOMPARE(kernel.data().toString(), QString::fromLatin1(kGemm));
        QCOMPARE(kernel.siblingAtColumn(BreakdownModel::SharedMemoryColumn).data().toString(), QLocale().toString(1536));
        // Sorted by time, largest first; the filter keeps matches' parents.
        QCOMPARE(page.proxyModel()->index(0, 0).data().toString(), QStringLiteral("matmul"));
        page.filterEdit()->setText(QStringLiteral("softmax"));
        QCOMPARE(page.proxyModel()->rowCount(), 1);
        // The summary line: busy, wall, kernels, attribution.
        const QString summary = page.summaryLabel()->text();
        QVERIFY2(summary.contains(QLocale().toString(qulonglong(6))), qPrintable(summary));
        QVERIFY2(summary.contains(num(100.0 * b.attributed_share, 1)), qPrintable(summary));
        QVERIFY2(summary.contains(num(double(b.timeline.busy_ns) / 1e6 / 2, 2)), qPrintable(summary));
    }

    void everyWhatIfControlChangesTheProjectionToTheCoresValue()
    {
        ProfilePage page;
        const ProfilePtr profile = analyseProfile(m_path);
        page.setProfile(profile);
        std::vector<double> fractions;
        std::vector<QString> labels;
        for (const auto& t : profile->breakdown->types) {
            fractions.push_back(t.share);
            labels.push_back(QString::fromStdString(t.type_label));
        }
        const auto expected = [&](const std::map<QString, double>& chosen) {
            std::vector<double> speedups;
            for (const QString& l : labels)
                speedups.push_back(chosen.count(l) ? chosen.at(l) : 1.0);
            return amdahl_speedup(fractions, speedups);
        };
        QCOMPARE(page.projectedSpeedup(), 1.0);
        page.setWhatIfType(QStringLiteral("matmul"));
        QCOMPARE(page.whatIfType(), QStringLiteral("matmul"));
        // The slider (0.1x steps): matmul 2x.
        page.speedupSlider()->setValue(20);
        QCOMPARE(page.speedupOf(QStringLiteral("matmul")), 2.0);
        QCOMPARE(page.projectedSpeedup(), expected({{QStringLiteral("matmul"), 2.0}}));
        QVERIFY(std::abs(page.projectedSpeedup() - 1.0 / 0.7) < 1e-9);  // 1 / (0.4 + 0.6 / 2)
        QCOMPARE(page.speedupSpin()->value(), 2.0);
        QVERIFY(page.projectionLabel()->text().contains(num(page.projectedSpeedup(), 3)));
        // The spin box: 2.5x.
        page.speedupSpin()->setValue(2.5);
        QCOMPARE(page.speedupSlider()->value(), 25);
        QCOMPARE(page.projectedSpeedup(), expected({{QStringLiteral("matmul"), 2.5}}));
        // A preset button on another type: both apply together.
        page.setWhatIfType(QStringLiteral("softmax"));
        QTest::mouseClick(page.presetButton(5.0), Qt::LeftButton);
        QCOMPARE(page.projectedSpeedup(), expected({{QStringLiteral("matmul"), 2.5}, {QStringLiteral("softmax"), 5.0}}));
        QVERIFY(std::abs(page.whatIfLimit() - amdahl_limit({0.25})) < 1e-9);
        // "Measured": the session's best speed-up of that type.
        QVERIFY(!page.measuredButton()->isEnabled());
        std::vector<Experiment> experiments = {
            test::experiment(0, "softmax", Outcome::Baseline, Correctness::Pass, 1.0, 0.3, 60, 1500),
            test::experiment(1, "softmax", Outcome::Kept, Correctness::Pass, 1.8, 0.5, 33, 2700),
            test::experiment(2, "softmax", Outcome::Reverted, Correctness::Pass, 2.4, 0.6, 25, 3000),  // not kept
        };
        auto session = std::make_shared<SessionSnapshot>();
        session->experiments = experiments;
        page.setSession(session, experiments);
        QCOMPARE(page.measuredSpeedup(QStringLiteral("softmax")), std::optional<double>(1.8));
        QVERIFY(page.measuredButton()->isEnabled());
        QTest::mouseClick(page.measuredButton(), Qt::LeftButton);
        QCOMPARE(page.speedupOf(QStringLiteral("softmax")), 1.8);
        QCOMPARE(page.projectedSpeedup(), expected({{QStringLiteral("matmul"), 2.5}, {QStringLiteral("softmax"), 1.8}}));
        // The tree's current row picks the what-if type.
        const QModelIndex other = page.proxyModel()->mapFromSource(page.breakdownModel()->typeIndex(QStringLiteral("other")));
        page.treeView()->setCurrentIndex(other);
        QCOMPARE(page.whatIfType(), QStringLiteral("other"));
    }

    // The bundled demo profile (GPT-2 8x1024 fp16 on an H200): every type's share on the page is the one
    // core computes, and the shares add up to the classified and other time.
    void theFixtureProfilesSharesAreShown()
    {
        ProfilePage page;
        const ProfilePtr profile = analyseProfile(QStringLiteral(AK_PROFILE_FIXTURE));
        page.setProfile(profile);
        const profile::Breakdown core = profile::compute_breakdown(*profile->data);
        QCOMPARE(page.breakdownModel()->rowCount(), int(core.types.size()));
        QVERIFY(core.types.size() >= 3);
        double sum = 0;
        for (const auto& t : core.types) {
            const QModelIndex index = page.breakdownModel()->typeIndex(QString::fromStdString(t.type_label));
            QVERIFY(index.isValid());
            QCOMPARE(index.siblingAtColumn(BreakdownModel::ShareColumn).data().toString(), num(t.share * 100.0, 1));
            QCOMPARE(page.breakdownModel()->rowCount(index), int(profile::groups_of(core, t.type).size()));
            sum += t.share;
        }
        QVERIFY(sum <= 1.0 + 1e-9);
        QVERIFY(page.summaryLabel()->text().contains(QLocale().toString(qulonglong(core.timeline.kernels))));
    }

    // The file label names the file; the absolute path is only in its tooltip.
    void theProfilesFileNameIsShownAndItsPathInTheTooltip()
    {
        ProfilePage page;
        page.setProfile(analyseProfile(QStringLiteral(AK_PROFILE_FIXTURE)));
        const QLabel* label = page.findChild<QLabel*>(QStringLiteral("profileFileLabel"));
        QVERIFY(label);
        const QFileInfo file(QStringLiteral(AK_PROFILE_FIXTURE));
        QCOMPARE(label->text(), ProfilePage::tr("Profile: %1").arg(QStringLiteral("demo-profile.json")));
        QVERIFY2(!label->text().contains(QLatin1Char('/')), qPrintable(label->text()));
        QCOMPARE(label->toolTip(), QDir::toNativeSeparators(file.absoluteFilePath()));
        page.setProfile(nullptr);
        QVERIFY(label->toolTip().isEmpty());
    }

    void noProfileSaysHowToOpenOne()
    {
        ProfilePage page;
        QCOMPARE(page.breakdownModel()->rowCount(), 0);
        QCOMPARE(page.projectedSpeedup(), 1.0);
        QSignalSpy open(&page, &ProfilePage::openProfileRequested);
        const QList<QPushButton*> buttons = page.findChildren<QPushButton*>();
        for (QPushButton* b : buttons) {
            if (b->text() == ProfilePage::tr("Open Profile…"))
                QTest::mouseClick(b, Qt::LeftButton);
        }
        QCOMPARE(open.count(), 1);
    }

    // "Optimize Selected…" asks for the nine kernel types selected in the tree (the what-if type when
    // nothing is selected); "other" is never one of them.
    void optimizeSelectedAsksForTheSelectedKernelTypes()
    {
        ProfilePage page;
        QVERIFY(!page.optimizeButton()->isEnabled());  // no profile
        page.setProfile(analyseProfile(m_path));
        QSignalSpy asked(&page, &ProfilePage::optimizeRequested);
        auto select = [&page](const QString& type) {
            const QModelIndex index = page.proxyModel()->mapFromSource(page.breakdownModel()->typeIndex(type));
            QVERIFY(index.isValid());
            page.treeView()->selectionModel()->select(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
        };
        page.treeView()->clearSelection();
        page.setWhatIfType(QStringLiteral("softmax"));
        QCOMPARE(page.selectedKernelTypes(), QStringList{QStringLiteral("softmax")});
        select(QStringLiteral("matmul"));
        select(QStringLiteral("other"));
        QCOMPARE(page.selectedKernelTypes(), QStringList{QStringLiteral("matmul")});
        QVERIFY(page.optimizeButton()->isEnabled());
        QTest::mouseClick(page.optimizeButton(), Qt::LeftButton);
        QCOMPARE(asked.count(), 1);
        QCOMPARE(asked.first().first().toStringList(), QStringList{QStringLiteral("matmul")});
        // Only "other" selected and as the what-if type: nothing to optimize.
        page.treeView()->clearSelection();
        page.setWhatIfType(QStringLiteral("other"));
        select(QStringLiteral("other"));
        QVERIFY(page.selectedKernelTypes().isEmpty());
        QVERIFY(!page.optimizeButton()->isEnabled());
    }

    // A session made from a profile offers it when its file exists (as given, or beside the session).
    void theSessionsProfileIsOfferedWhenItsFileExists()
    {
        ProfilePage page;
        auto snapshot = std::make_shared<SessionSnapshot>();
        snapshot->dir = m_dir.filePath(QStringLiteral("sessions/s1"));
        snapshot->info.profile = ProfileOrigin{};
        snapshot->info.profile->file = "missing-profile.json";
        page.setSession(snapshot, {});
        QVERIFY(page.originButton()->isHidden());
        QVERIFY(page.originProfileFile().isEmpty());

        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("sessions")));
        QVERIFY(QFile::copy(m_path, m_dir.filePath(QStringLiteral("sessions/beside.json"))));
        snapshot->info.profile->file = "beside.json";  // relative to the session folder's parent
        page.setSession(snapshot, {});
        QCOMPARE(page.originProfileFile(), QFileInfo(m_dir.filePath(QStringLiteral("sessions/beside.json"))).absoluteFilePath());
        QVERIFY(!page.originButton()->isHidden());
        QSignalSpy open(&page, &ProfilePage::openProfileFileRequested);
        QTest::mouseClick(page.originButton(), Qt::LeftButton);
        QCOMPARE(open.count(), 1);
        QCOMPARE(open.first().first().toString(), page.originProfileFile());
        // Once it is the open profile the button says so and is disabled.
        page.setProfile(analyseProfile(page.originProfileFile()));
        QVERIFY(!page.originButton()->isEnabled());
    }

    // A session that carries its profile (copied in from the machine it was made on, as the bundled model
    // session does): the file of that name inside the session folder, when the path given is gone.
    void aProfileInsideTheSessionFolderIsTheSessionsProfile()
    {
        ProfilePage page;
        auto snapshot = std::make_shared<SessionSnapshot>();
        snapshot->dir = m_dir.filePath(QStringLiteral("carried"));
        snapshot->info.profile = ProfileOrigin{};
        snapshot->info.profile->file = "/tmp/ak-batch/nowhere/profile.json";  // where it was made
        page.setSession(snapshot, {});
        QVERIFY(page.originProfileFile().isEmpty());
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("carried")));
        QVERIFY(QFile::copy(m_path, m_dir.filePath(QStringLiteral("carried/profile.json"))));
        page.setSession(snapshot, {});
        QCOMPARE(page.originProfileFile(), QFileInfo(m_dir.filePath(QStringLiteral("carried/profile.json"))).absoluteFilePath());
        QVERIFY(!page.originButton()->isHidden());
    }

    // verify.json: the measured end-to-end speed-up beside the projection and verify's prediction.
    void theMeasuredEndToEndSpeedupIsShownBesideTheProjection()
    {
        ProfilePage page;
        page.setProfile(analyseProfile(m_path));
        page.setWhatIfType(QStringLiteral("matmul"));
        page.setSpeedup(QStringLiteral("matmul"), 1.5);
        QVERIFY(page.verifyLabel()->isHidden());
        auto snapshot = std::make_shared<SessionSnapshot>();
        snapshot->dir = QFileInfo(QStringLiteral(AK_VERIFY_FIXTURE)).absolutePath();
        snapshot->verify = std::make_shared<const VerifyReport>(read_verify_report(snapshot->dir.toStdString()));
        page.setSession(snapshot, {});
        QVERIFY(!page.verifyLabel()->isHidden());
        QVERIFY(page.verifiedSpeedup().has_value());
        QCOMPARE(qRound(*page.verifiedSpeedup() * 1000), 1120);  // 33.6 ms / 30.0 ms
        const QString text = page.verifyLabel()->text();
        QVERIFY2(text.contains(num(1.12, 3)), qPrintable(text));                 // measured
        QVERIFY2(text.contains(num(1.2, 3)), qPrintable(text));                  // verify's prediction
        QVERIFY2(text.contains(num(page.projectedSpeedup(), 3)), qPrintable(text));  // this page's projection
        // No verify.json: nothing shown.
        page.setSession(std::make_shared<SessionSnapshot>(), {});
        QVERIFY(page.verifyLabel()->isHidden());
    }

private:
    QTemporaryDir m_dir;
    QString m_path;
};

QTEST_MAIN(TestProfilePage)
#include "test_profile_page.moc"
