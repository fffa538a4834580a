#pragma once
// Runs every ak::Session call off the GUI thread.
//
// One worker thread owns the (read-only) ak::Session: opening and reconciling it, refresh() after
// another process appended rows, the git reads behind the diff and source tabs (and the per-shape
// timings in the commits), and re-reading verify.json / ceilings.json when they change. The GUI thread
// only ever sees copies (SessionSnapshot, SessionUpdate, SourcesResult) delivered through queued
// signals.
//
// Every request gets an increasing id. Requests of the same kind supersede older ones: the worker
// skips a request when a newer one of its kind is already queued, and the loader drops any result
// that is not the newest (so clicking quickly through history only renders the last click).
// Results also carry the "generation" (the id of the open request whose session produced them), so
// rows or sources of a session the window no longer shows are never applied to it.
#include "app/session_snapshot.h"
#include "util/error.h"

#include <QObject>
#include <QString>

#include <memory>

class QThread;

namespace ak {

class SessionWorker;
struct SessionRequestCounters;   // newest request ids, shared with the worker

// The headline for a failed open, naming what is wrong (translated), e.g.
// "“/tmp/x” is not an AutoKernel session." The caller appends core's detailed message.
QString describeOpenError(ak::ErrorKind kind, const QString& dir);

class SessionLoader : public QObject {
    Q_OBJECT
public:
    explicit SessionLoader(QObject* parent = nullptr);
    ~SessionLoader() override;

    // Opens `dir` read-only on the worker. Emits opened() or openFailed() with the returned id.
    quint64 open(const QString& dir);
    // Reads rows appended since the last read. Emits refreshed() (possibly with no rows) or
    // refreshFailed(). Consecutive calls while one is queued collapse into one.
    void refresh();
    // Reads verify.json and ceilings.json of the open session again. Emits reportsReloaded() (for the
    // session currently shown only).
    void reloadReports();
    // Reads the sources of `experiment` (and of `compareWith`, when given). Emits sourcesReady()
    // for the newest request only.
    quint64 requestSources(const ak::Experiment& experiment, const ak::Experiment* compareWith = nullptr);

    // Id of the session the loader last delivered (0 before the first successful open).
    quint64 currentGeneration() const { return currentGeneration_; }
    bool isBusy() const { return pendingOpen_ != 0; }

signals:
    void opened(ak::SnapshotPtr snapshot);
    void openFailed(quint64 requestId, const QString& dir, const QString& message);
    void refreshed(const ak::SessionUpdate& update);
    void refreshFailed(const QString& message);
    void sourcesReady(const ak::SourcesResult& result);
    void reportsReloaded(const ak::SessionReports& reports);

private:
    void onOpened(quint64 requestId, ak::SnapshotPtr snapshot);
    void onOpenFailed(quint64 requestId, const QString& dir, const QString& message);
    void onRefreshed(const ak::SessionUpdate& update);
    void onSourcesReady(const ak::SourcesResult& result);
    void onReportsReloaded(const ak::SessionReports& reports);

    std::shared_ptr<SessionRequestCounters> counters_;
    QThread* thread_ = nullptr;
    SessionWorker* worker_ = nullptr;
    quint64 nextId_ = 1;
    quint64 pendingOpen_ = 0;
    quint64 currentGeneration_ = 0;
    quint64 latestSources_ = 0;
};

// The worker object (lives on the loader's thread). Public only so moc can see it.
class SessionWorker : public QObject {
    Q_OBJECT
public:
    explicit SessionWorker(std::shared_ptr<SessionRequestCounters> counters);
    ~SessionWorker() override;

    void open(quint64 requestId, const QString& dir);
    void refresh();
    void readSources(const ak::SourcesRequest& request);
    void reloadReports();

signals:
    void opened(quint64 requestId, ak::SnapshotPtr snapshot);
    void openFailed(quint64 requestId, const QString& dir, const QString& message);
    void refreshed(const ak::SessionUpdate& update);
    void refreshFailed(const QString& message);
    void sourcesReady(const ak::SourcesResult& result);
    void reportsReloaded(const ak::SessionReports& reports);

private:
    struct State;
    std::shared_ptr<SessionRequestCounters> counters_;
    std::unique_ptr<State> state_;
};

}  // namespace ak
