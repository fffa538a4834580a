// File ▸ Open Recent: newest first, at most ten, missing folders dropped.
#include "app/recent_sessions.h"

#include <QDir>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace ak;

class TestRecentSessions : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        m_settings = std::make_unique<QSettings>(m_dir->filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
    }

    void newest_first_without_duplicates()
    {
        const QString a = folder(QStringLiteral("a")), b = folder(QStringLiteral("b"));
        addRecentSession(*m_settings, a);
        addRecentSession(*m_settings, b);
        addRecentSession(*m_settings, a + QStringLiteral("/."));  // the same folder, spelled differently
        QCOMPARE(recentSessions(*m_settings), (QStringList{a, b}));
    }

    void at_most_ten_are_kept()
    {
        QStringList added;
        for (int i = 0; i < 13; ++i) {
            added.prepend(folder(QString::number(i)));
            addRecentSession(*m_settings, added.first());
        }
        const QStringList recent = recentSessions(*m_settings);
        QCOMPARE(recent.size(), kMaxRecentSessions);
        QCOMPARE(recent, added.mid(0, kMaxRecentSessions));
    }

    void missing_folders_are_dropped_and_forgotten()
    {
        const QString a = folder(QStringLiteral("a")), gone = folder(QStringLiteral("gone"));
        addRecentSession(*m_settings, a);
        addRecentSession(*m_settings, gone);
        QVERIFY(QDir(gone).removeRecursively());
        QCOMPARE(recentSessions(*m_settings), QStringList{a});
        QVERIFY(QDir().mkpath(gone));  // it comes back, but was forgotten
        QCOMPARE(recentSessions(*m_settings), QStringList{a});
    }

    void clearing_empties_the_list()
    {
        addRecentSession(*m_settings, folder(QStringLiteral("a")));
        clearRecentSessions(*m_settings);
        QVERIFY(recentSessions(*m_settings).isEmpty());
    }

private:
    QString folder(const QString& name)
    {
        const QString path = m_dir->filePath(name);
        QDir().mkpath(path);
        return path;
    }
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<QSettings> m_settings;
};

QTEST_GUILESS_MAIN(TestRecentSessions)
#include "test_recent_sessions.moc"
