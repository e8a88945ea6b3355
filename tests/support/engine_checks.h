#pragma once

// Checks the PyTorch engine's tests share: the id checksum of a whole epoch, and
// that no process of the engine's group is left.

#include "core/engine/pytorch/pytorch_channel.h"

#include <QtTest>

#include <cerrno>
#include <cstdint>

#include <csignal>

namespace loaderlab::test {

// The sum of the ids of samples 0..n-1, as a full epoch's batches add up to.
inline std::uint64_t epochIds(std::int64_t n)
{
    std::uint64_t sum = 0;
    for (std::int64_t i = 0; i < n; ++i)
        sum = (sum + engineSampleId(i) % kEngineIdsModulus) % kEngineIdsModulus;
    return sum;
}

// No process of group `pgid` is left (polled for up to 5 s).
inline bool groupGone(int pgid)
{
    for (int i = 0; i < 100; ++i) {
        if (kill(-pgid, 0) == -1 && errno == ESRCH)
            return true;
        QTest::qWait(50);
    }
    return false;
}

} // namespace loaderlab::test
