#pragma once

// SampleShape: the shape of one sample, part of a dataset's config (the synthetic
// dataset's shape) and of every Dataset (core/dataset/dataset.h).

#include <cstdint>

namespace loaderlab {

// Shape of one sample after the dataset's transform, channels first.
struct SampleShape
{
    int channels = 3;
    int height = 224;
    int width = 224;

    std::int64_t elements() const { return std::int64_t{channels} * height * width; }
    bool operator==(const SampleShape &) const = default;
};

} // namespace loaderlab
