#include "app/main_window.h"

#include "app/app_options.h"
#include "app/language.h"
#include "app/loop_worker.h"
#include "app/recent_sessions.h"
#include "app/session_loader.h"
#include "app/session_watcher.h"
#include "app/versions.h"
#include "loop/agent_factory.h"
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

constexpr Outcome kOutcomes[] = {Outcome::Baseline, Outcome::Kept, Outcome::Reverted, Outcome::Failed};
constexpr TimelinePlot::Metric kMetrics[] = {TimelinePlot::Metric::Speedup, TimelinePlot::Metric::Throughput,
                                             TimelinePlot::Metric::Latency, TimelinePlot::Metric::Bandwidth};

QString metricName(TimelinePlot::Metric metric) { return TimelinePlot::metricLabel(metric); }

QString metricKey(TimelinePlot::Metric metric)
{
    switch (metric) {
    case TimelinePlot::Metric::Speedup: return QStringLiteral("speedup");
    case TimelinePlot::Metric::Throughput: return QStringLiteral("throughput");
    case TimelinePlot::Metric::Latency: return QStringLiteral("latency");
    case TimelinePlot::Metric::Bandwidth: return QStringLiteral("bandwidth");
    }
    return {};
}

QString shortCommit(const std::string& commit) { return QString::fromStdString(commit.substr(0, 8)); }

