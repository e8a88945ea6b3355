// `loaderlab run --engine pytorch`: the run's settings on PyTorch's own DataLoader
// (core/run/pytorch_run.h), with the same progress, summary table, outputs, exit
// codes and signal handling as a LoaderLab run.

#include "app/cli/cli.h"
#include "app/cli/run_options.h"
#include "app/cli/run_support.h"
#include "app/cli/summary_table.h"

#include "core/io/chrome_trace.h"
#include "core/io/trace_csv.h"
#include "core/run/output_paths.h"
#include "core/run/pytorch_run.h"
#include "core/system/logging.h"
#include "core/system/safe_text.h"

#include <cstdio>
#include <cstring>
#include <optional>

#include <unistd.h>

namespace loaderlab::cli {

int runWithPytorch(const QCommandLineParser &parser)
{
    using loaderlab::escapeForTerminal;
    const auto path = [&](const char *option) {
        return pathFromArgument(parser.value(QLatin1String(option)));
    };
    const std::string csv = path("csv"), json = path("json"), traceJson = path("trace-json");
    loaderlab::PyTorchRun run;
    // Installed before the import check, which a stop signal cuts short (its
    // Python, in a process group of its own, would not see the terminal's Ctrl-C).
    std::optional<StopSignals> handlers;
    int signal = 0;
    const auto stopSignal = [&] {
        if (signal == 0)
            signal = takeStopSignal();
        return signal != 0;
    };
    try {
        loaderlab::setupLogging(parser.value(QStringLiteral("log-level")).toStdString());
        loaderlab::RunConfig config = runConfigFromOptions(parser);
        ensureDefaultDataset(config);
        loaderlab::checkOutputPaths({{"--csv", csv}, {"--json", json}, {"--trace-json", traceJson}},
                                    {config.dataset.path});
        handlers.emplace();
        run.start(config, stopSignal);
    } catch (const std::invalid_argument &e) {
        std::fprintf(stderr, "loaderlab run: %s\n", escapeForTerminal(e.what()).c_str());
        return kUsage;
    } catch (const std::exception &e) {
        if (signal != 0) {
            std::fprintf(stderr, "loaderlab run: stopped (%s) before the run started\n",
                         strsignal(signal));
            return kInterruptedBase + signal;
        }
        std::fprintf(stderr, "loaderlab run: %s\n", escapeForTerminal(e.what()).c_str());
        return kFailed;
    }

    const bool quiet = parser.isSet(QStringLiteral("quiet"));
    const bool tty = isatty(STDERR_FILENO) != 0;
    int ticks = 0;
    while (!run.wait(100)) {
        if (stopSignal()) {
            std::fprintf(stderr, "\nstopping (%s); writing what was measured\n", strsignal(signal));
            run.stop();
            run.wait();
            break;
        }
        if (!quiet && ++ticks % (tty ? 5 : 20) == 0)
            printRunProgress(*run.trace(), tty);
    }
    if (!quiet && tty)
        std::fputc('\n', stderr);

    const loaderlab::RunReport report = run.report();
    std::fputs(summaryTable(report.summary).c_str(), stdout);
    std::fflush(stdout);
    int code = signal != 0 ? kInterruptedBase + signal : kOk;
    if (run.state() == loaderlab::RunState::Failed) {
        std::fprintf(stderr, "loaderlab run: failed: %s\n",
                     escapeForTerminal(report.error).c_str());
        code = kFailed;
    }
    const auto records = run.trace()->records();
    const auto write = [&](const std::string &file, const char *what, auto save) {
        if (file.empty())
            return;
        try {
            save();
            std::fprintf(stderr, "wrote %s to %s\n", what, escapeForTerminal(file).c_str());
        } catch (const std::exception &e) {
            std::fprintf(stderr, "loaderlab run: %s\n", escapeForTerminal(e.what()).c_str());
            code = kFailed;
        }
    };
    write(csv, "the per-batch trace", [&] { loaderlab::saveTraceCsv(csv, records); });
    write(json, "the summary", [&] { loaderlab::saveRunReport(json, report); });
    write(traceJson, "the trace for Perfetto",
          [&] { loaderlab::saveChromeTrace(traceJson, report, records, run.trace()->spans()); });
    return code;
}

} // namespace loaderlab::cli
