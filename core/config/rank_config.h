#pragma once

// What one data-parallel rank runs (RunConfig::devices): its model step on its own
// device, with its share of the CPU.

#include "core/config/consumer_config.h"

namespace loaderlab {

// The consumer of rank `rank` of `ranks`: a CUDA model goes to the rank's own device
// ("cuda" and "cuda:0" give cuda:<rank>, "cuda:K" gives cuda:<K + rank>); a CPU model
// gets its share of the intra-op threads (the configured count, or every core when
// 0, divided by `ranks`, at least 1); the simulated step is every rank's own device
// as it is.
ConsumerConfig consumerForRank(const ConsumerConfig &consumer, int rank, int ranks);

} // namespace loaderlab
