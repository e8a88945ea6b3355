// `loaderlab run`: one headless run with progress on stderr, the summary table on
// stdout, and the per-batch CSV and JSON summary written atomically. Ctrl-C stops
// the run and still writes what was measured.

#include "app/cli/cli.h"
#include "app/cli/run_options.h"
#include "app/cli/summary_table.h"

#include "core/dataset/dataset.h"
#include "core/io/summary_json.h"
#include "core/io/trace_csv.h"
#include "core/run/run_controller.h"
#include "core/system/logging.h"
#include "core/tools/default_dataset.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <spdlog/spdlog.h>

#include <atomic>
#include <csignal>
#include <cstdio>

#include <unistd.h>

namespace Cli {
namespace {

std::atomic<bool> g_interrupted{false};

void onInterrupt(int)
{
    g_interrupted = true;
}

void printProgress(const loaderlab::TraceLog &trace, bool tty)
{
    const std::size_t n = trace.size();
    if (n == 0)
        return;
    const auto &last = trace[n - 1];
    std::int64_t samples = 0;
    const std::size_t from = n > 50 ? n - 50 : 0;
    for (std::size_t i = from; i < n; ++i)
        samples += trace[i].samples;
    const double span = static_cast<double>(last.computeEndNs - trace[from].requestNs) / 1e9;
    std::fprintf(stderr, "%s[%7.1f s] %lld batches, %.0f samples/s (last %zu batches)%s",
                 tty ? "\r" : "", static_cast<double>(last.computeEndNs) / 1e9,
                 static_cast<long long>(n), span > 0 ? samples / span : 0.0, n - from,
                 tty ? "   " : "\n");
}

void ensureDefaultDataset(loaderlab::RunConfig &config)
{
    if (config.dataset.kind != loaderlab::DatasetKind::ImageFolder || !config.dataset.path.empty())
        return;
    std::fprintf(stderr, "No --path given: using the default dataset (generated on first use).\n");
    config.dataset.path = loaderlab::ensureDefaultImageFolder([](std::int64_t done, std::int64_t total) {
        if (done % 100 == 0 || done == total)
            std::fprintf(stderr, "generating default dataset: %lld/%lld images\n",
                         static_cast<long long>(done), static_cast<long long>(total));
    });
    std::fprintf(stderr, "default dataset: %s\n", config.dataset.path.c_str());
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
    parser.addOption({QStringLiteral("quiet"), QStringLiteral("no progress on stderr")});
    parser.addOption({QStringLiteral("log-level"),
                      QStringLiteral("trace, debug, info, warn (default), error, off"),
                      QStringLiteral("level"), QStringLiteral("warn")});
    if (!parser.parse(arguments)) {
        std::fprintf(stderr, "loaderlab run: %s\n", qPrintable(parser.errorText()));
        return kUsage;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        return kOk;
    }

    loaderlab::RunConfig config;
    loaderlab::RunController controller;
    try {
        loaderlab::setupLogging(parser.value(QStringLiteral("log-level")).toStdString());
        config = runConfigFromOptions(parser);
        ensureDefaultDataset(config);
        controller.start(config);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab run: %s\n", e.what());
        return kUsage;
    }

    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    const bool quiet = parser.isSet(QStringLiteral("quiet"));
    const bool tty = isatty(STDERR_FILENO) != 0;
    int ticks = 0;
    while (!controller.waitForEnd(100)) {
        if (g_interrupted.exchange(false)) {
            std::fprintf(stderr, "\nstopping (interrupted); writing what was measured\n");
            controller.stop();
            break;
        }
        // A line every 2 s to a log file, a refreshed line every 0.5 s on a terminal.
        if (!quiet && ++ticks % (tty ? 5 : 20) == 0)
            printProgress(*controller.trace(), tty);
    }
    controller.stop();
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    if (!quiet && tty)
        std::fputc('\n', stderr);

    const auto trace = controller.trace();
    const auto records = trace->records();
    loaderlab::RunReport report;
    report.config = controller.config();
    report.dataset = controller.datasetDescription();
    report.state = loaderlab::runStateName(controller.state());
    report.error = controller.error();
    report.summary = loaderlab::summarize(records, trace->spans(), report.config.loader.numWorkers,
                                          config.warmupBatches, trace->skippedCount());
    report.summary.peakMemoryBytes = controller.peakMemoryBytes();
    report.skipped = trace->skipped();
    report.markers = trace->markers();
    report.machine = loaderlab::machineInfo();
    report.machine.versions["qt"] = qVersion();

    std::fputs(summaryTable(report.summary).c_str(), stdout);
    int code = controller.state() == loaderlab::RunState::Failed ? kFailed : kOk;
    if (code == kFailed)
        std::fprintf(stderr, "loaderlab run: failed: %s\n", report.error.c_str());
    try {
        if (parser.isSet(QStringLiteral("csv"))) {
            loaderlab::saveTraceCsv(parser.value(QStringLiteral("csv")).toStdString(), records);
            std::fprintf(stderr, "wrote %zu batches to %s\n", records.size(),
                         qPrintable(parser.value(QStringLiteral("csv"))));
        }
        if (parser.isSet(QStringLiteral("json"))) {
            loaderlab::saveRunReport(parser.value(QStringLiteral("json")).toStdString(), report);
            std::fprintf(stderr, "wrote summary to %s\n", qPrintable(parser.value(QStringLiteral("json"))));
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab run: %s\n", e.what());
        code = kFailed;
    }
    return code;
}

} // namespace Cli
