#include "app/recent_sessions.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace ak {

namespace {
const QString kKey = QStringLiteral("session/recent");

QString normalized(const QString& dir) { return QDir::cleanPath(QFileInfo(dir).absoluteFilePath()); }
}  // namespace

QStringList recentSessions(QSettings& settings)
{
    const QStringList stored = settings.value(kKey).toStringList();
    QStringList kept;
    for (const QString& dir : stored) {
        if (!dir.isEmpty() && QFileInfo(dir).isDir() && !kept.contains(dir))
            kept.append(dir);
        if (kept.size() == kMaxRecentSessions)
            break;
    }
    if (kept != stored)
        settings.setValue(kKey, kept);
    return kept;
}

void addRecentSession(QSettings& settings, const QString& dir)
{
    const QString entry = normalized(dir);
    QStringList list = settings.value(kKey).toStringList();
    list.removeAll(entry);
    list.prepend(entry);
    while (list.size() > kMaxRecentSessions)
        list.removeLast();
    settings.setValue(kKey, list);
}

void clearRecentSessions(QSettings& settings) { settings.remove(kKey); }

}  // namespace ak
