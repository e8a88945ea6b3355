#pragma once

// Language: which translation the GUI uses. The choice is stored in QSettings and
// applied at start-up, with Qt's own translations for standard dialogs.

#include <QString>

#include <utility>
#include <vector>

class QCoreApplication;

namespace loaderlab::language {

// (code, native name) of every language LoaderLab ships, English first.
std::vector<std::pair<QString, QString>> available();

// True when `code` is one of available(); anything else would silently give English.
bool isAvailable(const QString &code);

// The stored choice, or the system's language if LoaderLab has it, else "en".
QString configured();
void setConfigured(const QString &code);

// Installs LoaderLab's and Qt's translators for `code` on `app`.
void install(QCoreApplication &app, const QString &code);

} // namespace loaderlab::language
