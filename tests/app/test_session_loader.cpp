// SessionLoader: the worker thread, newest-request-wins, and errors as messages.
#include "app/session_loader.h"
#include "sample_session.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace ak;

class TestSessionLoader : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void open_delivers_a_snapshot_of_the_session_read_on_another_thread();
    void a_newer_open_supersedes_an_older_one();
    void only_the_newest_sources_request_is_delivered();
    void sources_include_the_parent_and_the_comparison();
    void a_failed_open_keeps_the_previous_session_for_sources();
    void refresh_delivers_rows_appended_by_another_writer();
    void error_headlines_name_the_folder();

private:
    static SnapshotPtr openAndWait(SessionLoader& loader, const QString& dir);
    QTemporaryDir m_root;
    QString m_sessionDir;
};

void TestSessionLoader::initTestCase()
{
    QVERIFY(m_root.isValid());
    m_sessionDir = m_root.filePath(QStringLiteral("sample"));
    test::createSampleSession(test::toPath(m_sessionDir));
}

SnapshotPtr TestSessionLoader::openAndWait(SessionLoader& loader, const QString& dir)
{
    QSignalSpy opened(&loader, &SessionLoader::opened);
    loader.open(dir);
    if (!opened.wait(15000))
        return nullptr;
    return opened.first().first().value<SnapshotPtr>();
}

void TestSessionLoader::open_delivers_a_snapshot_of_the_session_read_on_another_thread()
{
    SessionLoader loader;
    const SnapshotPtr snapshot = openAndWait(loader, m_sessionDir);
    QVERIFY(snapshot);
    QCOMPARE(snapshot->dir, QFileInfo(m_sessionDir).absoluteFilePath());
    QCOMPARE(int(snapshot->experiments.size()), test::kSampleExperimentCount);
    QCOMPARE(snapshot->info.name, std::string("app-test session"));
    QCOMPARE(snapshot->experiments[2].description, std::string("BLOCK 256 -> 512"));
    QCOMPARE(snapshot->experiments[4].outcome, Outcome::Failed);
    QVERIFY(snapshot->warnings.isEmpty());
    QCOMPARE(loader.currentGeneration(), snapshot->generation);
    QVERIFY(!loader.isBusy());
}

void TestSessionLoader::a_newer_open_supersedes_an_older_one()
{
    const QString other = m_root.filePath(QStringLiteral("other"));
    test::createSampleSession(test::toPath(other));
    SessionLoader loader;
    QSignalSpy opened(&loader, &SessionLoader::opened);
    QSignalSpy failed(&loader, &SessionLoader::openFailed);
    loader.open(m_root.filePath(QStringLiteral("missing")));  // would fail,
    loader.open(m_sessionDir);                                // would succeed,
    const quint64 newest = loader.open(other);                // but only this one counts
    QVERIFY(opened.wait(15000));
    QTest::qWait(200);  // nothing else may arrive
    QCOMPARE(opened.size(), 1);
    QCOMPARE(failed.size(), 0);
    const SnapshotPtr snapshot = opened.first().first().value<SnapshotPtr>();
    QCOMPARE(snapshot->dir, QFileInfo(other).absoluteFilePath());
    QCOMPARE(snapshot->generation, newest);
}

void TestSessionLoader::only_the_newest_sources_request_is_delivered()
{
    SessionLoader loader;
    const SnapshotPtr snapshot = openAndWait(loader, m_sessionDir);
    QVERIFY(snapshot);
    QSignalSpy ready(&loader, &SessionLoader::sourcesReady);
    // Click through the whole history quickly: every request but the last is stale.
    quint64 last = 0;
    for (int round = 0; round < 5; ++round) {
        for (const Experiment& e : snapshot->experiments)
            last = loader.requestSources(e);
    }
    QVERIFY(ready.wait(10000));
    QTest::qWait(300);
    QCOMPARE(ready.size(), 1);
    const auto result = ready.first().first().value<SourcesResult>();
    QCOMPARE(result.id, last);
    QCOMPARE(result.number, snapshot->experiments.back().number);
    QVERIFY(result.error.isEmpty());
    QVERIFY(result.source.contains(QStringLiteral("one pass: running max")));
}

