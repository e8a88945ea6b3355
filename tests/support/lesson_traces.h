#pragma once

// The scripted traces the lesson tests judge: batches of 32 samples delivered back to
// back, each waiting the milliseconds a function gives it and then stepping, and a
// phase of the model lesson built on one.

#include "core/lessons/lesson.h"
#include "core/record/trace_record.h"
#include "core/stats/wait_pattern.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace lessontrace {

constexpr std::int64_t kMs = 1'000'000;

// `batches` batches of 32 samples, back to back: batch i waits `waitMs(i)` ms, then
// its step takes `stepMs`.
inline std::vector<loaderlab::TraceRecord>
trace(int batches, const std::function<double(int)> &waitMs, double stepMs = 10.0)
{
    std::vector<loaderlab::TraceRecord> records;
    std::int64_t t = 0;
    for (int i = 0; i < batches; ++i) {
        loaderlab::TraceRecord r;
        r.index = i;
        r.samples = 32;
        r.requestNs = t;
        r.deliveryNs = t + static_cast<std::int64_t>(waitMs(i) * kMs);
        r.loadStartNs = r.requestNs;
        r.loadEndNs = r.deliveryNs;
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = r.deliveryNs + static_cast<std::int64_t>(stepMs * kMs);
        t = r.computeEndNs;
        records.push_back(r);
    }
    return records;
}

// A phase of the model lesson (a model step, fp32 or with checkpointing) that measured
// `stepMs` a step and `peakMiB` of peak memory, over `batches` batches that each wait
// 1 ms.
inline loaderlab::LessonPhaseResult modelPhase(const char *label, bool checkpointing, double stepMs,
                                               double peakMiB, int batches)
{
    loaderlab::LessonPhaseResult r;
    r.label = label;
    r.config.consumer.kind = loaderlab::ConsumerKind::Model;
    r.config.consumer.model.checkpointing = checkpointing;
    r.summary.computeMeanMs = stepMs;
    r.summary.peakMemoryBytes = static_cast<std::int64_t>(peakMiB * 1048576.0);
    r.records = trace(batches, [](int) { return 1.0; });
    r.waits = loaderlab::analyzeWaits(r.records);
    return r;
}

// A lesson's measuring run, no step: `count` batches of `batch` samples, W workers in
// turn; the first round of W takes 50 ms a batch, the others `loadMs` each.
// `epochSamples` > 0 starts a new epoch each time that many samples have been
// delivered (its last batch short).
inline std::vector<loaderlab::TraceRecord>
measuringRun(int count, int workers, int batch, double loadMs, std::int64_t epochSamples = 0)
{
    std::vector<loaderlab::TraceRecord> records;
    std::int64_t now = 0, inEpoch = 0;
    std::int32_t epoch = 0;
    for (int i = 0; i < count; ++i) {
        loaderlab::TraceRecord r;
        r.index = i;
        r.worker = i % workers;
        r.samples = batch;
        if (epochSamples > 0) {
            r.samples = static_cast<std::int32_t>(
                std::min<std::int64_t>(batch, epochSamples - inEpoch));
            r.epoch = epoch;
            inEpoch += r.samples;
            if (inEpoch == epochSamples) {
                inEpoch = 0;
                ++epoch;
            }
        }
        const double ms = i < workers ? 50.0 : loadMs * r.samples / batch;
        r.loadStartNs = now;
        r.loadEndNs = now + static_cast<std::int64_t>(ms * 1e6);
        r.requestNs = now;
        r.deliveryNs = r.loadEndNs;
        r.computeStartNs = r.computeEndNs = r.deliveryNs;
        now = r.deliveryNs;
        records.push_back(r);
    }
    return records;
}

} // namespace lessontrace
