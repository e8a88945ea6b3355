// Tensor file size checks: memory while generating, disk space for the result.

#include "core/tools/tensor_file_limits.h"

#include "core/dataset/tensor_file_format.h"
#include "core/system/memory_budget.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace loaderlab {
namespace {

std::int64_t sampleBytesOf(SampleShape shape, DType dtype)
{
    std::int64_t bytes = static_cast<std::int64_t>(dtypeSize(dtype));
    for (const int side : {shape.channels, shape.height, shape.width})
        bytes = saturatingMul(bytes, std::max(side, 0));
    return bytes;
}

} // namespace

std::int64_t tensorGenerationMemoryBytes(SampleShape shape, DType dtype)
{
    const std::int64_t sample = sampleBytesOf(shape, dtype);
    // float32 samples are computed into a float vector, then copied to the byte buffer.
    return dtype == DType::Float32 ? saturatingMul(sample, 2) : sample;
}

std::int64_t tensorFileBytes(std::int64_t count, SampleShape shape, DType dtype)
{
    const std::int64_t record = saturatingAdd(8, sampleBytesOf(shape, dtype));
    return saturatingAdd(static_cast<std::int64_t>(kTensorFileHeaderBytes),
                         saturatingMul(std::max<std::int64_t>(count, 0), record));
}

void checkTensorFileFits(const std::string &path, std::int64_t count, SampleShape shape,
                         DType dtype, std::int64_t memoryBudgetBytes)
{
    const std::string sample = shapeToString(shape) + " " + dtypeName(dtype);
    const std::int64_t memory = tensorGenerationMemoryBytes(shape, dtype);
    if (memory > memoryBudgetBytes) {
        throw std::invalid_argument(path + ": shape " + sample + " needs about "
                                    + formatBytes(memory) + " of memory to generate one sample"
                                    + ", over the memory budget of "
                                    + formatBytes(memoryBudgetBytes));
    }
    // The file is written next to its final name (.part), so its directory must hold it.
    std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (dir.empty())
        dir = ".";
    std::error_code error;
    const std::filesystem::space_info space = std::filesystem::space(dir, error);
    if (error)
        return; // a missing directory: the writer reports it by name
    const std::int64_t file = tensorFileBytes(count, shape, dtype);
    const auto available = static_cast<std::int64_t>(
        std::min<std::uintmax_t>(space.available, static_cast<std::uintmax_t>(kBytesUnbounded)));
    if (file > available) {
        throw std::invalid_argument(path + ": " + std::to_string(count) + " samples of " + sample
                                    + " make a file of about " + formatBytes(file)
                                    + ", more than the " + formatBytes(available) + " free in "
                                    + dir.string());
    }
}

} // namespace loaderlab
