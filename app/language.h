#pragma once
// Which language the interface speaks, and loading the embedded translation.
//
// Precedence: --lang on the command line, then the setting "ui/language" ("de", "en"; "system" or
// absent = follow the locale), then QLocale::system(). German is the only translation; every other
// locale gets the English source strings.
#include <QLocale>
#include <QString>

class QCoreApplication;
class QSettings;
class QTranslator;

namespace ak {

inline constexpr const char* kLanguageSettingKey = "ui/language";

// "de" or "en".
QString chooseLanguage(const QString& commandLine, const QString& setting, const QLocale& system);
// The same, reading the setting from `settings` and the locale from QLocale::system().
QString chooseLanguage(const QString& commandLine, QSettings& settings);

// Resource path of the compiled translation of `language` (":/i18n/autokernel_de.qm"), "" for English.
QString translationResource(const QString& language);

// Loads the translation of `language` into `translator` and installs it on the application.
// English needs none (returns true). Returns false when the .qm could not be loaded.
bool installTranslation(QCoreApplication& app, QTranslator& translator, const QString& language);

}  // namespace ak
