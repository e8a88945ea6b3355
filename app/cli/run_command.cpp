// `loaderlab run`: one headless run through the RunService, on the engine the config
// names (--engine), with progress on stderr, the summary table on stdout, and the
// per-batch CSV and JSON summary written atomically. Every output path is checked
// before the run starts.
// SIGINT, SIGTERM and SIGHUP (a closed ssh session) stop the run, still write what
// was measured, and exit with 128 + the signal's number, so a script can tell an
// interrupted run from a finished one.

#include "app/cli/cli.h"
#include "app/cli/run_options.h"
#include "app/cli/run_support.h"
#include "app/cli/slurm_ranks.h"
#include "app/cli/summary_table.h"

#include "core/autotune/autotuner.h"
#include "core/dataset/dataset.h"
#include "core/engine/run_service.h"
#include "core/io/run_reader.h"
#include "core/system/clock.h"
#include "core/system/logging.h"
#include "core/system/safe_text.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include <unistd.h>

namespace loaderlab::cli {
namespace {

// A run of 10^6 batches or fewer keeps all of them (~190 MB; kDefaultKeepBatches). The
// least is a second or more of the fastest loader (~100,000 batches/s), so the CSV,
// written during the run, keeps up.
std::size_t keepBatches(const QCommandLineParser &parser)
{
    const std::int64_t n = integerOption(parser, "keep-batches", 0);
    if (const std::string error = loaderlab::keepBatchesError(n); !error.empty())
        throw std::invalid_argument(error);
    return static_cast<std::size_t>(n);
}

// Waits for the run's end, printing progress; returns the signal that stopped it, or 0.
int waitForRun(loaderlab::RunService &service, bool quiet)
{
    const bool tty = isatty(STDERR_FILENO) != 0;
    int ticks = 0;
    int signal = 0;
    const std::int64_t startNs = loaderlab::steadyNowNs();
    std::size_t batches = 0;
    std::int64_t lastBatchNs = startNs; // when the batch count last grew
    while (!service.wait(100)) {
        if ((signal = takeStopSignal()) != 0) {
            std::fprintf(stderr, "\nstopping (%s); writing what was measured\n", strsignal(signal));
            service.stop();
            break;
        }
        // A line every 2 s to a log file, a refreshed line every 0.5 s on a terminal.
        const auto trace = service.engine().trace();
        const std::int64_t now = loaderlab::steadyNowNs();
        if (const std::size_t n = trace->size(); n != batches) {
            batches = n;
            lastBatchNs = now;
        }
        if (!quiet && ++ticks % (tty ? 5 : 20) == 0)
            printRunProgress(*trace, tty, static_cast<double>(now - startNs) / 1e9,
                             batches > 0 ? static_cast<double>(now - lastBatchNs) / 1e9 : 0.0);
    }
    // LoaderLab's engine has stopped when stop() returns; the PyTorch engine's
    // process group within seconds (SIGTERM, then SIGKILL).
    service.stop();
    service.wait();
    if (!quiet && tty)
        std::fputc('\n', stderr);
    return signal;
}

// --baseline's run: one rank, with a steady rate. Throws std::invalid_argument.
loaderlab::RunSummary oneRankBaseline(const std::string &path, const loaderlab::RunConfig &config)
{
    if (config.devices < 2 && config.launchRank < 0)
        throw std::invalid_argument("--baseline compares a run of several ranks (--devices N) "
                                    "with one rank's: this run has one");
    loaderlab::OpenedRun run;
    try {
        run = loaderlab::openRunBeside(path);
    } catch (const std::runtime_error &e) {
        throw std::invalid_argument(std::string("--baseline: ") + e.what());
    }
    if (run.report.config.devices != 1)
        throw std::invalid_argument("--baseline " + path + ": its run had "
                                    + std::to_string(run.report.config.devices)
                                    + " ranks, not one");
    if (!(run.report.summary.samplesPerSecMean > 0.0))
        throw std::invalid_argument("--baseline " + path
                                    + ": its run has no steady rate (no batch past its warm-up)");
    return run.report.summary;
}

} // namespace

int runCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Runs the loader and reports every batch."));
    parser.addHelpOption();
    addRunOptions(parser);
    parser.addOption({QStringLiteral("csv"), QStringLiteral("write the per-batch trace as CSV"),
                      QStringLiteral("file")});
    parser.addOption({QStringLiteral("json"), QStringLiteral("write the summary as JSON"),
                      QStringLiteral("file")});
    parser.addOption({QStringLiteral("trace-json"),
                      QStringLiteral("write the run as a Chrome JSON trace for Perfetto "
                                     "(ui.perfetto.dev) or chrome://tracing"),
                      QStringLiteral("file")});
    parser.addOption({QStringLiteral("autotune"),
                      QStringLiteral("tune workers and prefetch while the run goes on (every "
                                     "change is a marker with its reason)")});
    parser.addOption({QStringLiteral("autotune-batch"),
                      QStringLiteral("with --autotune: tune the batch size too")});
    parser.addOption({QStringLiteral("autotune-search"),
                      QStringLiteral("with --autotune: 'model' (the loader model proposes, "
                                     "measured windows confirm; the default) or 'hill' (a hill "
                                     "climb of measured trials)"),
                      QStringLiteral("model|hill"), QStringLiteral("model")});
    parser.addOption({QStringLiteral("keep-batches"),
                      QStringLiteral("keep only the last N batches in memory (0: all); the CSV and "
                                     "the summary still cover every batch (default 1000000)"),
                      QStringLiteral("N"), QString::number(loaderlab::kDefaultKeepBatches)});
    parser.addOption({QStringLiteral("slurm-ranks"),
                      QStringLiteral("run as one rank of a Slurm job step (srun -N NODES -n "
                                     "TASKS), with --engine pytorch: rank SLURM_PROCID of "
                                     "SLURM_NTASKS, meeting at MASTER_ADDR:MASTER_PORT (default: "
                                     "the job's first node, port 29500 + SLURM_JOB_ID mod 1000); "
                                     "--csv and --json get .rankR before their extension, and "
                                     "File > Open run merges the ranks")});
    parser.addOption({QStringLiteral("baseline"),
                      QStringLiteral("with --devices N: a recorded run of one rank (its summary "
                                     "JSON, the CSV beside it) to give the scaling efficiency "
                                     "against, split into what data, the step, the slowest rank "
                                     "and the exchange cost"),
                      QStringLiteral("file")});
    parser.addOption({QStringLiteral("quiet"), QStringLiteral("no progress on stderr")});
    parser.addOption({QStringLiteral("log-level"),
                      QStringLiteral("trace, debug, info, warn (default), error, off"),
                      QStringLiteral("level"), QStringLiteral("warn")});
    if (const auto code = parseCommandLine(parser, arguments, "run"))
        return *code;
    if (rejectPositionals(parser, 0, "run"))
        return kUsage;

