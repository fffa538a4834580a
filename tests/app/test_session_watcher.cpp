// SessionWatcher: debounced change notifications that survive atomic replaces.
#include "app/session_watcher.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace ak;

namespace {
void appendTo(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::Append));
    file.write(bytes);
}

void replaceByRename(const QString& path, const QByteArray& bytes)
{
    const QString temporary = path + QStringLiteral(".tmp");
    QFile file(temporary);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
    file.close();
    QVERIFY(::rename(QFile::encodeName(temporary).constData(), QFile::encodeName(path).constData()) == 0);
}
}  // namespace

class TestSessionWatcher : public QObject {
    Q_OBJECT

private slots:
    void init();
    void a_burst_of_appends_gives_one_change();
    void the_results_file_is_still_watched_after_an_atomic_replace();
    void a_new_experiment_ref_is_noticed();
    void the_poll_notices_changes_without_the_file_watcher();
    void watching_nothing_stops_notifications();
    void a_verify_json_written_while_watching_is_a_reports_change();
    void the_poll_notices_a_new_ceilings_json();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_results;
};

void TestSessionWatcher::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    QVERIFY(QDir(m_dir->path()).mkpath(QStringLiteral(".git/refs/autokernel/exp")));
    m_results = m_dir->filePath(QStringLiteral("results.tsv"));
    appendTo(m_results, "header\n");
}

void TestSessionWatcher::a_burst_of_appends_gives_one_change()
{
    SessionWatcher watcher;
    watcher.setPollIntervalMs(0);
    watcher.setDebounceMs(150);
    watcher.watch(m_dir->path());
    QVERIFY(watcher.watchedPaths().contains(m_results));
    QSignalSpy changed(&watcher, &SessionWatcher::changed);
    for (int i = 0; i < 10; ++i) {
        appendTo(m_results, "row\n");
        QTest::qWait(10);
    }
    QVERIFY(changed.wait(3000));
    QTest::qWait(400);
    QCOMPARE(changed.size(), 1);
}

void TestSessionWatcher::the_results_file_is_still_watched_after_an_atomic_replace()
{
    SessionWatcher watcher;
    watcher.setPollIntervalMs(0);
    watcher.setDebounceMs(50);
    watcher.watch(m_dir->path());
    QSignalSpy changed(&watcher, &SessionWatcher::changed);
    replaceByRename(m_results, "header\nrebuilt\n");
    QVERIFY(changed.wait(3000));
    QTRY_VERIFY_WITH_TIMEOUT(watcher.watchedPaths().contains(m_results), 3000);
    changed.clear();
    appendTo(m_results, "after replace\n");
    QVERIFY(changed.wait(3000));
}

void TestSessionWatcher::a_new_experiment_ref_is_noticed()
{
    SessionWatcher watcher;
    watcher.setPollIntervalMs(0);
    watcher.setDebounceMs(50);
    watcher.watch(m_dir->path());
    QSignalSpy changed(&watcher, &SessionWatcher::changed);
    appendTo(m_dir->filePath(QStringLiteral(".git/refs/autokernel/exp/12")), "0123456789012345678901234567890123456789\n");
    QVERIFY(changed.wait(3000));
}

void TestSessionWatcher::the_poll_notices_changes_without_the_file_watcher()
{
    SessionWatcher watcher;
    watcher.setDebounceMs(10);
    watcher.setFileWatcherEnabled(false);  // a file system where inotify says nothing
    watcher.setPollIntervalMs(100);
    watcher.watch(m_dir->path());
    QVERIFY(watcher.watchedPaths().isEmpty());
    QSignalSpy changed(&watcher, &SessionWatcher::changed);
    appendTo(m_results, "row\n");
    QVERIFY(changed.wait(3000));
}

void TestSessionWatcher::watching_nothing_stops_notifications()
{
    SessionWatcher watcher;
    watcher.setDebounceMs(10);
    watcher.setPollIntervalMs(50);
    watcher.watch(m_dir->path());
    watcher.watch(QString());
    QVERIFY(watcher.watchedPaths().isEmpty());
    QSignalSpy changed(&watcher, &SessionWatcher::changed);
    appendTo(m_results, "row\n");
    QTest::qWait(400);
    QCOMPARE(changed.size(), 0);
}


void TestSessionWatcher::a_verify_json_written_while_watching_is_a_reports_change()
{
    SessionWatcher watcher;
    watcher.setPollIntervalMs(0);  // the file system watcher alone
    watcher.setDebounceMs(50);
    watcher.watch(m_dir->path());
    QSignalSpy reports(&watcher, &SessionWatcher::reportsChanged);
    const QString verify = m_dir->filePath(QStringLiteral("verify.json"));
    // `autokernel verify` writes it atomically (temporary file + rename).
    replaceByRename(verify, "{\"first\": 1}\n");
    QVERIFY(reports.wait(3000));
    QVERIFY(watcher.watchedPaths().contains(verify));
    // Rewritten in place: noticed too.
    QTest::qWait(20);
    appendTo(verify, " ");
    QTRY_COMPARE_WITH_TIMEOUT(reports.size(), 2, 3000);
    // A change of results.tsv alone is not a reports change.
    QSignalSpy changed(&watcher, &SessionWatcher::changed);
    appendTo(m_results, "row\n");
    QVERIFY(changed.wait(3000));
    QTest::qWait(200);
    QCOMPARE(reports.size(), 2);
    // Removed: a change as well (the page must stop showing it).
    QVERIFY(QFile::remove(verify));
    QTRY_COMPARE_WITH_TIMEOUT(reports.size(), 3, 3000);
}

void TestSessionWatcher::the_poll_notices_a_new_ceilings_json()
{
    SessionWatcher watcher;
    watcher.setFileWatcherEnabled(false);
    watcher.setDebounceMs(20);
    watcher.setPollIntervalMs(50);
    watcher.watch(m_dir->path());
    QSignalSpy reports(&watcher, &SessionWatcher::reportsChanged);
    appendTo(m_dir->filePath(QStringLiteral("ceilings.json")), "{}\n");
    QVERIFY(reports.wait(3000));
}

QTEST_MAIN(TestSessionWatcher)
#include "test_session_watcher.moc"
