#pragma once
// Opens a profile.json off the GUI thread: reading and validating the file (core/profile/profile_json),
// computing its breakdown (core/profile/breakdown) and each kernel name's launch configuration, on a
// thread of its own per request. Requests carry an increasing id and only the newest one's answer is
// delivered (opening a second profile while the first is still read drops the first).
#include "app/profile_document.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QThread>
#include <QString>

#include <memory>
#include <vector>

namespace ak {

using ProfilePtr = std::shared_ptr<const ProfileDocument>;

// Reads and analyses `path` on the calling thread. Throws ak::Error naming the file and field.
ProfilePtr analyseProfile(const QString& path);

class ProfileLoader : public QObject {
    Q_OBJECT
public:
    explicit ProfileLoader(QObject* parent = nullptr);
    ~ProfileLoader() override;

    // Starts reading `path`; loaded() or failed() follows with the returned id (newest only).
    quint64 open(const QString& path);
    bool isBusy() const { return m_pending != 0; }

signals:
    void loaded(std::shared_ptr<const ak::ProfileDocument> profile);
    void failed(const QString& path, const QString& message);

private:
    quint64 m_nextId = 1;
    quint64 m_pending = 0;
    std::vector<QPointer<QThread>> m_threads;  // waited for on destruction
};

}  // namespace ak
