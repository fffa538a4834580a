#include "app/language.h"

#include <QCoreApplication>
#include <QSettings>
#include <QTranslator>

namespace ak {

namespace {
bool isSupported(const QString& language)
{
    return language == QLatin1String("de") || language == QLatin1String("en");
}
}  // namespace

QString chooseLanguage(const QString& commandLine, const QString& setting, const QLocale& system)
{
    if (isSupported(commandLine))
        return commandLine;
    if (isSupported(setting))
        return setting;
    return system.language() == QLocale::German ? QStringLiteral("de") : QStringLiteral("en");
}

QString chooseLanguage(const QString& commandLine, QSettings& settings)
{
    return chooseLanguage(commandLine, settings.value(QLatin1String(kLanguageSettingKey)).toString(),
                          QLocale::system());
}

QString translationResource(const QString& language)
{
    if (language == QLatin1String("de"))
        return QStringLiteral(":/i18n/autokernel_de.qm");
    return {};
}

bool installTranslation(QCoreApplication& app, QTranslator& translator, const QString& language)
{
    const QString resource = translationResource(language);
    if (resource.isEmpty())
        return true;
    if (!translator.load(resource))
        return false;
    app.installTranslator(&translator);
    return true;
}

}  // namespace ak
