#include "core/stats/run_summary.h"

#include "core/config/run_config.h"
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
    case InputBoundBand::NoSamples:
        return "no samples";
    case InputBoundBand::NoStep:
        return "no model step";
    }
    return "";
}

bool isShareBand(InputBoundBand band)
{
    return band == InputBoundBand::NotInputBound || band == InputBoundBand::Moderately
           || band == InputBoundBand::Highly;
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

bool configHasNoStep(const RunConfig &config)
{
    const ConsumerConfig &c = config.consumer;
    const bool sleeps = c.sleepPerBatchMs > 0.0 || c.sleepPerSampleMs > 0.0;
    switch (c.kind) {
    case ConsumerKind::Model:
        return false;
    case ConsumerKind::Sleep:
        // The PyTorch engine runs a pipeline file's step instead of the simulated one.
        return !sleeps && config.dataset.kind != DatasetKind::Python;
    case ConsumerKind::None:
        return config.dataset.kind != DatasetKind::Python;
    }
    return false;
}

void noteConsumerStep(RunSummary &summary, const RunConfig &config)
{
    if (summary.samples > 0 && configHasNoStep(config))
        summary.band = InputBoundBand::NoStep;
}

std::string adviceFor(const RunSummary &summary)
{
    char text[200] = {};
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
    case InputBoundBand::NoSamples:
        if (summary.skippedSamples > 0)
            std::snprintf(text, sizeof text,
                          "no sample was delivered (%lld skipped), so there is no input-bound "
                          "verdict",
                          static_cast<long long>(summary.skippedSamples));
        else
            std::snprintf(text, sizeof text,
                          "no sample was delivered, so there is no input-bound verdict");
        break;
    case InputBoundBand::NoStep:
        return "no model step: the consumer waits for every batch by construction, so "
               "samples/s is the loader's own rate; set a step (a simulated step or a model) "
               "to see whether loading keeps up";
    }
    return text;
}

std::string verdictLine(const RunSummary &summary)
{
    if (!isShareBand(summary.band))
        return adviceFor(summary);
    return std::string(inputBoundBandName(summary.band)) + ": " + adviceFor(summary);
}

} // namespace loaderlab
