#include "core/loader/batch.h"

namespace loaderlab {

Batch::Batch(std::shared_ptr<BufferPool> pool, std::unique_ptr<HostBuffer> buffer,
             SampleShape shape, DType dtype)
    : m_pool(std::move(pool))
    , m_buffer(std::move(buffer))
    , m_shape(shape)
    , m_dtype(dtype)
{
}

Batch::~Batch()
{
    if (m_pool)
        m_pool->release(std::move(m_buffer));
}

std::size_t Batch::sampleBytes() const
{
    return static_cast<std::size_t>(m_shape.elements()) * dtypeSize(m_dtype);
}

std::span<const std::byte> Batch::data() const
{
    return m_buffer->bytes().first(labels.size() * sampleBytes());
}

std::span<std::byte> Batch::sampleSlot(int slot)
{
    return m_buffer->bytes().subspan(static_cast<std::size_t>(slot) * sampleBytes(), sampleBytes());
}

void Batch::moveInto(std::shared_ptr<BufferPool> pool, std::unique_ptr<HostBuffer> buffer)
{
    const auto valid = data();
    std::copy(valid.begin(), valid.end(), buffer->bytes().begin());
    if (m_pool)
        m_pool->release(std::move(m_buffer));
    m_pool = std::move(pool);
    m_buffer = std::move(buffer);
}

} // namespace loaderlab
