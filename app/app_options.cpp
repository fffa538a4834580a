#include "app/app_options.h"

#include "session/bundled_session.h"
#include "util/error.h"

#include <QStandardPaths>

#include <filesystem>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace ak {

QString appUsage()
{
    return QCoreApplication::translate(
        "ak::AppOptions",
        "Usage: autokernel-workbench [options] [SESSION]\n"
        "\n"
        "Browse an AutoKernel session: every experiment, its metrics, its diff and its source.\n"
        "\n"
        "Options:\n"
        "  SESSION                 session folder to open\n"
        "  --demo                  open the bundled demo session\n"
        "  --model-demo            open the bundled model session (llama-160m: profile, search, verify)\n"
        "  --screenshot FILE.png   render the window offscreen to FILE.png and exit\n"
        "  --size WIDTHxHEIGHT     screenshot size (default 1600x1000)\n"
        "  --profile FILE.json     open a profile.json on the Profile page\n"
        "  --page NAME             first page: experiments, profile, roofline or compare\n"
        "  --lang de|en            language of the interface\n"
        "  --version               print versions and exit\n"
        "  --help                  print this help and exit\n");
}

bool wantsNoWindow(const QStringList& arguments)
{
    for (int i = 1; i < arguments.size(); ++i) {
        const QString& a = arguments[i];
        if (a == QLatin1String("--version") || a == QLatin1String("-v") || a == QLatin1String("--help") ||
            a == QLatin1String("-h"))
            return true;
    }
    return false;
}

AppOptions parseAppOptions(const QStringList& arguments)
{
    AppOptions options;
    auto fail = [&options](const QString& message) {
        if (options.error.isEmpty())
            options.error = message;
    };
    for (int i = 1; i < arguments.size(); ++i) {
        const QString a = arguments[i];
        auto value = [&](const QString& name) -> QString {
            if (i + 1 >= arguments.size()) {
                fail(QCoreApplication::translate("ak::AppOptions", "%1 needs a value.").arg(name));
                return {};
            }
            return arguments[++i];
        };
        if (a == QLatin1String("--version") || a == QLatin1String("-v")) {
            options.showVersion = true;
        } else if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            options.showHelp = true;
        } else if (a == QLatin1String("--demo")) {
            options.demo = true;
        } else if (a == QLatin1String("--model-demo")) {
            options.modelDemo = true;
        } else if (a == QLatin1String("--screenshot")) {
            options.screenshotFile = value(a);
        } else if (a == QLatin1String("--size")) {
            static const QRegularExpression sizeRe(QStringLiteral("^(\\d{2,5})x(\\d{2,5})$"));
            const QString text = value(a);
            const auto match = sizeRe.match(text);
            if (match.hasMatch())
                options.screenshotSize = QSize(match.captured(1).toInt(), match.captured(2).toInt());
            else
                fail(QCoreApplication::translate("ak::AppOptions", "--size expects WIDTHxHEIGHT, got “%1”.").arg(text));
        } else if (a == QLatin1String("--profile")) {
            options.profileFile = value(a);
        } else if (a == QLatin1String("--page")) {
            const QString page = value(a).toLower();
            if (page == QLatin1String("experiments") || page == QLatin1String("profile") ||
                page == QLatin1String("roofline") || page == QLatin1String("compare"))
                options.page = page;
            else if (!page.isEmpty())
                fail(QCoreApplication::translate("ak::AppOptions",
                                                 "--page expects experiments, profile, roofline or compare, got “%1”.")
                         .arg(page));
        } else if (a == QLatin1String("--lang")) {
            const QString lang = value(a).toLower();
            if (lang == QLatin1String("de") || lang == QLatin1String("en"))
                options.language = lang;
            else if (!lang.isEmpty())
                fail(QCoreApplication::translate("ak::AppOptions", "--lang expects de or en, got “%1”.").arg(lang));
        } else if (a.startsWith(QLatin1Char('-')) && a.size() > 1) {
            fail(QCoreApplication::translate("ak::AppOptions", "Unknown option “%1”.").arg(a));
        } else if (options.sessionDir.isEmpty()) {
            options.sessionDir = a;
        } else {
            fail(QCoreApplication::translate("ak::AppOptions", "Only one session can be opened, got “%1” and “%2”.")
                     .arg(options.sessionDir, a));
        }
    }
    if (options.demo && options.modelDemo)
        fail(QCoreApplication::translate("ak::AppOptions", "--demo and --model-demo open different sessions; give one."));
    if (!options.screenshotFile.isEmpty() &&
        !options.screenshotFile.endsWith(QLatin1String(".png"), Qt::CaseInsensitive)) {
        fail(QCoreApplication::translate("ak::AppOptions", "--screenshot writes a PNG file; “%1” does not end in .png.")
                 .arg(options.screenshotFile));
    }
    return options;
}

namespace {

// The bundle in the source tree (developer build) or beside the installed binary; a bundle that stores
// its .git as dot-git (a repository cannot sit inside ours) is opened as a cached copy.
QString bundledSessionDir(const QString& applicationDir, const QString& sourceDir, const QString& installDir)
{
    const QStringList candidates = {
        sourceDir,
        QDir(applicationDir).filePath(QStringLiteral("../") + installDir),
    };
    for (const QString& candidate : candidates) {
        if (!QFileInfo(candidate).isDir())
            continue;
        const QString bundle = QDir::cleanPath(QFileInfo(candidate).absoluteFilePath());
        if (!ak::is_bundled_session(std::filesystem::path(bundle.toStdString())))
            return bundle;
        try {
            const QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
            return QString::fromStdString(
                ak::materialize_bundled_session(bundle.toStdString(), cache.toStdString()).string());
        } catch (const ak::Error&) {
            return {};
        }
    }
    return {};
}

}  // namespace

QString demoSessionDir(const QString& applicationDir)
{
    return bundledSessionDir(applicationDir, QStringLiteral(AK_DEMO_SESSION_SOURCE_DIR),
                             QStringLiteral(AK_DEMO_SESSION_INSTALL_DIR));
}

QString modelDemoSessionDir(const QString& applicationDir)
{
    return bundledSessionDir(applicationDir, QStringLiteral(AK_MODEL_SESSION_SOURCE_DIR),
                             QStringLiteral(AK_MODEL_SESSION_INSTALL_DIR));
}

// Translated in the main window's context, where the messages were first written.
QString demoSessionMissingMessage()
{
    return QCoreApplication::translate("ak::MainWindow",
                                       "The demo session is not installed. It is expected in resources/demo-session of "
                                       "the source tree or in share/autokernel-workbench/demo-session of the installation.");
}

QString modelSessionMissingMessage()
{
    return QCoreApplication::translate("ak::MainWindow",
                                       "The model session is not installed. It is expected in resources/model-session of "
                                       "the source tree or in share/autokernel-workbench/model-session of the installation.");
}

}  // namespace ak
