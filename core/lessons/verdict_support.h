#pragma once

// What the verdicts share: printf-style wording, a safe ratio, and the check that
// the phases ran (all of them, without error, and with enough batches to read).

#include "core/lessons/lesson.h"

#include <string>
#include <vector>

namespace loaderlab::verdict {

std::string format(const char *pattern, ...) __attribute__((format(printf, 1, 2)));
double ratio(double a, double b); // a / b, 0 when b is not positive
// False, with the reason in `v`, when fewer than `needed` phases ran, one failed, or
// one has fewer than `minBatches` batches.
bool phasesUsable(const std::vector<LessonPhaseResult> &phases, std::size_t needed,
                  std::int64_t minBatches, LessonVerdict &v);

} // namespace loaderlab::verdict
