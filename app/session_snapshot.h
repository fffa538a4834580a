#pragma once
// What the session worker hands to the GUI thread: plain copies, never the ak::Session itself
// (the Session and its libgit2 handles live on the worker thread only).
#include "session/experiment.h"
#include "session/session_info.h"
#include "session/shape_timing.h"

#include <QMetaType>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace ak {

struct VerifyReport;      // session/verify_report.h: the session's verify.json
struct MeasuredCeilings;  // analysis/measured_ceilings.h: the session's ceilings.json

// A session as it was when it was opened (or reloaded).
struct SessionSnapshot {
    quint64 generation = 0;                // id of the open request that produced it
    QString dir;                           // absolute path of the session folder
    ak::SessionInfo info;
    std::vector<ak::Experiment> experiments;
    QStringList warnings;                  // repairs Session::open made or (read-only) would make
    qint64 openMs = 0;                     // wall time of Session::open on the worker
    std::shared_ptr<const ak::VerifyReport> verify;  // verify.json (`autokernel verify`), null when none
    QString verifyError;                   // why verify.json could not be read ("" when fine or absent)
    // ceilings.json (session/session_ceilings.h: `autokernel ceilings --json`), null when none
    std::shared_ptr<const ak::MeasuredCeilings> ceilings;
    QString ceilingsError;                 // why ceilings.json could not be read ("" when fine or absent)
};
using SnapshotPtr = std::shared_ptr<const SessionSnapshot>;

// The files beside results.tsv that other commands write while the session is open (verify.json,
// ceilings.json), read again when the watcher sees them change. Same meaning as the snapshot's fields.
struct SessionReports {
    quint64 generation = 0;                // id of the open request whose session this belongs to
    std::shared_ptr<const ak::VerifyReport> verify;
    QString verifyError;
    std::shared_ptr<const ak::MeasuredCeilings> ceilings;
    QString ceilingsError;
};

// Rows another process appended since the last read (Session::refresh()).
struct SessionUpdate {
    quint64 generation = 0;                // id of the open request whose session this belongs to
    std::vector<ak::Experiment> added;
    QStringList warnings;
};

// Sources for the diff, source and details tabs of one selected experiment.
struct SourcesRequest {
    quint64 id = 0;
    ak::Experiment experiment;
    bool hasCompare = false;
    ak::Experiment compareWith;            // the second experiment of "Diff vs selected"
};

struct SourcesResult {
    quint64 id = 0;
    quint64 generation = 0;                // id of the open request whose session answered
    int number = -1;                       // the experiment the sources belong to
    int compareNumber = -1;                // -1: no comparison requested
    QString source;                        // kernel file at the experiment's commit
    QString parentSource;                  // the same file at the parent commit ("" = new file)
    QString compareSource;                 // kernel file at the comparison experiment's commit
    QString error;                         // non-empty when git could not deliver them
    // The per-shape timings in the two commits' messages (session/shape_timing.h); recorded == false
    // for commits written without them. Read independently of the sources.
    ak::RecordedTimings timings;           // of the experiment
    ak::RecordedTimings compareTimings;    // of the comparison experiment
    QString timingsError;                  // non-empty when a commit message could not be read
};

}  // namespace ak

Q_DECLARE_METATYPE(ak::SnapshotPtr)
Q_DECLARE_METATYPE(ak::SessionUpdate)
Q_DECLARE_METATYPE(ak::SessionReports)
Q_DECLARE_METATYPE(ak::SourcesResult)