    // Installed before the run starts (a signal the moment it starts is a stop, not
    // the default death; the PyTorch engine's check for torch is cut short by one) and
    // until the outputs are written (a second Ctrl-C must not cut the writing short).
    const StopSignals handlers;
    int startSignal = 0;
    const auto stopSignal = [&] {
        if (startSignal == 0)
            startSignal = takeStopSignal();
        return startSignal != 0;
    };
    loaderlab::RunService service;
    service.setExtraVersions({{"qt", qVersion()}});
    const bool autotune = parser.isSet(QStringLiteral("autotune"));
    const QString autotuneSearch = parser.value(QStringLiteral("autotune-search"));
    std::optional<SlurmRank> slurm;
    std::string baselinePath;
    loaderlab::RunSummary baseline; // --baseline's
    try {
        loaderlab::setupLogging(parser.value(QStringLiteral("log-level")).toStdString());
        loaderlab::RunConfig config = runConfigFromOptions(parser);
        if (const std::string why = loaderlab::engineCannot(config.engine,
                                                            loaderlab::EngineFeature::Reconfigure);
            autotune && !why.empty())
            throw std::invalid_argument("--autotune: " + why);
        if (autotuneSearch != QLatin1String("model") && autotuneSearch != QLatin1String("hill"))
            throw std::invalid_argument("--autotune-search: 'model' or 'hill', not '"
                                        + autotuneSearch.toStdString() + "'");
        if (parser.isSet(QStringLiteral("baseline"))) {
            baselinePath = pathFromArgument(parser.value(QStringLiteral("baseline")));
            baseline = oneRankBaseline(baselinePath, config);
        }
        service.setTraceRetention(keepBatches(parser));
        ensureDefaultDataset(config);
        loaderlab::RunOutputs outputs{pathFromArgument(parser.value(QStringLiteral("csv"))),
                                      pathFromArgument(parser.value(QStringLiteral("json"))),
                                      pathFromArgument(parser.value(QStringLiteral("trace-json")))};
        if (parser.isSet(QStringLiteral("slurm-ranks"))) {
            if (parser.isSet(QStringLiteral("devices")))
                throw std::invalid_argument("--slurm-ranks takes the ranks from Slurm "
                                            "(SLURM_NTASKS): leave out --devices");
            slurm = slurmRankFromEnvironment();
            applySlurmRank(config, *slurm);
            outputs.csvPath = rankOutputPath(outputs.csvPath, slurm->rank, ".csv");
            outputs.jsonPath = rankOutputPath(outputs.jsonPath, slurm->rank, ".json");
        }
        service.start(config, outputs, stopSignal);
    } catch (const std::invalid_argument &e) {
        std::fprintf(stderr, "loaderlab run: %s\n", loaderlab::escapeForTerminal(e.what()).c_str());
        return kUsage;
    } catch (const std::exception &e) {
        if (startSignal != 0) {
            std::fprintf(stderr, "loaderlab run: stopped (%s) before the run started\n",
                         strsignal(startSignal));
            return kInterruptedBase + startSignal;
        }
        std::fprintf(stderr, "loaderlab run: %s\n", loaderlab::escapeForTerminal(e.what()).c_str());
        // An engine that cannot start here (no torch) is a failure; a dataset or an
        // output that cannot be opened is the user's to fix.
        return dynamic_cast<const loaderlab::EngineUnavailable *>(&e) ? kFailed : kUsage;
    }

