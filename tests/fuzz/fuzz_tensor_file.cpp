// Fuzz target: the tensor file (core/dataset/tensor_file_format.h). The input is a
// whole file, header and records. readTensorFileHeader must refuse a bad header
// with a DatasetError; a header it accepts promises a file of exactly
// fileBytes(), which is checked here. The dataset then opens it (or refuses it
// with a DatasetError, e.g. for zero records) and loads its first and last records.

#include "core/dataset/tensor_file_dataset.h"
#include "core/dataset/tensor_file_format.h"
#include "tests/fuzz/fuzz_scratch_dir.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const loaderlab::fuzz::FuzzScratchDir dir;
    const std::string path = dir.write("samples.lltensor", data, size);
    loaderlab::TensorFileHeader header;
    try {
        header = loaderlab::readTensorFileHeader(path);
    } catch (const loaderlab::DatasetError &) {
        return 0;
    }
    if (header.fileBytes() != size) {
        std::fprintf(stderr, "accepted header promises %llu bytes, the file holds %zu\n",
                     static_cast<unsigned long long>(header.fileBytes()), size);
        std::abort();
    }
    // The dataset may still refuse what the header allows (a file without records).
    try {
        const loaderlab::TensorFileDataset dataset(path);
        std::vector<std::byte> sample(dataset.sampleBytes());
        loaderlab::SampleContext context;
        dataset.load(0, sample, context);
        dataset.load(dataset.size() - 1, sample, context);
    } catch (const loaderlab::DatasetError &) {
    }
    return 0;
}
