// MainWindow on a real session recorded through ak::Session (see sample_session.h).
#include "app/main_window.h"
#include "app/session_watcher.h"
#include "sample_session.h"
#include "widgets/details_panel.h"
#include "widgets/diff_view.h"
#include "widgets/experiment_filter_model.h"
#include "widgets/experiment_table_model.h"
#include "widgets/source_view.h"
#include "widgets/timeline_plot.h"

#include "app/pages/compare_page.h"
#include "app/pages/experiments_page.h"
#include "app/pages/profile_page.h"
#include "app/pages/roofline_page.h"
#include "app/profile_document.h"
#include "widgets/roofline_plot.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPushButton>
#include <QThread>
#include <QTreeView>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <memory>

using namespace ak;

namespace {

struct CapturedMessage {
    QString title;
    QString text;
};

std::unique_ptr<MainWindow> makeWindow(QList<CapturedMessage>* messages)
{
    MainWindow::Options options;
    options.useSettings = false;
    auto window = std::make_unique<MainWindow>(options);
    window->setMessageHandler([messages](const QString& title, const QString& text) {
        messages->append({title, text});
    });
    window->resize(1400, 900);
    window->show();
    return window;
}

bool openAndWait(MainWindow& window, const QString& dir)
{
    QSignalSpy loaded(&window, &MainWindow::sessionLoaded);
    QSignalSpy failed(&window, &MainWindow::sessionFailed);
    window.openSession(dir);
    return QTest::qWaitFor([&] { return !loaded.isEmpty() || !failed.isEmpty(); }, 15000) && !loaded.isEmpty() &&
           QTest::qWaitFor([&] { return window.isSettled(); }, 15000);
}

QString failureOf(MainWindow& window, const QString& dir)
{
    QSignalSpy failed(&window, &MainWindow::sessionFailed);
    window.openSession(dir);
    if (!QTest::qWaitFor([&] { return !failed.isEmpty(); }, 15000))
        return {};
    return failed.first().first().toString();
}

// Centre of the table cell showing experiment `number`.
QPoint cellCenter(MainWindow& window, int number, int column = ExperimentTableModel::DescriptionColumn)
{
    const int row = window.filterModel()->proxyRowOfExperiment(number);
    const QModelIndex index = window.filterModel()->index(row, column);
    window.tableView()->scrollTo(index);
    return window.tableView()->visualRect(index).center();
}

bool anyLineStartsWith(const QStringList& lines, QChar sign, const QString& containing)
{
    for (const QString& line : lines) {
        if (line.startsWith(sign) && line.contains(containing))
            return true;
    }
    return false;
}

}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();

    void opening_a_session_fills_table_title_and_counts();
    void opening_selects_the_best_kept_experiment();
    void clicking_a_table_row_selects_the_plot_point_and_fills_diff_and_details();
    void clicking_a_plot_point_selects_the_table_row();
    void ctrl_clicking_a_second_row_fills_the_compare_diff();
    void filtering_keeps_the_selected_experiment();
    void a_folder_that_is_not_a_session_reports_an_error_and_keeps_the_window_usable();
    void a_corrupt_results_file_reports_line_and_keeps_the_window_usable();
    void non_utf8_results_file_reports_an_encoding_error();
    void an_empty_session_reports_that_it_has_no_experiments();
    void a_missing_folder_reports_an_error();
    void experiments_recorded_by_another_writer_appear_live_keeping_the_selection();
    void the_window_is_a_shell_of_four_pages();
    void clicking_a_roofline_point_selects_the_experiment_on_every_page();
    void the_compare_page_shows_the_two_rows_and_a_pinned_baseline_stays();
    void optimize_selected_creates_a_session_from_the_profile_and_opens_it_with_its_profile();
    void optimize_selected_into_a_used_folder_reports_the_error_and_creates_nothing();
    void a_sessions_verify_json_shows_the_measured_speedup_on_the_profile_page();
    void a_verify_json_written_while_the_session_is_open_appears_without_a_reload();

private:
    QTemporaryDir m_root;
    QString m_sessionDir;
};

void TestMainWindow::initTestCase()
{
    QVERIFY(m_root.isValid());
    m_sessionDir = m_root.filePath(QStringLiteral("sample"));
    test::createSampleSession(test::toPath(m_sessionDir));
}

