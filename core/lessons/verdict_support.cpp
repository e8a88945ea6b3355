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
        if (!p.error.empty()) {
            v.text = "A phase failed: " + p.error;
            return false;
        }
        if (p.waits.batches < minBatches) {
            v.text = format("A phase ran only %lld batches: too few to read a pattern.",
                            static_cast<long long>(p.waits.batches));
            return false;
        }
    }
    return true;
}

} // namespace loaderlab::verdict
