#include "app/window/language.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

namespace loaderlab::language {

std::vector<std::pair<QString, QString>> available()
{
    return {{QStringLiteral("en"), QStringLiteral("English")},
            {QStringLiteral("de"), QStringLiteral("Deutsch")}};
}

bool isAvailable(const QString &code)
{
    for (const auto &[known, name] : available()) {
        if (known == code)
            return true;
    }
    return false;
}

QString configured()
{
    const QString stored = QSettings().value(QStringLiteral("language")).toString();
    if (!stored.isEmpty())
        return stored;
    const QString system = QLocale::system().name().section(QLatin1Char('_'), 0, 0);
    for (const auto &[code, name] : available()) {
        if (code == system)
            return code;
    }
    return QStringLiteral("en");
}

void setConfigured(const QString &code)
{
    QSettings().setValue(QStringLiteral("language"), code);
}

void install(QCoreApplication &app, const QString &code)
{
    auto *own = new QTranslator(&app);
    if (code == QLatin1String("en")) {
        // Only the plural forms: "%n batch(es)" reads "1 batch", "8 batches".
        if (own->load(QStringLiteral(":/i18n/loaderlab_en")))
            QCoreApplication::installTranslator(own);
        return;
    }
    auto *qt = new QTranslator(&app);
    if (qt->load(QLocale(code), QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt);
    if (own->load(QStringLiteral(":/i18n/loaderlab_") + code))
        QCoreApplication::installTranslator(own);
}

} // namespace loaderlab::language