void TestMainWindow::opening_a_session_fills_table_title_and_counts()
{
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    QVERIFY(openAndWait(*window, m_sessionDir));
    QVERIFY(messages.isEmpty());
    QCOMPARE(window->tableView()->model()->rowCount(), test::kSampleExperimentCount);
    QCOMPARE(window->tableModel()->rowCount(), test::kSampleExperimentCount);
    QVERIFY2(window->windowTitle().startsWith(QStringLiteral("app-test session")), qPrintable(window->windowTitle()));
    // 7 experiments: 2 baselines, 3 kept, 1 reverted, 1 failed.
    const QString counts = window->countsLabel()->text();
    QVERIFY2(counts.contains(QStringLiteral("7 experiments")), qPrintable(counts));
    QVERIFY2(counts.contains(QStringLiteral("3 kept")), qPrintable(counts));
    QVERIFY2(counts.contains(QStringLiteral("1 reverted")), qPrintable(counts));
    QVERIFY2(counts.contains(QStringLiteral("1 failed")), qPrintable(counts));
    // The kernel filter lists both kernel types after "All kernels".
    QCOMPARE(window->kernelCombo()->count(), 3);
    QCOMPARE(window->kernelCombo()->itemData(1).toString(), QStringLiteral("rmsnorm"));
    QCOMPARE(window->kernelCombo()->itemData(2).toString(), QStringLiteral("softmax"));
    QVERIFY(window->sessionWarnings().isEmpty());
    QVERIFY(!window->warningsButton()->isVisible());
}

void TestMainWindow::opening_selects_the_best_kept_experiment()
{
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    QVERIFY(openAndWait(*window, m_sessionDir));
    QCOMPARE(window->bestKeptExperiment(), std::optional<int>(test::kBestKeptExperiment));
    QCOMPARE(window->selectedExperiment(), test::kBestKeptExperiment);
    QCOMPARE(window->timeline()->selectedExperiment(), test::kBestKeptExperiment);
    const int row = window->tableView()->currentIndex().row();
    QCOMPARE(window->filterModel()->experimentNumberAt(row), test::kBestKeptExperiment);
    // #5 changed VEC 1 -> 4 against its parent #2.
    const QStringList lines = window->parentDiffView()->renderedLines();
    QVERIFY2(anyLineStartsWith(lines, QLatin1Char('-'), QStringLiteral("#define VEC 1")), qPrintable(lines.join(u'\n')));
    QVERIFY2(anyLineStartsWith(lines, QLatin1Char('+'), QStringLiteral("#define VEC 4")), qPrintable(lines.join(u'\n')));
}

