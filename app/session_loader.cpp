#include "app/session_loader.h"

#include "session/session.h"
#include "session/session_ceilings.h"
#include "session/verify_report.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QThread>

#include <atomic>
#include <exception>
#include <filesystem>
#include <optional>

namespace ak {

struct SessionRequestCounters {
    std::atomic<quint64> newestOpen{0};
    std::atomic<quint64> newestSources{0};
    std::atomic<bool> refreshQueued{false};
};

namespace {

QString fromUtf8(const std::string& text) { return QString::fromUtf8(text.data(), qsizetype(text.size())); }

QStringList toStringList(const std::vector<std::string>& lines, std::size_t from = 0)
{
    QStringList out;
    for (std::size_t i = from; i < lines.size(); ++i)
        out.append(fromUtf8(lines[i]));
    return out;
}

const bool metaTypesRegistered = [] {
    qRegisterMetaType<ak::SnapshotPtr>();
    qRegisterMetaType<ak::SessionUpdate>();
    qRegisterMetaType<ak::SessionReports>();
    qRegisterMetaType<ak::SourcesResult>();
    return true;
}();

// verify.json and ceilings.json of the session in `dir`; a file that cannot be read gives its error.
SessionReports readReports(const std::filesystem::path& dir)
{
    SessionReports reports;
    if (std::filesystem::exists(ak::verify_report_path(dir))) {
        try {
            reports.verify = std::make_shared<const ak::VerifyReport>(ak::read_verify_report(dir));
        } catch (const std::exception& error) {
            reports.verifyError = fromUtf8(error.what());
        }
    }
    try {
        if (auto ceilings = ak::read_session_ceilings(dir))
            reports.ceilings = std::make_shared<const ak::MeasuredCeilings>(std::move(*ceilings));
    } catch (const std::exception& error) {
        reports.ceilingsError = fromUtf8(error.what());
    }
    return reports;
}

}  // namespace

QString describeOpenError(ak::ErrorKind kind, const QString& dir)
{
    switch (kind) {
    case ak::ErrorKind::NotASession:
        return SessionLoader::tr("“%1” is not an AutoKernel session (it needs session.json and a git repository).").arg(dir);
    case ak::ErrorKind::NotFound:
        return SessionLoader::tr("Something the session “%1” refers to does not exist.").arg(dir);
    case ak::ErrorKind::BadFormat:
        return SessionLoader::tr("The session “%1” has a malformed file.").arg(dir);
    case ak::ErrorKind::BadEncoding:
        return SessionLoader::tr("The session “%1” contains text that is not valid UTF-8.").arg(dir);
    case ak::ErrorKind::Empty:
        return SessionLoader::tr("The session “%1” has no experiments.").arg(dir);
    case ak::ErrorKind::Git:
        return SessionLoader::tr("The git repository of the session “%1” could not be read.").arg(dir);
    case ak::ErrorKind::Io:
    case ak::ErrorKind::ReadOnly:
        return SessionLoader::tr("The session “%1” could not be read.").arg(dir);
    default:
        return SessionLoader::tr("The session “%1” could not be opened.").arg(dir);
    }
}

// --------------------------------------------------------------------------------------------
// Worker (runs on the loader's thread)

struct SessionWorker::State {
    std::optional<ak::Session> session;
    quint64 generation = 0;
    std::size_t warningsSeen = 0;
};

SessionWorker::SessionWorker(std::shared_ptr<SessionRequestCounters> counters)
    : counters_(std::move(counters)), state_(std::make_unique<State>())
{
}

SessionWorker::~SessionWorker() = default;

void SessionWorker::open(quint64 requestId, const QString& dir)
{
    if (counters_->newestOpen.load() != requestId)
        return;  // a newer open is queued: this one would be dropped anyway
    const QString absolute = QFileInfo(dir).absoluteFilePath();
    try {
        QElapsedTimer timer;
        timer.start();
        ak::OpenOptions options;
        options.read_only = true;  // the viewer never writes
        ak::Session session = ak::Session::open(absolute.toStdString(), options);
        if (session.experiments().empty())
            throw ak::Error(ak::ErrorKind::Empty, "results.tsv and the experiment refs hold no experiments");

        auto snapshot = std::make_shared<SessionSnapshot>();
        snapshot->generation = requestId;
        snapshot->dir = absolute;
        snapshot->info = session.info();
        snapshot->experiments = session.experiments();
        snapshot->warnings = toStringList(session.warnings());
        SessionReports reports = readReports(session.dir());
        snapshot->verify = std::move(reports.verify);
        snapshot->verifyError = reports.verifyError;
        snapshot->ceilings = std::move(reports.ceilings);
        snapshot->ceilingsError = reports.ceilingsError;
        snapshot->openMs = timer.elapsed();

        state_->session.reset();
        state_->session.emplace(std::move(session));
        state_->generation = requestId;
        state_->warningsSeen = state_->session->warnings().size();
        emit opened(requestId, std::move(snapshot));
    } catch (const ak::Error& error) {
        emit openFailed(requestId, absolute,
                        describeOpenError(error.kind(), absolute) + QLatin1Char('\n') + QString::fromUtf8(error.what()));
    } catch (const std::exception& error) {
        emit openFailed(requestId, absolute,
                        describeOpenError(ak::ErrorKind::Internal, absolute) + QLatin1Char('\n') +
                            QString::fromUtf8(error.what()));
    } catch (...) {
        emit openFailed(requestId, absolute, describeOpenError(ak::ErrorKind::Internal, absolute));
    }
}

void SessionWorker::refresh()
{
    counters_->refreshQueued.store(false);
    if (!state_->session)
        return;
    try {
        const std::size_t before = state_->session->experiments().size();
        const std::size_t added = state_->session->refresh();
        const auto& all = state_->session->experiments();
        SessionUpdate update;
        update.generation = state_->generation;
        // refresh() appends to experiments(); `added` of them are new.
        const std::size_t first = all.size() >= added ? all.size() - added : 0;
        (void)before;
        update.added.assign(all.begin() + std::ptrdiff_t(std::max(first, std::min(before, all.size()))), all.end());
        update.warnings = toStringList(state_->session->warnings(), state_->warningsSeen);
        state_->warningsSeen = state_->session->warnings().size();
        emit refreshed(update);
    } catch (const std::exception& error) {
        emit refreshFailed(QString::fromUtf8(error.what()));
    } catch (...) {
        emit refreshFailed(SessionLoader::tr("Unknown error while reading new experiments."));
    }
}

void SessionWorker::readSources(const SourcesRequest& request)
{
    if (counters_->newestSources.load() != request.id)
        return;  // superseded by a newer selection
    SourcesResult result;
    result.id = request.id;
    result.generation = state_->generation;
    result.number = request.experiment.number;
    result.compareNumber = request.hasCompare ? request.compareWith.number : -1;
    if (!state_->session) {
        result.error = SessionLoader::tr("No session is open.");
        emit sourcesReady(result);
        return;
    }
    try {
        result.source = fromUtf8(state_->session->source_of(request.experiment));
        result.parentSource = fromUtf8(state_->session->parent_source_of(request.experiment));
        if (request.hasCompare)
            result.compareSource = fromUtf8(state_->session->source_of(request.compareWith));
    } catch (const std::exception& error) {
        result.error = SessionLoader::tr("Could not read the source of experiment %1: %2")
                           .arg(request.experiment.number)
                           .arg(QString::fromUtf8(error.what()));
    } catch (...) {
        result.error = SessionLoader::tr("Could not read the source of experiment %1.").arg(request.experiment.number);
    }
    // The per-shape timings: never fatal for the sources (an old commit simply has none).
    const auto readTimings = [&](const Experiment& e, RecordedTimings& into) {
        try {
            into = state_->session->timings_of(e);
        } catch (const std::exception& error) {
            result.timingsError = SessionLoader::tr("Could not read the timings of experiment %1: %2")
                                      .arg(e.number)
                                      .arg(QString::fromUtf8(error.what()));
        } catch (...) {
            result.timingsError = SessionLoader::tr("Could not read the timings of experiment %1.").arg(e.number);
        }
    };
    readTimings(request.experiment, result.timings);
    if (request.hasCompare)
        readTimings(request.compareWith, result.compareTimings);
    emit sourcesReady(result);
}

void SessionWorker::reloadReports()
{
    if (!state_->session)
        return;
    SessionReports reports = readReports(state_->session->dir());
    reports.generation = state_->generation;
    emit reportsReloaded(reports);
}

// --------------------------------------------------------------------------------------------
// Loader (GUI thread)

SessionLoader::SessionLoader(QObject* parent)
    : QObject(parent), counters_(std::make_shared<SessionRequestCounters>())
{
    (void)metaTypesRegistered;
    thread_ = new QThread(this);
    thread_->setObjectName(QStringLiteral("ak-session-worker"));
    worker_ = new SessionWorker(counters_);
    worker_->moveToThread(thread_);
    connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &SessionWorker::opened, this, &SessionLoader::onOpened);
    connect(worker_, &SessionWorker::openFailed, this, &SessionLoader::onOpenFailed);
    connect(worker_, &SessionWorker::refreshed, this, &SessionLoader::onRefreshed);
    connect(worker_, &SessionWorker::refreshFailed, this, &SessionLoader::refreshFailed);
    connect(worker_, &SessionWorker::sourcesReady, this, &SessionLoader::onSourcesReady);
    connect(worker_, &SessionWorker::reportsReloaded, this, &SessionLoader::onReportsReloaded);
    thread_->start();
}

