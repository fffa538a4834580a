#pragma once
// The workbench window: a shell of menus, docks, loading and page switching. What a session shows is
// in pages, one class and file each (app/pages/): Experiments (table, timeline, diff, details),
// Profile, Roofline and Compare, switched by the tabs of the central widget (View ▸ Page, Ctrl+1…4).
//
// The shell owns what the pages share and pushes it into every page through the Page interface
// (app/pages/page.h): the session snapshot and rows recorded live, the selection (the selected and
// the compared experiment) and its sources, the open profile. A page asks for changes with signals
// (experimentActivated, compareRequested, experimentMenuRequested), so selecting an experiment on
// any page selects it on all of them. The selection's sources are fetched once, on the session
// worker (SessionLoader), newest request only. The session is followed live: rows another process
// records appear without a reload (SessionWatcher -> Session::refresh() on the worker ->
// Page::appendExperiments).
//
// The agent loop runs on its own thread (LoopWorker) and is driven from two docks: the agent panel
// (start / pause / step / stop, agent settings, steering) and the kernel editor (run a hand edit of
// the current best as the next experiment). Experiments the loop records reach the pages the same way
// as those of any other writer: Session::refresh() on the session worker, never from the loop's
// signals directly, so nothing is inserted twice. The experiment context menu offers force keep /
// force revert / branch from: sent to the running loop, or run as a one-shot operation when no loop runs.
//
// Problems opening a session go to the message handler: a modal QMessageBox by default;
// tests and --screenshot install their own so nothing blocks.
#include "app/pages/page.h"
#include "app/session_snapshot.h"
#include "widgets/timeline_plot.h"

#include <QHash>
#include <QMainWindow>
#include <QPointer>
#include <QThread>

#include <functional>
#include <optional>
#include <vector>

class QAction;
class QActionGroup;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QTableView;
class QToolButton;
class QDialog;
class QDockWidget;
class QPlainTextEdit;

namespace ak {

class AgentPanel;
class ComparePage;
class ProfileLoader;
class ProfilePage;
class ExperimentsPage;
class RooflinePage;
class Page;
class DetailsPanel;
class DiffView;
class ExperimentFilterModel;
class ExperimentTableModel;
class KernelEditor;
class LoopWorker;
class SessionLoader;
class SessionWatcher;
class SourceView;
enum class LoopState;
struct AgentRunRequest;
struct LoopRunSettings;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // Receives every error meant for the user: a title and a message naming the problem.
    using MessageHandler = std::function<void(const QString& title, const QString& message)>;

    struct Options {
        bool useSettings = true;     // read and write QSettings: layout, metric, recent sessions
                                     // (off for screenshots and tests, which must be reproducible)
        bool followLive = true;      // watch the session for experiments recorded by another process
    };