void TestMainWindow::clicking_a_table_row_selects_the_plot_point_and_fills_diff_and_details()
{
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    QVERIFY(openAndWait(*window, m_sessionDir));

    QSignalSpy shown(window.get(), &MainWindow::sourcesShown);
    QTest::mouseClick(window->tableView()->viewport(), Qt::LeftButton, {}, cellCenter(*window, 2));
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty() && shown.last().first().toInt() == 2, 10000);

    QCOMPARE(window->selectedExperiment(), 2);
    QCOMPARE(window->timeline()->selectedExperiment(), 2);
    // The plot's selection ring sits on experiment 2's speed-up.
    const QVector<QPointF> ring = window->timeline()->pointsOf(TimelinePlot::Series::Selected);
    QCOMPARE(ring.size(), 1);
    QCOMPARE(ring.first().x(), 2.0);
    QCOMPARE(ring.first().y(), 1.40);

    // #2 changed BLOCK 256 -> 512 and nothing else.
    DiffView* diff = window->parentDiffView();
    QCOMPARE(diff->insertedCount(), 1);
    QCOMPARE(diff->deletedCount(), 1);
    const QStringList lines = diff->renderedLines();
    QVERIFY2(anyLineStartsWith(lines, QLatin1Char('-'), QStringLiteral("#define BLOCK 256")), qPrintable(lines.join(u'\n')));
    QVERIFY2(anyLineStartsWith(lines, QLatin1Char('+'), QStringLiteral("#define BLOCK 512")), qPrintable(lines.join(u'\n')));

    // Source tab: the whole file at the experiment's commit.
    QVERIFY(window->sourceView()->toPlainText().contains(QStringLiteral("#define BLOCK 512")));
    QVERIFY(!window->sourceView()->toPlainText().contains(QStringLiteral("#define BLOCK 256")));

    // Details tab: the experiment's fields.
    DetailsPanel* details = window->detailsPanel();
    QVERIFY(details->hasExperiment());
    QCOMPARE(details->valueOf(QStringLiteral("experiment")), QStringLiteral("2"));
    QCOMPARE(details->valueOf(QStringLiteral("kernel_type")), QStringLiteral("rmsnorm"));
    QVERIFY2(details->valueOf(QStringLiteral("description")).contains(QStringLiteral("BLOCK 256 -> 512")),
             qPrintable(details->valueOf(QStringLiteral("description"))));

    // A reverted experiment's parent is the best at its time (#2): the diff shows only the pragma.
    shown.clear();
    QTest::mouseClick(window->tableView()->viewport(), Qt::LeftButton, {}, cellCenter(*window, 3));
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty() && shown.last().first().toInt() == 3, 10000);
    QCOMPARE(diff->insertedCount(), 1);
    QCOMPARE(diff->deletedCount(), 0);
    QVERIFY(anyLineStartsWith(diff->renderedLines(), QLatin1Char('+'), QStringLiteral("#pragma unroll 4")));
    QVERIFY(messages.isEmpty());
}

void TestMainWindow::clicking_a_plot_point_selects_the_table_row()
{
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    QVERIFY(openAndWait(*window, m_sessionDir));
    QSignalSpy shown(window.get(), &MainWindow::sourcesShown);
    emit window->timeline()->experimentClicked(6);
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty() && shown.last().first().toInt() == 6, 10000);
    QCOMPARE(window->filterModel()->experimentNumberAt(window->tableView()->currentIndex().row()), 6);
    QCOMPARE(window->timeline()->selectedExperiment(), 6);
    QCOMPARE(window->detailsPanel()->valueOf(QStringLiteral("experiment")), QStringLiteral("6"));
    QVERIFY(anyLineStartsWith(window->parentDiffView()->renderedLines(), QLatin1Char('+'),
                              QStringLiteral("one pass: running max")));
}

void TestMainWindow::ctrl_clicking_a_second_row_fills_the_compare_diff()
{
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    QVERIFY(openAndWait(*window, m_sessionDir));
    QSignalSpy shown(window.get(), &MainWindow::sourcesShown);
    QTest::mouseClick(window->tableView()->viewport(), Qt::LeftButton, {}, cellCenter(*window, 0));
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty() && shown.last().first().toInt() == 0, 10000);
    shown.clear();
    QTest::mouseClick(window->tableView()->viewport(), Qt::LeftButton, Qt::ControlModifier, cellCenter(*window, 5));
    QTRY_VERIFY_WITH_TIMEOUT(window->isSettled() && window->selectedExperiment() == 5, 10000);
    QCOMPARE(window->compareExperiment(), 0);
    QCOMPARE(window->tabs()->currentIndex(), int(MainWindow::CompareDiffTab));
    // #0 -> #5: BLOCK 256 -> 512 and VEC 1 -> 4.
    DiffView* compare = window->compareDiffView();
    QVERIFY(compare->isVisible());
    QCOMPARE(compare->insertedCount(), 2);
    QCOMPARE(compare->deletedCount(), 2);
    QVERIFY(anyLineStartsWith(compare->renderedLines(), QLatin1Char('-'), QStringLiteral("#define BLOCK 256")));
    QVERIFY(anyLineStartsWith(compare->renderedLines(), QLatin1Char('+'), QStringLiteral("#define VEC 4")));
    // The comparison stays while other experiments are browsed.
    window->selectExperiment(3);
    QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 10000);
    QCOMPARE(window->compareExperiment(), 0);
    // #0 -> #3: BLOCK 256 -> 512 and the added pragma (VEC is 1 in both).
    QCOMPARE(compare->insertedCount(), 2);
    QCOMPARE(compare->deletedCount(), 1);
    window->setCompareExperiment(-1);
    QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 10000);
    QVERIFY(!compare->isVisible());
}

