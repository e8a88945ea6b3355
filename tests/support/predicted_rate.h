#pragma once

// Synthetic costs whose answers the loader model's tests know in closed form, and the
// steady rate read off a prediction over whole rounds of batches.

#include "core/predict/loader_model.h"

#include <cstddef>
#include <cstdint>

namespace predictedrate {

// Constant per-batch load `load` (batch size 1, so one sample is the batch) and step.
inline loaderlab::ModelCosts constantCosts(double load, double step)
{
    loaderlab::ModelCosts c;
    c.sampleSeconds = {load};
    c.step.fixed = step;
    return c;
}

// Batches per second between the step ends of batch `from` and the last round's
// (the run's end, where loading no longer overlaps the step, left out), over a whole
// number of rounds of `round` batches.
inline double steadyRate(const loaderlab::Prediction &p, std::int64_t from, int round)
{
    const auto last = static_cast<std::int64_t>(p.batches.size()) - 1 - round;
    const std::int64_t span = (last - from) / round * round;
    const double seconds = p.batches[static_cast<std::size_t>(from + span)].computeEnd
                           - p.batches[static_cast<std::size_t>(from)].computeEnd;
    return static_cast<double>(span) / seconds;
}

} // namespace predictedrate
