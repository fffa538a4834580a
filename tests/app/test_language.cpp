// Language choice, the embedded German translation, and the completeness of translations/autokernel_de.ts.
#include "app/language.h"

#include <QCoreApplication>
#include <QFile>
#include <QLocale>
#include <QRegularExpression>
#include <QSet>
#include <QTest>
#include <QTranslator>
#include <QXmlStreamReader>

using namespace ak;

namespace {

struct TsMessage {
    QString context;
    QString source;
    QStringList translations;  // one, or one per plural form
    QString type;              // "", "unfinished", "obsolete", "vanished"
    bool numerus = false;
};

QList<TsMessage> readTs(const QString& path, QString* error)
{
    QList<TsMessage> messages;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot open ") + path;
        return messages;
    }
    QXmlStreamReader xml(&file);
    QString context;
    TsMessage current;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            const auto name = xml.name();
            if (name == QLatin1String("name") && current.source.isNull()) {
                context = xml.readElementText();
            } else if (name == QLatin1String("message")) {
                current = TsMessage{};
                current.context = context;
                current.numerus = xml.attributes().value(QLatin1String("numerus")) == QLatin1String("yes");
            } else if (name == QLatin1String("source")) {
                current.source = xml.readElementText();
            } else if (name == QLatin1String("translation")) {
                current.type = xml.attributes().value(QLatin1String("type")).toString();
                if (!current.numerus)
                    current.translations.append(xml.readElementText());
            } else if (name == QLatin1String("numerusform")) {
                current.translations.append(xml.readElementText());
            }
        } else if (xml.isEndElement() && xml.name() == QLatin1String("message")) {
            messages.append(current);
            current = TsMessage{};
        }
    }
    if (xml.hasError())
        *error = xml.errorString() + QStringLiteral(" at line ") + QString::number(xml.lineNumber());
    return messages;
}

QSet<QString> placeholders(const QString& text)
{
    static const QRegularExpression re(QStringLiteral("%(\\d+|n)"));
    QSet<QString> found;
    for (auto it = re.globalMatch(text); it.hasNext();)
        found.insert(it.next().captured(0));
    return found;
}

}  // namespace

class TestLanguage : public QObject {
    Q_OBJECT

private slots:
    void command_line_beats_setting_beats_locale()
    {
        const QLocale german(QLocale::German, QLocale::Germany);
        const QLocale english(QLocale::English, QLocale::UnitedKingdom);
        const QLocale french(QLocale::French, QLocale::France);
        QCOMPARE(chooseLanguage(QString(), QString(), german), QStringLiteral("de"));
        QCOMPARE(chooseLanguage(QString(), QString(), english), QStringLiteral("en"));
        QCOMPARE(chooseLanguage(QString(), QString(), french), QStringLiteral("en"));
        QCOMPARE(chooseLanguage(QString(), QStringLiteral("system"), german), QStringLiteral("de"));
        QCOMPARE(chooseLanguage(QString(), QStringLiteral("en"), german), QStringLiteral("en"));
        QCOMPARE(chooseLanguage(QString(), QStringLiteral("de"), english), QStringLiteral("de"));
        QCOMPARE(chooseLanguage(QStringLiteral("en"), QStringLiteral("de"), german), QStringLiteral("en"));
        QCOMPARE(chooseLanguage(QStringLiteral("de"), QStringLiteral("en"), english), QStringLiteral("de"));
    }

    void english_needs_no_translation_file()
    {
        QVERIFY(translationResource(QStringLiteral("en")).isEmpty());
        QTranslator translator;
        QVERIFY(installTranslation(*QCoreApplication::instance(), translator, QStringLiteral("en")));
        QCOMPARE(QCoreApplication::translate("ak::MainWindow", "&File"), QStringLiteral("&File"));
    }

