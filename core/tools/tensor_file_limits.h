#pragma once

// Size checks for writing a tensor file of generated samples: refused before the
// first byte is allocated or written when one sample does not fit the memory
// budget or the whole file does not fit the free space of its disk.

#include "core/dataset/dataset.h"

#include <cstdint>
#include <string>

namespace loaderlab {

// Bytes of memory the generator holds while writing: the sample, plus its float
// staging copy for float32. Saturates instead of overflowing.
std::int64_t tensorGenerationMemoryBytes(SampleShape shape, DType dtype);

// Bytes of the finished file: the header and `count` records of label + sample.
std::int64_t tensorFileBytes(std::int64_t count, SampleShape shape, DType dtype);

// Throws std::invalid_argument naming `path`, the shape or count, the estimate and
// the limit when the generation needs more than `memoryBudgetBytes` of memory or
// the file more than the space available where it goes.
void checkTensorFileFits(const std::string &path, std::int64_t count, SampleShape shape,
                         DType dtype, std::int64_t memoryBudgetBytes);

} // namespace loaderlab
