// Fuzz target: Cifar10Dataset reading one batch file (data_batch_1.bin). A
// DatasetError is a clean refusal; an opened dataset must load every record with
// a label in 0-9.

#include "core/dataset/cifar10_dataset.h"
#include "tests/fuzz/fuzz_scratch_dir.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const loaderlab::fuzz::FuzzScratchDir dir;
    const std::string path = dir.write("data_batch_1.bin", data, size);
    try {
        const loaderlab::Cifar10Dataset dataset(path);
        std::vector<std::byte> sample(dataset.sampleBytes());
        loaderlab::SampleContext context;
        for (std::int64_t i = 0; i < dataset.size(); ++i) {
            const std::int64_t label = dataset.load(i, sample, context);
            if (label < 0 || label >= loaderlab::Cifar10Dataset::kClasses)
                std::abort(); // the dataset accepted a label it promises to refuse
        }
    } catch (const loaderlab::DatasetError &) {
    }
    return 0;
}
