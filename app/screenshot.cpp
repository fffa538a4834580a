#include "app/screenshot.h"

#include "app/main_window.h"
#include "app/pages/profile_page.h"
#include "app/profile_document.h"
#include "session/experiment.h"

#include <QDockWidget>

#include <QApplication>
#include <QDir>
#include <QEventLoop>
#include <QDeadlineTimer>
#include <QTimer>

namespace ak {

ScreenshotResult takeScreenshot(const ScreenshotRequest& request)
{
    const QString& sessionDir = request.sessionDir;
    const QString& pngFile = request.pngFile;
    const QSize size = request.size;
    const int timeoutMs = request.timeoutMs;
    MainWindow::Options options;
    options.useSettings = false;  // reproducible: no saved layout, no recent-list entry
    options.followLive = false;
    MainWindow window(options);

    ScreenshotResult result;
    QEventLoop loop;
    window.setMessageHandler([&](const QString& title, const QString& message) {
        result.error = title + QStringLiteral(": ") + message;
        loop.exit(1);
    });
    window.resize(size);
    window.show();

    bool loaded = sessionDir.isEmpty();
    bool profileLoaded = request.profileFile.isEmpty();
    QObject::connect(&window, &MainWindow::sessionLoaded, &loop, [&] { loaded = true; });
    QObject::connect(&window, &MainWindow::profileLoaded, &loop, [&] {
        profileLoaded = true;
        if (loaded && window.isSettled())
            loop.exit(0);
    });
    QObject::connect(&window, &MainWindow::settled, &loop, [&] {
        if (loaded && profileLoaded)
            loop.exit(0);
    });
    QTimer timeout;
    timeout.setSingleShot(true);
    QObject::connect(&timeout, &QTimer::timeout, &loop, [&] {
        result.error = QApplication::translate("ak::Screenshot", "Timed out after %1 s waiting for the session to load.")
                           .arg(timeoutMs / 1000);
        loop.exit(1);
    });
    timeout.start(timeoutMs);

    if (!request.profileFile.isEmpty())
        window.openProfile(request.profileFile);
    if (sessionDir.isEmpty() && request.profileFile.isEmpty())
        QTimer::singleShot(0, &loop, [&] { loop.exit(0); });
    else if (!sessionDir.isEmpty())
        window.openSession(sessionDir);
    if (loop.exec() != 0)
        return result;

    window.showPageNamed(request.page);
    if (!request.page.isEmpty() && request.page != QLatin1String("experiments")) {
        // A page other than Experiments gets the whole width: the loop's docks belong to the first.
        window.agentDock()->hide();
        window.kernelEditorDock()->hide();
    }
    if (request.page == QLatin1String("profile") && window.profile() && window.profile()->breakdown &&
        !window.profile()->breakdown->types.empty()) {
        // Show the what-if at work: the largest type twice as fast.
        window.profilePage()->setSpeedup(
            QString::fromStdString(window.profile()->breakdown->types.front().type_label), 2.0);
    }
    if (request.page == QLatin1String("compare") && window.selectedExperiment() >= 0) {
        // The selection against the starter of its kernel: the whole way the loop went.
        const Experiment* selected = window.experiment(window.selectedExperiment());
        for (const Experiment& e : window.experiments()) {
            if (selected && e.kernel_type == selected->kernel_type && e.outcome == Outcome::Baseline &&
                e.number != selected->number && e.throughput_tflops) {
                window.setCompareExperiment(e.number);
                break;
            }
        }
        const QDeadlineTimer deadline(timeoutMs);
        while (!window.isSettled() && !deadline.hasExpired())
            QApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    }

    // Let resizes and deferred layouts settle, then replot at the final size.
    for (int i = 0; i < 3; ++i)
        QApplication::processEvents();
    if (window.size() != size) {
        result.error = QApplication::translate("ak::Screenshot", "The window is %1×%2, not the requested %3×%4 (too small?).")
                           .arg(window.width())
                           .arg(window.height())
                           .arg(size.width())
                           .arg(size.height());
        return result;
    }
    QString error;
    if (!window.saveScreenshot(pngFile, &error)) {
        result.error = error;
        return result;
    }
    result.ok = true;
    return result;
}

}  // namespace ak
