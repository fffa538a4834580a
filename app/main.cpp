// autokernel-workbench: browse an AutoKernel session (see app/app_options.h for the command line).
#include "app/app_options.h"
#include "app/language.h"
#include "app/main_window.h"
#include "app/screenshot.h"
#include "app/versions.h"
#include "profile/bundled_profile.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QLibraryInfo>
#include <QLocale>
#include <QMessageBox>
#include <QSettings>
#include <QTextStream>
#include <QTranslator>

#include <cstdio>

namespace {

QStringList argumentsOf(int argc, char** argv)
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments.append(QString::fromLocal8Bit(argv[i]));
    return arguments;
}

void printTo(FILE* stream, const QString& text)
{
    const QByteArray bytes = text.toLocal8Bit();
    std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), stream);
    std::fflush(stream);
}

void setApplicationNames()
{
    QCoreApplication::setOrganizationName(QStringLiteral("AutoKernel"));
    QCoreApplication::setApplicationName(QStringLiteral("autokernel-workbench"));
    QCoreApplication::setApplicationVersion(ak::applicationVersion());
}

// Numbers follow the interface language when it differs from the system's (12,5 in German).
void matchLocaleToLanguage(const QString& language)
{
    const bool systemIsGerman = QLocale::system().language() == QLocale::German;
    if (language == QLatin1String("de") && !systemIsGerman)
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
    else if (language == QLatin1String("en") && systemIsGerman)
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
}

}  // namespace

int main(int argc, char** argv)
{
    const QStringList arguments = argumentsOf(argc, argv);
    const ak::AppOptions options = ak::parseAppOptions(arguments);

    if (!options.error.isEmpty()) {
        QCoreApplication app(argc, argv);
        printTo(stderr, QStringLiteral("autokernel-workbench: ") + options.error + QStringLiteral("\n\n") + ak::appUsage());
        return 2;
    }
    if (ak::wantsNoWindow(arguments)) {
        // No QApplication: these work without a display.
        QCoreApplication app(argc, argv);
        setApplicationNames();
        printTo(stdout, options.showHelp ? ak::appUsage() : ak::versionReport());
        return 0;
    }

    // A screenshot never needs a screen.
    if (!options.screenshotFile.isEmpty() && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    setApplicationNames();

    QSettings settings;
    const QString language = ak::chooseLanguage(options.language, settings);
    matchLocaleToLanguage(language);
    QTranslator translator;
    QTranslator qtTranslator;
    if (!ak::installTranslation(app, translator, language))
        printTo(stderr, QStringLiteral("autokernel-workbench: the %1 translation could not be loaded\n").arg(language));
    if (language != QLatin1String("en") &&
        qtTranslator.load(QStringLiteral("qtbase_") + language, QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        app.installTranslator(&qtTranslator);

    QString sessionDir = options.sessionDir;
    QString startupProblem;
    if (options.demo && sessionDir.isEmpty()) {
        sessionDir = ak::demoSessionDir(QCoreApplication::applicationDirPath());
        if (sessionDir.isEmpty())
            startupProblem = ak::demoSessionMissingMessage();
    }

    if (options.modelDemo && sessionDir.isEmpty()) {
        sessionDir = ak::modelDemoSessionDir(QCoreApplication::applicationDirPath());
        if (sessionDir.isEmpty())
            startupProblem = ak::modelSessionMissingMessage();
    }
    // --model-demo: the session's own profile (profile.json inside it) unless --profile names one.
    QString modelProfile;
    if (options.modelDemo && options.profileFile.isEmpty() && !sessionDir.isEmpty()) {
        const QFileInfo inside(QDir(sessionDir), QStringLiteral("profile.json"));
        if (inside.isFile())
            modelProfile = inside.absoluteFilePath();
    }

    // --demo brings the bundled demo profile along (resources/demo-profile.json) unless --profile names one.
    QString profileFile = options.profileFile.isEmpty() ? modelProfile : options.profileFile;
    if (options.demo && profileFile.isEmpty()) {
        const std::filesystem::path bundled =
            ak::profile::bundled_profile_path(QCoreApplication::applicationDirPath().toStdString());
        if (!bundled.empty())
            profileFile = QString::fromStdString(bundled.string());
    }

    if (!options.screenshotFile.isEmpty()) {
        if (!startupProblem.isEmpty()) {
            printTo(stderr, QStringLiteral("autokernel-workbench: ") + startupProblem + QLatin1Char('\n'));
            return 1;
        }
        ak::ScreenshotRequest request;
        request.sessionDir = sessionDir;
        request.profileFile = profileFile;
        request.page = options.page;
        request.pngFile = options.screenshotFile;
        request.size = options.screenshotSize;
        const ak::ScreenshotResult result = ak::takeScreenshot(request);
        if (!result.ok) {
            printTo(stderr, QStringLiteral("autokernel-workbench: screenshot failed: ") + result.error + QLatin1Char('\n'));
            return 1;
        }
        printTo(stdout, QDir::toNativeSeparators(options.screenshotFile) + QLatin1Char('\n'));
        return 0;
    }

    ak::MainWindow window;
    window.show();
    if (!options.page.isEmpty())
        window.showPageNamed(options.page);
    if (!profileFile.isEmpty())
        window.openProfile(profileFile);
    if (!sessionDir.isEmpty())
        window.openSession(sessionDir);
    else if (!startupProblem.isEmpty())
        QMetaObject::invokeMethod(&window, [&window, startupProblem] {
            QMessageBox::information(&window, QApplication::translate("ak::MainWindow", "No demo session"), startupProblem);
        }, Qt::QueuedConnection);
    return app.exec();
}
