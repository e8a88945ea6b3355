#include "core/predict/cost_deck.h"

#include "core/system/splitmix64.h"

#include <numeric>

namespace loaderlab {

std::uint64_t dealtCost(std::uint64_t seed, int rank, std::uint64_t batch, std::uint64_t count)
{
    if (count <= 1)
        return 0;
    std::uint64_t h = splitmix64(seed);
    h = splitmix64(h ^ static_cast<std::uint64_t>(rank));
    h = splitmix64(h ^ (batch / count));
    // The round's order: k -> (a k + b) mod count, a bijection for a coprime to count.
    std::uint64_t a = 1 + h % (count - 1);
    while (std::gcd(a, count) != 1)
        a = a % (count - 1) + 1;
    const std::uint64_t b = splitmix64(h) % count;
    return (a * (batch % count) + b) % count;
}

} // namespace loaderlab
