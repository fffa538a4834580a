#pragma once
// A profile opened in the window, as every page sees it: the data read from profile.json, the file
// it came from, and what the Profile page shows of it (the breakdown and each kernel name's launch
// configuration), all computed once off the GUI thread (app/profile_loader).
#include "profile/breakdown.h"
#include "profile/profile.h"
#include "widgets/breakdown_model.h"

#include <QHash>
#include <QString>

#include <memory>

namespace ak {

struct ProfileDocument {
    QString path;
    std::shared_ptr<const profile::Profile> data;
    std::shared_ptr<const profile::Breakdown> breakdown;   // nullptr when not analysed (tests)
    QHash<QString, KernelLaunchInfo> launches;             // per kernel name: its first launch
    qint64 readMs = 0;                                     // reading + parsing the file
    qint64 analysisMs = 0;                                 // the breakdown
};

}  // namespace ak