void TestMainWindow::filtering_keeps_the_selected_experiment()
{
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    QVERIFY(openAndWait(*window, m_sessionDir));
    window->selectExperiment(2);
    QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 10000);

    window->kernelCombo()->setCurrentIndex(window->kernelCombo()->findData(QStringLiteral("softmax")));
    QCOMPARE(window->tableView()->model()->rowCount(), 3);  // #1, #4, #6
    QCOMPARE(window->selectedExperiment(), 2);                 // hidden, still the selection
    QVERIFY(!window->tableView()->selectionModel()->hasSelection());
    QCOMPARE(window->timeline()->kernelFilter(), QStringLiteral("softmax"));

    window->kernelCombo()->setCurrentIndex(0);
    QCOMPARE(window->tableView()->model()->rowCount(), test::kSampleExperimentCount);
    QCOMPARE(window->filterModel()->experimentNumberAt(window->tableView()->currentIndex().row()), 2);

    window->outcomeCheckBox(Outcome::Failed)->setChecked(false);
    QCOMPARE(window->tableView()->model()->rowCount(), test::kSampleExperimentCount - 1);
    window->filterEdit()->setText(QStringLiteral("unroll"));
    QCOMPARE(window->tableView()->model()->rowCount(), 1);
    QCOMPARE(window->filterModel()->experimentNumberAt(0), 3);
    QCOMPARE(window->selectedExperiment(), 2);
}

void TestMainWindow::a_folder_that_is_not_a_session_reports_an_error_and_keeps_the_window_usable()
{
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    QVERIFY(openAndWait(*window, m_sessionDir));

    const QString plain = m_root.filePath(QStringLiteral("not-a-session"));
    QVERIFY(QDir().mkpath(plain));
    const QString message = failureOf(*window, plain);
    QVERIFY2(message.contains(QStringLiteral("is not an AutoKernel session")), qPrintable(message));
    QVERIFY2(message.contains(plain), qPrintable(message));
    QCOMPARE(messages.size(), 1);
    QCOMPARE(messages.first().text, message);

    // The session shown before is still there and still works.
    QCOMPARE(window->sessionDir(), QFileInfo(m_sessionDir).absoluteFilePath());
    QCOMPARE(window->tableView()->model()->rowCount(), test::kSampleExperimentCount);
    QSignalSpy shown(window.get(), &MainWindow::sourcesShown);
    window->selectExperiment(2);
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty(), 10000);
    QCOMPARE(window->parentDiffView()->insertedCount(), 1);
}

void TestMainWindow::a_corrupt_results_file_reports_line_and_keeps_the_window_usable()
{
    const QString dir = m_root.filePath(QStringLiteral("corrupt"));
    test::createSampleSession(test::toPath(dir));
    // Line 3 (experiment 1): a latency that is not a number.
    test::setResultsField(test::toPath(dir), 3, 4, "fast");  // latency_us

    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    const QString message = failureOf(*window, dir);
    QVERIFY2(message.contains(QStringLiteral("malformed")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("results.tsv")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("3")), qPrintable(message));
    QCOMPARE(messages.size(), 1);
    QVERIFY(window->sessionDir().isEmpty());
    QCOMPARE(window->tableView()->model()->rowCount(), 0);

    // Usable afterwards: a good session opens in the same window.
    QVERIFY(openAndWait(*window, m_sessionDir));
    QCOMPARE(window->tableView()->model()->rowCount(), test::kSampleExperimentCount);
}

void TestMainWindow::non_utf8_results_file_reports_an_encoding_error()
{
    const QString dir = m_root.filePath(QStringLiteral("latin1"));
    test::createSampleSession(test::toPath(dir));
    test::setResultsField(test::toPath(dir), 2, 9, "starter \xE9t\xE9");  // description in Latin-1

    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    const QString message = failureOf(*window, dir);
    QVERIFY2(message.contains(QStringLiteral("UTF-8")), qPrintable(message));
    QCOMPARE(messages.size(), 1);
}

