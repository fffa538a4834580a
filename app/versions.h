#pragma once
// Versions of the application and of every library it renders with (--version, Help ▸ About).
#include <QString>

namespace ak {

QString applicationVersion();      // "0.1.0 (git 9538d6c)"
QString qtRuntimeVersion();        // the Qt the binary runs with
QString qcustomplotVersion();      // QCUSTOMPLOT_VERSION_STR
QString libgit2Version();          // git_libgit2_version()
QString highlighterVersion();      // ak::highlighterName(): "built-in" or KSyntaxHighlighting's

// One "name version" line each, as --version prints them.
QString versionReport();

}  // namespace ak
