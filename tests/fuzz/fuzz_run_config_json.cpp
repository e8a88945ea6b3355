// Fuzz target: the run config JSON (`loaderlab run --config`, the GUI's load).
// Refusals are std::invalid_argument (a bad key or value) and nlohmann's
// exceptions (not JSON at all); anything else escaping, or a sanitizer report, is
// a bug. A config that is accepted must survive a save/load round trip: toJson
// then runConfigFromJson again, as saving and re-opening it in the GUI would.

#include "core/run/run_config_json.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    loaderlab::RunConfig config;
    try {
        config = loaderlab::runConfigFromJson(nlohmann::json::parse(data, data + size));
    } catch (const std::invalid_argument &) {
        return 0;
    } catch (const nlohmann::json::exception &) {
        return 0;
    }
    const std::string saved = loaderlab::toJson(config).dump();
    try {
        loaderlab::runConfigFromJson(nlohmann::json::parse(saved));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "accepted config does not load again after saving: %s\nsaved: %s\n",
                     e.what(), saved.c_str());
        std::abort();
    }
    return 0;
}