void TestMainWindow::an_empty_session_reports_that_it_has_no_experiments()
{
    const QString dir = m_root.filePath(QStringLiteral("empty"));
    test::createEmptySession(test::toPath(dir));
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    const QString message = failureOf(*window, dir);
    QVERIFY2(message.contains(QStringLiteral("has no experiments")), qPrintable(message));
    QVERIFY2(message.contains(dir), qPrintable(message));
    QCOMPARE(messages.size(), 1);
    QVERIFY(openAndWait(*window, m_sessionDir));
}

void TestMainWindow::a_missing_folder_reports_an_error()
{
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    const QString dir = m_root.filePath(QStringLiteral("does-not-exist"));
    const QString message = failureOf(*window, dir);
    QVERIFY2(message.contains(dir), qPrintable(message));
    QCOMPARE(messages.size(), 1);
}

void TestMainWindow::experiments_recorded_by_another_writer_appear_live_keeping_the_selection()
{
    const QString dir = m_root.filePath(QStringLiteral("live"));
    test::createSampleSession(test::toPath(dir));
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    window->watcher()->setPollIntervalMs(0);  // prove the file system watcher alone is enough
    QVERIFY(openAndWait(*window, dir));
    window->selectExperiment(3);
    QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 10000);

    QSignalSpy appended(window.get(), &MainWindow::experimentsAppended);
    const Experiment written = test::recordExtra(test::toPath(dir), 0);
    QCOMPARE(written.number, test::kSampleExperimentCount);
    QTRY_COMPARE_WITH_TIMEOUT(window->tableView()->model()->rowCount(), test::kSampleExperimentCount + 1, 5000);
    QCOMPARE(appended.size(), 1);
    QVERIFY(window->experiment(written.number) != nullptr);
    QVERIFY2(window->countsLabel()->text().contains(QStringLiteral("8 experiments")),
             qPrintable(window->countsLabel()->text()));
    // The timeline got the point as well.
    bool plotted = false;
    for (const QPointF& p : window->timeline()->pointsOf(TimelinePlot::Series::Reverted))
        plotted = plotted || p.x() == written.number;
    QVERIFY(plotted);
    // The selection did not move.
    QCOMPARE(window->selectedExperiment(), 3);
    QCOMPARE(window->filterModel()->experimentNumberAt(window->tableView()->currentIndex().row()), 3);

    // A burst of writes: all rows arrive.
    test::recordExtra(test::toPath(dir), 1);
    test::recordExtra(test::toPath(dir), 2);
    QTRY_COMPARE_WITH_TIMEOUT(window->tableView()->model()->rowCount(), test::kSampleExperimentCount + 3, 5000);
    QVERIFY(messages.isEmpty());
}

void TestMainWindow::the_window_is_a_shell_of_four_pages()
{
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    QCOMPARE(window->pages()->count(), 4);
    QCOMPARE(window->pages()->widget(MainWindow::ExperimentsPageIndex), window->experimentsPage());
    QCOMPARE(window->pages()->widget(MainWindow::RooflinePageIndex), window->rooflinePage());
    QCOMPARE(window->pages()->widget(MainWindow::ComparePageIndex), window->comparePage());
    window->showPageNamed(QStringLiteral("roofline"));
    QCOMPARE(window->pages()->currentIndex(), int(MainWindow::RooflinePageIndex));
    window->showPageNamed(QStringLiteral("no such page"));
    QCOMPARE(window->pages()->currentIndex(), int(MainWindow::RooflinePageIndex));
}

