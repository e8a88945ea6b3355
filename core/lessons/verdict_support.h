#pragma once

// What the verdicts share: printf-style wording, a safe ratio, and the check that
// the phases ran (all of them, without error, and with enough batches to read).

#include "core/lessons/lesson.h"

#include <string>
#include <vector>

namespace loaderlab::verdict {

// How a verdict whose finding the data cannot show starts (LessonVerdict::applies).
inline constexpr const char *kDoesNotApply = "Does not apply to this data: ";

std::string format(const char *pattern, ...) __attribute__((format(printf, 1, 2)));
double ratio(double a, double b); // a / b, 0 when b is not positive
// False, with the reason in `v`, when fewer than `needed` phases ran, one failed, or
// one has no data: no batches, no samples (every one skipped), or fewer than
// `minBatches` batches. The reason then starts "No data: " and says why.
bool phasesUsable(const std::vector<LessonPhaseResult> &phases, std::size_t needed,
                  std::int64_t minBatches, LessonVerdict &v);
// False, with why in `v`, when a phase's batches are too few to show a period of
// its W (workers) batches: "No data: " for a phase within one epoch (it ran too few
// batches), and where the phase spanned several epochs, each too short, the
// finding does not apply to this data (LessonVerdict::applies).
bool periodReadable(const std::vector<LessonPhaseResult> &phases, LessonVerdict &v);

} // namespace loaderlab::verdict
