#pragma once

// SyntheticDataset: random float32 samples held in memory, the "imagenet-synth"
// baseline. No I/O and no decoding, so a run against it measures the loader's own
// overhead (scheduling, collation, copies) and nothing else.

#include "core/dataset/dataset.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loaderlab {

class SyntheticDataset final : public Dataset
{
public:
    // Memory stays bounded for large shapes and sample counts: at most kMaxPoolSize
    // distinct samples are generated once, here, and sample i is a copy of
    // pool[i % poolSize]. Values are uniform in [0, 1) and depend only on `seed`.
    // Throws DatasetError for an empty shape or a sample count below 1.
    SyntheticDataset(SampleShape shape, std::int64_t samples, std::uint64_t seed);

    static constexpr std::int64_t kMaxPoolSize = 64;

    std::string description() const override;
    std::int64_t size() const override { return m_samples; }
    SampleShape sampleShape() const override { return m_shape; }
    DType dtype() const override { return DType::Float32; }

    // The label is index % 1000, like the 1000 ImageNet classes, so a consumer that
    // checks labels sees every class. The memcpy is reported as readNs.
    std::int64_t load(std::int64_t index, std::span<std::byte> out,
                      SampleContext &context) const override;

    std::int64_t poolSize() const { return m_poolSize; }

private:
    SampleShape m_shape;
    std::int64_t m_samples = 0;
    std::int64_t m_poolSize = 0;
    std::uint64_t m_seed = 0;
    std::vector<float> m_pool; // m_poolSize samples, back to back
};

} // namespace loaderlab