void TestMainWindow::clicking_a_roofline_point_selects_the_experiment_on_every_page()
{
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    QVERIFY(openAndWait(*window, m_sessionDir));
    window->showPage(MainWindow::RooflinePageIndex);
    RooflinePlot* roofline = window->rooflinePage()->plot();
    QTRY_VERIFY(roofline->isVisible());
    roofline->plot()->replot();
    const std::optional<QPointF> at = roofline->positionOf(2);
    QVERIFY(at);
    const QPoint pixel(qRound(roofline->plot()->xAxis->coordToPixel(at->x())),
                       qRound(roofline->plot()->yAxis->coordToPixel(at->y())));
    QVERIFY(roofline->experimentAt(pixel) == 2);
    QTest::mouseClick(roofline->plot(), Qt::LeftButton, Qt::NoModifier, pixel);
    QTRY_VERIFY_WITH_TIMEOUT(window->isSettled() && window->selectedExperiment() == 2, 10000);
    QCOMPARE(window->filterModel()->experimentNumberAt(window->tableView()->currentIndex().row()), 2);
    QCOMPARE(window->timeline()->selectedExperiment(), 2);
    QCOMPARE(window->detailsPanel()->valueOf(QStringLiteral("experiment")), QStringLiteral("2"));
    QCOMPARE(window->comparePage()->rightExperiment(), 2);
    QCOMPARE(roofline->selectedExperiment(), 2);
    // And the other way: the table's selection moves the roofline's ring.
    window->selectExperiment(3);
    QCOMPARE(roofline->selectedExperiment(), 3);
}

void TestMainWindow::the_compare_page_shows_the_two_rows_and_a_pinned_baseline_stays()
{
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    QVERIFY(openAndWait(*window, m_sessionDir));
    QTest::mouseClick(window->tableView()->viewport(), Qt::LeftButton, {}, cellCenter(*window, 0));
    QTRY_VERIFY_WITH_TIMEOUT(window->isSettled() && window->selectedExperiment() == 0, 10000);
    QTest::mouseClick(window->tableView()->viewport(), Qt::LeftButton, Qt::ControlModifier, cellCenter(*window, 5));
    QTRY_VERIFY_WITH_TIMEOUT(window->isSettled() && window->selectedExperiment() == 5, 10000);
    ComparePage* page = window->comparePage();
    QCOMPARE(page->leftExperiment(), 0);
    QCOMPARE(page->rightExperiment(), 5);
    const Experiment* left = window->experiment(0);
    const Experiment* right = window->experiment(5);
    QVERIFY(left && right && left->latency_us && right->latency_us);
    QCOMPARE(page->cellText(QStringLiteral("latency_us"), ComparePage::DeltaColumn),
             QLocale().toString(*right->latency_us - *left->latency_us, 'f', 2));
    QCOMPARE(page->cellText(QStringLiteral("latency_us"), ComparePage::RatioColumn),
             QLocale().toString(*right->latency_us / *left->latency_us, 'f', 3) + QStringLiteral("×"));
    // Per timing shape: #5 was recorded with its two shapes, the starter #0 without any.
    QTRY_COMPARE_WITH_TIMEOUT(page->shapeKeys().size(), 2, 10000);
    QCOMPARE(page->cellText(QStringLiteral("shape:4096x8192 bf16:us"), ComparePage::RightColumn),
             QLocale().toString(80.0, 'f', 2));
    QCOMPARE(page->cellText(QStringLiteral("shape:4096x8192 bf16"), ComparePage::LeftColumn), ComparePage::tr("not recorded"));
    // The page's diff is the same pair as the Experiments page's "Diff vs selected".
    QCOMPARE(page->diffView()->insertedCount(), window->compareDiffView()->insertedCount());
    QCOMPARE(page->diffView()->deletedCount(), window->compareDiffView()->deletedCount());
    // Pin #0: ctrl-clicking other pairs does not replace it; browsing keeps it on the left.
    page->pin(0);
    window->setCompareExperiment(3);
    QCOMPARE(window->compareExperiment(), 0);
    window->selectExperiment(6);
    QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 10000);
    QCOMPARE(page->leftExperiment(), 0);
    QCOMPARE(page->rightExperiment(), 6);
    page->pin(-1);
    window->setCompareExperiment(3);
    QCOMPARE(window->compareExperiment(), 3);
}


