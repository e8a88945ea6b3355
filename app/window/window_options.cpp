#include "app/window/window_options.h"

#include "app/cli/cli.h"
#include "app/cli/window_option_table.h"
#include "app/window/language.h"

#include "core/system/safe_text.h"

#include <QCommandLineParser>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace loaderlab {

namespace {

std::optional<QString> optionalValue(const QCommandLineParser &parser, const QString &name)
{
    if (!parser.isSet(name))
        return std::nullopt;
    return parser.value(name);
}

[[noreturn]] void refuse(const QString &message)
{
    throw std::invalid_argument(message.toStdString());
}

// "run, sweep, ..., max-batch": the command line's own table, so that the window
// names every command there is.
QString commandNames()
{
    QStringList names;
    for (const cli::Command &command : cli::kCommands)
        names << QString::fromUtf8(command.name);
    return names.join(QStringLiteral(", "));
}

} // namespace

void addWindowOptions(QCommandLineParser &parser)
{
    parser.setApplicationDescription(QStringLiteral("LoaderLab: see and tune data loading."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions(windowOptionList());
}

WindowOptions windowOptionsFrom(const QCommandLineParser &parser)
{
    WindowOptions options;
    // `loaderlab workers=4` or a misspelt command would otherwise open the window
    // as if nothing had been asked.
    if (const QStringList extra = parser.positionalArguments(); !extra.isEmpty())
        refuse(QStringLiteral("'%1' is not a command (%2) nor a window option; see loaderlab "
                              "--help")
                   .arg(extra.first(), commandNames()));

    options.language = optionalValue(parser, QStringLiteral("lang"));
    if (options.language && !language::isAvailable(*options.language)) {
        QStringList codes;
        for (const auto &[code, name] : language::available())
            codes << code;
        refuse(QStringLiteral("--lang %1: unknown language (available: %2)")
                   .arg(*options.language, codes.join(QStringLiteral(", "))));
    }

    const QString view = parser.value(QStringLiteral("view"));
    if (view != QLatin1String("live") && view != QLatin1String("experiments")
        && view != QLatin1String("limits"))
        refuse(QStringLiteral("--view %1: expected live, experiments or limits").arg(view));
    options.experiments = view == QLatin1String("experiments");
    options.limits = view == QLatin1String("limits");

    const QString sizeText = parser.value(QStringLiteral("size"));
    const QStringList size = sizeText.split(QLatin1Char('x'));
    options.width = size.value(0).toInt();
    options.height = size.size() == 2 ? size.value(1).toInt() : 0;
    if (options.width < 200 || options.height < 200 || options.width > 10000
        || options.height > 10000)
        refuse(QStringLiteral("--size %1: expected WIDTHxHEIGHT, 200 to 10000 each").arg(sizeText));

    const QString keepText = parser.value(QStringLiteral("keep-batches"));
    bool keepIsNumber = false;
    const qlonglong keep = keepText.toLongLong(&keepIsNumber);
    const std::string keepError = keepIsNumber && keep >= 0
                                      ? keepBatchesError(keep)
                                      : "--keep-batches: expected an integer >= 0, got '"
                                            + keepText.toStdString() + "'";
    if (!keepError.empty())
        throw std::invalid_argument(escapeForTerminal(keepError));
    options.keepBatches = static_cast<std::size_t>(keep);

    options.sweepDir = optionalValue(parser, QStringLiteral("sweep"));
    if (options.sweepDir && !options.experiments)
        refuse(QStringLiteral("--sweep DIR needs --view experiments"));

    options.configFile = optionalValue(parser, QStringLiteral("config"));
    options.screenshot = optionalValue(parser, QStringLiteral("screenshot"));
    options.json = optionalValue(parser, QStringLiteral("json"));
    options.seconds = std::max(1, parser.value(QStringLiteral("seconds")).toInt());
    return options;
}

WindowOptions parseWindowOptions(const QStringList &arguments)
{
    QCommandLineParser parser;
    addWindowOptions(parser);
    if (!parser.parse(arguments))
        refuse(parser.errorText());
    return windowOptionsFrom(parser);
}

} // namespace loaderlab
