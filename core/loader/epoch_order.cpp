#include "core/loader/loader.h"
#include "core/system/splitmix64.h"

#include <numeric>
#include <vector>

namespace loaderlab {

std::vector<std::int64_t> epochOrder(std::int64_t datasetSize, bool shuffle, std::uint64_t seed,
                                     int epoch)
{
    std::vector<std::int64_t> order(
        static_cast<std::size_t>(std::max<std::int64_t>(datasetSize, 0)));
    std::iota(order.begin(), order.end(), std::int64_t{0});
    if (!shuffle)
        return order;
    std::uint64_t state = seed ^ (0xA0761D6478BD642FULL * (static_cast<std::uint64_t>(epoch) + 1));
    // Fisher-Yates; the modulo bias is below 2^-40 for any realistic dataset size.
    for (std::size_t i = order.size(); i > 1; --i) {
        const auto j = static_cast<std::size_t>(splitmix64Next(state) % i);
        std::swap(order[i - 1], order[j]);
    }
    return order;
}

} // namespace loaderlab
