// Fuzz target: a sweep's results folder as `sweep report`, a resume, `sweep merge`
// and the window read it (readSweepRecords): sweep.json and cells.jsonl, as real
// files in a private folder. The input is sweep.json, a NUL byte, then cells.jsonl;
// an input without a NUL is cells.jsonl alone, beside a fixed sweep.json of a 2 x 2
// sweep (loader.num_workers 0,1 x loader.batch_size 4,8), so that the fuzzer reaches
// the record checks quickly. Refusals are std::invalid_argument (naming the file and
// line); anything else escaping, or a sanitizer report, is a bug. Every accepted
// record must be a cell of the sweep, survive a write/read round trip, and go
// through the analysis the table prints.

#include "core/sweep/sweep_analysis.h"
#include "core/sweep/sweep_results.h"
#include "tests/fuzz/fuzz_scratch_dir.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace {

std::string fixedDefinition()
{
    loaderlab::SweepDefinition d;
    d.axes = {loaderlab::parseSweepAxis("loader.num_workers=0,1"),
              loaderlab::parseSweepAxis("loader.batch_size=4,8")};
    return loaderlab::sweepDefinitionFileJson(d).dump(2);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const loaderlab::fuzz::FuzzScratchDir dir;
    static const std::string fixed = fixedDefinition();
    const auto *nul = static_cast<const std::uint8_t *>(std::memchr(data, 0, size));
    if (nul) {
        dir.write("sweep.json", data, static_cast<std::size_t>(nul - data));
        dir.write("cells.jsonl", nul + 1, size - static_cast<std::size_t>(nul - data) - 1);
    } else {
        dir.write("sweep.json", reinterpret_cast<const std::uint8_t *>(fixed.data()), fixed.size());
        dir.write("cells.jsonl", data, size);
    }
    loaderlab::SweepDefinition definition;
    std::map<std::int64_t, loaderlab::SweepRecord> records;
    try {
        records = loaderlab::readSweepRecords(dir.path(), &definition);
    } catch (const std::invalid_argument &) {
        return 0;
    }
    for (const auto &[order, record] : records) {
        if (order != record.order || record.values.size() != definition.axes.size()
            || (!record.trace.empty() && record.trace != loaderlab::sweepTraceName(order)))
            std::abort(); // a record the checks promise to refuse
        // As a merge writes it and the next reader reads it.
        try {
            const auto back = loaderlab::sweepRecordFromJson(
                nlohmann::json::parse(loaderlab::toJson(record).dump()));
            loaderlab::checkSweepRecord(back, definition);
        } catch (const std::exception &) {
            std::abort(); // an accepted record that cannot be read again
        }
    }
    const auto analysis = loaderlab::analyzeSweep(definition, records);
    for (const auto &axis : definition.axes)
        loaderlab::scalingAlong(analysis, axis.key);
    return 0;
}
