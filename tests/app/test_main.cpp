// The autokernel-workbench executable: --version, --screenshot, command-line errors.
#include "sample_session.h"

#include <QImage>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

Run runWorkbench(const QStringList& arguments, int timeoutMs = 120000)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(AK_WORKBENCH_EXECUTABLE), arguments);
    Run run;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        run.err = QStringLiteral("timed out");
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    run.out = QString::fromLocal8Bit(process.readAllStandardOutput());
    run.err = QString::fromLocal8Bit(process.readAllStandardError());
    return run;
}

}  // namespace

class TestMain : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_root.isValid());
        m_session = m_root.filePath(QStringLiteral("sample"));
        ak::test::createSampleSession(ak::test::toPath(m_session));
    }

    void version_names_every_library()
    {
        const Run run = runWorkbench({QStringLiteral("--version")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QStringLiteral("autokernel-workbench 0.")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QStringLiteral("Qt 6.")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QStringLiteral("QCustomPlot 2.")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QStringLiteral("libgit2 1.")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QStringLiteral("Syntax highlighter ")), qPrintable(run.out));
    }

    void screenshot_writes_a_png_of_the_requested_size_showing_the_session()
    {
        const QString png = m_root.filePath(QStringLiteral("shot.png"));
        const Run run = runWorkbench({QStringLiteral("--screenshot"), png, m_session});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QImage image(png);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), QSize(1600, 1000));
        // Not blank: a window with a table, a plot with coloured markers and a diff has many colours.
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 4) {
            for (int x = 0; x < image.width(); x += 4)
                colours.insert(image.pixel(x, y));
        }
        QVERIFY2(colours.size() > 50, qPrintable(QString::number(colours.size())));
    }

    void screenshot_in_german_and_of_another_size()
    {
        const QString png = m_root.filePath(QStringLiteral("shot-de.png"));
        const Run run = runWorkbench({QStringLiteral("--lang"), QStringLiteral("de"), QStringLiteral("--screenshot"),
                                      png, QStringLiteral("--size"), QStringLiteral("1440x900"), m_session});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(QImage(png).size(), QSize(1440, 900));
    }

    void screenshot_of_the_demo_session_as_run_gui_sh_takes_it()
    {
        if (!QFileInfo(QStringLiteral(AK_DEMO_SESSION_SOURCE_DIR)).isDir())
            QSKIP("this checkout has no resources/demo-session");
        const QString png = m_root.filePath(QStringLiteral("demo.png"));
        const Run run = runWorkbench({QStringLiteral("--screenshot"), png, QStringLiteral("--demo")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(QImage(png).size(), QSize(1600, 1000));
    }

    void screenshot_of_a_folder_that_is_not_a_session_fails_with_a_message()
    {
        const QString png = m_root.filePath(QStringLiteral("bad.png"));
        const Run run = runWorkbench({QStringLiteral("--screenshot"), png, m_root.path()});
        QVERIFY(run.exitCode != 0);
        QVERIFY2(run.err.contains(QStringLiteral("not an AutoKernel session")), qPrintable(run.err));
        QVERIFY(!QFile::exists(png));
    }

    void a_wrong_command_line_prints_usage_and_exits_2()
    {
        const Run run = runWorkbench({QStringLiteral("--lang"), QStringLiteral("xx")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains(QStringLiteral("xx")));
        QVERIFY(run.err.contains(QStringLiteral("Usage:")));
    }

private:
    QTemporaryDir m_root;
    QString m_session;
};

QTEST_GUILESS_MAIN(TestMain)
#include "test_main.moc"
