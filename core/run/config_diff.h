#pragma once

// describeChange: the label a reconfiguration leaves on the trace, naming only
// what changed, e.g. "workers 2 -> 4, batch 32 -> 64".

#include "core/consumer/consumer.h"
#include "core/loader/loader_config.h"

#include <string>

namespace loaderlab {

std::string describeChange(const LoaderConfig &before, const LoaderConfig &after,
                           const ConsumerConfig &consumerBefore, const ConsumerConfig &consumerAfter);

} // namespace loaderlab
