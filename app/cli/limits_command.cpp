// `loaderlab limits`: the ceilings of a run's input pipeline on this machine and data
// (core/limits/ceilings.h), each measured for a few seconds with a progress line on
// stderr; a table and the binding ceiling on stdout, optionally JSON. With --from, the
// recorded run's settings and its measured rate. See docs/ceilings.md.

#include "app/cli/cli.h"
#include "app/cli/run_options.h"
#include "app/cli/run_support.h"

#include "core/io/run_reader.h"
#include "core/limits/ceilings.h"
#include "core/limits/roofline.h"
#include "core/run/output_paths.h"
#include "core/system/atomic_file.h"
#include "core/system/logging.h"
#include "core/system/safe_json.h"
#include "core/system/safe_text.h"

#include <QCommandLineParser>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace loaderlab::cli {
namespace {

void printReport(const loaderlab::CeilingReport &report, std::optional<double> runRate)
{
    std::printf("%s\n", loaderlab::escapeForTerminal(report.dataset).c_str());
    std::printf("%-13s %14s  %s\n", "ceiling", "samples/s", "measured");
    for (const loaderlab::Ceiling &c : report.ceilings) {
        char value[32] = "-";
        if (c.measured())
            std::snprintf(value, sizeof value, "%.0f", c.samplesPerSecond);
        std::printf("%-13s %14s  %s\n", loaderlab::ceilingKindName(c.kind), value,
                    loaderlab::escapeForTerminal(c.basis).c_str());
    }
    if (runRate)
        std::printf("%-13s %14.0f  the recorded run's mean\n", "your run", *runRate);
    std::printf("\n%s\n", loaderlab::bindingSentence(report, runRate).c_str());
    std::printf("\nwhat lifts each ceiling:\n");
    for (const loaderlab::Ceiling &c : report.ceilings)
        if (c.measured())
            std::printf("  %-13s %s\n", loaderlab::ceilingKindName(c.kind), c.lift.c_str());
    if (report.predicted.empty())
        return;
    std::printf("\nthe job's samples/s, predicted by the loader model from the ceilings above:\n");
    for (const loaderlab::PredictedLift &lift : report.predicted)
        std::printf("  %-30s %10.0f%s\n", loaderlab::liftName(lift).c_str(), lift.samplesPerSecond,
                    lift.storageBound ? "  (cut to the storage ceiling)" : "");
}

nlohmann::json reportJson(const loaderlab::CeilingReport &report, std::optional<double> runRate)
{
    nlohmann::json ceilings = nlohmann::json::array();
    for (const loaderlab::Ceiling &c : report.ceilings)
        ceilings.push_back({{"stage", loaderlab::ceilingKindName(c.kind)},
                            {"samples_per_sec",
                             c.measured() ? nlohmann::json(c.samplesPerSecond) : nlohmann::json()},
                            {"measured", c.basis},
                            {"lift", c.lift}});
    const loaderlab::Ceiling *loader = report.loaderBinding();
    const loaderlab::Ceiling *job = report.jobBinding();
    nlohmann::json predicted = nlohmann::json::array();
    for (const loaderlab::PredictedLift &lift : report.predicted)
        predicted.push_back({{"what", loaderlab::liftName(lift)},
                             {"samples_per_sec", lift.samplesPerSecond},
                             {"storage_bound", lift.storageBound}});
    return {{"format", "loaderlab-ceilings-1"},
            {"dataset", report.dataset},
            {"cores", report.cores},
            {"free_cores", report.freeCores},
            {"ceilings", ceilings},
            {"loader_binding", loader ? loaderlab::ceilingKindName(loader->kind) : ""},
            {"job_binding", job ? loaderlab::ceilingKindName(job->kind) : ""},
            {"run_samples_per_sec", runRate ? nlohmann::json(*runRate) : nlohmann::json()},
            {"predicted", predicted},
            {"summary", loaderlab::bindingSentence(report, runRate)}};
}

} // namespace

int limitsCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Measures, on this machine and the run's own data, how many samples a second each "
        "stage of the input pipeline could give: reading the data, the decode on the free "
        "cores, the loader's hand-over, the step replayed on batches kept in memory, and "
        "the same images preprocessed into tensors; then names the ceiling that binds. A "
        "few seconds a stage. Takes the options of `loaderlab run`, or a recorded run."));
    parser.addHelpOption();
    addRunOptions(parser);
    parser.addOption({QStringLiteral("from"),
                      QStringLiteral("a recorded run's summary JSON: its settings (options "
                                     "given as well override them) and its rate"),
                      QStringLiteral("file")});
    parser.addOption({QStringLiteral("seconds-each"),
                      QStringLiteral("seconds each stage is measured (default: 2)"),
                      QStringLiteral("s"), QStringLiteral("2")});
    parser.addOption({QStringLiteral("keep-tensor"),
                      QStringLiteral("keep the preprocessed sample as this new file"),
                      QStringLiteral("file")});
    parser.addOption({QStringLiteral("json"), QStringLiteral("also write the ceilings as JSON"),
                      QStringLiteral("file")});
    parser.addOption({QStringLiteral("plot"),
                      QStringLiteral("also draw the roofline (the ceilings against the cores "
                                     "loading, the runs as points) as an SVG file"),
                      QStringLiteral("file")});
    parser.addOption({QStringLiteral("place"),
                      QStringLiteral("a recorded run's summary JSON or a sweep's results folder "
                                     "to place on the roofline (repeatable; --from's run is "
                                     "placed too)"),
                      QStringLiteral("path")});
    if (const auto code = parseCommandLine(parser, arguments, "limits"))
        return *code;
    if (rejectPositionals(parser, 0, "limits"))
        return kUsage;

    loaderlab::CeilingReport report;
    std::optional<double> runRate;
    std::string jsonPath;
    std::string plotPath;
    std::vector<loaderlab::RooflinePoint> points;
    int signal = 0;
    try {
        loaderlab::setupLogging("warn");
        loaderlab::RunConfig config = runConfigFromOptions(parser);
        if (parser.isSet(QStringLiteral("from"))) {
            const std::string from = pathFromArgument(parser.value(QStringLiteral("from")));
            const nlohmann::json json = loaderlab::loadSummaryJson(from);
            // The run's settings, with the options given on top of them.
            config = loaderlab::runReportFromJson(json, from).config;
            for (const auto &field : loaderlab::configFields())
                applyConfigFieldOption(parser, field, config);
            applySetOptions(parser, config);
            // The rate as the run summarised it (a report's figures come from the CSV).
            const nlohmann::json summary = json.value("summary", nlohmann::json::object());
            if (const auto rate = summary.find("samples_per_sec_mean");
                rate != summary.end() && rate->is_number() && rate->get<double>() > 0.0)
                runRate = rate->get<double>();
            if (runRate)
                points.push_back({"your run", config.loader.numWorkers, *runRate});
        }
        for (const QString &place : parser.values(QStringLiteral("place"))) {
            std::vector<loaderlab::RooflinePoint> more = loaderlab::rooflinePoints(
                pathFromArgument(place));
            points.insert(points.end(), more.begin(), more.end());
        }
        loaderlab::CeilingOptions options;
        bool ok = false;
        options.secondsEach = parser.value(QStringLiteral("seconds-each")).toDouble(&ok);
        if (!ok || !(options.secondsEach >= 0.1 && options.secondsEach <= 60.0))
            throw std::invalid_argument("--seconds-each: expected 0.1..60 seconds");
        if (parser.isSet(QStringLiteral("keep-tensor")))
            options.keepTensorFile = pathFromArgument(parser.value(QStringLiteral("keep-tensor")));
        if (parser.isSet(QStringLiteral("json")))
            jsonPath = pathFromArgument(parser.value(QStringLiteral("json")));
        if (parser.isSet(QStringLiteral("plot")))
            plotPath = pathFromArgument(parser.value(QStringLiteral("plot")));
        loaderlab::checkOutputPaths({{"--json", jsonPath}, {"--plot", plotPath}},
                                    {config.dataset.path});
        options.progress = [](loaderlab::CeilingKind kind, int done, int total) {
            std::fprintf(stderr, "limits: [%d/%d] %s ...\n", done + 1, total,
                         loaderlab::ceilingKindName(kind));
            std::fflush(stderr);
        };
        const StopSignals handlers;
        SignalStop stop;
        options.stop = stop.token();
        report = loaderlab::measureCeilings(config, options);
        signal = stop.signal();
    } catch (const std::invalid_argument &e) {
        std::fprintf(stderr, "loaderlab limits: %s\n",
                     loaderlab::escapeForTerminal(e.what()).c_str());
        return kUsage;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab limits: %s\n",
                     loaderlab::escapeForTerminal(e.what()).c_str());
        return kFailed;
    }
    if (signal != 0) {
        std::fprintf(stderr, "loaderlab limits: stopped by signal %d; nothing written\n", signal);
        return kInterruptedBase + signal;
    }
    printReport(report, runRate);
    try {
        if (!jsonPath.empty()) {
            const auto json = loaderlab::toSafeJson(reportJson(report, runRate));
            loaderlab::writeFileAtomically(jsonPath,
                                           [&](std::ostream &out) { out << json.dump(2) << '\n'; });
        }
        if (!plotPath.empty()) {
            const std::string svg = loaderlab::svgPlot(loaderlab::rooflinePlot(report, points));
            loaderlab::writeFileAtomically(plotPath,
                                           [&](std::ostream &out) { out << svg << '\n'; });
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab limits: %s\n",
                     loaderlab::escapeForTerminal(e.what()).c_str());
        return kFailed;
    }
    return kOk;
}

} // namespace loaderlab::cli