    explicit MainWindow(QWidget* parent = nullptr);
    explicit MainWindow(Options options, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a session folder on the worker thread. sessionLoaded() or sessionFailed() follows.
    void openSession(const QString& dir);
    // Opens a profile.json off the GUI thread; profileLoaded() or profileFailed() follows, and every
    // page gets it (Page::setProfile).
    void openProfile(const QString& path);
    ProfilePtr profile() const { return m_profile; }
    // "Optimize Selected…" on the Profile page: creates the session folder `dir` from the open profile
    // with these kernel types (core/profile/create_session_from_profile, as `autokernel new
    // --from-profile --types ... --min-share 0`) on a thread of its own, then opens it. sessionCreated()
    // or sessionCreationFailed() follows.
    void createSessionFromProfile(const QString& dir, const QStringList& kernelTypes);
    // Opens the session again from disk, keeping the selection.
    void reload();
    void setMessageHandler(MessageHandler handler);

    // Selects an experiment everywhere (table row when visible, plot point, tabs). -1 clears.
    void selectExperiment(int number);
    // The experiment "Diff vs selected" compares the selection against. -1 clears.
    void setCompareExperiment(int number);
    int selectedExperiment() const { return m_selected; }
    int compareExperiment() const { return m_compare; }
    // The most interesting experiment to show first: the kept, passing experiment with the highest
    // speed-up (else the newest one). nullopt for no session.
    std::optional<int> bestKeptExperiment() const;

    void setMetric(TimelinePlot::Metric metric);
    void setFollowLive(bool follow);

    // True when nothing is loading: no open in flight and the selection's sources are shown.
    bool isSettled() const;
    // Renders the window into a PNG file (what File ▸ Screenshot… and --screenshot do).
    bool saveScreenshot(const QString& file, QString* error = nullptr);

    // The loaded session (empty path when none).
    QString sessionDir() const;
    QString sessionName() const;
    const std::vector<ak::Experiment>& experiments() const { return m_experiments; }
    const ak::Experiment* experiment(int number) const;
    QStringList sessionWarnings() const { return m_warnings; }
    qint64 lastLoadMs() const { return m_lastLoadMs; }

    // The pages and the parts of the Experiments page, for tests and the benchmark.
    enum PageIndex { ExperimentsPageIndex, ProfilePageIndex, RooflinePageIndex, ComparePageIndex };
    // Shows the page named "experiments", "profile", "roofline" or "compare" (others are ignored).
    void showPageNamed(const QString& name);
    QTabWidget* pages() const { return m_pages; }
    void showPage(int index);
    ExperimentsPage* experimentsPage() const { return m_experimentsPage; }
    RooflinePage* rooflinePage() const { return m_rooflinePage; }
    ComparePage* comparePage() const { return m_comparePage; }
    ProfilePage* profilePage() const { return m_profilePage; }
    QTableView* tableView() const;
    ExperimentTableModel* tableModel() const;
    ExperimentFilterModel* filterModel() const;
    TimelinePlot* timeline() const;
    DiffView* parentDiffView() const;
    DiffView* compareDiffView() const;
    SourceView* sourceView() const;
    DetailsPanel* detailsPanel() const;
    QTabWidget* tabs() const;
    QLineEdit* filterEdit() const;
    QComboBox* kernelCombo() const;
    QCheckBox* outcomeCheckBox(ak::Outcome outcome) const;
    QComboBox* metricCombo() const;
    QLabel* countsLabel() const { return m_countsLabel; }
    QToolButton* warningsButton() const { return m_warningsButton; }
    SessionWatcher* watcher() const { return m_watcher; }
    AgentPanel* agentPanel() const { return m_agentPanel; }
    KernelEditor* kernelEditor() const { return m_kernelEditor; }
    LoopWorker* loopWorker() const { return m_loop; }
    QDockWidget* agentDock() const { return m_agentDock; }
    QDockWidget* kernelEditorDock() const { return m_editorDock; }
    QLabel* loopStateLabel() const { return m_loopStateLabel; }

    // The experiment context menu's overrides: sent to the running loop, or run as a one-shot
    // operation (no evaluation) when none runs. overrideBlockedReason() says why they cannot run
    // now ("" when they can).
    void forceKeepLast();
    void forceRevertLast();
    void branchFrom(int number);
    QString overrideBlockedReason() const;
    // "Run my edit as the next experiment": queued in the running loop, or evaluated in a one-shot run.
    void runEdit(const QString& kernelName, const QString& source, const QString& description);

    enum Tab { ParentDiffTab, CompareDiffTab, SourceTab, DetailsTab };  // ExperimentsPage::Tab

signals:
    void sessionLoaded(const QString& dir);
    void sessionFailed(const QString& message);
    void profileLoaded(const QString& path);
    void profileFailed(const QString& message);
    void sessionCreated(const QString& dir);
    void sessionCreationFailed(const QString& message);
    void experimentsAppended(int count);
    // verify.json or ceilings.json of the open session were read again after they changed on disk.
    void sessionReportsReloaded();
    // The diff, source and details tabs show experiment `number` (its sources arrived).
    void sourcesShown(int number);
    void selectionChanged(int number);
    // Nothing is loading any more (see isSettled()).
    void settled();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void buildActions();
    void buildMenus();
    void buildCentralWidget();
    void buildStatusBar();
    void buildAgentDocks();
    void addPage(Page* page, const QString& title);
    void restoreLayout();
    void saveLayout();

    void onOpened(ak::SnapshotPtr snapshot);
    void onOpenFailed(quint64 requestId, const QString& dir, const QString& message);
    void onRefreshed(const ak::SessionUpdate& update);
    void onReportsReloaded(const ak::SessionReports& reports);
    void onRefreshFailed(const QString& message);
    void onSourcesReady(const ak::SourcesResult& result);
    void onSessionChanged();

    // The experiment's menu (compare, show, copy hash, loop overrides) at a global position; every
    // page's right click on an experiment opens it.
    void showExperimentMenu(int number, const QPoint& globalPos);
    void askCompareNumber();
    void showCompareOnCurrentPage();

    void pushSelection();
    void requestSources();
    void updateCounts();
    void updateWarningsIndicator();
    void showWarnings();
    void updateTitle();
    void fillRecentMenu();
    void chooseSessionFolder();
    void chooseProfileFile();
    void chooseSessionFromProfile(const QStringList& kernelTypes);
    void chooseScreenshotFile();
    void chooseLanguage(const QString& language);
    void showAbout();
    void applyMetric(TimelinePlot::Metric metric);
    void reportError(const QString& title, const QString& message);
    void indexExperiments(std::size_t first);
    void checkSettled();

    // The agent loop.
    void startLoop(const ak::AgentRunRequest& request);
    void startRun(const ak::LoopRunSettings& settings, bool oneShot);
    void onLoopStateChanged(ak::LoopState state);
    void onLoopExperimentFinished(const ak::Experiment& experiment, const QString& summary);
    void onLoopFinished(const QString& error);
    void onSessionLoadedForLoop();
    void refreshKernelSources();
    void updateLoopControls();
    void updateLoopStatus();
    void addLoopActions(QMenu& menu, const ak::Experiment& e);
    bool loopWorksOnShownSession() const;
    int bestExperimentOfKernel(const QString& kernelName) const;

    Options m_options;
    MessageHandler m_messageHandler;

    // Session state (GUI-thread copies).
    SessionLoader* m_loader = nullptr;
    SessionWatcher* m_watcher = nullptr;
    SnapshotPtr m_snapshot;
    std::vector<ak::Experiment> m_experiments;
    QHash<int, std::size_t> m_indexOfNumber;
    QStringList m_warnings;
    QString m_pendingDir;
    bool m_pendingIsReload = false;
    bool m_reloadIsAutomatic = false;
    int m_reselectAfterLoad = -1;
    int m_recompareAfterLoad = -1;
    qint64 m_lastLoadMs = 0;
    qint64 m_openStartedMs = 0;

    int m_selected = -1;
    int m_compare = -1;
    quint64 m_sourcesPending = 0;    // request id of sources not yet shown
    bool m_followLive = true;

    // Widgets.
    QTabWidget* m_pages = nullptr;
    std::vector<Page*> m_pageList;
    ExperimentsPage* m_experimentsPage = nullptr;
    RooflinePage* m_rooflinePage = nullptr;
    ComparePage* m_comparePage = nullptr;
    ProfilePage* m_profilePage = nullptr;
    ProfileLoader* m_profileLoader = nullptr;
    ProfilePtr m_profile;
    QPointer<QThread> m_createThread;  // createSessionFromProfile's, waited for on destruction
    bool m_creating = false;
    QAction* m_openProfileAction = nullptr;
    int m_pinnedCompare = -1;         // the Compare page's pinned baseline (-1: none)

    QLabel* m_pathLabel = nullptr;
    QLabel* m_countsLabel = nullptr;
    QLabel* m_loadLabel = nullptr;
    QToolButton* m_warningsButton = nullptr;
    QPointer<QDialog> m_warningsDialog;
    QPlainTextEdit* m_warningsText = nullptr;

    // Actions.
    QAction* m_openAction = nullptr;
    QAction* m_demoAction = nullptr;
    QAction* m_modelDemoAction = nullptr;
    QAction* m_reloadAction = nullptr;
    QAction* m_screenshotAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_followAction = nullptr;
    QAction* m_resetPlotAction = nullptr;
    QAction* m_compareAction = nullptr;
    QAction* m_clearCompareAction = nullptr;
    QAction* m_aboutAction = nullptr;
    QActionGroup* m_metricGroup = nullptr;
    QActionGroup* m_languageGroup = nullptr;
    QActionGroup* m_pageGroup = nullptr;
    QMenu* m_recentMenu = nullptr;

    // The agent loop.
    LoopWorker* m_loop = nullptr;
    AgentPanel* m_agentPanel = nullptr;
    KernelEditor* m_kernelEditor = nullptr;
    QDockWidget* m_agentDock = nullptr;
    QDockWidget* m_editorDock = nullptr;
    QLabel* m_loopStateLabel = nullptr;
    QString m_loopKernel;
    bool m_oneShot = false;          // the running loop is a one-shot operation (an edit, an override)
    bool m_editSubmitted = false;    // the kernel editor waits for its edit's result
    bool m_closing = false;
};

}  // namespace ak