void TestMainWindow::optimize_selected_creates_a_session_from_the_profile_and_opens_it_with_its_profile()
{
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    QSignalSpy profileLoaded(window.get(), &MainWindow::profileLoaded);
    window->openProfile(QStringLiteral(AK_DEMO_PROFILE));
    QTRY_VERIFY_WITH_TIMEOUT(!profileLoaded.isEmpty(), 15000);

    // The page asks for the types selected in its tree.
    ProfilePage* page = window->profilePage();
    QSignalSpy asked(page, &ProfilePage::optimizeRequested);
    page->setWhatIfType(QStringLiteral("layernorm"));
    page->treeView()->clearSelection();
    QVERIFY(page->optimizeButton()->isEnabled());
    QCOMPARE(page->selectedKernelTypes(), QStringList{QStringLiteral("layernorm")});

    const QString dir = m_root.filePath(QStringLiteral("from-profile"));
    QSignalSpy created(window.get(), &MainWindow::sessionCreated);
    QSignalSpy loaded(window.get(), &MainWindow::sessionLoaded);
    QThread* const gui = QThread::currentThread();
    window->createSessionFromProfile(dir, {QStringLiteral("matmul"), QStringLiteral("layernorm")});
    QVERIFY(!window->isSettled());  // created on a thread of its own
    QVERIFY(QThread::currentThread() == gui);
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 15000);
    QVERIFY2(messages.isEmpty(), qPrintable(messages.isEmpty() ? QString() : messages.first().text));
    QCOMPARE(created.size(), 1);
    QCOMPARE(window->sessionDir(), QFileInfo(dir).absoluteFilePath());
    // One starter baseline per kernel (GPT-2's GEMMs fall into shape families), of the chosen types only.
    QVERIFY(window->experiments().size() >= 2);
    QStringList types;
    for (const Experiment& e : window->experiments()) {
        QCOMPARE(e.outcome, Outcome::Baseline);
        types.append(QString::fromStdString(e.kernel_type));
    }
    QVERIFY2(types.contains(QStringLiteral("matmul")) && types.contains(QStringLiteral("layernorm")), qPrintable(types.join(u',')));
    QCOMPARE(types.count(QStringLiteral("layernorm")) + types.count(QStringLiteral("matmul")), int(types.size()));
    // session.json records the profile, and the page offers it back (it is the open one already).
    QCOMPARE(page->originProfileFile(), QFileInfo(QStringLiteral(AK_DEMO_PROFILE)).absoluteFilePath());
    QVERIFY(!page->originButton()->isHidden());
    QVERIFY(!page->originButton()->isEnabled());
    QVERIFY(asked.isEmpty());

    // Opening the new session in a fresh window brings its profile along.
    QList<CapturedMessage> messages2;
    auto fresh = makeWindow(&messages2);
    QSignalSpy freshProfile(fresh.get(), &MainWindow::profileLoaded);
    QVERIFY(openAndWait(*fresh, dir));
    QTRY_VERIFY_WITH_TIMEOUT(!freshProfile.isEmpty(), 15000);
    QCOMPARE(QFileInfo(fresh->profile()->path).absoluteFilePath(), QFileInfo(QStringLiteral(AK_DEMO_PROFILE)).absoluteFilePath());
}

void TestMainWindow::optimize_selected_into_a_used_folder_reports_the_error_and_creates_nothing()
{
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    QSignalSpy profileLoaded(window.get(), &MainWindow::profileLoaded);
    window->openProfile(QStringLiteral(AK_DEMO_PROFILE));
    QTRY_VERIFY_WITH_TIMEOUT(!profileLoaded.isEmpty(), 15000);
    QSignalSpy failed(window.get(), &MainWindow::sessionCreationFailed);
    window->createSessionFromProfile(m_sessionDir, {QStringLiteral("matmul")});  // an existing session
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 30000);
    QVERIFY(window->isSettled());
    QCOMPARE(messages.size(), 1);
    QVERIFY2(messages.first().text.contains(QDir::toNativeSeparators(QFileInfo(m_sessionDir).absoluteFilePath())),
             qPrintable(messages.first().text));
    QVERIFY(window->sessionDir().isEmpty());
    // "other" is not a kernel type: refused before any thread starts.
    window->createSessionFromProfile(m_root.filePath(QStringLiteral("never")), {QStringLiteral("other")});
    QCOMPARE(messages.size(), 2);
    QVERIFY(!QFileInfo::exists(m_root.filePath(QStringLiteral("never"))));
}

