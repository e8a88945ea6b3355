// Fuzz target: the run config JSON (`loaderlab run --config`, the GUI's load),
// read as both do: parseConfigJson (depth limit) then runConfigFromJson.
// Refusals are std::invalid_argument (not JSON, nested too deeply, a bad key or
// value); anything else escaping, or a sanitizer report, is a bug. A config that
// is accepted must survive a save/load round trip: toJson then reading it again,
// as saving and re-opening it in the GUI would.

#include "core/config/run_config_json.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    loaderlab::RunConfig config;
    try {
        std::istringstream in(std::string(reinterpret_cast<const char *>(data), size));
        config = loaderlab::runConfigFromJson(loaderlab::parseConfigJson(in));
    } catch (const std::invalid_argument &) {
        return 0;
    }
    const std::string saved = loaderlab::toJson(config).dump();
    try {
        std::istringstream in(saved);
        loaderlab::runConfigFromJson(loaderlab::parseConfigJson(in));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "accepted config does not load again after saving: %s\nsaved: %s\n",
                     e.what(), saved.c_str());
        std::abort();
    }
    return 0;
}
