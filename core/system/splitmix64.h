#pragma once

// splitmix64 (Steele, Lea and Flood, 2014): a tiny, well-mixed 64-bit generator whose
// output is fixed by its definition — unlike std::shuffle or the standard
// distributions — so shuffles, synthetic data, random transforms and generated
// datasets are the same on every platform and standard library.

#include <cstdint>

namespace loaderlab {

// Advances `state` by one step and returns the next output.
inline std::uint64_t splitmix64Next(std::uint64_t &state)
{
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// The output for state `x`: a stateless mix of one value.
inline std::uint64_t splitmix64(std::uint64_t x)
{
    return splitmix64Next(x);
}

} // namespace loaderlab
