#pragma once
// --screenshot: renders the workbench offscreen into a PNG and reports how it went.
#include <QSize>
#include <QString>

namespace ak {

struct ScreenshotResult {
    bool ok = false;
    QString error;   // why not, naming the problem (session error, write error, timeout)
};

// Opens `sessionDir` ("" = an empty window) in a MainWindow of `size`, waits until the session is
// loaded, the most interesting experiment (MainWindow::bestKeptExperiment) is selected and its diff
// and details are shown, then grabs the window into `pngFile`. Needs a QApplication; nothing is
// shown on screen when it runs on the offscreen platform (main() selects it for --screenshot).
ScreenshotResult takeScreenshot(const QString& sessionDir, const QString& pngFile, QSize size,
                                int timeoutMs = 120000);

}  // namespace ak
