#pragma once

// The summary table `loaderlab run` prints on stdout.

#include "core/stats/run_summary.h"

#include <string>

namespace loaderlab::cli {

std::string summaryTable(const loaderlab::RunSummary &summary);

} // namespace loaderlab::cli
