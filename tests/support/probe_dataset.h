#pragma once

// ProbeDataset: a dataset for loader tests that records who loaded what. Sample i
// is one float equal to i, label i; loads can be slowed per index, made to fail,
// or held at a gate, and every load is counted with its thread.

#include "core/dataset/dataset.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

class ProbeDataset final : public loaderlab::Dataset
{
public:
    explicit ProbeDataset(std::int64_t size)
        : m_size(size)
        , m_loads(static_cast<std::size_t>(size))
        , m_threads(static_cast<std::size_t>(size))
    {
    }

    std::function<std::chrono::microseconds(std::int64_t)> delay; // per index
    std::set<std::int64_t> badIndices;

    std::string description() const override { return "probe"; }
    std::int64_t size() const override { return m_size; }
    loaderlab::SampleShape sampleShape() const override { return {1, 1, 1}; }
    loaderlab::DType dtype() const override { return loaderlab::DType::Float32; }

    std::int64_t load(std::int64_t index, std::span<std::byte> out,
                      loaderlab::SampleContext &) const override
    {
        const auto i = static_cast<std::size_t>(index);
        m_loads[i].fetch_add(1);
        m_totalLoads.fetch_add(1);
        {
            std::lock_guard lock(m_mutex);
            m_threads[i] = std::this_thread::get_id();
        }
        if (delay)
            std::this_thread::sleep_for(delay(index));
        if (badIndices.contains(index))
            throw loaderlab::SampleError("sample-" + std::to_string(index) + ".jpg",
                                         "cannot decode (corrupt data)");
        const auto value = static_cast<float>(index);
        std::memcpy(out.data(), &value, sizeof value);
        return index;
    }

    int loads(std::int64_t index) const { return m_loads[static_cast<std::size_t>(index)].load(); }
    std::int64_t totalLoads() const { return m_totalLoads.load(); }
    std::thread::id thread(std::int64_t index) const
    {
        std::lock_guard lock(m_mutex);
        return m_threads[static_cast<std::size_t>(index)];
    }

private:
    std::int64_t m_size;
    mutable std::vector<std::atomic<int>> m_loads;
    mutable std::atomic<std::int64_t> m_totalLoads{0};
    mutable std::mutex m_mutex;
    mutable std::vector<std::thread::id> m_threads;
};
