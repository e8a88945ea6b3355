// SyntheticDataset: a small pool of random samples, generated once and copied out.

#include "core/dataset/synthetic_dataset.h"

#include "core/system/clock.h"
#include "core/system/splitmix64.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace loaderlab {

namespace {

// The top 24 bits give every float in [0, 1) with a 2^-24 step, exactly.
float unitFloat(std::uint64_t bits)
{
    return static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
}

} // namespace

SyntheticDataset::SyntheticDataset(SampleShape shape, std::int64_t samples, std::uint64_t seed)
    : m_shape(shape)
    , m_samples(samples)
    , m_seed(seed)
{
    if (shape.channels <= 0 || shape.height <= 0 || shape.width <= 0)
        throw DatasetError("synthetic: invalid sample shape " + shapeToString(shape));
    if (samples <= 0)
        throw DatasetError("synthetic: sample count must be at least 1, got "
                           + std::to_string(samples));

    m_poolSize = std::min(samples, kMaxPoolSize);
    const auto elements = static_cast<std::size_t>(shape.elements());
    m_pool.resize(static_cast<std::size_t>(m_poolSize) * elements);
    for (std::int64_t entry = 0; entry < m_poolSize; ++entry) {
        // Each entry has its own stream, so the pool does not depend on its size.
        std::uint64_t state = seed ^ (static_cast<std::uint64_t>(entry) * 0xd1b54a32d192ed03ULL);
        float *values = m_pool.data() + static_cast<std::size_t>(entry) * elements;
        for (std::size_t i = 0; i < elements; ++i)
            values[i] = unitFloat(splitmix64Next(state));
    }
}

std::string SyntheticDataset::description() const
{
    return "synthetic " + shapeToString(m_shape) + " (" + std::to_string(m_samples) + ", seed "
           + std::to_string(m_seed) + ")";
}

std::int64_t SyntheticDataset::load(std::int64_t index, std::span<std::byte> out,
                                    SampleContext &context) const
{
    if (index < 0 || index >= m_samples)
        throw std::out_of_range("synthetic: index " + std::to_string(index) + " out of range");
    const std::size_t bytes = sampleBytes();
    if (out.size() != bytes)
        throw std::invalid_argument("synthetic: output buffer has the wrong size");

    const std::int64_t start = steadyNowNs();
    const auto entry = static_cast<std::size_t>(index % m_poolSize);
    std::memcpy(out.data(), m_pool.data() + entry * (bytes / sizeof(float)), bytes);
    context.timing.readNs += steadyNowNs() - start;
    return index % 1000;
}

} // namespace loaderlab
