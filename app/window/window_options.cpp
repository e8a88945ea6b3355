#include "app/window/window_options.h"

#include "app/cli/cli.h"
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

namespace {

QList<QCommandLineOption> windowOptionList()
{
    return {
        {QStringLiteral("config"), QStringLiteral("Start with this JSON configuration."),
         QStringLiteral("FILE")},
        {QStringLiteral("lang"), QStringLiteral("Language (en, de) for this session."),
         QStringLiteral("CODE")},
        {QStringLiteral("screenshot"), QStringLiteral("Run, save a PNG of the window, and quit."),
         QStringLiteral("FILE")},
        {QStringLiteral("seconds"),
         QStringLiteral("With --screenshot or --json: run this long (default 3)."),
         QStringLiteral("S"), QStringLiteral("3")},
        {QStringLiteral("json"), QStringLiteral("Run, write the summary as JSON, and quit."),
         QStringLiteral("FILE")},
        {QStringLiteral("size"),
         QStringLiteral("The window's size, WIDTHxHEIGHT (default 1400x900)."),
         QStringLiteral("WxH"), QStringLiteral("1400x900")},
        {QStringLiteral("view"),
         QStringLiteral("The tab shown: live (default) or experiments. With --screenshot and "
                        "experiments: run the sweep, save the window when it ends, and quit."),
         QStringLiteral("NAME"), QStringLiteral("live")},
        {QStringLiteral("sweep"),
         QStringLiteral("With --view experiments: open this sweep results folder and run the "
                        "cells it lacks (as Resume), instead of the view's default sweep."),
         QStringLiteral("DIR")},
        {QStringLiteral("keep-batches"),
         QStringLiteral("Keep only the last N batches of a run in memory (0: all), as `run "
                        "--keep-batches` does; the figures still cover every batch (default "
                        "%1).")
             .arg(kDefaultKeepBatches),
         QStringLiteral("N"), QString::number(kDefaultKeepBatches)},
    };
}

} // namespace

void addWindowOptions(QCommandLineParser &parser)
{
    parser.setApplicationDescription(QStringLiteral("LoaderLab: see and tune data loading."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions(windowOptionList());
}

QString windowOptionsHelp()
{
    constexpr qsizetype kColumn = 21; // where the descriptions start
    constexpr qsizetype kWidth = 80;  // wrapped here
    QString out;
    for (const QCommandLineOption &option : windowOptionList()) {
        QString line = QStringLiteral("  --") + option.names().first();
        if (!option.valueName().isEmpty())
            line += QLatin1Char(' ') + option.valueName();
        line = line.leftJustified(kColumn);
        qsizetype words = 0; // on this line
        for (const QString &word : option.description().split(QLatin1Char(' '))) {
            if (words > 0 && line.size() + 1 + word.size() > kWidth) {
                out += line + QLatin1Char('\n');
                line = QString(kColumn, QLatin1Char(' '));
                words = 0;
            }
            line += (words++ > 0 ? QStringLiteral(" ") : QString()) + word;
        }
        out += line + QLatin1Char('\n');
    }
    return out;
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
    if (view != QLatin1String("live") && view != QLatin1String("experiments"))
        refuse(QStringLiteral("--view %1: expected live or experiments").arg(view));
    options.experiments = view == QLatin1String("experiments");

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
