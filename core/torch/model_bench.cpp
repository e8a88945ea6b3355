#include "core/torch/model_bench.h"

#include "core/torch/torch_consumer.h"

#include <torch/torch.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace loaderlab::torchmodels {
namespace {

std::int64_t minorFaults()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
}

} // namespace

ModelBenchRow benchModelStep(const ConsumerConfig &config, int batchSize, int imageSize, int warmup,
                             int iterations)
{
    try {
        TorchConsumer consumer(config, 0);
        torch::manual_seed(0);
        const torch::Tensor input = torch::rand({batchSize, 3, imageSize, imageSize});
        const torch::Tensor labels = torch::randint(0, config.model.numClasses, {batchSize});
        for (int i = 0; i < warmup; ++i)
            consumer.step(input, labels);
        std::vector<double> ms;
        const std::int64_t faults = minorFaults();
        for (int i = 0; i < iterations; ++i) {
            const auto start = std::chrono::steady_clock::now();
            consumer.step(input, labels);
            ms.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count());
        }
        ModelBenchRow row;
        row.pageFaultsPerStep = static_cast<double>(minorFaults() - faults)
                                / static_cast<double>(std::max(iterations, 1));
        row.batchSize = batchSize;
        for (const double value : ms)
            row.batchMsMean += value / static_cast<double>(ms.size());
        row.batchMsMin = *std::min_element(ms.begin(), ms.end());
        row.itemMs = row.batchMsMean / batchSize;
        row.samplesPerSec = row.batchMsMean > 0 ? 1000.0 * batchSize / row.batchMsMean : 0.0;
        row.peakMemoryBytes = consumer.peakMemoryBytes();
        return row;
    } catch (const c10::Error &e) {
        // what() carries a C++ stack trace of several KB; the first line is the reason.
        const std::string text = e.what_without_backtrace();
        throw std::runtime_error(text.substr(0, text.find('\n')));
    }
}

int intraOpThreads()
{
    return at::get_num_threads();
}

} // namespace loaderlab::torchmodels