SessionLoader::~SessionLoader()
{
    // Stale requests still queued are skipped quickly once their ids are no longer the newest.
    counters_->newestOpen.store(0);
    counters_->newestSources.store(0);
    thread_->quit();
    thread_->wait();
}

quint64 SessionLoader::open(const QString& dir)
{
    const quint64 id = nextId_++;
    pendingOpen_ = id;
    counters_->newestOpen.store(id);
    QMetaObject::invokeMethod(worker_, [worker = worker_, id, dir] { worker->open(id, dir); }, Qt::QueuedConnection);
    return id;
}

void SessionLoader::refresh()
{
    if (counters_->refreshQueued.exchange(true))
        return;  // one is queued already and will see these rows too
    QMetaObject::invokeMethod(worker_, [worker = worker_] { worker->refresh(); }, Qt::QueuedConnection);
}

void SessionLoader::reloadReports()
{
    QMetaObject::invokeMethod(worker_, [worker = worker_] { worker->reloadReports(); }, Qt::QueuedConnection);
}

void SessionLoader::onReportsReloaded(const SessionReports& reports)
{
    if (reports.generation != currentGeneration_ || pendingOpen_ != 0)
        return;  // another session is shown or about to be: it reads its own files when it opens
    emit reportsReloaded(reports);
}

