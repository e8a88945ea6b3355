#pragma once

// byte / 255 for every byte value, computed at compile time and correctly rounded, so
// a lookup gives exactly what the division would (IDX and CIFAR-10 pixels).

#include <array>
#include <cstddef>

namespace loaderlab {

inline constexpr std::array<float, 256> kByteToUnit = [] {
    std::array<float, 256> table{};
    for (int i = 0; i < 256; ++i)
        table[static_cast<std::size_t>(i)] = static_cast<float>(i) / 255.0f;
    return table;
}();

} // namespace loaderlab
