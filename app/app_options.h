#pragma once
// The command line of autokernel-workbench.
//
//   autokernel-workbench [SESSION]                 open SESSION (a session folder)
//   autokernel-workbench --demo                    open the bundled demo session
//   autokernel-workbench --model-demo              open the bundled model session (llama-160m profiled,
//                                                  searched and verified on an H200) with its profile
//   autokernel-workbench --screenshot OUT.png [SESSION] [--size 1600x1000]
//                                                  render the window offscreen to OUT.png and exit
//   autokernel-workbench --profile PROFILE.json    also open a profile (the Profile page)
//   autokernel-workbench --page experiments|profile|roofline|compare
//                                                  the page shown first (and the one --screenshot renders)
//   autokernel-workbench --lang de|en              override the language (else setting, else locale)
//   autokernel-workbench --version                 print the versions of everything and exit
#include <QSize>
#include <QString>
#include <QStringList>

namespace ak {

struct AppOptions {
    bool showVersion = false;
    bool showHelp = false;
    bool demo = false;
    bool modelDemo = false;    // --model-demo
    QString sessionDir;        // positional SESSION ("" = none)
    QString screenshotFile;    // --screenshot ("" = interactive)
    QSize screenshotSize{1600, 1000};
    QString language;          // --lang: "de", "en" or "" (not given)
    QString profileFile;       // --profile ("" = none)
    QString page;              // --page: "experiments", "profile", "roofline", "compare" or "" (not given)
    QString error;             // non-empty: the command line is wrong; print it with the usage
};

// Parses argv (arguments()[0] is the program). Does not need a QCoreApplication.
AppOptions parseAppOptions(const QStringList& arguments);
QString appUsage();

// True when `arguments` asks for something that needs no window (--version, --help): main() then
// creates a QCoreApplication only, so these work without a display.
bool wantsNoWindow(const QStringList& arguments);

// Where the bundled demo session is: the source tree's resources/demo-session (developer build)
// or <prefix>/share/autokernel-workbench/demo-session next to the installed binary. "" if neither
// exists.
QString demoSessionDir(const QString& applicationDir);

// The same for the bundled model session: resources/model-session (a session made by `autokernel new
// --from-profile`, searched and verified, with its profile.json and verify.json inside) or
// <prefix>/share/autokernel-workbench/model-session. "" if neither exists.
QString modelDemoSessionDir(const QString& applicationDir);

// What to tell the user when demoSessionDir() / modelDemoSessionDir() found nothing: where each is expected.
QString demoSessionMissingMessage();
QString modelSessionMissingMessage();

}  // namespace ak
