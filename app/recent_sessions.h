#pragma once
// The File ▸ Open Recent list, kept in QSettings under "session/recent": newest first, at most
// kMaxRecentSessions entries, no duplicates, folders that no longer exist dropped when read.
#include <QStringList>

class QSettings;

namespace ak {

inline constexpr int kMaxRecentSessions = 10;

// The list with missing folders removed (the cleaned list is written back).
QStringList recentSessions(QSettings& settings);
// Puts `dir` first (moving it up if present) and trims the list to kMaxRecentSessions.
void addRecentSession(QSettings& settings, const QString& dir);
void clearRecentSessions(QSettings& settings);

}  // namespace ak
