#include "app/versions.h"

#include "widgets/source_highlighter.h"

#include <git2/common.h>
#include <qcustomplot.h>

#include <QtGlobal>

namespace ak {

QString applicationVersion()
{
    const QString describe = QStringLiteral(AK_GIT_DESCRIBE);
    if (describe.isEmpty())
        return QStringLiteral(AK_VERSION);
    return QStringLiteral(AK_VERSION " (git ") + describe + QLatin1Char(')');
}

QString qtRuntimeVersion()
{
    const QString runtime = QString::fromLatin1(qVersion());
    const QString built = QStringLiteral(QT_VERSION_STR);
    return runtime == built ? runtime : runtime + QStringLiteral(" (built with ") + built + QLatin1Char(')');
}

QString qcustomplotVersion() { return QStringLiteral(QCUSTOMPLOT_VERSION_STR); }

QString libgit2Version()
{
    int major = 0, minor = 0, revision = 0;
    git_libgit2_version(&major, &minor, &revision);
    return QStringLiteral("%1.%2.%3").arg(major).arg(minor).arg(revision);
}

QString highlighterVersion() { return ak::highlighterName(); }

QString versionReport()
{
    return QStringLiteral("autokernel-workbench ") + applicationVersion() + QLatin1Char('\n') +
           QStringLiteral("Qt ") + qtRuntimeVersion() + QLatin1Char('\n') +
           QStringLiteral("QCustomPlot ") + qcustomplotVersion() + QLatin1Char('\n') +
           QStringLiteral("Syntax highlighter ") + highlighterVersion() + QLatin1Char('\n') +
           QStringLiteral("libgit2 ") + libgit2Version() + QLatin1Char('\n');
}

}  // namespace ak