quint64 SessionLoader::requestSources(const ak::Experiment& experiment, const ak::Experiment* compareWith)
{
    SourcesRequest request;
    request.id = nextId_++;
    request.experiment = experiment;
    if (compareWith) {
        request.hasCompare = true;
        request.compareWith = *compareWith;
    }
    latestSources_ = request.id;
    counters_->newestSources.store(request.id);
    QMetaObject::invokeMethod(
        worker_, [worker = worker_, request = std::move(request)] { worker->readSources(request); },
        Qt::QueuedConnection);
    return latestSources_;
}

void SessionLoader::onOpened(quint64 requestId, SnapshotPtr snapshot)
{
    if (requestId != pendingOpen_)
        return;  // a newer open superseded it
    pendingOpen_ = 0;
    currentGeneration_ = requestId;
    emit opened(std::move(snapshot));
}

void SessionLoader::onOpenFailed(quint64 requestId, const QString& dir, const QString& message)
{
    if (requestId != pendingOpen_)
        return;
    pendingOpen_ = 0;
    emit openFailed(requestId, dir, message);
}

void SessionLoader::onRefreshed(const SessionUpdate& update)
{
    if (update.generation != currentGeneration_ || pendingOpen_ != 0)
        return;  // rows of a session the window does not show (or is about to replace)
    emit refreshed(update);
}

void SessionLoader::onSourcesReady(const SourcesResult& result)
{
    if (result.id != latestSources_ || result.generation != currentGeneration_)
        return;
    emit sourcesReady(result);
}

}  // namespace ak
