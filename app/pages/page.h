#pragma once
// One page of the main window (Experiments, Profile, Roofline, Compare): a view of its own file that
// talks to the rest of the workbench only through this interface, so it can be built and tested alone.
//
// The shell (MainWindow) owns the session, the selection and the open profile, and pushes them into
// every page: setSession() on open and reload, appendExperiments() for rows recorded live,
// setSessionReports() when verify.json or ceilings.json of the open session changed on disk,
// setSelection() whenever the selected or the compared experiment changes (also when the page itself
// asked for the change), showSources() when the selection's sources arrived from the session worker
// (one request serves every page), setProfile() when a profile is opened or closed.
//
// A page never changes the selection itself: it asks the shell with experimentActivated() (the user
// picked an experiment here), compareRequested() (make this the compared experiment) or
// experimentMenuRequested() (the experiment's context menu at a global position); the shell then calls
// setSelection() on every page, this one included. Pages ignore setSelection() calls that change nothing.
#include "app/session_snapshot.h"
#include "session/experiment.h"

#include <QWidget>

#include <memory>
#include <vector>

namespace ak {

struct ProfileDocument;  // app/profile_document.h: a profile, its file and its breakdown
using ProfilePtr = std::shared_ptr<const ProfileDocument>;

class Page : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

    // The session shown (nullptr: none) with its experiments in record order.
    virtual void setSession(const SnapshotPtr& session, const std::vector<Experiment>& experiments)
    {
        Q_UNUSED(session);
        Q_UNUSED(experiments);
    }
    // Experiments another writer (or the loop) recorded since; numbers are new.
    virtual void appendExperiments(const std::vector<Experiment>& added) { Q_UNUSED(added); }
    // The same session with verify.json / ceilings.json read again (its experiments are those of the
    // last setSession(); rows appended since came through appendExperiments()). Selection stays.
    virtual void setSessionReports(const SnapshotPtr& session) { Q_UNUSED(session); }
    // The experiment shown (-1: none) and the one it is compared with (-1: none).
    virtual void setSelection(int selected, int compare)
    {
        Q_UNUSED(selected);
        Q_UNUSED(compare);
    }
    // The sources of the selection (and of the compared experiment) as read from git.
    virtual void showSources(const SourcesResult& sources) { Q_UNUSED(sources); }
    // The profile open in the window (nullptr: none).
    virtual void setProfile(const ProfilePtr& profile) { Q_UNUSED(profile); }

signals:
    void experimentActivated(int number);
    void compareRequested(int number);
    void experimentMenuRequested(int number, const QPoint& globalPos);
    // A one-line note for the status bar.
    void statusMessage(const QString& text);
};

}  // namespace ak
