#pragma once

// The headless subcommands (kCommands: `run`, `sweep`, `lesson`, ..., and with
// LibTorch `bench-model` and `max-batch`). They need no display and create only a
// QCoreApplication.

#include <QStringList>

#include <climits>
#include <cstdint>
#include <optional>
#include <string>

class QCommandLineParser;

namespace loaderlab::cli {

// One subcommand: its name and its line in `loaderlab help`.
struct Command
{
    const char *name;
    const char *summary;
    // Runs only in builds with LibTorch; the others refuse it, naming the reason.
    bool needsTorch = false;
};

// Every subcommand, in the order `loaderlab help` lists them: the one list of them.
// main() picks the command line by it (isCliInvocation), and the window names them
// when it refuses a word that is neither a command nor an option. A header-only
// table, so that the window (loaderlab_gui) reads it without linking the CLI.
inline constexpr Command kCommands[] = {
    {"run", "run the loader (and a consumer) and report every batch"},
    {"sweep", "a grid of runs over config fields, with a recommendation"},
    {"predict", "a sweep predicted from one recorded run, without running it"},
    {"limits", "each stage's ceiling on this machine and data, and which one binds"},
    {"report", "one HTML file of recorded runs: figures, plots, settings, events"},
    {"lesson", "a guided lesson: a research finding reproduced, with a verdict"},
    {"make-dataset", "write an Imagenette-like JPEG folder or a tensor file"},
    {"preprocess", "turn an image folder into a preprocessed tensor file"},
    {"info", "CPU, memory, library versions and CUDA availability"},
    {"python-path", "the folder of the loaderlab_probe module, for PYTHONPATH"},
    {"bench-model", "time a LibTorch model's step per batch size, without the loader", true},
    {"max-batch", "find the largest batch a model's step fits in memory", true},
};

// True when argv[1] names a subcommand (or asks for help/version).
bool isCliInvocation(int argc, char **argv);

// Runs the subcommand; returns the process exit code (0 ok, 1 run failed or an
// output could not be written, 2 usage or input error, 128 + N stopped by signal N
// with the outputs written: 130 SIGINT, 143 SIGTERM, 129 SIGHUP).
int run(const QStringList &arguments);

// Exit codes.
inline constexpr int kOk = 0;
inline constexpr int kFailed = 1;
inline constexpr int kUsage = 2;
inline constexpr int kInterruptedBase = 128;

// A path given on the command line, as bytes: main() passes bytes that are not UTF-8
// as \xHH, which this turns back, unless a file of the literal name exists.
std::string pathFromArgument(const QString &text);

// Parses a command's arguments. On a parse error prints "loaderlab COMMAND: ..." on
// stderr and returns kUsage; with --help prints the help and returns kOk; otherwise
// returns nothing and the command goes on.
std::optional<int> parseCommandLine(QCommandLineParser &parser, const QStringList &arguments,
                                    const char *command);

// For commands that take at most `allowed` positional arguments: when the parser
// saw more, prints "loaderlab COMMAND: unexpected argument(s): ..." on stderr and
// returns true; the caller then returns kUsage. Extra words are never ignored: a
// mistyped option value (`run foo`) would otherwise run with the defaults.
bool rejectPositionals(const QCommandLineParser &parser, int allowed, const char *command);

// `text` as an integer within [min, max]; nullopt when it is not one.
std::optional<std::int64_t> parseInteger(const QString &text, std::int64_t min, std::int64_t max);

// The value of the integer option `name` (without "--"), within [min, max]: the one
// way every command reads an integer option. Throws std::invalid_argument
// "--NAME: expected an integer MIN..MAX, got 'TEXT'" (">= MIN" when only the type
// bounds it above); the command prints it and returns kUsage.
std::int64_t integerOption(const QCommandLineParser &parser, const char *name,
                           std::int64_t min = INT64_MIN, std::int64_t max = INT64_MAX);
int intOption(const QCommandLineParser &parser, const char *name, int min = INT_MIN,
              int max = INT_MAX);

int runCommand(const QStringList &arguments);
int makeDatasetCommand(const QStringList &arguments);
int preprocessCommand(const QStringList &arguments);
int infoCommand(const QStringList &arguments);
int pythonPathCommand(const QStringList &arguments);
int sweepCommand(const QStringList &arguments);
int predictCommand(const QStringList &arguments);
int limitsCommand(const QStringList &arguments);
int lessonCommand(const QStringList &arguments);
int reportCommand(const QStringList &arguments);
// Only in builds with LibTorch (LOADERLAB_TORCH_MODELS).
int benchModelCommand(const QStringList &arguments);
int maxBatchCommand(const QStringList &arguments);

} // namespace loaderlab::cli
