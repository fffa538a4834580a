#pragma once
// Live follow: notices when another process (the optimization loop, the CLI) records experiments.
//
// Watches <session>/results.tsv, the session folder (results.tsv replaced atomically by a repair)
// and .git/refs/autokernel(/exp) (a new experiment ref). Bursts of change notifications are
// debounced into one changed() signal. A file replaced by rename drops out of QFileSystemWatcher,
// so it is added again after every notification; a slow poll of results.tsv's size and time
// catches file systems where inotify says nothing.
//
// The files other commands write beside results.tsv while the session is open (verify.json from
// `autokernel verify`, ceilings.json from `autokernel ceilings --json`) are watched the same way;
// when one appears, changes or disappears, reportsChanged() says so (the rows are not affected).
#include <QDateTime>
#include <QObject>
#include <QString>

class QFileSystemWatcher;
class QTimer;

namespace ak {

class SessionWatcher : public QObject {
    Q_OBJECT
public:
    explicit SessionWatcher(QObject* parent = nullptr);
    ~SessionWatcher() override;

    // Starts watching `sessionDir` (stops watching the previous one). An empty path stops.
    void watch(const QString& sessionDir);
    QString sessionDir() const { return dir_; }

    void setDebounceMs(int ms);
    int debounceMs() const;
    // Interval of the fallback poll (0 = off). Default 2000 ms.
    void setPollIntervalMs(int ms);

    // false: rely on the poll alone (file systems where inotify is silent, e.g. some network mounts).
    void setFileWatcherEnabled(bool enabled);

    // Paths the file system watcher currently holds (for tests and diagnostics).
    QStringList watchedPaths() const;

signals:
    // Something in the session changed; emitted at most once per debounce interval.
    void changed();
    // verify.json or ceilings.json appeared, changed or disappeared (checked when changed() is emitted).
    void reportsChanged();

private:
    void onPathChanged(const QString& path);
    void rewatch();
    void poll();
    void fireDebounced();
    QString reportsStamp() const;

    QString dir_;
    QFileSystemWatcher* watcher_ = nullptr;
    QTimer* debounce_ = nullptr;
    QTimer* poll_ = nullptr;
    bool fileWatcherEnabled_ = true;
    qint64 lastSize_ = -1;
    QDateTime lastModified_;
    QString lastReports_;  // existence, size and time of the report files when last checked
};

}  // namespace ak
