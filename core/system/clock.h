#pragma once

#include <chrono>
#include <cstdint>

namespace loaderlab {

// Nanoseconds on the steady clock; every trace timestamp comes from here.
inline std::int64_t steadyNowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace loaderlab
