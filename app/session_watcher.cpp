#include "app/session_watcher.h"

#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QTimer>

namespace ak {

namespace {
QString resultsPath(const QString& dir) { return QDir(dir).filePath(QStringLiteral("results.tsv")); }
// session/verify_report.h and session/session_ceilings.h name them.
QStringList reportPaths(const QString& dir)
{
    return {QDir(dir).filePath(QStringLiteral("verify.json")), QDir(dir).filePath(QStringLiteral("ceilings.json"))};
}
}  // namespace

SessionWatcher::SessionWatcher(QObject* parent)
    : QObject(parent), watcher_(new QFileSystemWatcher(this)), debounce_(new QTimer(this)), poll_(new QTimer(this))
{
    debounce_->setSingleShot(true);
    debounce_->setInterval(150);
    poll_->setInterval(2000);
    connect(watcher_, &QFileSystemWatcher::fileChanged, this, &SessionWatcher::onPathChanged);
    connect(watcher_, &QFileSystemWatcher::directoryChanged, this, &SessionWatcher::onPathChanged);
    connect(debounce_, &QTimer::timeout, this, &SessionWatcher::fireDebounced);
    connect(poll_, &QTimer::timeout, this, &SessionWatcher::poll);
}

SessionWatcher::~SessionWatcher() = default;

void SessionWatcher::watch(const QString& sessionDir)
{
    const QStringList old = watcher_->files() + watcher_->directories();
    if (!old.isEmpty())
        watcher_->removePaths(old);
    debounce_->stop();
    poll_->stop();
    dir_ = sessionDir;
    lastSize_ = -1;
    lastModified_ = {};
    lastReports_.clear();
    if (dir_.isEmpty())
        return;
    const QFileInfo results(resultsPath(dir_));
    lastSize_ = results.exists() ? results.size() : -1;
    lastModified_ = results.lastModified();
    lastReports_ = reportsStamp();
    rewatch();
    if (poll_->interval() > 0)
        poll_->start();
}

void SessionWatcher::setDebounceMs(int ms) { debounce_->setInterval(ms); }

int SessionWatcher::debounceMs() const { return debounce_->interval(); }

void SessionWatcher::setPollIntervalMs(int ms)
{
    poll_->stop();
    poll_->setInterval(ms);
    if (ms > 0 && !dir_.isEmpty())
        poll_->start();
}

void SessionWatcher::setFileWatcherEnabled(bool enabled)
{
    fileWatcherEnabled_ = enabled;
    if (!enabled) {
        const QStringList held = watchedPaths();
        if (!held.isEmpty())
            watcher_->removePaths(held);
    } else {
        rewatch();
    }
}

QStringList SessionWatcher::watchedPaths() const { return watcher_->files() + watcher_->directories(); }

void SessionWatcher::rewatch()
{
    if (dir_.isEmpty() || !fileWatcherEnabled_)
        return;
    const QDir dir(dir_);
    const QStringList wanted = QStringList{
                                   dir_,
                                   resultsPath(dir_),
                                   dir.filePath(QStringLiteral(".git/refs/autokernel")),
                                   dir.filePath(QStringLiteral(".git/refs/autokernel/exp")),
                               } +
                               reportPaths(dir_);
    const QStringList held = watchedPaths();
    QStringList missing;
    for (const QString& path : wanted) {
        if (!held.contains(path) && QFileInfo::exists(path))
            missing.append(path);
    }
    if (!missing.isEmpty())
        watcher_->addPaths(missing);
}

void SessionWatcher::onPathChanged(const QString&)
{
    // After an atomic replace (rename over results.tsv) the old inode is gone from the watch list.
    rewatch();
    debounce_->start();  // restarts: a burst of writes gives one changed()
}

void SessionWatcher::poll()
{
    const QFileInfo results(resultsPath(dir_));
    const qint64 size = results.exists() ? results.size() : -1;
    const QDateTime modified = results.lastModified();
    if (size != lastSize_ || modified != lastModified_ || reportsStamp() != lastReports_) {
        rewatch();
        if (!debounce_->isActive())
            debounce_->start();
    }
}

void SessionWatcher::fireDebounced()
{
    const QFileInfo results(resultsPath(dir_));
    lastSize_ = results.exists() ? results.size() : -1;
    lastModified_ = results.lastModified();
    emit changed();
    const QString reports = reportsStamp();
    if (reports != lastReports_) {
        lastReports_ = reports;
        emit reportsChanged();
    }
}

QString SessionWatcher::reportsStamp() const
{
    QString stamp;
    for (const QString& path : reportPaths(dir_)) {
        const QFileInfo file(path);
        stamp += file.exists() ? QString::number(file.size()) + QLatin1Char('@') +
                                     QString::number(file.lastModified().toMSecsSinceEpoch()) + QLatin1Char(';')
                               : QStringLiteral("-;");
    }
    return stamp;
}

}  // namespace ak