// Columns shown by default; the others are one right-click on the header away. (Correctness is
// hidden: the outcome column marks failures, and the details tab names FAIL, TIMEOUT or CRASH.)
bool shownByDefault(int column)
{
    switch (column) {
    case ExperimentTableModel::NumberColumn:
    case ExperimentTableModel::KernelColumn:
    case ExperimentTableModel::OutcomeColumn:
    case ExperimentTableModel::LatencyColumn:
    case ExperimentTableModel::SpeedupColumn:
    case ExperimentTableModel::DescriptionColumn:
        return true;
    default:
        return false;
    }
}

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

    buildActions();
    buildCentralWidget();
    buildStatusBar();
    buildAgentDocks();
    buildMenus();
    if (m_options.useSettings)
        restoreLayout();
    updateTitle();
    updateCounts();
    m_table->setFocus();
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
                        tr("The demo session is not installed. It is expected in resources/demo-session of the "
                           "source tree or in share/autokernel-workbench/demo-session of the installation."));
        else
            openSession(demo);
    });

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
        QAction* action = m_metricGroup->addAction(metricName(metric));
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
    connect(m_resetPlotAction, &QAction::triggered, this, [this] { m_plot->resetView(); });

    m_compareAction = new QAction(tr("&Compare With…"), this);
    m_compareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    m_compareAction->setStatusTip(tr("Compare the selected experiment with another experiment"));
    m_compareAction->setEnabled(false);
    connect(m_compareAction, &QAction::triggered, this, &MainWindow::askCompareNumber);

    m_clearCompareAction = new QAction(tr("C&lear Comparison"), this);
    m_clearCompareAction->setEnabled(false);
    connect(m_clearCompareAction, &QAction::triggered, this, [this] { setCompareExperiment(-1); });

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
    file->addAction(m_reloadAction);
    file->addSeparator();
    file->addAction(m_screenshotAction);
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu* view = menuBar()->addMenu(tr("&View"));
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
    // Left: filter bar + table.
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(6, 6, 3, 6);
    leftLayout->setSpacing(4);

    auto* filterRow = new QHBoxLayout;
    m_filterEdit = new QLineEdit;
    m_filterEdit->setObjectName(QStringLiteral("filterEdit"));
    m_filterEdit->setPlaceholderText(tr("Filter by description, kernel, agent…"));
    m_filterEdit->setClearButtonEnabled(true);
    m_kernelCombo = new QComboBox;
    m_kernelCombo->setObjectName(QStringLiteral("kernelCombo"));
    m_kernelCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_kernelCombo->addItem(tr("All kernels"), QString());
    filterRow->addWidget(m_filterEdit, 1);
    filterRow->addWidget(m_kernelCombo);
    leftLayout->addLayout(filterRow);

    auto* outcomeRow = new QHBoxLayout;
    outcomeRow->addWidget(new QLabel(tr("Show:")));
    for (Outcome outcome : kOutcomes) {
        auto* box = new QCheckBox(OutcomeStyle::outcomeName(outcome));
        box->setIcon(OutcomeStyle::icon(outcome));
        box->setChecked(true);
        m_outcomeBoxes.insert(static_cast<int>(outcome), box);
        outcomeRow->addWidget(box);
        connect(box, &QCheckBox::toggled, this,
                [this, outcome](bool on) { changeFilter([&] { m_filter->setOutcomeVisible(outcome, on); }); });
    }
    outcomeRow->addStretch(1);
    leftLayout->addLayout(outcomeRow);

    m_model = new ExperimentTableModel(this);
    m_filter = new ExperimentFilterModel(this);
    m_filter->setSourceModel(m_model);
    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("experimentTable"));
    m_table->setModel(m_filter);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(ExperimentTableModel::NumberColumn, Qt::AscendingOrder);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setHighlightSections(false);
    m_table->horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
    for (int column = 0; column < ExperimentTableModel::ColumnCount; ++column)
        m_table->setColumnHidden(column, !shownByDefault(column));
    // Columns as wide as their values (names in the current language, numbers of typical size); long
    // headers elide and keep their tooltips. The description gets the rest.
    const QFontMetrics metrics = m_table->fontMetrics();
    const int digit = metrics.horizontalAdvance(QLatin1Char('0'));
    const int padding = 2 * m_table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin) + 12;
    int outcomeWidth = 0;
    for (Outcome outcome : kOutcomes)
        outcomeWidth = std::max(outcomeWidth, metrics.horizontalAdvance(OutcomeStyle::outcomeName(outcome)));
    int correctnessWidth = 0;
    for (Correctness c : {Correctness::Pass, Correctness::Fail, Correctness::Timeout, Correctness::Crash})
        correctnessWidth = std::max(correctnessWidth, metrics.horizontalAdvance(OutcomeStyle::correctnessName(c)));
    const std::pair<int, int> widths[] = {
        {ExperimentTableModel::NumberColumn, digit * 6 + padding},
        {ExperimentTableModel::KernelColumn, metrics.horizontalAdvance(QStringLiteral("rotary_embedding")) + padding},
        {ExperimentTableModel::OutcomeColumn, outcomeWidth + m_table->style()->pixelMetric(QStyle::PM_SmallIconSize) + 8 + padding},
        {ExperimentTableModel::CorrectnessColumn, correctnessWidth + padding},
        {ExperimentTableModel::LatencyColumn, digit * 7 + padding},
        {ExperimentTableModel::SpeedupColumn, digit * 6 + padding},
        {ExperimentTableModel::ThroughputColumn, digit * 6 + padding},
        {ExperimentTableModel::BandwidthColumn, digit * 6 + padding},
        {ExperimentTableModel::PctPeakColumn, digit * 5 + padding},
        {ExperimentTableModel::BoundColumn, digit * 10 + padding},
        {ExperimentTableModel::AgentColumn, digit * 12 + padding},
        {ExperimentTableModel::StartedColumn, digit * 19 + padding},
        {ExperimentTableModel::DurationColumn, digit * 5 + padding},
    };
    QHeaderView* header = m_table->horizontalHeader();
    for (const auto& [column, width] : widths) {
        const bool numeric = column == ExperimentTableModel::LatencyColumn || column == ExperimentTableModel::SpeedupColumn;
        // Short numeric columns must still show their header (unit included).
        m_table->setColumnWidth(column, numeric ? std::max(width, header->sectionSizeHint(column)) : width);
    }
    leftLayout->addWidget(m_table, 1);

    connect(m_filterEdit, &QLineEdit::textChanged, this,
            [this](const QString& text) { changeFilter([&] { m_filter->setFilterText(text); }); });
    connect(m_kernelCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        const QString kernel = m_kernelCombo->itemData(index).toString();
        changeFilter([&] { m_filter->setKernelType(kernel); });
        m_plot->setKernelFilter(kernel);
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &MainWindow::onCurrentRowChanged);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &MainWindow::onTableSelectionChanged);
    connect(m_table, &QWidget::customContextMenuRequested, this, &MainWindow::showTableContextMenu);
    connect(m_table->horizontalHeader(), &QWidget::customContextMenuRequested, this,
            &MainWindow::showHeaderContextMenu);

    // Right top: metric selector + timeline.
    auto* plotBox = new QWidget;
    auto* plotLayout = new QVBoxLayout(plotBox);
    plotLayout->setContentsMargins(3, 6, 6, 0);
    plotLayout->setSpacing(2);
    auto* plotBar = new QHBoxLayout;
    auto* metricLabel = new QLabel(tr("&Metric:"));
    m_metricCombo = new QComboBox;
    m_metricCombo->setObjectName(QStringLiteral("metricCombo"));
    for (TimelinePlot::Metric metric : kMetrics)
        m_metricCombo->addItem(metricName(metric), static_cast<int>(metric));
    metricLabel->setBuddy(m_metricCombo);
    plotBar->addWidget(metricLabel);
    plotBar->addWidget(m_metricCombo);
    plotBar->addStretch(1);
    plotLayout->addLayout(plotBar);
    m_plot = new TimelinePlot;
    m_plot->setObjectName(QStringLiteral("timeline"));
    plotLayout->addWidget(m_plot, 1);
    connect(m_metricCombo, &QComboBox::activated, this, [this](int index) {
        setMetric(static_cast<TimelinePlot::Metric>(m_metricCombo->itemData(index).toInt()));
    });
    connect(m_plot, &TimelinePlot::experimentClicked, this, &MainWindow::onPlotClicked);
    connect(m_plot, &TimelinePlot::experimentContextMenuRequested, this, [this](int number, const QPoint& globalPos) {
        onPlotClicked(number);
        showExperimentMenu(number, globalPos);
    });

    // Right bottom: the selected experiment.
    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("experimentTabs"));
    m_tabs->setDocumentMode(true);
    m_parentDiff = new DiffView;
    m_parentDiff->setObjectName(QStringLiteral("parentDiff"));
    m_compareDiff = new DiffView;
    m_compareDiff->setObjectName(QStringLiteral("compareDiff"));
    // A diff's header names both sides (commit, kernel file) on one line; a long one must not set the
    // whole window's minimum width (it is clipped instead).
    for (DiffView* diff : {m_parentDiff, m_compareDiff})
        diff->setMinimumWidth(320);
    m_compareStack = new QStackedWidget;
    auto* hintPage = new QWidget;
    auto* hintLayout = new QVBoxLayout(hintPage);
    m_compareHint = new QLabel(
        tr("Select two experiments to compare them: ctrl-click a second row in the table, or right-click an "
           "experiment and choose “Compare with”."));
    m_compareHint->setWordWrap(true);
    m_compareHint->setAlignment(Qt::AlignCenter);
    auto* compareButton = new QPushButton(tr("Compare With…"));
    connect(compareButton, &QPushButton::clicked, this, &MainWindow::askCompareNumber);
    hintLayout->addStretch(1);
    hintLayout->addWidget(m_compareHint);
    hintLayout->addWidget(compareButton, 0, Qt::AlignHCenter);
    hintLayout->addStretch(2);
    m_compareStack->addWidget(hintPage);
    m_compareStack->addWidget(m_compareDiff);
    m_source = new SourceView;
    m_source->setObjectName(QStringLiteral("sourceView"));
    m_details = new DetailsPanel;
    m_details->setObjectName(QStringLiteral("detailsPanel"));
    m_tabs->addTab(m_parentDiff, tr("Diff vs parent"));
    m_tabs->addTab(m_compareStack, tr("Diff vs selected"));
    m_tabs->addTab(m_source, tr("Source"));
    m_tabs->addTab(m_details, tr("Details"));

    m_rightSplitter = new QSplitter(Qt::Vertical);
    m_rightSplitter->setObjectName(QStringLiteral("rightSplitter"));
    m_rightSplitter->addWidget(plotBox);
    m_rightSplitter->addWidget(m_tabs);
    m_rightSplitter->setStretchFactor(0, 2);
    m_rightSplitter->setStretchFactor(1, 3);
    m_rightSplitter->setSizes({420, 580});

    m_mainSplitter = new QSplitter(Qt::Horizontal);
    m_mainSplitter->setObjectName(QStringLiteral("mainSplitter"));
    m_mainSplitter->addWidget(left);
    m_mainSplitter->addWidget(m_rightSplitter);
    m_mainSplitter->setStretchFactor(0, 2);
    m_mainSplitter->setStretchFactor(1, 3);
    m_mainSplitter->setSizes({700, 900});
    setCentralWidget(m_mainSplitter);
}

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
    const QByteArray main = settings.value(QStringLiteral("ui/mainSplitter")).toByteArray();
    const QByteArray right = settings.value(QStringLiteral("ui/rightSplitter")).toByteArray();
    const QByteArray docks = settings.value(QStringLiteral("ui/windowState")).toByteArray();
    if (!docks.isEmpty())
        restoreState(docks);
    if (!main.isEmpty())
        m_mainSplitter->restoreState(main);
    if (!right.isEmpty())
        m_rightSplitter->restoreState(right);
    const QVariant hidden = settings.value(QStringLiteral("ui/hiddenColumns"));
    if (hidden.isValid()) {
        const QStringList columns = hidden.toStringList();
        for (int column = 0; column < ExperimentTableModel::ColumnCount; ++column)
            m_table->setColumnHidden(column, columns.contains(QString::number(column)));
    }
    const QString metric = settings.value(QStringLiteral("ui/metric")).toString();
    for (TimelinePlot::Metric m : kMetrics) {
        if (metricKey(m) == metric)
            applyMetric(m);
    }
}

