#include "app/main_window.h"

#include "app/app_options.h"
#include "app/language.h"
#include "app/loop_worker.h"
#include "app/pages/compare_page.h"
#include "app/pages/experiments_page.h"
#include "app/pages/profile_page.h"
#include "app/profile_loader.h"
#include "app/pages/roofline_page.h"
#include "app/recent_sessions.h"
#include "app/session_loader.h"
#include "app/session_watcher.h"
#include "app/versions.h"
#include "loop/agent_factory.h"
#include "profile/bundled_profile.h"
#include "profile/create_session_from_profile.h"
#include "session/session.h"
#include "util/clock.h"
#include "widgets/agent_panel.h"
#include "widgets/details_panel.h"
#include "widgets/diff_view.h"
#include "widgets/experiment_filter_model.h"
#include "widgets/experiment_table_model.h"
#include "widgets/kernel_editor.h"
#include "widgets/outcome_style.h"
#include "widgets/source_view.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <set>

namespace ak {

namespace {

constexpr TimelinePlot::Metric kMetrics[] = {TimelinePlot::Metric::Speedup, TimelinePlot::Metric::Throughput,
                                             TimelinePlot::Metric::Latency, TimelinePlot::Metric::Bandwidth};

}  // namespace

MainWindow::MainWindow(QWidget* parent) : MainWindow(Options{}, parent) {}

MainWindow::MainWindow(Options options, QWidget* parent)
    : QMainWindow(parent), m_options(options), m_followLive(options.followLive)
{
    setObjectName(QStringLiteral("MainWindow"));
    m_loader = new SessionLoader(this);
    m_watcher = new SessionWatcher(this);
    connect(m_loader, &SessionLoader::opened, this, &MainWindow::onOpened);
    connect(m_loader, &SessionLoader::openFailed, this, &MainWindow::onOpenFailed);
    connect(m_loader, &SessionLoader::refreshed, this, &MainWindow::onRefreshed);
    connect(m_loader, &SessionLoader::refreshFailed, this, &MainWindow::onRefreshFailed);
    connect(m_loader, &SessionLoader::sourcesReady, this, &MainWindow::onSourcesReady);
    connect(m_watcher, &SessionWatcher::changed, this, &MainWindow::onSessionChanged);
    connect(m_watcher, &SessionWatcher::reportsChanged, this, [this] {
        if (m_followLive && m_snapshot && m_pendingDir.isEmpty())
            m_loader->reloadReports();
    });
    connect(m_loader, &SessionLoader::reportsReloaded, this, &MainWindow::onReportsReloaded);
    m_profileLoader = new ProfileLoader(this);
    connect(m_profileLoader, &ProfileLoader::loaded, this, [this](const ProfilePtr& profile) {
        m_profile = profile;
        for (Page* page : m_pageList)
            page->setProfile(profile);
        statusBar()->showMessage(tr("Profile %1 opened (read in %2 ms, analysed in %3 ms).")
                                     .arg(QDir::toNativeSeparators(profile->path))
                                     .arg(profile->readMs)
                                     .arg(profile->analysisMs),
                                 8000);
        emit profileLoaded(profile->path);
        checkSettled();
    });
    connect(m_profileLoader, &ProfileLoader::failed, this, [this](const QString& path, const QString& message) {
        reportError(tr("Cannot open profile"),
                    tr("“%1” could not be opened:\n%2").arg(QDir::toNativeSeparators(path), message));
        emit profileFailed(message);
        checkSettled();
    });

    buildActions();
    buildCentralWidget();
    buildStatusBar();
    buildAgentDocks();
    buildMenus();
    if (m_options.useSettings)
        restoreLayout();
    updateTitle();
    updateCounts();
    m_experimentsPage->setFocus();
    resize(1600, 1000);
    if (m_options.useSettings) {
        QSettings settings;
        const QByteArray geometry = settings.value(QStringLiteral("ui/geometry")).toByteArray();
        if (!geometry.isEmpty())
            restoreGeometry(geometry);
    }
}

MainWindow::~MainWindow()
{
    // A session still being created finishes first (its answer is then dropped with this window).
    if (m_createThread)
        m_createThread->wait();
    // Stop the loop while this window can still take its last signals' absence: nothing of it may
    // reach a half-destroyed window.
    if (m_loop) {
        disconnect(m_loop, nullptr, this, nullptr);
        delete m_loop;
        m_loop = nullptr;
    }
}

// ------------------------------------------------------------------------------------------------
// Construction

void MainWindow::buildActions()
{
    m_openAction = new QAction(tr("&Open Session…"), this);
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setStatusTip(tr("Open a session folder (session.json + git repository)"));
    connect(m_openAction, &QAction::triggered, this, &MainWindow::chooseSessionFolder);

    m_demoAction = new QAction(tr("Open &Demo Session"), this);
    m_demoAction->setStatusTip(tr("Open the demo session bundled with the workbench"));
    connect(m_demoAction, &QAction::triggered, this, [this] {
        const QString demo = demoSessionDir(QCoreApplication::applicationDirPath());
        if (demo.isEmpty())
            reportError(tr("No demo session"),
                        demoSessionMissingMessage());
        else
            openSession(demo);
        // The demo profile too, when no profile is open.
        const std::filesystem::path bundled =
            profile::bundled_profile_path(QCoreApplication::applicationDirPath().toStdString());
        if (!demo.isEmpty() && !m_profile && !m_profileLoader->isBusy() && !bundled.empty())
            openProfile(QString::fromStdString(bundled.string()));
    });

    m_modelDemoAction = new QAction(tr("Open &Model Session (llama-160m)"), this);
    m_modelDemoAction->setStatusTip(
        tr("Open the bundled llama-160m session: profiled, searched and verified end to end on an H200"));
    connect(m_modelDemoAction, &QAction::triggered, this, [this] {
        const QString session = modelDemoSessionDir(QCoreApplication::applicationDirPath());
        if (session.isEmpty()) {
            reportError(tr("No model session"),
                        modelSessionMissingMessage());
            return;
        }
        openSession(session);  // its profile (profile.json inside it) comes along when none is open
    });

    m_openProfileAction = new QAction(tr("Open &Profile…"), this);
    m_openProfileAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_openProfileAction->setStatusTip(tr("Open a profile.json written by “autokernel profile”"));
    connect(m_openProfileAction, &QAction::triggered, this, &MainWindow::chooseProfileFile);

    m_reloadAction = new QAction(tr("&Reload"), this);
    m_reloadAction->setShortcut(QKeySequence::Refresh);
    m_reloadAction->setEnabled(false);
    connect(m_reloadAction, &QAction::triggered, this, &MainWindow::reload);

    m_screenshotAction = new QAction(tr("Save &Screenshot…"), this);
    connect(m_screenshotAction, &QAction::triggered, this, &MainWindow::chooseScreenshotFile);

    m_quitAction = new QAction(tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_metricGroup = new QActionGroup(this);
    for (TimelinePlot::Metric metric : kMetrics) {
        QAction* action = m_metricGroup->addAction(TimelinePlot::metricLabel(metric));
        action->setCheckable(true);
        action->setData(static_cast<int>(metric));
        action->setChecked(metric == TimelinePlot::Metric::Speedup);
        connect(action, &QAction::triggered, this, [this, metric] { setMetric(metric); });
    }

    m_languageGroup = new QActionGroup(this);
    const std::pair<QString, QString> languages[] = {
        {QStringLiteral("system"), tr("System Default")},
        {QStringLiteral("en"), QStringLiteral("English")},
        {QStringLiteral("de"), QStringLiteral("Deutsch")},
    };
    QSettings settings;
    QString current = settings.value(QLatin1String(kLanguageSettingKey)).toString();
    if (current.isEmpty())
        current = QStringLiteral("system");
    for (const auto& [code, label] : languages) {
        QAction* action = m_languageGroup->addAction(label);
        action->setCheckable(true);
        action->setData(code);
        action->setChecked(code == current);
        connect(action, &QAction::triggered, this, [this, code = code] { chooseLanguage(code); });
    }

    m_followAction = new QAction(tr("&Follow Live Changes"), this);
    m_followAction->setCheckable(true);
    m_followAction->setChecked(m_followLive);
    m_followAction->setStatusTip(tr("Show experiments another process records while the session is open"));
    connect(m_followAction, &QAction::toggled, this, &MainWindow::setFollowLive);

    m_resetPlotAction = new QAction(tr("Reset &Plot View"), this);
    connect(m_resetPlotAction, &QAction::triggered, this, [this] { timeline()->resetView(); });

    m_compareAction = new QAction(tr("&Compare With…"), this);
    m_compareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    m_compareAction->setStatusTip(tr("Compare the selected experiment with another experiment"));
    m_compareAction->setEnabled(false);
    connect(m_compareAction, &QAction::triggered, this, &MainWindow::askCompareNumber);

    m_clearCompareAction = new QAction(tr("C&lear Comparison"), this);
    m_clearCompareAction->setEnabled(false);
    connect(m_clearCompareAction, &QAction::triggered, this, [this] {
        m_comparePage->pin(-1);
        setCompareExperiment(-1);
    });

    m_aboutAction = new QAction(tr("&About AutoKernel Workbench"), this);
    m_aboutAction->setMenuRole(QAction::AboutRole);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::showAbout);
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::fillRecentMenu);
    file->addAction(m_demoAction);
    file->addAction(m_modelDemoAction);
    file->addAction(m_openProfileAction);
    file->addAction(m_reloadAction);
    file->addSeparator();
    file->addAction(m_screenshotAction);
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QMenu* pageMenu = view->addMenu(tr("&Page"));
    pageMenu->addActions(m_pageGroup->actions());
    QMenu* metric = view->addMenu(tr("Timeline &Metric"));
    metric->addActions(m_metricGroup->actions());
    view->addAction(m_resetPlotAction);
    view->addSeparator();
    view->addAction(m_compareAction);
    view->addAction(m_clearCompareAction);
    view->addSeparator();
    view->addAction(m_followAction);
    view->addSeparator();
    view->addAction(m_agentDock->toggleViewAction());
    view->addAction(m_editorDock->toggleViewAction());
    QMenu* language = view->addMenu(tr("&Language"));
    language->addActions(m_languageGroup->actions());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_aboutAction);
}