    std::unique_ptr<loaderlab::Autotuner> tuner;
    if (autotune) {
        loaderlab::AutotuneOptions options;
        options.tuneBatch = parser.isSet(QStringLiteral("autotune-batch"));
        options.model = autotuneSearch == QLatin1String("model");
        tuner = std::make_unique<loaderlab::Autotuner>(
            service.engine(), options, [](const loaderlab::AutotuneMove &move) {
                std::fprintf(stderr, "\nautotune: %s\n", move.reason.c_str());
            });
    }
    const int signal = waitForRun(service, parser.isSet(QStringLiteral("quiet")));
    tuner.reset();

    loaderlab::RunReport report = service.report();
    if (slurm) // where this rank's run sits beside the other tasks' (core/io/rank_set.h)
        report.probe = slurmProbeInfo(*slurm, service.engine().startUnixNs());
    std::fputs(summaryTable(report.summary).c_str(), stdout);
    if (report.config.replayBatches > 0 && report.summary.replay.firstBatch < 0)
        std::printf("  %s (%lld of %lld)\n", loaderlab::replayLine(report.summary.replay).c_str(),
                    static_cast<long long>(report.summary.batches),
                    static_cast<long long>(report.config.replayBatches));
    if (!baselinePath.empty()) {
        report.scalingBaseline = baselinePath;
        report.scaling = loaderlab::scalingEfficiency(baseline, report.summary);
        const std::string line = loaderlab::scalingEfficiencyLine(report.scaling);
        std::printf("  %s\n", line.empty() ? "against one rank: no figures (this run has no "
                                             "steady rate of several ranks)"
                                           : line.c_str());
    }
    std::fflush(stdout);
    int code = signal != 0 ? kInterruptedBase + signal : kOk;
    if (service.state() == loaderlab::RunState::Failed) {
        // A refusal found once the run started (a pipeline's empty dataset) is the
        // user's to fix, as the same refusal before the start.
        const bool refused = service.engine().refused();
        std::fprintf(stderr, "loaderlab run: %s%s\n",
                     refused ? "" : "failed: ", loaderlab::escapeForTerminal(report.error).c_str());
        code = refused ? kUsage : kFailed;
    }
    std::vector<std::string> written;
    for (const std::string &error : service.writeOutputs(report, &written)) {
        std::fprintf(stderr, "loaderlab run: %s\n", loaderlab::escapeForTerminal(error).c_str());
        code = kFailed;
    }
    for (const std::string &line : written)
        std::fprintf(stderr, "%s\n", loaderlab::escapeForTerminal(line).c_str());
    return code;
}

} // namespace loaderlab::cli
