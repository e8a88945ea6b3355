// `loaderlab sweep`: a grid of runs (core/sweep) from --axis options or a sweep JSON
// file, into a results folder that survives interruptions; progress on stderr, the
// table and the recommendation on stdout. `sweep merge` joins the folders of a
// sweep's shards (one per Slurm array task); `sweep report` prints a folder's table.

#include "app/cli/cli.h"
#include "app/cli/run_options.h"
#include "app/cli/run_support.h"
#include "app/cli/sweep_predict_first.h"
#include "app/cli/sweep_table.h"

#include "core/config/config_fields.h"
#include "core/sweep/slurm_script.h"
#include "core/sweep/sweep_analysis.h"
#include "core/sweep/sweep_runner.h"
#include "core/system/atomic_file.h"
#include "core/system/logging.h"
#include "core/system/regular_file.h"
#include "core/system/safe_text.h"

#include <QCommandLineParser>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <thread>
#include <vector>

#include <sys/stat.h>

namespace loaderlab::cli {
namespace {

using loaderlab::escapeForTerminal;

std::string durationText(double seconds)
{
    const auto s = static_cast<long long>(std::llround(seconds));
    char text[32];
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
    return text;
}

QCommandLineOption scalingOption()
{
    return {QStringLiteral("scaling"),
            QStringLiteral("the axis for speedup and efficiency in the table (default: "
                           "loader.num_workers when it is an axis)"),
            QStringLiteral("key")};
}

// The budget options: the one that is given sets each cell's length. Declared once,
// for the option list (its help and the parser) and for budgetFromOptions.
struct BudgetOption
{
    const char *name;
    loaderlab::SweepBudget::Kind kind;
    const char *help;
    const char *valueName;
};

constexpr BudgetOption kBudgetOptions[] = {
    {"budget-samples", loaderlab::SweepBudget::Kind::Samples,
     "samples per cell (default 10240, the same data for every cell)", "n"},
    {"budget-batches", loaderlab::SweepBudget::Kind::Batches, "batches per cell", "n"},
    {"budget-seconds", loaderlab::SweepBudget::Kind::Seconds, "seconds per cell", "s"},
};

// "--budget-samples, --budget-batches, --budget-seconds": `last` joins the last two;
// `withDefault` names the default budget after its option ("(default 10240)").
std::string budgetOptionList(const char *last, bool withDefault)
{
    const loaderlab::SweepBudget byDefault;
    std::string text;
    for (std::size_t i = 0; i < std::size(kBudgetOptions); ++i) {
        if (i > 0)
            text += i + 1 == std::size(kBudgetOptions) ? last : ", ";
        text += std::string("--") + kBudgetOptions[i].name;
        if (withDefault && kBudgetOptions[i].kind == byDefault.kind)
            text += " (default " + std::to_string(std::llround(byDefault.amount)) + ")";
    }
    return text;
}

// The options of `sweep` besides the run options, declared once. `withDefinition`:
// the option still applies when the definition comes whole from a file (--sweep FILE,
// or --out DIR alone resuming DIR's sweep.json); the others would be silently lost.
struct SweepOption
{
    QCommandLineOption option;
    bool withDefinition;
};

const std::vector<SweepOption> &sweepOptions()
{
    static const std::vector<SweepOption> options = [] {
        std::vector<SweepOption> list = {
            {{QStringLiteral("axis"),
              QStringLiteral(
                  "an axis: a config key and its values, e.g. loader.num_workers=0,1,2,4 "
                  "(repeatable)"),
              QStringLiteral("KEY=v1,v2,...")},
             false},
            {{QStringLiteral("sweep"),
              QStringLiteral("a sweep JSON file (base, axes, budget, repeats)"),
              QStringLiteral("file")},
             true},
            {{QStringLiteral("out"),
              QStringLiteral("results folder; a sweep run again resumes there (--out DIR alone "
                             "resumes the sweep DIR holds)"),
              QStringLiteral("dir")},
             true},
            {{QStringLiteral("repeats"),
              QStringLiteral("runs of every cell, in alternating rounds (1)"), QStringLiteral("n"),
              QStringLiteral("1")},
             false},
            {{QStringLiteral("shard"),
              QStringLiteral("run only shard K of N (default: from SLURM_ARRAY_TASK_ID and "
                             "SLURM_ARRAY_TASK_COUNT when set)"),
              QStringLiteral("K/N")},
             true},
            {{QStringLiteral("slurm-script"),
              QStringLiteral("write an sbatch script that runs the sweep as a Slurm job array "
                             "(one task per shard, all into --out DIR) instead of running it"),
              QStringLiteral("file")},
             true},
            {{QStringLiteral("slurm-tasks"),
              QStringLiteral("tasks of that job array (default: one per cell, at most 8)"),
              QStringLiteral("n")},
             true},
            {{QStringLiteral("sbatch"),
              QStringLiteral("an sbatch option for that script, e.g. --partition=gpu (repeatable)"),
              QStringLiteral("option")},
             true},
            {{QStringLiteral("retry-failed"), QStringLiteral("run failed cells again")}, true},
            {{QStringLiteral("predict-first"),
              QStringLiteral(
                  "run one cell, calibrate the loader model from it, then run only the cells "
                  "predicted fastest and those within the model's error of the best measured "
                  "cell; the rest are recorded as skipped, with their predicted figures "
                  "(axes: the loader's settings, devices, the simulated step)")},
             true},
            {{QStringLiteral("predict-margin"),
              QStringLiteral("with --predict-first: the least error the model is given, as a "
                             "fraction (default 0.15; more when a measured cell says so)"),
              QStringLiteral("fraction")},
             true},
            {{QStringLiteral("run-skipped"),
              QStringLiteral("run the cells a --predict-first sweep skipped (the full sweep)")},
             true},
            {scalingOption(), true},
            {{QStringLiteral("no-traces"), QStringLiteral("do not keep each cell's per-batch CSV")},
             true},
            {{QStringLiteral("quiet"), QStringLiteral("no progress on stderr")}, true},
            {{QStringLiteral("log-level"),
              QStringLiteral("trace, debug, info, warn (default), error, off"),
              QStringLiteral("level"), QStringLiteral("warn")},
             true},
        };
        // After --out, where `sweep --help` has always listed them.
        auto at = list.begin() + 3;
        for (const BudgetOption &b : kBudgetOptions) {
            at = list.insert(at, {{QLatin1String(b.name), QLatin1String(b.help),
                                   QLatin1String(b.valueName)},
                                  false})
                 + 1;
        }
        return list;
    }();
    return options;
}

bool appliesWithDefinition(const QString &name)
{
    for (const SweepOption &o : sweepOptions()) {
        if (o.withDefinition && o.option.names().contains(name))
            return true;
    }
    return false;
}

loaderlab::SweepBudget budgetFromOptions(const QCommandLineParser &parser)
{
    loaderlab::SweepBudget budget;
    int given = 0;
    for (const BudgetOption &b : kBudgetOptions) {
        if (!parser.isSet(QLatin1String(b.name)))
            continue;
        ++given;
        bool ok = false;
        budget.kind = b.kind;
        budget.amount = parser.value(QLatin1String(b.name)).toDouble(&ok);
        if (!ok || !(budget.amount > 0) || !std::isfinite(budget.amount))
            throw std::invalid_argument(std::string("--") + b.name + ": '"
                                        + parser.value(QLatin1String(b.name)).toStdString()
                                        + "' is not a positive number");
    }
    if (given > 1)
        throw std::invalid_argument("give one of " + budgetOptionList(", ", false));
    return budget;
}

loaderlab::SweepDefinition definitionFromOptions(const QCommandLineParser &parser)
{
    for (const char *limit : {"epochs", "batches", "seconds"}) {
        if (parser.isSet(QLatin1String(limit)))
            throw std::invalid_argument(std::string("--") + limit
                                        + ": a sweep sets each cell's length with "
                                        + budgetOptionList(" or ", true));
    }
    // From a file, or the folder's own sweep.json when only --out is given: the
    // definition is whole there, and run options would be silently lost.
    const bool fromFile = parser.isSet(QStringLiteral("sweep"));
    if (fromFile || !parser.isSet(QStringLiteral("axis"))) {
        for (const QString &name : parser.optionNames()) {
            if (!appliesWithDefinition(name))
                throw std::invalid_argument(
                    "--" + name.toStdString()
                    + (fromFile ? ": with --sweep FILE, the file holds the base config, the axes, "
                                  "the budget and the repeats"
                                : ": give --axis KEY=v1,v2,... (or --sweep FILE); --out DIR "
                                  "alone resumes the sweep in DIR as it was defined"));
        }
        if (fromFile)
            return loaderlab::loadSweep(pathFromArgument(parser.value(QStringLiteral("sweep"))));
        const std::string dir = pathFromArgument(parser.value(QStringLiteral("out")));
        if (!std::filesystem::exists(std::filesystem::path(dir) / "sweep.json"))
            throw std::invalid_argument("give at least one --axis KEY=v1,v2,... or --sweep FILE ("
                                        + dir + " holds no sweep to resume)");
        loaderlab::SweepDefinition d;
        loaderlab::readSweepRecords(dir, &d);
        return d;
    }
    loaderlab::SweepDefinition d;
    d.base = runConfigFromOptions(parser);
    for (const QString &axis : parser.values(QStringLiteral("axis")))
        d.axes.push_back(loaderlab::parseSweepAxis(axis.toStdString()));
    d.budget = budgetFromOptions(parser);
    d.repeats = intOption(parser, "repeats"); // its range is checked with the definition's
    ensureDefaultDataset(d.base);
    loaderlab::expandSweep(d); // every axis value checked before anything runs
    return d;
}

// --scaling KEY, checked against the sweep's axes; "" for the default.
std::string scalingAxis(const QCommandLineParser &parser, const loaderlab::SweepDefinition &d)
{
    if (!parser.isSet(QStringLiteral("scaling")))
        return {};
    const std::string key = parser.value(QStringLiteral("scaling")).toStdString();
    for (const auto &axis : d.axes) {
        if (axis.key == key)
            return key;
    }
    throw std::invalid_argument("--scaling " + key + ": not an axis of this sweep");
}

// Refuses a script path that is any file the sweep or its tasks read or write: the
// script would replace it (the results, the definition, the binary, a dataset).
void checkScriptPath(const QCommandLineParser &parser, const loaderlab::SlurmScriptOptions &o,
                     const loaderlab::SweepDefinition &definition)
{
    std::string why = loaderlab::sweepFolderFileProblem(o.resultsDir, o.scriptPath);
    if (why.empty())
        why = loaderlab::slurmScriptPathProblem(o.scriptPath, loaderlab::kSweepScriptMark);
    if (why.empty() && loaderlab::sameFile(o.scriptPath, o.loaderlab))
        why = "is the loaderlab binary the tasks run";
    if (why.empty() && parser.isSet(QStringLiteral("sweep"))
        && loaderlab::sameFile(o.scriptPath,
                               pathFromArgument(parser.value(QStringLiteral("sweep")))))
        why = "is the sweep file (--sweep)";
    for (const loaderlab::ConfigField &field : loaderlab::configFields()) {
        if (!why.empty() || field.type != loaderlab::FieldType::Path)
            continue;
        std::vector<nlohmann::json> values{loaderlab::getConfigField(definition.base, field.key)};
        for (const auto &axis : definition.axes) {
            if (axis.key == field.key)
                values.insert(values.end(), axis.values.begin(), axis.values.end());
        }
        for (const auto &value : values) {
            if (why.empty() && value.is_string() && !value.get<std::string>().empty()
                && loaderlab::sameFile(o.scriptPath, value.get<std::string>()))
                why = "is a file the cells read (" + std::string(field.key) + ")";
        }
    }
    if (!why.empty())
        throw std::invalid_argument("--slurm-script " + o.scriptPath + ": " + why
                                    + "; give the script a file of its own");
}

// Writes the sbatch script of a job array over the sweep, and the results folder
// its tasks resume (sweep.json); runs nothing.
int writeSlurmScript(const QCommandLineParser &parser, const loaderlab::SweepDefinition &definition)
{
    if (parser.isSet(QStringLiteral("shard")))
        throw std::invalid_argument("--shard: the job array gives each task its shard");
    namespace fs = std::filesystem;
    loaderlab::SlurmScriptOptions o;
    o.loaderlab = fs::canonical("/proc/self/exe").string();
    o.resultsDir = fs::absolute(pathFromArgument(parser.value(QStringLiteral("out"))))
                       .lexically_normal()
                       .string();
    o.scriptPath = fs::absolute(pathFromArgument(parser.value(QStringLiteral("slurm-script"))))
                       .lexically_normal()
                       .string();
    o.cells = loaderlab::sweepCellCount(definition);
    o.tasks = loaderlab::defaultSlurmTasks(o.cells);
    if (parser.isSet(QStringLiteral("slurm-tasks")))
        o.tasks = intOption(parser, "slurm-tasks"); // slurmArrayScript checks its range
    for (const QString &option : parser.values(QStringLiteral("sbatch")))
        o.extra.push_back(option.toStdString());
    const std::string script = loaderlab::slurmArrayScript(o); // checks before anything is written
    checkScriptPath(parser, o, definition);
    const loaderlab::SweepResults folder(o.resultsDir, definition); // refuses another sweep's
    loaderlab::writeFileAtomically(o.scriptPath, [&](std::ostream &out) { out << script; });
    ::chmod(o.scriptPath.c_str(), 0755);
    std::fprintf(stderr,
                 "wrote %s: a Slurm job array of %d tasks over %lld cells into %s\n"
                 "submit it with: sbatch %s\n"
                 "when it ends:   loaderlab sweep report %s\n",
                 escapeForTerminal(o.scriptPath).c_str(), o.tasks, static_cast<long long>(o.cells),
                 escapeForTerminal(o.resultsDir).c_str(),
                 escapeForTerminal(loaderlab::shellQuote(o.scriptPath)).c_str(),
                 escapeForTerminal(loaderlab::shellQuote(o.resultsDir)).c_str());
    return kOk;
}

int runSweep(const QCommandLineParser &parser)
{
    loaderlab::SweepDefinition definition;
    loaderlab::SweepRunner::Options options;
    std::unique_ptr<loaderlab::SweepRunner> runner;
    std::string scalingKey;
    loaderlab::PredictFirstOptions predictOptions;
    bool predictFirst = false;
    try {
        loaderlab::setupLogging(parser.value(QStringLiteral("log-level")).toStdString());
        if (!parser.isSet(QStringLiteral("out")))
            throw std::invalid_argument("--out DIR: where the results go (and are resumed from)");
        definition = definitionFromOptions(parser);
        if (parser.isSet(QStringLiteral("shard")))
            options.shard = loaderlab::parseSweepShard(
                parser.value(QStringLiteral("shard")).toStdString());
        else
            loaderlab::sweepShardFromSlurm(options.shard);
        if (const std::string why = loaderlab::sweepCannotRun(definition, options.shard);
            !why.empty())
            throw std::invalid_argument(why);
        scalingKey = scalingAxis(parser, definition);
        options.retryFailed = parser.isSet(QStringLiteral("retry-failed"));
        options.keepTraces = !parser.isSet(QStringLiteral("no-traces"));
        options.runSkipped = parser.isSet(QStringLiteral("run-skipped"));
        predictFirst = predictFirstFromOptions(parser, definition, options.shard, predictOptions);
        if (parser.isSet(QStringLiteral("slurm-script")))
            return writeSlurmScript(parser, definition);
        for (const char *name : {"slurm-tasks", "sbatch"}) {
            if (parser.isSet(QLatin1String(name)))
                throw std::invalid_argument(std::string("--") + name
                                            + ": goes with --slurm-script FILE");
        }
        runner = std::make_unique<loaderlab::SweepRunner>(
            definition, pathFromArgument(parser.value(QStringLiteral("out"))), options);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab sweep: %s\n", escapeForTerminal(e.what()).c_str());
        return kUsage;
    }

    const bool quiet = parser.isSet(QStringLiteral("quiet"));
    if (predictFirst)
        return runPredictFirstSweep(*runner, predictOptions, quiet, scalingKey);
    const StopSignals handlers;
    SignalStop stop; // the work runs on this thread; a signal stops it
    if (!quiet && options.shard.count > 1)
        std::fprintf(stderr, "shard %d/%d\n", options.shard.index + 1, options.shard.count);
    loaderlab::SweepOutcome outcome;
    try {
        outcome = runner->run(stop.token(), [&](const loaderlab::SweepProgress &p) {
            if (quiet)
                return;
            if (!p.record) {
                std::fprintf(stderr, "[cell %d/%d] %s\n", p.done + 1, p.total,
                             escapeForTerminal(sweepCellText(definition, *p.cell)).c_str());
            } else if (p.record->failed()) {
                std::fprintf(stderr, "  failed: %s\n", escapeForTerminal(p.record->error).c_str());
            } else {
                std::fprintf(stderr,
                             "  %.3f s end to end, %.1f samples/s (%.1f s with set-up; ETA %s)\n",
                             p.record->endToEndSeconds(), p.record->samplesPerSecond(),
                             p.record->cellSeconds, durationText(p.etaSeconds).c_str());
            }
        });
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab sweep: %s\n", escapeForTerminal(e.what()).c_str());
        return kFailed;
    }

    const auto analysis = loaderlab::analyzeSweep(definition, runner->results().records());
    std::fputs(sweepTable(analysis, scalingKey).c_str(), stdout);
    const std::string leftSkipped =
        outcome.leftSkipped > 0 ? " (" + std::to_string(outcome.leftSkipped)
                                      + " skipped by --predict-first; --run-skipped runs them)"
                                : std::string();
    std::fprintf(stderr, "%s: ran %d cells (%d failed), %d found done%s; results in %s\n",
                 outcome.stopped ? "stopped" : "done", outcome.ran, outcome.failed, outcome.skipped,
                 leftSkipped.c_str(), escapeForTerminal(runner->results().dir()).c_str());
    if (const int signal = stop.signal(); signal != 0)
        return kInterruptedBase + signal;
    // Every cell that ran failed: nothing was measured, which a script must see.
    const bool allFailed = outcome.ran > 0 && outcome.failed == outcome.ran;
    return outcome.stopped || allFailed ? kFailed : kOk;
}

int mergeOrReport(const QStringList &arguments, bool merge)
{
    QCommandLineParser parser;
    parser.addHelpOption();
    if (merge)
        parser.addOption({QStringLiteral("out"), QStringLiteral("the merged results folder"),
                          QStringLiteral("dir")});
    parser.addOption(scalingOption());
    parser.addPositionalArgument(QStringLiteral("dir"), QStringLiteral("results folder(s)"));
    if (const auto code = parseCommandLine(parser, arguments, "sweep"))
        return *code;
    const QStringList dirs = parser.positionalArguments();
    try {
        std::string folder;
        if (merge) {
            if (!parser.isSet(QStringLiteral("out")) || dirs.isEmpty())
                throw std::invalid_argument("usage: loaderlab sweep merge --out DIR SHARD_DIR...");
            std::vector<std::string> paths;
            for (const QString &d : dirs)
                paths.push_back(pathFromArgument(d));
            folder = pathFromArgument(parser.value(QStringLiteral("out")));
            const auto cells = loaderlab::mergeSweepResults(folder, paths);
            std::fprintf(stderr, "merged %lld cells into %s\n", static_cast<long long>(cells),
                         escapeForTerminal(folder).c_str());
        } else {
            if (dirs.size() != 1)
                throw std::invalid_argument("usage: loaderlab sweep report DIR");
            folder = pathFromArgument(dirs.first());
        }
        loaderlab::SweepDefinition definition;
        const auto records = loaderlab::readSweepRecords(folder, &definition);
        const std::string key = scalingAxis(parser, definition);
        std::fputs(sweepTable(loaderlab::analyzeSweep(definition, records), key).c_str(), stdout);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab sweep: %s\n", escapeForTerminal(e.what()).c_str());
        return kUsage;
    }
    return kOk;
}

} // namespace

int sweepCommand(const QStringList &arguments)
{
    const QString sub = arguments.value(1);
    if (sub == QLatin1String("merge") || sub == QLatin1String("report")) {
        QStringList rest = arguments;
        rest.removeAt(1);
        return mergeOrReport(rest, sub == QLatin1String("merge"));
    }
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Runs a grid of runs (sweep) and recommends the best settings.\n"
                       "Also: loaderlab sweep merge --out DIR SHARD_DIR..., "
                       "loaderlab sweep report DIR"));
    parser.addHelpOption();
    addRunOptions(parser);
    for (const SweepOption &o : sweepOptions())
        parser.addOption(o.option);
    if (const auto code = parseCommandLine(parser, arguments, "sweep"))
        return *code;
    if (rejectPositionals(parser, 0, "sweep"))
        return kUsage;
    return runSweep(parser);
}

} // namespace loaderlab::cli
