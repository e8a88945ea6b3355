#include "core/stats/run_summary.h"

#include "core/stats/summary_accumulator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace loaderlab {

const char *inputBoundBandName(InputBoundBand band)
{
    switch (band) {
    case InputBoundBand::NotInputBound:
        return "not input-bound";
    case InputBoundBand::Moderately:
        return "moderately input-bound";
    case InputBoundBand::Highly:
        return "highly input-bound";
    }
    return "";
}

double percentile(std::vector<double> values, double q)
{
    if (values.empty())
        return 0.0;
    std::sort(values.begin(), values.end());
    const double rank = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
    const auto low = static_cast<std::size_t>(std::floor(rank));
    const auto high = std::min(low + 1, values.size() - 1);
    return values[low] + (values[high] - values[low]) * (rank - static_cast<double>(low));
}

InputBoundBand bandForShare(double share)
{
    if (share < 0.05)
        return InputBoundBand::NotInputBound;
    if (share < 0.20)
        return InputBoundBand::Moderately;
    return InputBoundBand::Highly;
}

RunSummary summarize(const std::vector<TraceRecord> &records, const std::vector<WorkerSpan> &spans,
                     int numWorkers, int warmupBatches, std::int64_t skippedSamples)
{
    return summarize(records, spans, std::vector<int>{numWorkers}, warmupBatches, skippedSamples);
}

RunSummary summarize(const std::vector<TraceRecord> &records, const std::vector<WorkerSpan> &spans,
                     const std::vector<int> &workersByVersion, int warmupBatches,
                     std::int64_t skippedSamples)
{
    SummaryAccumulator accumulator(warmupBatches, workersByVersion);
    int ranks = 1;
    for (const TraceRecord &r : records)
        ranks = std::max(ranks, r.rank + 1);
    accumulator.setRanks(ranks);
    std::size_t k = 0;
    for (const TraceRecord &r : records) {
        // Spans are in batch order; each batch's spans go in just before its record.
        while (k < spans.size() && spans[k].batch < r.index)
            ++k;
        while (k < spans.size() && spans[k].batch == r.index)
            accumulator.addSpan(spans[k++]);
        accumulator.addRecord(r);
    }
    return accumulator.summary(skippedSamples);
}

std::string adviceFor(const RunSummary &summary)
{
    char text[160];
    const double pct = summary.inputBoundShare * 100.0;
    switch (summary.band) {
    case InputBoundBand::NotInputBound:
        std::snprintf(text, sizeof text,
                      "input-bound %.0f %%: the loader keeps up; the model step is the limit", pct);
        break;
    case InputBoundBand::Moderately:
        std::snprintf(text, sizeof text,
                      "input-bound %.0f %%: a few more workers or a larger prefetch may help", pct);
        break;
    case InputBoundBand::Highly:
        std::snprintf(text, sizeof text, "input-bound %.0f %%: add workers or preprocess offline",
                      pct);
        break;
    }
    return text;
}

} // namespace loaderlab
