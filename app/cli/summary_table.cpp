#include "app/cli/summary_table.h"

#include "core/stats/rank_time_split.h"

#include <algorithm>
#include <cstdio>

namespace loaderlab::cli {
namespace {

void row(std::string &out, const char *name, const char *format, double value)
{
    char text[160];
    std::snprintf(text, sizeof text, "  %-25s ", name); // a longer name still gets a space
    out += text;
    std::snprintf(text, sizeof text, format, value);
    out += text;
    out += '\n';
}

} // namespace

std::string summaryTable(const loaderlab::RunSummary &s)
{
    std::string out = "LoaderLab run summary\n";
    row(out, "batches", "%.0f", static_cast<double>(s.batches));
    row(out, "samples", "%.0f", static_cast<double>(s.samples));
    row(out, "skipped samples", "%.0f", static_cast<double>(s.skippedSamples));
    row(out, "warm-up batches excluded", "%.0f", static_cast<double>(s.warmupBatches));
    row(out, "wall time", "%.3f s", s.wallSeconds);
    row(out, "samples/s (mean)", "%.1f", s.samplesPerSecMean);
    row(out, "samples/s (median)", "%.1f", s.samplesPerSecMedian);
    row(out, "first-batch latency", "%.2f ms", s.firstBatchLatencyMs);
    row(out, "wait p50", "%.3f ms", s.waitP50Ms);
    row(out, "wait p95", "%.3f ms", s.waitP95Ms);
    row(out, "wait p99", "%.3f ms", s.waitP99Ms);
    row(out, "wait max", "%.3f ms", s.waitMaxMs);
    row(out, "compute mean", "%.3f ms", s.computeMeanMs);
    if (s.copyMeanMs > 0.0)
        row(out, "copy mean (to device)", "%.3f ms", s.copyMeanMs);
    row(out, "input-bound share", "%.1f %%", s.inputBoundShare * 100.0);
    if (s.peakMemoryBytes > 0)
        row(out, "peak memory (step)", "%.1f MiB",
            static_cast<double>(s.peakMemoryBytes) / 1048576.0);
    // With several ranks the lanes are rank-major: rank r's worker w is lane r * W + w.
    const std::size_t ranks = std::max<std::size_t>(s.ranks.size(), 1);
    const std::size_t perRank = s.workerUtilisation.size() / ranks;
    for (std::size_t w = 0; w < s.workerUtilisation.size(); ++w) {
        const std::string name =
            (ranks > 1 && perRank > 0 ? "rank " + std::to_string(w / perRank) + " " : "")
            + "worker " + std::to_string(perRank > 0 ? w % perRank : w) + " utilisation";
        row(out, name.c_str(), "%.1f %%", s.workerUtilisation[w] * 100.0);
    }
    if (s.droppedRecords > 0 || s.droppedSpans > 0) {
        row(out, "batches not stored", "%.0f", static_cast<double>(s.droppedRecords));
        row(out, "worker spans not stored", "%.0f", static_cast<double>(s.droppedSpans));
    }
    out += "  " + loaderlab::verdictLine(s) + "\n";
    if (s.replay.firstBatch >= 0)
        out += "  " + loaderlab::replayLine(s.replay) + "\n";
    if (!s.ranks.empty()) {
        out += "ranks (data-parallel devices; samples/s above is their total; slowest: the "
               "wait for the slowest rank a step, exchange: the gradient all-reduce)\n"
               "  rank  batches  samples  samples/s  wait mean  input-bound    slowest   "
               "exchange\n";
        for (const auto &r : s.ranks) {
            char line[200];
            std::snprintf(line, sizeof line,
                          "  %4d  %7lld  %7lld  %9.1f  %6.3f ms  %9.1f %%  %6.2f ms  %6.2f ms\n",
                          r.rank, static_cast<long long>(r.batches),
                          static_cast<long long>(r.samples), r.samplesPerSecMean, r.waitMeanMs,
                          r.inputBoundShare * 100.0, r.syncWaitMeanMs, r.exchangeMeanMs);
            out += line;
        }
        if (const std::string split = loaderlab::rankTimeSplitLine(loaderlab::rankTimeSplit(s));
            !split.empty())
            out += "  " + split + "\n";
    }
    if (s.segments.size() > 1) {
        out += "segments (one per live reconfiguration)\n"
               "  version  first batch  batches  workers  samples/s  input-bound  utilisation\n";
        for (const auto &g : s.segments) {
            char line[160];
            std::snprintf(line, sizeof line,
                          "  %7d  %11lld  %7lld  %7d  %9.1f  %9.1f %%  %9.1f %%\n", g.configVersion,
                          static_cast<long long>(g.firstBatch), static_cast<long long>(g.batches),
                          g.numWorkers, g.samplesPerSecMean, g.inputBoundShare * 100.0,
                          g.meanWorkerUtilisation * 100.0);
            out += line;
        }
    }
    return out;
}

} // namespace loaderlab::cli
