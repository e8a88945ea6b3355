#include "app/cli/cli.h"
#include "app/cli/window_option_table.h"

#include "core/system/safe_text.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace loaderlab::cli {
namespace {

// Words that ask the command line for its usage or version rather than a command.
const char *const kHelpWords[] = {"help", "--help", "-h", "--version"};

void printUsage()
{
    std::fputs("Usage: loaderlab [COMMAND] [OPTIONS]\n"
               "\n"
               "Without a command, opens the LoaderLab window.\n"
               "\n"
               "Commands (headless, no display needed):\n",
               stdout);
    for (const Command &command : kCommands) {
#ifndef LOADERLAB_TORCH_MODELS
        if (command.needsTorch)
            continue;
#endif
        std::printf("  %-14s%s\n", command.name, command.summary);
    }
    std::fputs("\n"
               "Run `loaderlab COMMAND --help` for a command's options.\n"
               "\n"
               "Window options:\n",
               stdout);
    std::fputs(loaderlab::windowOptionsHelp().toUtf8().constData(), stdout);
}

} // namespace

bool isCliInvocation(int argc, char **argv)
{
    if (argc < 2)
        return false;
    for (const Command &command : kCommands) {
        if (std::strcmp(argv[1], command.name) == 0)
            return true;
    }
    for (const char *word : kHelpWords) {
        if (std::strcmp(argv[1], word) == 0)
            return true;
    }
    return false;
}

std::string pathFromArgument(const QString &text)
{
    const std::string literal = text.toStdString();
    std::error_code ec;
    if (std::filesystem::exists(std::filesystem::symlink_status(literal, ec)))
        return literal;
    return loaderlab::unescapeInvalidUtf8(literal);
}

std::optional<int> parseCommandLine(QCommandLineParser &parser, const QStringList &arguments,
                                    const char *command)
{
    if (!parser.parse(arguments)) {
        std::fprintf(stderr, "loaderlab %s: %s\n", command, qPrintable(parser.errorText()));
        return kUsage;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        return kOk;
    }
    return std::nullopt;
}

std::optional<std::int64_t> parseInteger(const QString &text, std::int64_t min, std::int64_t max)
{
    bool ok = false;
    const qlonglong value = text.toLongLong(&ok);
    if (!ok || value < min || value > max)
        return std::nullopt;
    return value;
}

std::int64_t integerOption(const QCommandLineParser &parser, const char *name, std::int64_t min,
                           std::int64_t max)
{
    const QString text = parser.value(QLatin1String(name));
    if (const auto value = parseInteger(text, min, max))
        return *value;
    std::string expected = "an integer";
    const bool noMin = min == INT64_MIN || min == INT_MIN;
    const bool noMax = max == INT64_MAX || max == INT_MAX;
    if (!noMin && noMax)
        expected += " >= " + std::to_string(min);
    else if (!noMin || !noMax)
        expected += " " + std::to_string(min) + ".." + std::to_string(max);
    throw std::invalid_argument("--" + std::string(name) + ": expected " + expected + ", got '"
                                + loaderlab::escapeForTerminal(text.left(40).toStdString())
                                + (text.size() > 40 ? "...'" : "'"));
}

int intOption(const QCommandLineParser &parser, const char *name, int min, int max)
{
    return static_cast<int>(integerOption(parser, name, min, max));
}

bool rejectPositionals(const QCommandLineParser &parser, int allowed, const char *command)
{
    const QStringList positionals = parser.positionalArguments();
    if (positionals.size() <= allowed)
        return false;
    const QStringList extra = positionals.mid(allowed);
    std::fprintf(stderr, "loaderlab %s: unexpected argument%s: %s\n", command,
                 extra.size() > 1 ? "s" : "", qPrintable(extra.join(QLatin1Char(' '))));
    return true;
}

int run(const QStringList &arguments)
{
    const QString command = arguments.value(1);
    QStringList rest = arguments;
    rest.removeAt(1); // what remains parses like "loaderlab-<command> OPTIONS"
    if (command == QLatin1String("run"))
        return runCommand(rest);
    if (command == QLatin1String("sweep"))
        return sweepCommand(rest);
    if (command == QLatin1String("predict"))
        return predictCommand(rest);
    if (command == QLatin1String("limits"))
        return limitsCommand(rest);
    if (command == QLatin1String("report"))
        return reportCommand(rest);
    if (command == QLatin1String("lesson"))
        return lessonCommand(rest);
    if (command == QLatin1String("make-dataset"))
        return makeDatasetCommand(rest);
    if (command == QLatin1String("preprocess"))
        return preprocessCommand(rest);
    if (command == QLatin1String("info"))
        return infoCommand(rest);
    if (command == QLatin1String("python-path"))
        return pythonPathCommand(rest);
    if (command == QLatin1String("bench-model")) {
#ifdef LOADERLAB_TORCH_MODELS
        return benchModelCommand(rest);
#else
        std::fputs("loaderlab bench-model: this build has no LibTorch models\n", stderr);
        return kUsage;
#endif
    }
    if (command == QLatin1String("max-batch")) {
#ifdef LOADERLAB_TORCH_MODELS
        return maxBatchCommand(rest);
#else
        std::fputs("loaderlab max-batch: this build has no LibTorch models\n", stderr);
        return kUsage;
#endif
    }
    if (command == QLatin1String("--version")) {
        std::printf("loaderlab %s\n", qPrintable(QCoreApplication::applicationVersion()));
        return kOk;
    }
    printUsage();
    return kOk;
}

} // namespace loaderlab::cli
