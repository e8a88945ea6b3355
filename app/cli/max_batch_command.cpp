// `loaderlab max-batch`: the largest batch a model's step fits in before memory runs
// out, found with real steps (core/torch/max_batch_finder.h): a progress line per
// attempt on stderr, the table of attempts and the result on stdout, optionally JSON.
// The model options are the config table's, as for `run`. See docs/max-batch.md.

#include "app/cli/cli.h"
#include "app/cli/run_options.h"
#include "app/cli/run_support.h"
#include "app/cli/torch_plugin.h"

#include "core/config/config_fields.h"
#include "core/engine/engine.h"
#include "core/run/output_paths.h"
#include "core/system/atomic_file.h"
#include "core/system/logging.h"
#include "core/system/memory_budget.h"
#include "core/system/safe_json.h"
#include "core/system/safe_text.h"
#include "core/torch/max_batch_finder.h"

#include <QCommandLineParser>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <thread>

namespace loaderlab::cli {
namespace {

using loaderlab::BatchAttempt;
using loaderlab::SearchEnd;
using loaderlab::torchmodels::MaxBatchReport;
using loaderlab::torchmodels::MaxBatchRequest;

// The config fields that are options here: the model step, the input shape and the
// memory budget.
// The engine is among them so that `--engine pytorch` is refused with the reason
// (engineCannot(EngineFeature::MaxBatch)), not as an unknown option.
bool isMaxBatchField(std::string_view key)
{
    return key == "engine" || key.starts_with("consumer.model.") || key == "dataset.synthetic_shape"
           || key == "memory_budget_mb";
}

std::string mib(std::int64_t bytes)
{
    if (bytes <= 0)
        return "-";
    char text[32];
    std::snprintf(text, sizeof(text), "%.1f", static_cast<double>(bytes) / 1048576.0);
    return text;
}

std::string attemptLine(const BatchAttempt &a)
{
    std::string line = "max-batch: batch " + std::to_string(a.batch) + ": ";
    if (!a.fits)
        return line + "fails (" + loaderlab::escapeForTerminal(a.reason) + ")";
    char details[96];
    std::snprintf(details, sizeof(details), "fits (peak %s MiB, %.0f ms)", mib(a.peakBytes).c_str(),
                  a.stepMs);
    return line + details;
}

std::string resultLine(const MaxBatchReport &r, std::int64_t maxBatch)
{
    const auto &s = r.search;
    std::string where;
    if (s.end == SearchEnd::ReachedMax)
        where = " (the --max " + std::to_string(maxBatch) + ": larger batches were not tried)";
    else if (s.end == SearchEnd::AttemptCap)
        where = " (out of attempts: the limit lies below " + std::to_string(s.smallestFailure)
                + ")";
    else if (s.end == SearchEnd::Stopped)
        where = " (stopped before the search ended)";
    return "largest batch that fits: " + std::to_string(s.largestFit) + where + "; suggested: "
           + std::to_string(r.suggested) + " (" + loaderlab::suggestionRule(s.largestFit) + ")";
}

void printTable(const MaxBatchReport &r)
{
    std::printf("%s\n", loaderlab::escapeForTerminal(r.description).c_str());
    if (r.cuda)
        std::printf("device memory: a step fails on the allocator's out-of-memory error; the "
                    "host budget of %s bounds the input\n",
                    loaderlab::formatBytes(r.budgetBytes).c_str());
    else
        std::printf("memory budget: %s (peak resident memory of the process; %s resident once "
                    "the model was built)\n",
                    loaderlab::formatBytes(r.budgetBytes).c_str(),
                    loaderlab::formatBytes(r.baselineBytes).c_str());
    if (!r.peakResetWorks)
        std::printf("note: the peak could not be reset per step; peaks are the process's\n");
    std::printf("%7s %8s  %-6s %12s %14s %10s  %s\n", "attempt", "batch", "result", "peak MiB",
                "predicted MiB", "step ms", "reason");
    int index = 0;
    for (const auto &a : r.search.attempts) {
        char ms[32] = "-";
        if (a.ran)
            std::snprintf(ms, sizeof(ms), "%.1f", a.stepMs);
        std::printf("%7d %8lld  %-6s %12s %14s %10s  %s\n", ++index,
                    static_cast<long long>(a.batch), a.fits ? "fits" : "fails",
                    mib(a.peakBytes).c_str(), mib(a.predictedBytes).c_str(), ms,
                    loaderlab::escapeForTerminal(a.reason).c_str());
    }
}

nlohmann::json reportJson(const MaxBatchReport &r, const loaderlab::RunConfig &config,
                          const loaderlab::SearchLimits &limits)
{
    nlohmann::json model = nlohmann::json::object();
    for (const auto &field : loaderlab::configFields()) {
        if (field.key.starts_with("consumer.model."))
            model[std::string(field.key.substr(15))] = field.get(config);
    }
    const auto &shape = config.dataset.syntheticShape;
    nlohmann::json attempts = nlohmann::json::array();
    for (const auto &a : r.search.attempts)
        attempts.push_back(loaderlab::attemptJson(a));
    return {{"format", "loaderlab-max-batch-1"},
            {"step", r.description},
            {"model", model},
            {"shape", {shape.channels, shape.height, shape.width}},
            {"cuda", r.cuda},
            {"memory_budget_bytes", r.budgetBytes},
            {"baseline_bytes", r.baselineBytes},
            {"peak_reset_works", r.peakResetWorks},
            {"max_batch", limits.maxBatch},
            {"max_attempts", limits.maxAttempts},
            {"attempts", attempts},
            {"end", loaderlab::searchEndName(r.search.end)},
            {"largest_fit", r.search.largestFit},
            {"smallest_failure", r.search.smallestFailure},
            {"suggested", r.suggested},
            {"suggestion_rule", loaderlab::suggestionRule(r.search.largestFit)}};
}

} // namespace

int maxBatchCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Finds the largest batch a model's step fits in: batch 1, 2, 4, ... until a step "
        "fails, then a binary search. On the CPU a step fails when its peak memory is over "
        "the memory budget; a step predicted to go over it is not run."));
    parser.addHelpOption();
    for (const auto &field : loaderlab::configFields()) {
        if (isMaxBatchField(field.key))
            parser.addOption(configFieldOption(field));
    }
    parser.addOption({QStringLiteral("max"),
                      QStringLiteral("largest batch to try (default: 65536)"), QStringLiteral("n"),
                      QStringLiteral("65536")});
    parser.addOption({QStringLiteral("max-attempts"),
                      QStringLiteral("most steps to try (default: 40)"), QStringLiteral("n"),
                      QStringLiteral("40")});
    parser.addOption({QStringLiteral("json"),
                      QStringLiteral("also write the attempts and the result as JSON"),
                      QStringLiteral("file")});
    if (const auto code = parseCommandLine(parser, arguments, "max-batch"))
        return *code;
    if (rejectPositionals(parser, 0, "max-batch"))
        return kUsage;

    loaderlab::RunConfig config;
    MaxBatchRequest request;
    std::string jsonPath;
    MaxBatchReport report;
    int signal = 0;
    try {
        loaderlab::setupLogging("warn"); // a budget over the usable memory says so on stderr
        for (const auto &field : loaderlab::configFields()) {
            if (isMaxBatchField(field.key))
                applyConfigFieldOption(parser, field, config);
        }
        if (const std::string why = loaderlab::engineCannot(config.engine,
                                                            loaderlab::EngineFeature::MaxBatch);
            !why.empty())
            throw std::invalid_argument(
                "--engine " + std::string(loaderlab::engineKindName(config.engine)) + ": " + why);
        request.model = config.consumer.model;
        request.channels = config.dataset.syntheticShape.channels;
        request.height = config.dataset.syntheticShape.height;
        request.width = config.dataset.syntheticShape.width;
        request.memoryBudgetBytes = loaderlab::memoryBudgetFromMegabytes(config.memoryBudgetMb);
        request.limits.maxBatch = integerOption(parser, "max", 1, std::int64_t{1} << 31);
        request.limits.maxAttempts = intOption(parser, "max-attempts", 1, 1000);
        if (parser.isSet(QStringLiteral("json")))
            jsonPath = pathFromArgument(parser.value(QStringLiteral("json")));
        // Before minutes of searching, not after.
        loaderlab::checkOutputPaths({{"--json", jsonPath}}, {request.model.scriptPath});
        // Ctrl-C, SIGTERM, SIGHUP: the attempt under way ends (a step is not cut
        // short), nothing is written, and the exit code says which signal.
        const StopSignals handlers;
        SignalStop stop; // the work runs on this thread; a signal stops it
        report = loaderlab::torchPlugin().findMaxBatch(
            request, stop.token(), [](const BatchAttempt &a) {
                std::fprintf(stderr, "%s\n", attemptLine(a).c_str());
                std::fflush(stderr);
            });
        signal = stop.signal();
    } catch (const std::invalid_argument &e) {
        std::fprintf(stderr, "loaderlab max-batch: %s\n",
                     loaderlab::escapeForTerminal(e.what()).c_str());
        return kUsage;
    } catch (const std::exception &e) {
        const std::string what = e.what();
        std::fprintf(stderr, "loaderlab max-batch: %s\n",
                     loaderlab::escapeForTerminal(what.substr(0, what.find('\n'))).c_str());
        return kFailed;
    }

    if (signal != 0) {
        std::fprintf(stderr,
                     "loaderlab max-batch: stopped by signal %d after %zu attempts; "
                     "nothing written\n",
                     signal, report.search.attempts.size());
        return kInterruptedBase + signal;
    }
    printTable(report);
    const bool found = report.search.largestFit > 0;
    if (found) {
        std::printf("%s\n", resultLine(report, request.limits.maxBatch).c_str());
    } else {
        const std::string reason = report.search.attempts.empty()
                                       ? std::string("stopped")
                                       : report.search.attempts.front().reason;
        std::printf("not even batch 1 fits: %s\n", loaderlab::escapeForTerminal(reason).c_str());
        std::fprintf(stderr, "loaderlab max-batch: not even batch 1 fits: %s\n",
                     loaderlab::escapeForTerminal(reason).c_str());
    }
    if (!jsonPath.empty()) {
        try {
            const auto json = loaderlab::toSafeJson(reportJson(report, config, request.limits));
            loaderlab::writeFileAtomically(jsonPath,
                                           [&](std::ostream &out) { out << json.dump(2) << '\n'; });
        } catch (const std::exception &e) {
            std::fprintf(stderr, "loaderlab max-batch: %s\n",
                         loaderlab::escapeForTerminal(e.what()).c_str());
            return kFailed;
        }
    }
    return found ? kOk : kFailed;
}

} // namespace loaderlab::cli