void MainWindow::buildCentralWidget()
{
    m_pages = new QTabWidget;
    m_pages->setObjectName(QStringLiteral("pages"));
    m_pages->setDocumentMode(true);
    m_pageGroup = new QActionGroup(this);
    m_experimentsPage = new ExperimentsPage;
    addPage(m_experimentsPage, tr("&Experiments"));
    connect(m_experimentsPage, &ExperimentsPage::metricChanged, this, &MainWindow::applyMetric);
    connect(m_experimentsPage, &ExperimentsPage::compareDialogRequested, this, &MainWindow::askCompareNumber);
    m_profilePage = new ProfilePage;
    addPage(m_profilePage, tr("&Profile"));
    connect(m_profilePage, &ProfilePage::openProfileRequested, this, &MainWindow::chooseProfileFile);
    connect(m_profilePage, &ProfilePage::openProfileFileRequested, this, &MainWindow::openProfile);
    connect(m_profilePage, &ProfilePage::optimizeRequested, this, &MainWindow::chooseSessionFromProfile);
    m_rooflinePage = new RooflinePage;
    addPage(m_rooflinePage, tr("&Roofline"));
    m_comparePage = new ComparePage;
    addPage(m_comparePage, tr("&Compare"));
    connect(m_comparePage, &ComparePage::pinChanged, this, [this](int number) {
        m_pinnedCompare = -1;
        if (number >= 0)
            setCompareExperiment(number);
        m_pinnedCompare = number;
    });
    connect(m_pages, &QTabWidget::currentChanged, this, [this](int index) {
        const QList<QAction*> actions = m_pageGroup->actions();
        if (index >= 0 && index < actions.size())
            actions[index]->setChecked(true);
    });
    setCentralWidget(m_pages);
}

void MainWindow::addPage(Page* page, const QString& title)
{
    const int index = m_pages->addTab(page, QString(title).remove(QLatin1Char('&')));
    m_pageList.push_back(page);
    QAction* action = m_pageGroup->addAction(title);
    action->setCheckable(true);
    action->setChecked(index == 0);
    action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + index)));
    connect(action, &QAction::triggered, this, [this, index] { showPage(index); });
    connect(page, &Page::experimentActivated, this, &MainWindow::selectExperiment);
    connect(page, &Page::compareRequested, this, &MainWindow::setCompareExperiment);
    connect(page, &Page::experimentMenuRequested, this, &MainWindow::showExperimentMenu);
    connect(page, &Page::statusMessage, this, [this](const QString& text) { statusBar()->showMessage(text, 5000); });
}

void MainWindow::showPageNamed(const QString& name)
{
    static const QStringList names = {QStringLiteral("experiments"), QStringLiteral("profile"),
                                      QStringLiteral("roofline"), QStringLiteral("compare")};
    const int index = int(names.indexOf(name));
    if (index >= 0)
        showPage(index);
}

void MainWindow::showPage(int index)
{
    if (index >= 0 && index < m_pages->count())
        m_pages->setCurrentIndex(index);
}

