#pragma once

// writeRun: runs `config` to its end and writes its per-batch CSV and summary JSON as
// `loaderlab run --csv CSV --json JSON` does (through RunService). Throws when the run
// does not end within two minutes or an output cannot be written.

#include "core/engine/run_service.h"

#include <stdexcept>
#include <string>

inline loaderlab::RunReport writeRun(const loaderlab::RunConfig &config, const std::string &csv,
                                     const std::string &json)
{
    loaderlab::RunService service;
    service.start(config, loaderlab::RunOutputs{csv, json, {}});
    if (!service.wait(120'000))
        throw std::runtime_error("the run did not end");
    const loaderlab::RunReport report = service.report();
    const auto problems = service.writeOutputs(report);
    if (!problems.empty())
        throw std::runtime_error(problems.front());
    return report;
}
