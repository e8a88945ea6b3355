#pragma once

// The loader model's batch costs dealt from a deck (SampleDraw::PerBatch): which of
// `count` measured values the batch with ordinal `batch` (a rank's, counted across
// epochs) takes. Every `count` consecutive batches take each value once, in an order
// the seed and the rank shuffle anew for each such round.

#include <cstdint>

namespace loaderlab {

std::uint64_t dealtCost(std::uint64_t seed, int rank, std::uint64_t batch, std::uint64_t count);

} // namespace loaderlab