void TestMainWindow::a_sessions_verify_json_shows_the_measured_speedup_on_the_profile_page()
{
    const QString dir = m_root.filePath(QStringLiteral("verified"));
    test::createSampleSession(test::toPath(dir));
    QVERIFY(QFile::copy(QStringLiteral(AK_VERIFY_FIXTURE), QDir(dir).filePath(QStringLiteral("verify.json"))));
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    QVERIFY(openAndWait(*window, dir));
    ProfilePage* page = window->profilePage();
    // The fixture: 33.6 ms unmodified, 30.0 ms with the session's kernels; verify predicted 1.2x.
    QVERIFY(page->verifiedSpeedup().has_value());
    QCOMPARE(qRound(*page->verifiedSpeedup() * 1000), 1120);
    QVERIFY(!page->verifyLabel()->isHidden());
    const QString text = page->verifyLabel()->text();
    QVERIFY2(text.contains(QStringLiteral("1.12")) && text.contains(QStringLiteral("1.2")) && text.contains(QStringLiteral("PASS")),
             qPrintable(text));

    // A damaged verify.json is named, not hidden.
    const QString bad = m_root.filePath(QStringLiteral("verified-bad"));
    test::createSampleSession(test::toPath(bad));
    {
        QFile f(QDir(bad).filePath(QStringLiteral("verify.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format_version\": 1, \"verdict\": \"MAYBE\", \"model\": {}}");
    }
    QVERIFY(openAndWait(*window, bad));
    QVERIFY(!page->verifiedSpeedup());
    QVERIFY2(page->verifyLabel()->text().contains(QStringLiteral("verdict")), qPrintable(page->verifyLabel()->text()));
}

// `autokernel verify` run while the window shows the session: the watcher notices verify.json and the
// Profile page shows the measured end-to-end number without a reload, keeping the selection.
void TestMainWindow::a_verify_json_written_while_the_session_is_open_appears_without_a_reload()
{
    const QString dir = m_root.filePath(QStringLiteral("verified-live"));
    test::createSampleSession(test::toPath(dir));
    QList<CapturedMessage> messages;
    auto window = makeWindow(&messages);
    window->watcher()->setPollIntervalMs(0);  // the file system watcher alone
    QVERIFY(openAndWait(*window, dir));
    window->selectExperiment(3);
    QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 10000);
    ProfilePage* page = window->profilePage();
    QVERIFY(!page->verifiedSpeedup());
    QVERIFY(page->verifyLabel()->isHidden());

    QSignalSpy reloaded(window.get(), &MainWindow::sessionReportsReloaded);
    QSignalSpy opened(window.get(), &MainWindow::sessionLoaded);
    // Written the way `autokernel verify` writes it: a temporary file renamed over the name.
    const QString temporary = QDir(dir).filePath(QStringLiteral(".verify.json.tmp"));
    QVERIFY(QFile::copy(QStringLiteral(AK_VERIFY_FIXTURE), temporary));
    QVERIFY(QFile::rename(temporary, QDir(dir).filePath(QStringLiteral("verify.json"))));
    QTRY_VERIFY_WITH_TIMEOUT(page->verifiedSpeedup().has_value(), 5000);
    QCOMPARE(qRound(*page->verifiedSpeedup() * 1000), 1120);  // 33.6 ms / 30.0 ms
    QVERIFY(!page->verifyLabel()->isHidden());
    QVERIFY2(page->verifyLabel()->text().contains(QLocale().toString(1.12, 'f', 3)), qPrintable(page->verifyLabel()->text()));
    QCOMPARE(reloaded.size(), 1);
    QCOMPARE(opened.size(), 0);                 // no reload of the session
    QCOMPARE(window->selectedExperiment(), 3);  // the selection stayed

    // Damaged on disk: named on the page; removed: gone.
    {
        QFile f(QDir(dir).filePath(QStringLiteral("verify.json")));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("{\"format_version\": 1, \"verdict\": \"MAYBE\", \"model\": {}}");
    }
    QTRY_VERIFY_WITH_TIMEOUT(page->verifyLabel()->text().contains(QStringLiteral("verdict")), 5000);
    QVERIFY(!page->verifiedSpeedup());
    QVERIFY(QFile::remove(QDir(dir).filePath(QStringLiteral("verify.json"))));
    QTRY_VERIFY_WITH_TIMEOUT(page->verifyLabel()->isHidden(), 5000);
    QVERIFY(messages.isEmpty());
}

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
