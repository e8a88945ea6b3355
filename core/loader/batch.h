#pragma once

// Batch: a collated batch as the consumer sees it: samples x C x H x W in one
// contiguous host buffer, the labels, and the batch's trace so far. The buffer
// goes back to its pool when the Batch is destroyed.

#include "core/dataset/dataset.h"
#include "core/loader/host_buffer.h"
#include "core/record/trace_record.h"

#include <memory>
#include <string>
#include <vector>

namespace loaderlab {

class Batch
{
public:
    Batch(std::shared_ptr<BufferPool> pool, std::unique_ptr<HostBuffer> buffer, SampleShape shape,
          DType dtype);
    ~Batch();
    Batch(const Batch &) = delete;
    Batch &operator=(const Batch &) = delete;

    SampleShape shape() const { return m_shape; }
    DType dtype() const { return m_dtype; }
    std::size_t sampleBytes() const;
    int size() const { return static_cast<int>(labels.size()); } // samples in the batch

    // Valid bytes: size() * sampleBytes().
    std::span<const std::byte> data() const;
    std::span<std::byte> sampleSlot(int slot);
    bool pinned() const { return m_buffer->pinned(); }

    // Moves the samples into `buffer` (from another pool) and returns the old one
    // to its pool: the pin stage's copy.
    void moveInto(std::shared_ptr<BufferPool> pool, std::unique_ptr<HostBuffer> buffer);

    std::vector<std::int64_t> labels;
    std::vector<std::int64_t> sampleIndices; // dataset indices, in slot order
    TraceRecord trace;
    std::vector<WorkerSpan> spans;
    std::vector<SkippedSample> skipped;
    // First sample error under the fail policy; the loader throws it on delivery.
    std::string failure;

private:
    std::shared_ptr<BufferPool> m_pool;
    std::unique_ptr<HostBuffer> m_buffer;
    SampleShape m_shape;
    DType m_dtype;
};

using BatchPtr = std::unique_ptr<Batch>;

} // namespace loaderlab