void MainWindow::saveLayout()
{
    if (!m_options.useSettings)
        return;
    QSettings settings;
    settings.setValue(QStringLiteral("ui/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("ui/mainSplitter"), m_mainSplitter->saveState());
    settings.setValue(QStringLiteral("ui/rightSplitter"), m_rightSplitter->saveState());
    settings.setValue(QStringLiteral("ui/windowState"), saveState());
    QStringList hidden;
    for (int column = 0; column < ExperimentTableModel::ColumnCount; ++column) {
        if (m_table->isColumnHidden(column))
            hidden.append(QString::number(column));
    }
    settings.setValue(QStringLiteral("ui/hiddenColumns"), hidden);
    settings.setValue(QStringLiteral("ui/metric"), metricKey(m_plot->metric()));
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
    m_sourcesPending = 0;
    m_syncing = true;
    m_model->setExperiments(m_experiments);
    m_plot->setExperiments(m_experiments);
    m_syncing = false;
    updateKernelCombo();
    updateCounts();
    updateWarningsIndicator();
    updateTitle();
    m_reloadAction->setEnabled(true);
    m_compareAction->setEnabled(true);
    m_clearCompareAction->setEnabled(false);
    m_details->clear();
    m_compareStack->setCurrentIndex(0);

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
    QScrollBar* scroll = m_table->verticalScrollBar();
    const bool atBottom = scroll->value() == scroll->maximum();
    const std::size_t first = m_experiments.size();
    m_experiments.insert(m_experiments.end(), fresh.begin(), fresh.end());
    indexExperiments(first);
    m_syncing = true;
    m_model->appendExperiments(fresh);
    m_plot->appendExperiments(fresh);
    m_syncing = false;
    updateKernelCombo();
    updateCounts();
    if (atBottom)
        m_table->scrollToBottom();
    statusBar()->showMessage(tr("%n new experiment(s) recorded.", nullptr, int(fresh.size())), 5000);
    emit experimentsAppended(int(fresh.size()));
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
// Selection

void MainWindow::selectExperiment(int number)
{
    const int row = number >= 0 ? m_filter->proxyRowOfExperiment(number) : -1;
    m_syncing = true;
    if (row >= 0) {
        const QModelIndex index = m_filter->index(row, 0);
        m_table->selectionModel()->setCurrentIndex(
            index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_table->scrollTo(index, QAbstractItemView::PositionAtCenter);
    } else {
        m_table->selectionModel()->clearSelection();
        m_table->selectionModel()->setCurrentIndex(QModelIndex(), QItemSelectionModel::NoUpdate);
        if (number >= 0 && experiment(number))
            statusBar()->showMessage(tr("Experiment %1 is hidden by the table's filters.").arg(number), 5000);
    }
    m_syncing = false;
    showExperiment(number);
}

void MainWindow::changeFilter(const std::function<void()>& change)
{
    // Filtering removes rows, which moves the table's current index to a neighbour. The selection is
    // the experiment, not the row: it stays selected (in the plot and the tabs) while hidden, and its
    // row is selected again when it comes back.
    m_syncing = true;
    change();
    const int row = m_selected >= 0 ? m_filter->proxyRowOfExperiment(m_selected) : -1;
    if (row >= 0) {
        const QModelIndex index = m_filter->index(row, 0);
        m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                              QItemSelectionModel::Rows);
        m_table->scrollTo(index);
    } else {
        m_table->selectionModel()->clearSelection();
        m_table->selectionModel()->setCurrentIndex(QModelIndex(), QItemSelectionModel::NoUpdate);
    }
    m_syncing = false;
}

void MainWindow::onCurrentRowChanged()
{
    if (m_syncing)
        return;
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid())
        return;
    showExperiment(m_filter->experimentNumberAt(current.row()));
}

void MainWindow::onTableSelectionChanged()
{
    if (m_syncing)
        return;
    // Two rows selected (ctrl-click): the current one is shown, the other is the comparison.
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.size() != 2)
        return;
    const int currentRow = m_table->currentIndex().row();
    const QModelIndex other = rows[0].row() == currentRow ? rows[1] : rows[0];
    const int number = m_filter->experimentNumberAt(other.row());
    if (number >= 0 && number != m_compare) {
        setCompareExperiment(number);
        m_tabs->setCurrentIndex(CompareDiffTab);
    }
}

void MainWindow::onPlotClicked(int number)
{
    selectExperiment(number);
}

void MainWindow::setCompareExperiment(int number)
{
    m_compare = number >= 0 && experiment(number) ? number : -1;
    m_clearCompareAction->setEnabled(m_compare >= 0);
    if (m_compare < 0)
        m_compareStack->setCurrentIndex(0);
    if (m_selected >= 0)
        requestSources();
}

void MainWindow::showExperiment(int number)
{
    const Experiment* e = number >= 0 ? experiment(number) : nullptr;
    if (!e) {
        m_selected = -1;
        m_plot->selectExperiment(-1);
        m_details->clear();
        m_parentDiff->clear();
        m_compareDiff->clear();
        m_compareStack->setCurrentIndex(0);
        m_source->setSource(QString());
        m_sourcesPending = 0;
        emit selectionChanged(-1);
        checkSettled();
        return;
    }
    if (number == m_selected && m_sourcesPending == 0)
        return;
    m_selected = number;
    m_plot->selectExperiment(number);
    m_details->setExperiment(*e);
    requestSources();
    emit selectionChanged(number);
}

void MainWindow::requestSources()
{
    const Experiment* e = experiment(m_selected);
    if (!e)
        return;
    const Experiment* compare = m_compare >= 0 && m_compare != m_selected ? experiment(m_compare) : nullptr;
    m_sourcesPending = m_loader->requestSources(*e, compare);
}

QString MainWindow::experimentLabel(const Experiment& e) const
{
    return tr("#%1 %2 (%3)").arg(e.number).arg(QString::fromStdString(e.kernel_file), shortCommit(e.commit));
}

void MainWindow::onSourcesReady(const SourcesResult& result)
{
    if (result.id != m_sourcesPending || result.number != m_selected)
        return;
    m_sourcesPending = 0;
    const Experiment* e = experiment(result.number);
    if (!e) {
        checkSettled();
        return;
    }
    if (!result.error.isEmpty()) {
        m_parentDiff->clear();
        m_source->setSource(result.error);
        statusBar()->showMessage(result.error, 10000);
    } else {
        const QString parentLabel =
            e->parent_commit.empty() ? tr("(no parent)") : tr("parent %1").arg(shortCommit(e->parent_commit));
        m_parentDiff->setTexts(result.parentSource, result.source, parentLabel, experimentLabel(*e));
        m_source->setSource(result.source);
    }
    const Experiment* compare = result.compareNumber >= 0 ? experiment(result.compareNumber) : nullptr;
    if (compare && result.error.isEmpty()) {
        m_compareDiff->setTexts(result.compareSource, result.source, experimentLabel(*compare), experimentLabel(*e));
        m_compareStack->setCurrentIndex(1);
    } else {
        m_compareStack->setCurrentIndex(0);
    }
    emit sourcesShown(result.number);
    checkSettled();
}

bool MainWindow::isSettled() const { return m_pendingDir.isEmpty() && m_sourcesPending == 0; }

void MainWindow::checkSettled()
{
    if (isSettled())
        emit settled();
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
    m_tabs->setCurrentIndex(CompareDiffTab);
}

void MainWindow::showTableContextMenu(const QPoint& pos)
{
    const QModelIndex index = m_table->indexAt(pos);
    if (!index.isValid())
        return;
    showExperimentMenu(m_filter->experimentNumberAt(index.row()), m_table->viewport()->mapToGlobal(pos));
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
            m_tabs->setCurrentIndex(CompareDiffTab);
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

void MainWindow::showHeaderContextMenu(const QPoint& pos)
{
    QMenu menu(this);
    for (int column = 0; column < ExperimentTableModel::ColumnCount; ++column) {
        QAction* action = menu.addAction(m_model->headerData(column, Qt::Horizontal).toString());
        action->setCheckable(true);
        action->setChecked(!m_table->isColumnHidden(column));
        action->setEnabled(column != ExperimentTableModel::NumberColumn);
        connect(action, &QAction::toggled, this, [this, column](bool on) { m_table->setColumnHidden(column, !on); });
    }
    menu.exec(m_table->horizontalHeader()->mapToGlobal(pos));
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

void MainWindow::updateKernelCombo()
{
    std::set<std::string> kernels;
    for (const Experiment& e : m_experiments)
        kernels.insert(e.kernel_type);
    const QString current = m_kernelCombo->currentData().toString();
    QStringList wanted;
    for (const std::string& k : kernels)
        wanted.append(QString::fromStdString(k));
    QStringList have;
    for (int i = 1; i < m_kernelCombo->count(); ++i)
        have.append(m_kernelCombo->itemData(i).toString());
    if (have == wanted)
        return;
    const QSignalBlocker blocker(m_kernelCombo);
    m_kernelCombo->clear();
    m_kernelCombo->addItem(tr("All kernels"), QString());
    for (const QString& k : wanted)
        m_kernelCombo->addItem(k, k);
    const int index = m_kernelCombo->findData(current);
    m_kernelCombo->setCurrentIndex(index >= 0 ? index : 0);
    const QString kernel = m_kernelCombo->currentData().toString();
    if (kernel != m_filter->kernelType())
        m_filter->setKernelType(kernel);
    if (kernel != m_plot->kernelFilter())
        m_plot->setKernelFilter(kernel);
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
    m_plot->plot()->replot();
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
    applyMetric(metric);
}

void MainWindow::applyMetric(TimelinePlot::Metric metric)
{
    if (m_plot->metric() != metric)
        m_plot->setMetric(metric);
    const int index = m_metricCombo->findData(static_cast<int>(metric));
    if (index >= 0 && m_metricCombo->currentIndex() != index)
        m_metricCombo->setCurrentIndex(index);
    for (QAction* action : m_metricGroup->actions()) {
        if (action->data().toInt() == static_cast<int>(metric))
            action->setChecked(true);
    }
}

QCheckBox* MainWindow::outcomeCheckBox(Outcome outcome) const
{
    return m_outcomeBoxes.value(static_cast<int>(outcome), nullptr);
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
