// Fuzz target: IdxDataset (MNIST / Fashion-MNIST IDX files, raw or gzipped).
// One input holds both files the dataset opens: a 4-byte little-endian length N,
// then N bytes of the images file, then the labels file (the rest). zlib reads
// gzip and raw data alike, so a gzipped part exercises the gzip path. A
// DatasetError is a clean refusal; an opened dataset must load every sample.

#include "core/dataset/idx_dataset.h"
#include "tests/fuzz/fuzz_scratch_dir.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const loaderlab::fuzz::FuzzScratchDir dir;

    std::uint32_t imagesBytes = 0;
    std::size_t rest = 0;
    if (size >= 4) {
        std::memcpy(&imagesBytes, data, 4); // the CI machines are little endian
        data += 4;
        rest = size - 4;
    }
    const std::size_t split = std::min<std::size_t>(imagesBytes, rest);
    const std::string imagesPath = dir.write("train-images-idx3-ubyte", data, split);
    dir.write("train-labels-idx1-ubyte", data + split, rest - split);

    try {
        const loaderlab::IdxDataset dataset(imagesPath);
        std::vector<std::byte> sample(dataset.sampleBytes());
        loaderlab::SampleContext context;
        for (std::int64_t i = 0; i < dataset.size(); ++i)
            dataset.load(i, sample, context);
    } catch (const loaderlab::DatasetError &) {
    }
    return 0;
}
