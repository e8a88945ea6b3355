#include "core/lessons/verdict_support.h"

#include <cstdarg>
#include <cstdio>

namespace loaderlab::verdict {

std::string format(const char *pattern, ...)
{
    char text[1024];
    va_list args;
    va_start(args, pattern);
    std::vsnprintf(text, sizeof text, pattern, args);
    va_end(args);
    return text;
}

double ratio(double a, double b)
{
    return b > 0 ? a / b : 0.0;
}

bool phasesUsable(const std::vector<LessonPhaseResult> &phases, std::size_t needed,
                  std::int64_t minBatches, LessonVerdict &v)
{
    if (phases.size() < needed) {
        v.text = format("Not enough phases ran (%zu of %zu): the lesson was stopped.",
                        phases.size(), needed);
        return false;
    }
    for (const auto &p : phases) {
        const WaitPattern &w = p.waits;
        if (!p.error.empty()) {
            v.text = w.samples == 0 ? format("No data: the phase \"%s\" failed before it "
                                             "delivered a sample: ",
                                             p.label.c_str())
                                          + p.error
                                    : "A phase failed: " + p.error;
            return false;
        }
        if (w.batches == 0) {
            v.text = format("No data: the phase \"%s\" delivered no batches, so there is "
                            "nothing to read a pattern from.",
                            p.label.c_str());
            return false;
        }
        if (w.samples == 0) {
            v.text = format("No data: the phase \"%s\" delivered %lld batches but no samples",
                            p.label.c_str(), static_cast<long long>(w.batches));
            v.text += w.skipped > 0
                          ? format(" (all %lld were skipped: their files could not be read or "
                                   "decoded; see the warnings). Its waits are those of empty "
                                   "batches, not of loading: use a folder of readable images.",
                                   static_cast<long long>(w.skipped))
                          : std::string(".");
            return false;
        }
        if (w.batches < minBatches) {
            v.text = format("No data: the phase \"%s\" ran only %lld batches; the pattern "
                            "needs at least %lld.",
                            p.label.c_str(), static_cast<long long>(w.batches),
                            static_cast<long long>(minBatches));
            return false;
        }
    }
    return true;
}

bool periodReadable(const std::vector<LessonPhaseResult> &phases, LessonVerdict &v)
{
    for (const auto &p : phases) {
        const int workers = p.config.loader.numWorkers;
        if (p.waits.longestPeriod >= workers)
            continue;
        const int perEpoch = p.waits.epochs > 0 ? static_cast<int>(p.waits.batches / p.waits.epochs)
                                                : 0;
        // Epochs that ended within the phase are the data's: it cannot show the period.
        v.applies = p.waits.epochs < 2;
        v.text = format("%sin the phase \"%s\" the epochs are too short to show a "
                        "period of %d batches (about %d batches per epoch; the period is read "
                        "within each epoch, after its first %d batches, and needs at least "
                        "three periods there). Use a folder with more images or a smaller "
                        "batch.",
                        v.applies ? "No data: " : kDoesNotApply, p.label.c_str(), workers, perEpoch,
                        std::max(workers, 1));
        return false;
    }
    return true;
}

} // namespace loaderlab::verdict
