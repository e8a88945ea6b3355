#include "core/loader/loader.h"
#include "core/system/splitmix64.h"

#include <numeric>
#include <stdexcept>
#include <string>
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

std::vector<std::int64_t> shardOrder(const std::vector<std::int64_t> &order, Shard shard)
{
    if (shard.count < 1 || shard.rank < 0 || shard.rank >= shard.count)
        throw std::invalid_argument("rank " + std::to_string(shard.rank) + " of "
                                    + std::to_string(shard.count) + ": expected 0 <= rank < ranks");
    if (shard.count == 1 || order.empty())
        return order;
    const auto n = order.size();
    const auto ranks = static_cast<std::size_t>(shard.count);
    const std::size_t perRank = (n + ranks - 1) / ranks;
    std::vector<std::int64_t> part;
    part.reserve(perRank);
    // Position p of the padded order is order[p mod n]: the padding repeats the head,
    // wrapping again when there are more ranks than samples.
    for (std::size_t p = static_cast<std::size_t>(shard.rank); p < perRank * ranks; p += ranks)
        part.push_back(order[p % n]);
    return part;
}

} // namespace loaderlab