QTableView* MainWindow::tableView() const { return m_experimentsPage->tableView(); }
ExperimentTableModel* MainWindow::tableModel() const { return m_experimentsPage->tableModel(); }
ExperimentFilterModel* MainWindow::filterModel() const { return m_experimentsPage->filterModel(); }
TimelinePlot* MainWindow::timeline() const { return m_experimentsPage->timeline(); }
DiffView* MainWindow::parentDiffView() const { return m_experimentsPage->parentDiffView(); }
DiffView* MainWindow::compareDiffView() const { return m_experimentsPage->compareDiffView(); }
SourceView* MainWindow::sourceView() const { return m_experimentsPage->sourceView(); }
DetailsPanel* MainWindow::detailsPanel() const { return m_experimentsPage->detailsPanel(); }
QTabWidget* MainWindow::tabs() const { return m_experimentsPage->tabs(); }
QLineEdit* MainWindow::filterEdit() const { return m_experimentsPage->filterEdit(); }
QComboBox* MainWindow::kernelCombo() const { return m_experimentsPage->kernelCombo(); }
QCheckBox* MainWindow::outcomeCheckBox(Outcome outcome) const { return m_experimentsPage->outcomeCheckBox(outcome); }
QComboBox* MainWindow::metricCombo() const { return m_experimentsPage->metricCombo(); }

void MainWindow::buildStatusBar()
{
    m_pathLabel = new QLabel;
    m_pathLabel->setObjectName(QStringLiteral("pathLabel"));
    m_pathLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_countsLabel = new QLabel;
    m_countsLabel->setObjectName(QStringLiteral("countsLabel"));
    m_loadLabel = new QLabel;
    m_loadLabel->setObjectName(QStringLiteral("loadLabel"));
    m_warningsButton = new QToolButton;
    m_warningsButton->setObjectName(QStringLiteral("warningsButton"));
    m_warningsButton->setAutoRaise(true);
    m_warningsButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_warningsButton->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
    m_warningsButton->setVisible(false);
    connect(m_warningsButton, &QToolButton::clicked, this, &MainWindow::showWarnings);
    statusBar()->addWidget(m_pathLabel, 1);
    statusBar()->addPermanentWidget(m_warningsButton);
    statusBar()->addPermanentWidget(m_countsLabel);
    statusBar()->addPermanentWidget(m_loadLabel);
}

void MainWindow::restoreLayout()
{
    QSettings settings;
    const QByteArray docks = settings.value(QStringLiteral("ui/windowState")).toByteArray();
    if (!docks.isEmpty())
        restoreState(docks);
    m_experimentsPage->restoreLayout(settings);
    showPage(settings.value(QStringLiteral("ui/page"), 0).toInt());
}

