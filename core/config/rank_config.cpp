#include "core/config/rank_config.h"

#include <algorithm>
#include <string>
#include <thread>

namespace loaderlab {

ConsumerConfig consumerForRank(const ConsumerConfig &consumer, int rank, int ranks)
{
    ConsumerConfig out = consumer;
    if (consumer.kind != ConsumerKind::Model || ranks <= 1)
        return out;
    ModelConfig &model = out.model;
    if (model.device == "cuda" || model.device.starts_with("cuda:")) {
        const int first = model.device == "cuda" ? 0 : std::stoi(model.device.substr(5));
        model.device = "cuda:" + std::to_string(first + rank);
        return out;
    }
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    model.threads = std::max(1, (model.threads > 0 ? model.threads : cores) / ranks);
    return out;
}

} // namespace loaderlab