    void the_embedded_german_translation_translates_app_and_widget_strings()
    {
        QVERIFY(QFile::exists(translationResource(QStringLiteral("de"))));
        QTranslator translator;
        QVERIFY(installTranslation(*QCoreApplication::instance(), translator, QStringLiteral("de")));
        QCOMPARE(QCoreApplication::translate("ak::MainWindow", "&File"), QStringLiteral("&Datei"));
        QCOMPARE(QCoreApplication::translate("ak::MainWindow", "&View"), QStringLiteral("&Ansicht"));
        QCOMPARE(QCoreApplication::translate("ak::ExperimentsPage", "Diff vs parent"), QStringLiteral("Diff zum Eltern-Commit"));
        QCOMPARE(QCoreApplication::translate("ak::ProfilePage", "What if a kernel type were faster?"),
                 QStringLiteral("Was wäre, wenn ein Kerneltyp schneller wäre?"));
        QCOMPARE(QCoreApplication::translate("ak::SessionLoader", "The session “%1” has no experiments.")
                     .arg(QStringLiteral("x")),
                 QStringLiteral("Die Sitzung „x“ enthält keine Experimente."));
        QCOMPARE(QCoreApplication::translate("ak::MainWindow", "%n warning(s)", nullptr, 1), QStringLiteral("1 Warnung"));
        QCOMPARE(QCoreApplication::translate("ak::MainWindow", "%n warning(s)", nullptr, 3), QStringLiteral("3 Warnungen"));
        // A string of the widget library (helper widgets/), to prove lupdate scanned it as well.
        QCOMPARE(QCoreApplication::translate("OutcomeStyle", "kept"), QStringLiteral("behalten"));
        QCoreApplication::removeTranslator(&translator);
        QCOMPARE(QCoreApplication::translate("ak::MainWindow", "&File"), QStringLiteral("&File"));
    }

    void the_german_ts_file_is_complete()
    {
        QString error;
        const QList<TsMessage> messages = readTs(QStringLiteral(AK_TS_FILE), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(messages.size() > 100, qPrintable(QString::number(messages.size())));
        QStringList problems;
        QSet<QString> contexts;
        for (const TsMessage& m : messages) {
            contexts.insert(m.context);
            const QString where = m.context + QStringLiteral(": ") + m.source.left(60);
            if (m.type == QLatin1String("unfinished"))
                problems.append(QStringLiteral("unfinished: ") + where);
            if (m.type == QLatin1String("obsolete") || m.type == QLatin1String("vanished"))
                problems.append(QStringLiteral("obsolete: ") + where);
            if (m.translations.isEmpty())
                problems.append(QStringLiteral("no translation: ") + where);
            for (const QString& t : m.translations) {
                if (t.trimmed().isEmpty())
                    problems.append(QStringLiteral("empty translation: ") + where);
                else if (placeholders(t) != placeholders(m.source) &&
                         !(m.numerus && placeholders(m.source) - placeholders(t) == QSet<QString>{QStringLiteral("%n")}))
                    problems.append(QStringLiteral("placeholders differ: ") + where + QStringLiteral(" -> ") + t);
                else if (m.source.contains(QLatin1Char('&')) && !m.source.contains(QStringLiteral("&&")) &&
                         m.source.contains(QRegularExpression(QStringLiteral("&\\w"))) && !t.contains(QLatin1Char('&')))
                    problems.append(QStringLiteral("accelerator lost: ") + where);
            }
            if (m.numerus && m.translations.size() != 2)
                problems.append(QStringLiteral("German needs 2 plural forms: ") + where);
        }
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        // Both the app and the widget library are in it.
        QVERIFY(contexts.contains(QStringLiteral("ak::MainWindow")));
        QVERIFY(contexts.contains(QStringLiteral("ak::TimelinePlot")));
        QVERIFY(contexts.contains(QStringLiteral("ak::DetailsPanel")));
        // The pages (app/pages/) are scanned too.
        for (const char* page : {"ak::ExperimentsPage", "ak::ProfilePage", "ak::RooflinePage", "ak::ComparePage"})
            QVERIFY2(contexts.contains(QString::fromLatin1(page)), page);
    }
};

QTEST_GUILESS_MAIN(TestLanguage)
#include "test_language.moc"