void TestSessionLoader::sources_include_the_parent_and_the_comparison()
{
    SessionLoader loader;
    const SnapshotPtr snapshot = openAndWait(loader, m_sessionDir);
    QVERIFY(snapshot);
    QSignalSpy ready(&loader, &SessionLoader::sourcesReady);
    loader.requestSources(snapshot->experiments[5], &snapshot->experiments[0]);
    QVERIFY(ready.wait(10000));
    const auto result = ready.first().first().value<SourcesResult>();
    QCOMPARE(result.number, 5);
    QCOMPARE(result.compareNumber, 0);
    QCOMPARE(result.source, QString::fromStdString(test::rmsnormSource(512, 4, false)));
    QCOMPARE(result.parentSource, QString::fromStdString(test::rmsnormSource(512, 1, false)));
    QCOMPARE(result.compareSource, QString::fromStdString(test::rmsnormSource(256, 1, false)));
    // The per-shape timings come with them: #5 has two shapes, the starter #0 none recorded.
    QVERIFY2(result.timingsError.isEmpty(), qPrintable(result.timingsError));
    QVERIFY(result.timings.recorded);
    QCOMPARE(int(result.timings.shapes.size()), 2);
    QCOMPARE(result.timings.shapes[1].shape, std::string("4096x8192"));
    QCOMPARE(*result.timings.shapes[1].median_us, 80.0);
    QVERIFY(!result.compareTimings.recorded);
    QVERIFY(result.compareTimings.shapes.empty());
}

void TestSessionLoader::a_failed_open_keeps_the_previous_session_for_sources()
{
    SessionLoader loader;
    const SnapshotPtr snapshot = openAndWait(loader, m_sessionDir);
    QVERIFY(snapshot);
    QSignalSpy failed(&loader, &SessionLoader::openFailed);
    loader.open(m_root.filePath(QStringLiteral("missing")));
    QVERIFY(failed.wait(10000));
    QCOMPARE(loader.currentGeneration(), snapshot->generation);
    QSignalSpy ready(&loader, &SessionLoader::sourcesReady);
    loader.requestSources(snapshot->experiments[2]);
    QVERIFY(ready.wait(10000));
    const auto result = ready.first().first().value<SourcesResult>();
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    QVERIFY(result.source.contains(QStringLiteral("#define BLOCK 512")));
}

void TestSessionLoader::refresh_delivers_rows_appended_by_another_writer()
{
    const QString dir = m_root.filePath(QStringLiteral("refresh"));
    test::createSampleSession(test::toPath(dir));
    SessionLoader loader;
    QVERIFY(openAndWait(loader, dir));
    const Experiment a = test::recordExtra(test::toPath(dir), 0);
    const Experiment b = test::recordExtra(test::toPath(dir), 1);
    QSignalSpy refreshed(&loader, &SessionLoader::refreshed);
    loader.refresh();
    loader.refresh();  // collapses into the queued one
    QVERIFY(refreshed.wait(10000));
    QTest::qWait(200);
    int rows = 0;
    for (const QList<QVariant>& call : refreshed)
        rows += int(call.first().value<SessionUpdate>().added.size());
    QCOMPARE(rows, 2);
    const auto update = refreshed.first().first().value<SessionUpdate>();
    QCOMPARE(update.added.front().number, a.number);
    QCOMPARE(update.added.back().commit, b.commit);
}

void TestSessionLoader::error_headlines_name_the_folder()
{
    const QString dir = QStringLiteral("/tmp/somewhere");
    QVERIFY(describeOpenError(ErrorKind::NotASession, dir).contains(dir));
    QVERIFY(describeOpenError(ErrorKind::NotASession, dir).contains(QStringLiteral("not an AutoKernel session")));
    QVERIFY(describeOpenError(ErrorKind::BadEncoding, dir).contains(QStringLiteral("UTF-8")));
    QVERIFY(describeOpenError(ErrorKind::Empty, dir).contains(QStringLiteral("no experiments")));
    QVERIFY(describeOpenError(ErrorKind::BadFormat, dir) != describeOpenError(ErrorKind::Git, dir));
}

QTEST_MAIN(TestSessionLoader)
#include "test_session_loader.moc"
