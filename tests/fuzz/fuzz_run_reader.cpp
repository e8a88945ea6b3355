// Fuzz target: File -> Open run's parser (core/io/run_reader.h), the per-batch CSV
// and the summary JSON read together by openRun, as the window reads them. One
// input holds both files: a 4-byte little-endian length N, then N bytes of the CSV,
// then the JSON (the rest). A std::runtime_error naming a file is a clean refusal;
// an opened run must have as many batches as its trace holds and a summary that
// can be computed again.

#include "core/io/run_reader.h"
#include "tests/fuzz/fuzz_scratch_dir.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const loaderlab::fuzz::FuzzScratchDir dir;

    std::uint32_t csvBytes = 0;
    std::size_t rest = 0;
    if (size >= 4) {
        std::memcpy(&csvBytes, data, 4); // the CI machines are little endian
        data += 4;
        rest = size - 4;
    }
    const std::size_t split = std::min<std::size_t>(csvBytes, rest);
    const std::string csv = dir.write("run.csv", data, split);
    const std::string json = dir.write("run.json", data + split, rest - split);

    loaderlab::OpenedRun run;
    try {
        run = loaderlab::openRun(csv, json);
    } catch (const std::runtime_error &) {
        return 0;
    }
    const loaderlab::RunSummary again = run.trace->summary();
    if (again.batches != static_cast<std::int64_t>(run.trace->size())
        || run.report.summary.batches != again.batches) {
        std::fprintf(stderr, "opened run: %lld batches in the summary, %zu in the trace\n",
                     static_cast<long long>(again.batches), run.trace->size());
        std::abort();
    }
    return 0;
}
