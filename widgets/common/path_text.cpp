// Path bytes <-> editable text without losing bytes that are not UTF-8 (see
// path_text.h).

#include "widgets/common/path_text.h"

#include "core/system/safe_text.h"

#include <QFile>

#include <dirent.h>
#include <memory>
#include <sys/stat.h>
#include <vector>

namespace loaderlab {
namespace {

bool exists(const std::string &path)
{
    struct stat info
    {
    };
    return ::stat(path.c_str(), &info) == 0;
}

// The single entry of `directory` that Qt decodes to `component`, or "".
std::string matchEntry(const std::string &directory, const QString &component)
{
    const std::unique_ptr<DIR, int (*)(DIR *)> dir(::opendir(directory.c_str()), ::closedir);
    if (!dir)
        return {};
    std::string found;
    int matches = 0;
    while (const dirent *entry = ::readdir(dir.get())) {
        const QByteArray name(entry->d_name);
        if (QFile::decodeName(name) == component) {
            found = name.toStdString();
            ++matches;
        }
    }
    return matches == 1 ? found : std::string();
}

// Replaces each component that holds U+FFFD by the matching name on disk.
std::string resolveReplacementCharacters(const QString &text)
{
    const QStringList components = text.split(QLatin1Char('/'));
    std::string resolved;
    for (qsizetype i = 0; i < components.size(); ++i) {
        const QString &component = components[i];
        std::string bytes = QFile::encodeName(component).toStdString();
        if (component.contains(QChar::ReplacementCharacter)) {
            // The directory so far: "" before the first component of an
            // absolute path is the root.
            const std::string directory = i == 0 ? "." : resolved.empty() ? "/" : resolved;
            const std::string match = matchEntry(directory, component);
            if (match.empty())
                return {};
            bytes = match;
        }
        if (i > 0)
            resolved += '/';
        resolved += bytes;
    }
    return resolved;
}

} // namespace

QString pathToText(const std::string &path)
{
    return QString::fromStdString(escapeInvalidUtf8(path));
}

std::string pathFromText(const QString &text)
{
    const std::string typed = QFile::encodeName(text).toStdString();
    if (typed.empty() || exists(typed))
        return typed;
    const std::string unescaped = unescapeInvalidUtf8(typed);
    if (unescaped != typed && exists(unescaped))
        return unescaped;
    if (text.contains(QChar::ReplacementCharacter)) {
        const std::string resolved = resolveReplacementCharacters(text);
        if (!resolved.empty())
            return resolved;
    }
    return unescaped != typed ? unescaped : typed;
}

} // namespace loaderlab
