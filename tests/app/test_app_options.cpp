// The command line of autokernel-workbench and where the demo session is looked for.
#include "app/app_options.h"
#include "session/bundled_session.h"
#include "session/session.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace ak;

namespace {
AppOptions parse(std::initializer_list<const char*> args)
{
    QStringList list{QStringLiteral("autokernel-workbench")};
    for (const char* a : args)
        list.append(QString::fromUtf8(a));
    return parseAppOptions(list);
}
}  // namespace

class TestAppOptions : public QObject {
    Q_OBJECT

private slots:
    void no_arguments_open_nothing()
    {
        const AppOptions o = parse({});
        QVERIFY(o.error.isEmpty());
        QVERIFY(o.sessionDir.isEmpty());
        QVERIFY(o.screenshotFile.isEmpty());
        QVERIFY(!o.demo && !o.showVersion && !o.showHelp);
    }
    void a_positional_argument_is_the_session()
    {
        const AppOptions o = parse({"/data/rmsnorm-session"});
        QVERIFY(o.error.isEmpty());
        QCOMPARE(o.sessionDir, QStringLiteral("/data/rmsnorm-session"));
    }
    void screenshot_takes_a_png_and_an_optional_session_in_any_order()
    {
        AppOptions o = parse({"--screenshot", "out.png", "/s"});
        QVERIFY(o.error.isEmpty());
        QCOMPARE(o.screenshotFile, QStringLiteral("out.png"));
        QCOMPARE(o.sessionDir, QStringLiteral("/s"));
        QCOMPARE(o.screenshotSize, QSize(1600, 1000));
        o = parse({"/s", "--screenshot", "OUT.PNG", "--size", "800x600"});
        QVERIFY(o.error.isEmpty());
        QCOMPARE(o.screenshotSize, QSize(800, 600));
    }
    void screenshot_rejects_other_formats_and_missing_values()
    {
        QVERIFY(parse({"--screenshot", "out.jpg"}).error.contains(QStringLiteral(".png")));
        QVERIFY(parse({"--screenshot"}).error.contains(QStringLiteral("--screenshot")));
        QVERIFY(parse({"--size", "big"}).error.contains(QStringLiteral("big")));
    }
    void page_and_profile()
    {
        AppOptions o = parse({"--page", "Roofline", "--profile", "p.json", "/s"});
        QCOMPARE(o.page, QStringLiteral("roofline"));
        QCOMPARE(o.profileFile, QStringLiteral("p.json"));
        QCOMPARE(o.sessionDir, QStringLiteral("/s"));
        QVERIFY(o.error.isEmpty());
        QVERIFY(parse({"--page", "flamegraph"}).error.contains(QStringLiteral("flamegraph")));
        QVERIFY(parse({"--profile"}).error.contains(QStringLiteral("--profile")));
        QVERIFY(appUsage().contains(QStringLiteral("--page")));
    }
    void lang_accepts_de_and_en_only()
    {
        QCOMPARE(parse({"--lang", "de"}).language, QStringLiteral("de"));
        QCOMPARE(parse({"--lang", "EN"}).language, QStringLiteral("en"));
        const AppOptions o = parse({"--lang", "fr"});
        QVERIFY(o.error.contains(QStringLiteral("fr")));
    }
    void unknown_options_and_two_sessions_are_errors()
    {
        QVERIFY(parse({"--frobnicate"}).error.contains(QStringLiteral("--frobnicate")));
        const AppOptions o = parse({"/a", "/b"});
        QVERIFY(o.error.contains(QStringLiteral("/a")) && o.error.contains(QStringLiteral("/b")));
    }
    void version_and_help_need_no_window()
    {
        QVERIFY(parse({"--version"}).showVersion);
        QVERIFY(parse({"--demo"}).demo);
        QVERIFY(wantsNoWindow({QStringLiteral("x"), QStringLiteral("--version")}));
        QVERIFY(wantsNoWindow({QStringLiteral("x"), QStringLiteral("-h")}));
        QVERIFY(!wantsNoWindow({QStringLiteral("x"), QStringLiteral("--demo")}));
        QVERIFY(appUsage().contains(QStringLiteral("--screenshot")));
    }
    void the_bundled_demo_session_opens_as_a_session_copy()
    {
        // resources/demo-session stores its .git as dot-git; demoSessionDir() hands out a cached copy
        // with a real .git that Session::open accepts.
        const QString source = QStringLiteral(AK_DEMO_SESSION_SOURCE_DIR);
        if (!QFileInfo(source).isDir())
            QSKIP("this checkout has no resources/demo-session");
        QTemporaryDir bin;
        const QString demo = demoSessionDir(bin.path());
        QVERIFY(!demo.isEmpty());
        QVERIFY(QFileInfo::exists(QDir(demo).filePath(QStringLiteral("session.json"))));
        QVERIFY(ak::Session::is_session(demo.toStdString()));
        if (ak::is_bundled_session(source.toStdString()))
            QVERIFY(QDir::cleanPath(demo) != QDir::cleanPath(source));
        QCOMPARE(demoSessionDir(bin.path()), demo);  // the same copy the second time
    }
    void the_demo_session_is_found_in_the_install_tree()
    {
        // A fake installation: <prefix>/bin and <prefix>/share/autokernel-workbench/demo-session.
        if (QFileInfo(QStringLiteral(AK_DEMO_SESSION_SOURCE_DIR)).isDir())
            QSKIP("the source tree's demo session takes precedence over an installed one");
        QTemporaryDir prefix;
        QVERIFY(QDir(prefix.path()).mkpath(QStringLiteral("bin")));
        const QString bin = prefix.filePath(QStringLiteral("bin"));
        QVERIFY(demoSessionDir(bin).isEmpty());
        QVERIFY(QDir(prefix.path()).mkpath(QStringLiteral("share/autokernel-workbench/demo-session")));
        QCOMPARE(demoSessionDir(bin), prefix.filePath(QStringLiteral("share/autokernel-workbench/demo-session")));
    }
    void model_demo_opens_the_bundled_model_session_not_the_demo()
    {
        const AppOptions o = parse({"--model-demo"});
        QVERIFY(o.error.isEmpty());
        QVERIFY(o.modelDemo);
        QVERIFY(!o.demo);
        QVERIFY(parse({"--demo", "--model-demo"}).error.contains(QStringLiteral("give one")));
        QVERIFY(appUsage().contains(QStringLiteral("--model-demo")));
    }
    void the_bundled_model_session_opens_with_its_profile_and_verify_report()
    {
        const QString source = QStringLiteral(AK_MODEL_SESSION_SOURCE_DIR);
        if (!QFileInfo(source).isDir())
            QSKIP("this checkout has no resources/model-session");
        QVERIFY(ak::is_bundled_session(source.toStdString()));
        QTemporaryDir bin;
        const QString dir = modelDemoSessionDir(bin.path());
        QVERIFY(!dir.isEmpty());
        QVERIFY(QDir::cleanPath(dir) != QDir::cleanPath(source));
        const ak::Session s = ak::Session::open(dir.toStdString(), ak::OpenOptions{.read_only = true});
        QVERIFY(s.info().profile.has_value());  // made from a profile ...
        QVERIFY(QFileInfo::exists(QDir(dir).filePath(QStringLiteral("profile.json"))));  // ... that it carries
        QVERIFY(QFileInfo::exists(QDir(dir).filePath(QStringLiteral("verify.json"))));
        QVERIFY(s.info().kernels.size() >= 5);
        QCOMPARE(modelDemoSessionDir(bin.path()), dir);
    }
    void the_model_session_is_found_in_the_install_tree()
    {
        if (QFileInfo(QStringLiteral(AK_MODEL_SESSION_SOURCE_DIR)).isDir())
            QSKIP("the source tree's model session takes precedence over an installed one");
        QTemporaryDir prefix;
        QVERIFY(QDir(prefix.path()).mkpath(QStringLiteral("bin")));
        const QString bin = prefix.filePath(QStringLiteral("bin"));
        QVERIFY(modelDemoSessionDir(bin).isEmpty());
        QVERIFY(QDir(prefix.path()).mkpath(QStringLiteral("share/autokernel-workbench/model-session")));
        QCOMPARE(modelDemoSessionDir(bin), prefix.filePath(QStringLiteral("share/autokernel-workbench/model-session")));
    }

    void a_missing_bundled_session_names_both_places_it_is_looked_for()
    {
        const QString demo = demoSessionMissingMessage();
        QVERIFY2(demo.contains(QStringLiteral("resources/demo-session")), qPrintable(demo));
        QVERIFY2(demo.contains(QStringLiteral("share/autokernel-workbench/demo-session")), qPrintable(demo));
        const QString model = modelSessionMissingMessage();
        QVERIFY2(model.contains(QStringLiteral("resources/model-session")), qPrintable(model));
        QVERIFY2(model.contains(QStringLiteral("share/autokernel-workbench/model-session")), qPrintable(model));
        QVERIFY(!model.contains(QStringLiteral("demo-session")));
    }
};

QTEST_GUILESS_MAIN(TestAppOptions)
#include "test_app_options.moc"
