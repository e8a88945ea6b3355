// `loaderlab bench-model`: the model alone, without the loader: time per batch of a
// forward pass (or a training step) for several batch sizes on random input, with
// warm-up excluded, per-item time, samples/s and the step's peak memory.

#include "app/cli/cli.h"
#include "app/cli/torch_plugin.h"

#include "core/run/output_paths.h"
#include "core/system/atomic_file.h"
#include "core/system/safe_text.h"
#include "core/torch/model_bench.h"

#include <QCommandLineParser>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

namespace loaderlab::cli {
namespace {

using loaderlab::torchmodels::ModelBenchRow;

std::vector<int> batchSizes(const QString &text)
{
    std::vector<int> sizes;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const auto size = parseInteger(part.trimmed(), 1, INT_MAX);
        if (!size)
            throw std::invalid_argument("--batch-sizes: expected a list such as 1,8,32, got '"
                                        + text.toStdString() + "'");
        sizes.push_back(static_cast<int>(*size));
    }
    if (sizes.empty())
        throw std::invalid_argument("--batch-sizes: empty list");
    return sizes;
}

// Bounds checked before any tensor is made: LibTorch would otherwise try the
// allocation and fail with a long c10 stack trace, or take all memory.
constexpr int kMaxImageSize = 4096;
constexpr double kMaxInputBytes = 8.0 * 1024 * 1024 * 1024;

void checkInputSize(const std::vector<int> &batchSizes, int imageSize)
{
    if (imageSize > kMaxImageSize) {
        throw std::invalid_argument("--size: " + std::to_string(imageSize)
                                    + " is over the limit of " + std::to_string(kMaxImageSize)
                                    + " pixels");
    }
    const int largest = *std::max_element(batchSizes.begin(), batchSizes.end());
    const double bytes = static_cast<double>(largest) * 3.0 * imageSize * imageSize * 4.0;
    if (bytes > kMaxInputBytes) {
        char text[160];
        std::snprintf(text, sizeof(text),
                      "--batch-sizes/--size: an input of %d x 3 x %d x %d floats takes %.1f GiB, "
                      "over the limit of 8 GiB",
                      largest, imageSize, imageSize, bytes / (1024.0 * 1024 * 1024));
        throw std::invalid_argument(text);
    }
}

std::string firstLine(const std::string &text)
{
    return loaderlab::escapeForTerminal(text.substr(0, text.find('\n')));
}

loaderlab::ConsumerConfig configFrom(const QCommandLineParser &p)
{
    loaderlab::ConsumerConfig config;
    config.kind = loaderlab::ConsumerKind::Model;
    auto &m = config.model;
    m.name = p.value(QStringLiteral("model")).toStdString();
    m.scriptPath = p.value(QStringLiteral("model-file")).toStdString();
    m.device = p.value(QStringLiteral("device")).toStdString();
    const auto mode = loaderlab::modelModeFromName(p.value(QStringLiteral("mode")).toStdString());
    if (!mode)
        throw std::invalid_argument("--mode: expected inference or train");
    m.mode = *mode;
    const auto precision = loaderlab::modelPrecisionFromName(
        p.value(QStringLiteral("precision")).toStdString());
    if (!precision)
        throw std::invalid_argument("--precision: expected fp32, bf16 or fp16");
    m.precision = *precision;
    m.channelsLast = p.isSet(QStringLiteral("channels-last"));
    m.checkpointing = p.isSet(QStringLiteral("checkpointing"));
    m.threads = intOption(p, "threads", 0);
    return config;
}

} // namespace

int benchModelCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Times a model's forward pass (or training step) per batch size."));
    parser.addHelpOption();
    const auto option = [&](const char *name, const char *help, const char *value = nullptr,
                            const char *fallback = nullptr) {
        QCommandLineOption o{QLatin1String(name), QLatin1String(help)};
        if (value)
            o.setValueName(QLatin1String(value));
        if (fallback)
            o.setDefaultValue(QLatin1String(fallback));
        parser.addOption(o);
    };
    option("model", "built-in model name (default: resnet18)", "name", "resnet18");
    option("model-file", "a TorchScript model instead of a built-in one", "file");
    option("batch-sizes", "comma-separated batch sizes (default: 1,8,32)", "list", "1,8,32");
    option("mode", "inference (default) or train", "mode", "inference");
    option("device", "cpu (default), cuda or cuda:N", "device", "cpu");
    option("precision", "fp32 (default), bf16 or fp16 (CUDA)", "p", "fp32");
    option("channels-last", "channels-last memory format");
    option("checkpointing", "activation checkpointing (train)");
    option("threads", "intra-op threads, 0 = all cores (default: 0)", "n", "0");
    option("size", "input height and width (default: 224)", "px", "224");
    option("warmup", "untimed steps per batch size (default: 2)", "n", "2");
    option("iterations", "timed steps per batch size (default: 5)", "n", "5");
    option("csv", "also write the table as CSV", "file");
    if (const auto code = parseCommandLine(parser, arguments, "bench-model"))
        return *code;
    if (rejectPositionals(parser, 0, "bench-model"))
        return kUsage;
    std::vector<ModelBenchRow> rows;
    loaderlab::ConsumerConfig config;
    try {
        config = configFrom(parser);
        const auto sizes = batchSizes(parser.value(QStringLiteral("batch-sizes")));
        const int imageSize = intOption(parser, "size", 1);
        checkInputSize(sizes, imageSize);
        const int warmup = intOption(parser, "warmup", 0);
        const int iterations = intOption(parser, "iterations", 1);
        // Before minutes of benchmarking, not after.
        loaderlab::checkOutputPaths({{"--csv", parser.value(QStringLiteral("csv")).toStdString()}},
                                    {config.model.scriptPath});
        for (const int size : sizes) {
            rows.push_back(loaderlab::torchPlugin().benchModelStep(config, size, imageSize, warmup,
                                                                   iterations));
            std::fprintf(stderr, "batch %d done\n", size);
        }
    } catch (const std::invalid_argument &e) {
        std::fprintf(stderr, "loaderlab bench-model: %s\n",
                     loaderlab::escapeForTerminal(e.what()).c_str());
        return kUsage;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab bench-model: %s\n", firstLine(e.what()).c_str());
        return kFailed;
    }
    const std::string name = config.model.scriptPath.empty() ? config.model.name
                                                             : config.model.scriptPath;
    std::printf("%s %s, %s, %d threads%s%s\n", loaderlab::escapeForTerminal(name).c_str(),
                loaderlab::modelModeName(config.model.mode),
                loaderlab::modelPrecisionName(config.model.precision),
                loaderlab::torchPlugin().intraOpThreads(),
                config.model.channelsLast ? ", channels-last" : "",
                config.model.checkpointing ? ", checkpointing" : "");
    std::printf("%8s %12s %12s %10s %12s %12s %12s\n", "batch", "ms/batch", "min ms", "ms/item",
                "samples/s", "peak MiB", "faults/step");
    std::ostringstream csv;
    csv << "model,mode,precision,channels_last,checkpointing,threads,batch_size,batch_ms_mean,"
           "batch_ms_min,item_ms,samples_per_sec,peak_memory_bytes,page_faults_per_step\n";
    for (const auto &r : rows) {
        std::printf("%8d %12.2f %12.2f %10.3f %12.1f %12.1f %12.0f\n", r.batchSize, r.batchMsMean,
                    r.batchMsMin, r.itemMs, r.samplesPerSec,
                    static_cast<double>(r.peakMemoryBytes) / 1048576.0, r.pageFaultsPerStep);
        csv << loaderlab::csvField(name) << ',' << loaderlab::modelModeName(config.model.mode)
            << ',' << loaderlab::modelPrecisionName(config.model.precision) << ','
            << config.model.channelsLast << ',' << config.model.checkpointing << ','
            << loaderlab::torchPlugin().intraOpThreads() << ',' << r.batchSize << ','
            << r.batchMsMean << ',' << r.batchMsMin << ',' << r.itemMs << ',' << r.samplesPerSec
            << ',' << r.peakMemoryBytes << ',' << r.pageFaultsPerStep << '\n';
    }
    if (parser.isSet(QStringLiteral("csv"))) {
        const std::string path = parser.value(QStringLiteral("csv")).toStdString();
        try {
            loaderlab::writeFileAtomically(path, [&](std::ostream &out) { out << csv.str(); });
        } catch (const std::exception &e) {
            std::fprintf(stderr, "loaderlab bench-model: %s\n",
                         loaderlab::escapeForTerminal(e.what()).c_str());
            return kFailed;
        }
    }
    return kOk;
}

} // namespace loaderlab::cli
