#include "app/screenshot.h"

#include "app/main_window.h"

#include <QApplication>
#include <QDir>
#include <QEventLoop>
#include <QTimer>

namespace ak {

ScreenshotResult takeScreenshot(const QString& sessionDir, const QString& pngFile, QSize size, int timeoutMs)
{
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
    QObject::connect(&window, &MainWindow::sessionLoaded, &loop, [&] { loaded = true; });
    QObject::connect(&window, &MainWindow::settled, &loop, [&] {
        if (loaded)
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

    if (sessionDir.isEmpty())
        QTimer::singleShot(0, &loop, [&] { loop.exit(0); });
    else
        window.openSession(sessionDir);
    if (loop.exec() != 0)
        return result;

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
