#pragma once
// --screenshot: renders the workbench offscreen into a PNG and reports how it went.
#include <QSize>
#include <QString>

namespace ak {

struct ScreenshotResult {
    bool ok = false;
    QString error;   // why not, naming the problem (session error, write error, timeout)
};

struct ScreenshotRequest {
    QString sessionDir;        // "" = no session
    QString profileFile;       // "" = no profile
    QString page;              // "experiments" (default), "profile", "roofline", "compare"
    QString pngFile;
    QSize size{1600, 1000};
    int timeoutMs = 120000;
};

// Opens the session ("" = an empty window) and the profile in a MainWindow of `size`, waits until
// both are loaded, the most interesting experiment (MainWindow::bestKeptExperiment) is selected and
// its diff and details are shown, shows `page` (for "compare": the selection against the starter of
// its kernel; for "profile": its largest type at 2x; pages other than Experiments without the loop's
// docks), then grabs the window into `pngFile`. Needs a QApplication; nothing is shown on
// screen when it runs on the offscreen platform (main() selects it for --screenshot).
ScreenshotResult takeScreenshot(const ScreenshotRequest& request);

}  // namespace ak