void MainWindow::saveLayout()
{
    if (!m_options.useSettings)
        return;
    QSettings settings;
    settings.setValue(QStringLiteral("ui/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("ui/windowState"), saveState());
    settings.setValue(QStringLiteral("ui/page"), m_pages->currentIndex());
    m_experimentsPage->saveLayout(settings);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (m_loop && m_loop->isRunning()) {
        // Stop, let the evaluation in flight finish briefly, then cancel it: closing never hangs.
        m_closing = true;
        statusBar()->showMessage(tr("Stopping the agent loop…"));
        m_loop->shutdown();
    }
    saveLayout();
    QMainWindow::closeEvent(event);
}

// ------------------------------------------------------------------------------------------------
// Opening and following a session

void MainWindow::setMessageHandler(MessageHandler handler) { m_messageHandler = std::move(handler); }

void MainWindow::reportError(const QString& title, const QString& message)
{
    statusBar()->showMessage(message.section(QLatin1Char('\n'), 0, 0), 10000);
    if (m_messageHandler)
        m_messageHandler(title, message);
    else
        QMessageBox::warning(this, title, message);
}

void MainWindow::openSession(const QString& dir)
{
    m_pendingDir = QFileInfo(dir).absoluteFilePath();
    m_pendingIsReload = false;
    m_reloadIsAutomatic = false;
    m_openStartedMs = QDateTime::currentMSecsSinceEpoch();
    statusBar()->showMessage(tr("Opening %1…").arg(QDir::toNativeSeparators(m_pendingDir)));
    m_loader->open(m_pendingDir);
}

void MainWindow::reload()
{
    if (!m_snapshot)
        return;
    m_pendingDir = m_snapshot->dir;
    m_pendingIsReload = true;
    m_reselectAfterLoad = m_selected;
    m_recompareAfterLoad = m_compare;
    m_openStartedMs = QDateTime::currentMSecsSinceEpoch();
    statusBar()->showMessage(tr("Reloading %1…").arg(QDir::toNativeSeparators(m_pendingDir)));
    m_loader->open(m_pendingDir);
}

void MainWindow::onOpened(SnapshotPtr snapshot)
{
    const bool isReload = m_pendingIsReload && m_snapshot && snapshot->dir == m_snapshot->dir;
    const int reselect = isReload ? m_reselectAfterLoad : -1;
    const int recompare = isReload ? m_recompareAfterLoad : -1;
    m_pendingDir.clear();
    m_pendingIsReload = false;
    m_reloadIsAutomatic = false;

    m_snapshot = snapshot;
    m_experiments = snapshot->experiments;
    m_indexOfNumber.clear();
    indexExperiments(0);
    m_warnings = snapshot->warnings;

    m_selected = -1;
    m_compare = -1;
    m_pinnedCompare = -1;
    m_sourcesPending = 0;
    for (Page* page : m_pageList)
        page->setSession(m_snapshot, m_experiments);
    // A session made from a profile brings it along when no profile is open yet.
    if (!isReload && !m_profile && !m_profileLoader->isBusy()) {
        const QString origin = m_profilePage->originProfileFile();
        if (!origin.isEmpty())
            openProfile(origin);
    }
    updateCounts();
    updateWarningsIndicator();
    updateTitle();
    m_reloadAction->setEnabled(true);
    m_compareAction->setEnabled(true);
    m_clearCompareAction->setEnabled(false);

    m_lastLoadMs = QDateTime::currentMSecsSinceEpoch() - m_openStartedMs;
    m_pathLabel->setText(QDir::toNativeSeparators(snapshot->dir));
    m_pathLabel->setToolTip(QDir::toNativeSeparators(snapshot->dir));
    m_loadLabel->setText(tr("loaded in %1 ms").arg(m_lastLoadMs));
    m_loadLabel->setToolTip(tr("Reading and reconciling the session took %1 ms; showing it took %2 ms.")
                                .arg(snapshot->openMs)
                                .arg(std::max<qint64>(0, m_lastLoadMs - snapshot->openMs)));
    if (m_warnings.isEmpty())
        statusBar()->clearMessage();  // the path, the counts and the load time say it
    else
        statusBar()->showMessage(tr("Session opened with %n warning(s).", nullptr, int(m_warnings.size())), 5000);

    if (m_options.useSettings) {
        QSettings settings;
        addRecentSession(settings, snapshot->dir);
    }
    m_watcher->watch(m_followLive ? snapshot->dir : QString());

    int select = reselect >= 0 && experiment(reselect) ? reselect : -1;
    if (select < 0)
        select = bestKeptExperiment().value_or(-1);
    if (recompare >= 0 && experiment(recompare))
        setCompareExperiment(recompare);
    selectExperiment(select);
    emit sessionLoaded(snapshot->dir);
    checkSettled();
}

void MainWindow::onOpenFailed(quint64, const QString& dir, const QString& message)
{
    const bool automatic = m_reloadIsAutomatic;
    m_pendingDir.clear();
    m_pendingIsReload = false;
    m_reloadIsAutomatic = false;
    if (automatic) {
        // A reload triggered by live follow: the shown data stays, the problem goes to the warnings.
        m_warnings.append(message);
        updateWarningsIndicator();
        statusBar()->showMessage(message.section(QLatin1Char('\n'), 0, 0), 10000);
    } else {
        reportError(tr("Cannot open session"), message);
    }
    Q_UNUSED(dir);
    emit sessionFailed(message);
    checkSettled();
}

void MainWindow::onSessionChanged()
{
    if (m_followLive && m_snapshot && m_pendingDir.isEmpty())
        m_loader->refresh();
}

void MainWindow::onRefreshed(const SessionUpdate& update)
{
    if (!update.warnings.isEmpty()) {
        m_warnings.append(update.warnings);
        updateWarningsIndicator();
    }
    if (update.added.empty())
        return;
    // Skip rows already known (a refresh racing a reload can deliver a row twice).
    std::vector<Experiment> fresh;
    fresh.reserve(update.added.size());
    for (const Experiment& e : update.added) {
        if (!m_indexOfNumber.contains(e.number))
            fresh.push_back(e);
    }
    if (fresh.empty())
        return;
    const std::size_t first = m_experiments.size();
    m_experiments.insert(m_experiments.end(), fresh.begin(), fresh.end());
    indexExperiments(first);
    for (Page* page : m_pageList)
        page->appendExperiments(fresh);
    updateCounts();
    statusBar()->showMessage(tr("%n new experiment(s) recorded.", nullptr, int(fresh.size())), 5000);
    emit experimentsAppended(int(fresh.size()));
}

void MainWindow::onReportsReloaded(const SessionReports& reports)
{
    if (!m_snapshot || reports.generation != m_snapshot->generation)
        return;
    // The same session with its verify.json and ceilings.json replaced; the rows stay as they are.
    auto updated = std::make_shared<SessionSnapshot>(*m_snapshot);
    updated->verify = reports.verify;
    updated->verifyError = reports.verifyError;
    updated->ceilings = reports.ceilings;
    updated->ceilingsError = reports.ceilingsError;
    m_snapshot = updated;
    for (Page* page : m_pageList)
        page->setSessionReports(m_snapshot);
    statusBar()->showMessage(tr("verify.json or ceilings.json of the session changed and was read again."), 5000);
    emit sessionReportsReloaded();
}

void MainWindow::onRefreshFailed(const QString& message)
{
    // results.tsv was rewritten under us (a repair), or a row is unreadable: read everything again.
    statusBar()->showMessage(tr("Re-reading the session: %1").arg(message), 5000);
    if (!m_snapshot || !m_pendingDir.isEmpty())
        return;
    reload();
    m_reloadIsAutomatic = true;
}

void MainWindow::setFollowLive(bool follow)
{
    m_followLive = follow;
    if (m_followAction->isChecked() != follow)
        m_followAction->setChecked(follow);
    m_watcher->watch(follow && m_snapshot ? m_snapshot->dir : QString());
    if (follow && m_snapshot)
        m_loader->refresh();  // catch up with what happened while not following
}

void MainWindow::indexExperiments(std::size_t first)
{
    for (std::size_t i = first; i < m_experiments.size(); ++i)
        m_indexOfNumber.insert(m_experiments[i].number, i);
}

const Experiment* MainWindow::experiment(int number) const
{
    const auto it = m_indexOfNumber.constFind(number);
    return it == m_indexOfNumber.constEnd() ? nullptr : &m_experiments[*it];
}

QString MainWindow::sessionDir() const { return m_snapshot ? m_snapshot->dir : QString(); }

QString MainWindow::sessionName() const
{
    if (!m_snapshot)
        return {};
    if (!m_snapshot->info.name.empty())
        return QString::fromStdString(m_snapshot->info.name);
    return QFileInfo(m_snapshot->dir).fileName();
}

std::optional<int> MainWindow::bestKeptExperiment() const
{
    if (m_experiments.empty())
        return std::nullopt;
    const Experiment* best = nullptr;
    for (const Experiment& e : m_experiments) {
        if (e.outcome != Outcome::Kept || !e.passed() || !e.speedup_vs_pytorch)
            continue;
        if (!best || *e.speedup_vs_pytorch > *best->speedup_vs_pytorch)
            best = &e;
    }
    if (!best)
        best = &m_experiments.back();
    return best->number;
}

// ------------------------------------------------------------------------------------------------
// Selection: one selected and one compared experiment, pushed into every page

void MainWindow::selectExperiment(int number)
{
    const int selected = number >= 0 && experiment(number) ? number : -1;
    if (selected == m_selected && (selected < 0 || m_sourcesPending != 0))
        return;
    if (selected == m_selected) {
        pushSelection();  // a page may have moved on its own (a filter); show it there again
        return;
    }
    m_selected = selected;
    pushSelection();
    if (selected < 0) {
        m_sourcesPending = 0;
        emit selectionChanged(-1);
        checkSettled();
        return;
    }
    requestSources();
    emit selectionChanged(selected);
}

void MainWindow::setCompareExperiment(int number)
{
    if (m_pinnedCompare >= 0 && number != m_pinnedCompare) {
        statusBar()->showMessage(tr("Experiment %1 is pinned as the baseline: unpin it on the Compare page first.")
                                     .arg(m_pinnedCompare),
                                 5000);
        return;
    }
    m_compare = number >= 0 && experiment(number) ? number : -1;
    m_clearCompareAction->setEnabled(m_compare >= 0);
    pushSelection();
    if (m_selected >= 0)
        requestSources();
}

void MainWindow::pushSelection()
{
    for (Page* page : m_pageList)
        page->setSelection(m_selected, m_compare);
}

void MainWindow::requestSources()
{
    const Experiment* e = experiment(m_selected);
    if (!e)
        return;
    const Experiment* compare = m_compare >= 0 && m_compare != m_selected ? experiment(m_compare) : nullptr;
    m_sourcesPending = m_loader->requestSources(*e, compare);
}

void MainWindow::onSourcesReady(const SourcesResult& result)
{
    if (result.id != m_sourcesPending || result.number != m_selected)
        return;
    m_sourcesPending = 0;
    if (!experiment(result.number)) {
        checkSettled();
        return;
    }
    if (!result.error.isEmpty())
        statusBar()->showMessage(result.error, 10000);
    for (Page* page : m_pageList)
        page->showSources(result);
    emit sourcesShown(result.number);
    checkSettled();
}

bool MainWindow::isSettled() const
{
    return m_pendingDir.isEmpty() && m_sourcesPending == 0 && !m_profileLoader->isBusy() && !m_creating;
}

void MainWindow::openProfile(const QString& path)
{
    statusBar()->showMessage(tr("Opening profile %1…").arg(QDir::toNativeSeparators(path)));
    m_profileLoader->open(QFileInfo(path).absoluteFilePath());
}

void MainWindow::chooseProfileFile()
{
    const QString start = m_profile ? QFileInfo(m_profile->path).absolutePath()
                                    : (m_snapshot ? m_snapshot->dir : QDir::homePath());
    const QString file = QFileDialog::getOpenFileName(this, tr("Open Profile"), start, tr("Profiles (*.json)"));
    if (!file.isEmpty()) {
        openProfile(file);
        showPage(ProfilePageIndex);
    }
}

void MainWindow::chooseSessionFromProfile(const QStringList& kernelTypes)
{
    if (!m_profile || kernelTypes.isEmpty())
        return;
    const QString start = QFileInfo(QFileInfo(m_profile->path).absoluteDir(),
                                    QFileInfo(m_profile->path).completeBaseName() + QStringLiteral("-session"))
                              .absoluteFilePath();
    const QString dir = QFileDialog::getSaveFileName(this, tr("New Session Folder for %1").arg(kernelTypes.join(QStringLiteral(", "))),
                                                     start, QString(), nullptr,
                                                     QFileDialog::ShowDirsOnly | QFileDialog::DontConfirmOverwrite);
    if (!dir.isEmpty())
        createSessionFromProfile(dir, kernelTypes);
}

void MainWindow::createSessionFromProfile(const QString& dir, const QStringList& kernelTypes)
{
    if (m_creating) {
        reportError(tr("Cannot create session"), tr("A session is still being created; wait for it to finish."));
        return;
    }
    if (!m_profile) {
        reportError(tr("Cannot create session"), tr("Open a profile first (File ▸ Open Profile…)."));
        return;
    }
    profile::FromProfileOptions options;
    options.min_share = 0;  // the user chose the types: keep them however small
    for (const QString& label : kernelTypes) {
        const std::optional<KernelType> type = parse_kernel_type(label.toStdString());
        if (!type) {
            reportError(tr("Cannot create session"), tr("“%1” is not one of the nine kernel types.").arg(label));
            return;
        }
        options.types.push_back(*type);
    }
    const QString absolute = QFileInfo(dir).absoluteFilePath();
    const std::string profileFile = QFileInfo(m_profile->path).absoluteFilePath().toStdString();
    m_creating = true;
    statusBar()->showMessage(tr("Creating session %1 from %2…").arg(QDir::toNativeSeparators(absolute), kernelTypes.join(QStringLiteral(", "))));
    QPointer<MainWindow> self(this);
    m_createThread = QThread::create([self, absolute, profileFile, options] {
        QString error;
        try {
            profile::create_session_from_profile(absolute.toStdString(), profileFile, options);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QObject* target = self.data();
        if (!target)
            return;
        QMetaObject::invokeMethod(
            target,
            [self, absolute, error] {
                if (!self)
                    return;
                self->m_creating = false;
                if (!error.isEmpty()) {
                    self->reportError(tr("Cannot create session"),
                                      tr("The session “%1” could not be created:\n%2").arg(QDir::toNativeSeparators(absolute), error));
                    emit self->sessionCreationFailed(error);
                    self->checkSettled();
                    return;
                }
                emit self->sessionCreated(absolute);
                self->openSession(absolute);
            },
            Qt::QueuedConnection);
    });
    connect(m_createThread, &QThread::finished, m_createThread, &QObject::deleteLater);
    m_createThread->start();
}

void MainWindow::checkSettled()
{
    if (isSettled())
        emit settled();
}

void MainWindow::showCompareOnCurrentPage()
{
    if (m_pages->currentWidget() == m_experimentsPage)
        m_experimentsPage->showCompareTab();
    else
        m_pages->setCurrentWidget(m_comparePage);
}

void MainWindow::askCompareNumber()
{
    if (m_experiments.empty())
        return;
    bool ok = false;
    const int lowest = m_experiments.front().number;
    const int highest = m_experiments.back().number;
    const int proposal = m_compare >= 0 ? m_compare : std::max(lowest, m_selected - 1);
    const int number = QInputDialog::getInt(this, tr("Compare With"),
                                            tr("Compare experiment %1 with experiment number:").arg(m_selected),
                                            proposal, std::min(lowest, highest), std::max(lowest, highest), 1, &ok);
    if (!ok)
        return;
    if (!experiment(number)) {
        reportError(tr("No such experiment"), tr("The session has no experiment %1.").arg(number));
        return;
    }
    setCompareExperiment(number);
    showCompareOnCurrentPage();
}

void MainWindow::showExperimentMenu(int number, const QPoint& globalPos)
{
    const Experiment* e = experiment(number);
    if (!e)
        return;
    QMenu menu(this);
    if (m_selected >= 0 && number != m_selected) {
        QAction* compare = menu.addAction(tr("Compare #%1 with #%2").arg(m_selected).arg(number));
        connect(compare, &QAction::triggered, this, [this, number] {
            setCompareExperiment(number);
            showCompareOnCurrentPage();
        });
    }
    QAction* show = menu.addAction(tr("Show #%1").arg(number));
    connect(show, &QAction::triggered, this, [this, number] { selectExperiment(number); });
    menu.addAction(m_compareAction);
    if (m_compare >= 0)
        menu.addAction(m_clearCompareAction);
    menu.addSeparator();
    QAction* copy = menu.addAction(tr("Copy Commit Hash"));
    const QString commit = QString::fromStdString(e->commit);
    connect(copy, &QAction::triggered, this, [commit] { QApplication::clipboard()->setText(commit); });
    addLoopActions(menu, *e);
    menu.exec(globalPos);
}

// ------------------------------------------------------------------------------------------------
// Status, menus, dialogs

void MainWindow::updateCounts()
{
    int kept = 0, reverted = 0, failed = 0;
    for (const Experiment& e : m_experiments) {
        switch (e.outcome) {
        case Outcome::Kept: ++kept; break;
        case Outcome::Reverted: ++reverted; break;
        case Outcome::Failed: ++failed; break;
        case Outcome::Baseline: break;
        }
    }
    if (!m_snapshot) {
        m_countsLabel->setText(tr("No session open"));
        return;
    }
    m_countsLabel->setText(tr("%1 experiments · %2 kept · %3 reverted · %4 failed")
                               .arg(QLocale().toString(qlonglong(m_experiments.size())))
                               .arg(QLocale().toString(kept))
                               .arg(QLocale().toString(reverted))
                               .arg(QLocale().toString(failed)));
}

void MainWindow::updateWarningsIndicator()
{
    m_warningsButton->setVisible(!m_warnings.isEmpty());
    m_warningsButton->setText(tr("%n warning(s)", nullptr, int(m_warnings.size())));
    m_warningsButton->setToolTip(m_warnings.join(QLatin1Char('\n')));
    if (m_warningsDialog)
        m_warningsText->setPlainText(m_warnings.join(QLatin1Char('\n')));
}

void MainWindow::showWarnings()
{
    if (!m_warningsDialog) {
        auto* dialog = new QDialog(this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->setWindowTitle(tr("Session Warnings"));
        dialog->setModal(false);
        auto* layout = new QVBoxLayout(dialog);
        layout->addWidget(new QLabel(tr("Repairs the session needs (the workbench opens sessions read-only and "
                                        "never changes them; run “autokernel session repair” to apply them):")));
        m_warningsText = new QPlainTextEdit;
        m_warningsText->setReadOnly(true);
        layout->addWidget(m_warningsText);
        auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
        connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
        layout->addWidget(buttons);
        dialog->resize(700, 320);
        m_warningsDialog = dialog;
    }
    m_warningsText->setPlainText(m_warnings.join(QLatin1Char('\n')));
    m_warningsDialog->show();
    m_warningsDialog->raise();
}

void MainWindow::updateTitle()
{
    const QString app = tr("AutoKernel Workbench");
    setWindowTitle(m_snapshot ? sessionName() + QStringLiteral(" — ") + app : app);
    if (!m_snapshot)
        m_pathLabel->setText(tr("Open a session with File ▸ Open Session… (Ctrl+O)"));
}

void MainWindow::fillRecentMenu()
{
    m_recentMenu->clear();
    QSettings settings;
    const QStringList recent = recentSessions(settings);
    for (const QString& dir : recent) {
        QAction* action = m_recentMenu->addAction(QDir::toNativeSeparators(dir));
        connect(action, &QAction::triggered, this, [this, dir] { openSession(dir); });
    }
    if (recent.isEmpty()) {
        m_recentMenu->addAction(tr("No recent sessions"))->setEnabled(false);
        return;
    }
    m_recentMenu->addSeparator();
    connect(m_recentMenu->addAction(tr("Clear List")), &QAction::triggered, this, [] {
        QSettings settings;
        clearRecentSessions(settings);
    });
}

void MainWindow::chooseSessionFolder()
{
    const QString start = m_snapshot ? QFileInfo(m_snapshot->dir).absolutePath() : QDir::homePath();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Session"), start);
    if (!dir.isEmpty())
        openSession(dir);
}

bool MainWindow::saveScreenshot(const QString& file, QString* error)
{
    const QPixmap pixmap = grab();
    if (pixmap.isNull()) {
        if (error)
            *error = tr("The window could not be rendered.");
        return false;
    }
    if (!pixmap.save(file, "PNG")) {
        if (error)
            *error = tr("Could not write “%1”.").arg(QDir::toNativeSeparators(file));
        return false;
    }
    return true;
}

void MainWindow::chooseScreenshotFile()
{
    const QString file = QFileDialog::getSaveFileName(this, tr("Save Screenshot"),
                                                      QDir::home().filePath(QStringLiteral("workbench.png")),
                                                      tr("PNG images (*.png)"));
    if (file.isEmpty())
        return;
    QString error;
    if (saveScreenshot(file, &error))
        statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(file)), 5000);
    else
        reportError(tr("Screenshot failed"), error);
}

void MainWindow::chooseLanguage(const QString& language)
{
    QSettings settings;
    if (language == QLatin1String("system"))
        settings.remove(QLatin1String(kLanguageSettingKey));
    else
        settings.setValue(QLatin1String(kLanguageSettingKey), language);
    statusBar()->showMessage(tr("The language changes the next time the workbench starts."), 8000);
}

void MainWindow::showAbout()
{
    QMessageBox::about(
        this, tr("About AutoKernel Workbench"),
        tr("<h3>AutoKernel Workbench %1</h3>"
           "<p>Browse GPU-kernel optimization sessions: every experiment is a git commit.</p>"
           "<table><tr><td>Qt</td><td>%2</td></tr><tr><td>QCustomPlot</td><td>%3</td></tr>"
           "<tr><td>Syntax highlighter</td><td>%4</td></tr><tr><td>libgit2</td><td>%5</td></tr></table>")
            .arg(applicationVersion().toHtmlEscaped(), qtRuntimeVersion().toHtmlEscaped(),
                 qcustomplotVersion().toHtmlEscaped(), highlighterVersion().toHtmlEscaped(),
                 libgit2Version().toHtmlEscaped()));
}

void MainWindow::setMetric(TimelinePlot::Metric metric)
{
    m_experimentsPage->setMetric(metric);
}

void MainWindow::applyMetric(TimelinePlot::Metric metric)
{
    for (QAction* action : m_metricGroup->actions()) {
        if (action->data().toInt() == static_cast<int>(metric))
            action->setChecked(true);
    }
}

// ------------------------------------------------------------------------------------------------
// The agent loop: the agent panel, the kernel editor and the experiment overrides

namespace {

// A run that only applies `budget` experiments' worth of commands given up front (an edit: 1, an
// override: 0). The agent is never asked, but the loop needs one: the built-in search agent.
LoopRunSettings oneShotSettings(const QString& dir, int budget)
{
    LoopRunSettings settings;
    settings.sessionDir = dir;
    settings.agent.kind = "search";
    settings.options = loopOptionsWithAgentTexts();
    settings.options.tag = "gui-" + utc_now_iso8601();
    settings.budget.max_experiments = budget;
    return settings;
}

}  // namespace

void MainWindow::buildAgentDocks()
{
    m_loop = new LoopWorker(this);

    m_agentPanel = new AgentPanel;
    m_agentPanel->setObjectName(QStringLiteral("agentPanel"));
    m_agentPanel->setAvailableAgentKinds(built_agent_kinds());
    auto* scroll = new QScrollArea;
    scroll->setWidget(m_agentPanel);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_agentDock = new QDockWidget(tr("Agent Loop"), this);
    m_agentDock->setObjectName(QStringLiteral("agentDock"));
    m_agentDock->setWidget(scroll);
    addDockWidget(Qt::RightDockWidgetArea, m_agentDock);

    m_kernelEditor = new KernelEditor;
    m_kernelEditor->setObjectName(QStringLiteral("kernelEditor"));
    m_editorDock = new QDockWidget(tr("Kernel Editor"), this);
    m_editorDock->setObjectName(QStringLiteral("kernelEditorDock"));
    // In a scroll area like the agent panel, so the docks never force a wide window.
    auto* editorScroll = new QScrollArea;
    editorScroll->setWidget(m_kernelEditor);
    editorScroll->setWidgetResizable(true);
    editorScroll->setFrameShape(QFrame::NoFrame);
    m_editorDock->setWidget(editorScroll);
    addDockWidget(Qt::RightDockWidgetArea, m_editorDock);
    tabifyDockWidget(m_agentDock, m_editorDock);
    m_agentDock->raise();
    resizeDocks({m_agentDock}, {460}, Qt::Horizontal);

    m_loopStateLabel = new QLabel;
    m_loopStateLabel->setObjectName(QStringLiteral("loopStateLabel"));
    statusBar()->addPermanentWidget(m_loopStateLabel);

    connect(m_agentPanel, &AgentPanel::startRequested, this, &MainWindow::startLoop);
    connect(m_agentPanel, &AgentPanel::pauseRequested, m_loop, &LoopWorker::pause);
    connect(m_agentPanel, &AgentPanel::resumeRequested, m_loop, &LoopWorker::resume);
    connect(m_agentPanel, &AgentPanel::stepRequested, m_loop, &LoopWorker::step);
    connect(m_agentPanel, &AgentPanel::stopRequested, m_loop, &LoopWorker::stop);
    connect(m_agentPanel, &AgentPanel::steerRequested, this,
            [this](const Steering& steering, double threshold, const MoveOnRules& moveOn) {
                m_loop->steer(command::Steer{steering, threshold, moveOn});
            });
    connect(m_loop, &LoopWorker::stateChanged, this, &MainWindow::onLoopStateChanged);
    connect(m_loop, &LoopWorker::kernelChanged, this, [this](const QString& kernel, const QString& reason) {
        m_loopKernel = kernel;
        m_agentPanel->setCurrentKernel(kernel);
        m_agentPanel->appendLog(tr("kernel %1: %2").arg(kernel, reason));
        updateLoopStatus();
    });
    connect(m_loop, &LoopWorker::experimentStarted, this, [this](const QString& kernel, const QString& description) {
        m_agentPanel->setCurrentExperiment(tr("%1: %2 (evaluating…)").arg(kernel, description));
    });
    connect(m_loop, &LoopWorker::experimentFinished, this, &MainWindow::onLoopExperimentFinished);
    connect(m_loop, &LoopWorker::logLine, m_agentPanel, &AgentPanel::appendLog);
    connect(m_loop, &LoopWorker::runFinished, this, &MainWindow::onLoopFinished);

    connect(m_kernelEditor, &KernelEditor::kernelSelected, this, &MainWindow::refreshKernelSources);
    connect(m_kernelEditor, &KernelEditor::runEditRequested, this, &MainWindow::runEdit);
    connect(this, &MainWindow::sessionLoaded, this, &MainWindow::onSessionLoadedForLoop);
    connect(this, &MainWindow::experimentsAppended, this, &MainWindow::refreshKernelSources);

    updateLoopStatus();
    updateLoopControls();
}

bool MainWindow::loopWorksOnShownSession() const
{
    return m_snapshot && m_loop->isRunning() && m_loop->sessionDir() == m_snapshot->dir;
}

void MainWindow::onSessionLoadedForLoop()
{
    QStringList kernels;
    for (const KernelEntry& k : m_snapshot->info.kernels)
        kernels.append(QString::fromStdString(k.name));
    m_agentPanel->setKernels(kernels);
    m_kernelEditor->setKernels(kernels);
    refreshKernelSources();
    updateLoopControls();
}

int MainWindow::bestExperimentOfKernel(const QString& kernelName) const
{
    const std::string file = Session::kernel_file_of(kernelName.toStdString());
    for (auto it = m_experiments.rbegin(); it != m_experiments.rend(); ++it) {
        if (it->kernel_file == file && it->on_frontier())
            return it->number;
    }
    return -1;
}

void MainWindow::refreshKernelSources()
{
    // The session's work tree holds every kernel's current best (Session::record replaces the file
    // when an experiment is kept): small files, read directly.
    if (!m_snapshot)
        return;
    const QDir dir(m_snapshot->dir);
    for (const KernelEntry& k : m_snapshot->info.kernels) {
        const QString name = QString::fromStdString(k.name);
        QFile file(dir.filePath(QString::fromStdString(Session::kernel_file_of(k.name))));
        if (!file.open(QIODevice::ReadOnly)) {
            if (name == m_kernelEditor->kernelName())
                m_kernelEditor->setStatus(tr("%1 is missing from the session folder.").arg(file.fileName()));
            continue;
        }
        const QString source = QString::fromUtf8(file.readAll());
        m_agentPanel->setKernelSource(name, source);
        if (name == m_kernelEditor->kernelName())
            m_kernelEditor->setBestSource(name, source, bestExperimentOfKernel(name));
    }
}

QString MainWindow::overrideBlockedReason() const
{
    if (!m_snapshot)
        return tr("Open a session first.");
    if (!m_loop->isRunning())
        return QString();
    if (!loopWorksOnShownSession())
        return tr("The agent loop runs on another session (%1).").arg(QDir::toNativeSeparators(m_loop->sessionDir()));
    if (m_oneShot || m_loop->state() == LoopState::Stopping)
        return tr("Wait until the current operation has finished.");
    return QString();
}

void MainWindow::updateLoopControls()
{
    m_agentPanel->setStartBlocked(m_snapshot ? QString() : tr("Open a session first."));
    const QString blocked = overrideBlockedReason();
    m_kernelEditor->setRunAllowed(blocked.isEmpty(), blocked);
}

void MainWindow::updateLoopStatus()
{
    const LoopState state = m_loop->state();
    QString text = tr("Loop: %1").arg(AgentPanel::stateName(state));
    if (!m_loopKernel.isEmpty() && (state == LoopState::Running || state == LoopState::Paused))
        text += QStringLiteral(" · ") + m_loopKernel;
    m_loopStateLabel->setText(text);
    m_loopStateLabel->setStyleSheet(
        QStringLiteral("QLabel { color: %1; }").arg(AgentPanel::stateColor(state).name()));
    m_loopStateLabel->setToolTip(m_loop->isRunning() ? QDir::toNativeSeparators(m_loop->sessionDir()) : QString());
}

void MainWindow::startLoop(const AgentRunRequest& request)
{
    if (!m_snapshot)
        return;
    LoopRunSettings settings;
    settings.sessionDir = m_snapshot->dir;
    QStringList missing;
    settings.options = loopOptionsWithAgentTexts(&missing);
    for (const QString& line : missing)
        m_agentPanel->appendLog(line);
    settings.agent = request.agent;
    settings.options.steering = request.steering;
    settings.options.keep_rule.threshold = request.keepThreshold;
    settings.options.move_on = request.moveOn;
    settings.options.tag = "gui-" + utc_now_iso8601();
    settings.budget = request.budget;
    if (request.singleStep) {
        settings.options.start_paused = true;
        settings.initialCommands.emplace_back(std::in_place_type<command::Step>);
    }
    startRun(settings, false);
}

void MainWindow::startRun(const LoopRunSettings& settings, bool oneShot)
{
    m_loopKernel.clear();
    if (!m_loop->start(settings))
        return;
    m_oneShot = oneShot;
    m_agentPanel->appendLog(tr("— %1 on %2 —")
                                .arg(oneShot ? tr("one-shot operation") : tr("loop started"),
                                     QDir::toNativeSeparators(settings.sessionDir)));
    updateLoopControls();
    updateLoopStatus();
}

void MainWindow::onLoopStateChanged(LoopState state)
{
    m_agentPanel->setState(state);
    updateLoopStatus();
    updateLoopControls();
}

void MainWindow::onLoopExperimentFinished(const Experiment& experiment, const QString& summary)
{
    m_agentPanel->setCurrentExperiment(summary);
    m_agentPanel->appendLog(summary);
    if (m_editSubmitted && experiment.agent == "user") {
        m_editSubmitted = false;
        m_kernelEditor->setStatus(tr("Your edit: %1").arg(summary));
    }
    // The rows come from disk, like any other writer's: no double insertion with the file watcher.
    if (m_loop->sessionDir() == sessionDir() && m_pendingDir.isEmpty())
        m_loader->refresh();
}

void MainWindow::onLoopFinished(const QString& error)
{
    const bool wasOneShot = m_oneShot;
    m_oneShot = false;
    if (m_editSubmitted) {
        m_editSubmitted = false;
        m_kernelEditor->setStatus(error.isEmpty() ? tr("Your edit was not evaluated.")
                                                  : tr("Your edit was not evaluated: %1").arg(error));
    }
    if (!error.isEmpty()) {
        m_agentPanel->appendLog(error);
        if (!m_closing)
            reportError(wasOneShot ? tr("The operation did not run") : tr("The agent loop stopped"), error);
    }
    if (m_loop->sessionDir() == sessionDir() && m_pendingDir.isEmpty())
        m_loader->refresh();
    updateLoopStatus();
    updateLoopControls();
}

void MainWindow::runEdit(const QString& kernelName, const QString& source, const QString& description)
{
    const QString blocked = overrideBlockedReason();
    if (!blocked.isEmpty()) {
        m_kernelEditor->setStatus(blocked);
        return;
    }
    m_editSubmitted = true;
    if (m_loop->isRunning()) {
        if (m_loop->runSource(kernelName, source, description))
            m_kernelEditor->setStatus(tr("Queued: your edit runs after the experiment in flight."));
        return;
    }
    LoopRunSettings settings = oneShotSettings(m_snapshot->dir, 1);
    settings.initialCommands.emplace_back(std::in_place_type<command::RunSource>, kernelName.toStdString(),
                                          source.toStdString(), description.toStdString());
    m_kernelEditor->setStatus(tr("Evaluating your edit of %1…").arg(kernelName));
    startRun(settings, true);
}

void MainWindow::forceKeepLast()
{
    if (!overrideBlockedReason().isEmpty())
        return;
    if (m_loop->isRunning()) {
        m_loop->forceKeep();
        return;
    }
    LoopRunSettings settings = oneShotSettings(m_snapshot->dir, 0);
    settings.initialCommands.emplace_back(std::in_place_type<command::ForceKeep>);
    startRun(settings, true);
}

void MainWindow::forceRevertLast()
{
    if (!overrideBlockedReason().isEmpty())
        return;
    if (m_loop->isRunning()) {
        m_loop->forceRevert();
        return;
    }
    LoopRunSettings settings = oneShotSettings(m_snapshot->dir, 0);
    settings.initialCommands.emplace_back(std::in_place_type<command::ForceRevert>);
    startRun(settings, true);
}

void MainWindow::branchFrom(int number)
{
    if (!overrideBlockedReason().isEmpty())
        return;
    if (m_loop->isRunning()) {
        m_loop->branchFrom(number);
        return;
    }
    LoopRunSettings settings = oneShotSettings(m_snapshot->dir, 0);
    settings.initialCommands.emplace_back(std::in_place_type<command::BranchFrom>, number);
    startRun(settings, true);
}

void MainWindow::addLoopActions(QMenu& menu, const Experiment& e)
{
    if (m_experiments.empty())
        return;
    menu.addSeparator();
    menu.setToolTipsVisible(true);
    const QString blocked = overrideBlockedReason();
    const Experiment& last = m_experiments.back();
    const bool isLast = e.number == last.number;
    // Each action is offered with the reason it cannot run now, instead of being hidden.
    const auto add = [&](const QString& text, QString whyNot, const QString& what, auto run) {
        if (!blocked.isEmpty())
            whyNot = blocked;
        QAction* action = menu.addAction(text);
        action->setEnabled(whyNot.isEmpty());
        action->setToolTip(whyNot.isEmpty() ? what : whyNot);
        connect(action, &QAction::triggered, this, run);
    };
    QString keepWhyNot;
    if (!isLast)
        keepWhyNot = tr("Only the last experiment (#%1) can be force-kept.").arg(last.number);
    else if (e.outcome == Outcome::Kept || e.outcome == Outcome::Baseline)
        keepWhyNot = tr("#%1 is already kept.").arg(e.number);
    else if (!e.passed())
        keepWhyNot = tr("#%1 did not pass its checks.").arg(e.number);
    add(tr("Force Keep #%1").arg(e.number), keepWhyNot,
        tr("Make #%1 the best of its kernel (recorded as a new kept experiment)").arg(e.number),
        [this] { forceKeepLast(); });
    QString revertWhyNot;
    if (!isLast)
        revertWhyNot = tr("Only the last experiment (#%1) can be force-reverted.").arg(last.number);
    else if (e.outcome != Outcome::Kept)
        revertWhyNot = tr("#%1 was not kept.").arg(e.number);
    add(tr("Force Revert #%1").arg(e.number), revertWhyNot,
        tr("Bring back the best before #%1 (recorded as a new kept experiment)").arg(e.number),
        [this] { forceRevertLast(); });
    add(tr("Branch From #%1").arg(e.number),
        e.passed() ? QString() : tr("#%1 did not pass its checks.").arg(e.number),
        tr("Make #%1 the current best of its kernel and continue from it").arg(e.number),
        [this, number = e.number] { branchFrom(number); });
}

}  // namespace ak