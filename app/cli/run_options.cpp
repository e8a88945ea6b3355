#include "app/cli/run_options.h"

#include "core/run/run_config_json.h"

#include <QRegularExpression>

namespace Cli {
namespace {

using loaderlab::RunConfig;

struct OptionSpec
{
    const char *name;
    const char *valueName;   // nullptr for a flag
    const char *help;
};

const OptionSpec kOptions[] = {
    {"config", "file", "JSON config file; flags given as well override it"},
    {"dataset", "kind", "synthetic, tensor, folder, idx or cifar10 (default: synthetic)"},
    {"path", "path", "dataset path (folder without a path: the generated default dataset)"},
    {"transform", "kind", "image folder transform: eval or train (default: eval)"},
    {"shape", "CxHxW", "synthetic sample shape (default: 3x224x224)"},
    {"samples", "n", "synthetic dataset size (default: 4096)"},
    {"workers", "n", "number of worker threads, 0 = the consumer loads (default: 2)"},
    {"batch-size", "n", "samples per batch (default: 32)"},
    {"prefetch", "n", "outstanding batches per worker (default: 2)"},
    {"strategy", "name", "per-worker (PyTorch) or sample-parallel (default: per-worker)"},
    {"shuffle", nullptr, "shuffle every epoch (seeded)"},
    {"seed", "n", "shuffle and random-transform seed (default: 0)"},
    {"drop-last", nullptr, "drop the last incomplete batch"},
    {"persistent-workers", nullptr, "keep workers alive between epochs"},
    {"pin-memory", nullptr, "copy each batch into page-locked memory"},
    {"out-of-order", nullptr, "deliver batches as they complete"},
    {"bad-samples", "policy", "skip (default) or fail"},
    {"sleep-batch-ms", "ms", "simulated step: milliseconds per batch"},
    {"sleep-sample-ms", "ms", "simulated step: milliseconds per sample"},
    {"model", "name", "run a LibTorch model on every batch: resnet18, resnet50, mobilenet_v2, ..."},
    {"model-file", "file", "run this TorchScript model instead of a built-in one"},
    {"mode", "mode", "model step: inference (default) or train"},
    {"device", "device", "cpu (default), cuda or cuda:N"},
    {"precision", "p", "fp32 (default), bf16 or fp16 (CUDA only)"},
    {"channels-last", nullptr, "model and input in channels-last memory format"},
    {"threads", "n", "model intra-op threads, 0 = all cores (default: 0)"},
    {"checkpointing", nullptr, "activation checkpointing per stage (train)"},
    {"optimizer", "name", "sgd (default) or adam (train)"},
    {"lr", "x", "learning rate (default: 0.01)"},
    {"num-classes", "n", "model outputs; labels are taken modulo this (default: 1000)"},
    {"epochs", "n", "epochs to run, 0 = until stopped (default: 1)"},
    {"batches", "n", "stop after this many batches"},
    {"seconds", "s", "stop after this many seconds"},
    {"warmup", "n", "batches left out of the figures (default: 5)"},
};

int toInt(const QCommandLineParser &parser, const char *name, int min)
{
    bool ok = false;
    const QString text = parser.value(QLatin1String(name));
    const int value = text.toInt(&ok);
    if (!ok || value < min)
        throw std::invalid_argument(std::string("--") + name + ": expected an integer >= "
                                    + std::to_string(min) + ", got '" + text.toStdString() + "'");
    return value;
}

double toDouble(const QCommandLineParser &parser, const char *name)
{
    bool ok = false;
    const QString text = parser.value(QLatin1String(name));
    const double value = text.toDouble(&ok);
    if (!ok || value < 0)
        throw std::invalid_argument(std::string("--") + name + ": expected a number >= 0, got '"
                                    + text.toStdString() + "'");
    return value;
}

template <typename Enum, typename Parse>
Enum toEnum(const QCommandLineParser &parser, const char *name, Parse parse)
{
    const QString text = parser.value(QLatin1String(name));
    const auto parsed = parse(text.toStdString());
    if (!parsed)
        throw std::invalid_argument(std::string("--") + name + ": unknown value '"
                                    + text.toStdString() + "'");
    return *parsed;
}

bool has(const QCommandLineParser &parser, const char *name)
{
    return parser.isSet(QLatin1String(name));
}

// --model and its companions; any of them selects the model consumer.
void applyModelOptions(const QCommandLineParser &p, loaderlab::ConsumerConfig &consumer)
{
    auto &m = consumer.model;
    bool any = false;
    const auto text = [&](const char *name, std::string &value) {
        if (has(p, name)) {
            value = p.value(QLatin1String(name)).toStdString();
            any = true;
        }
    };
    text("model", m.name);
    text("model-file", m.scriptPath);
    text("device", m.device);
    text("optimizer", m.optimizer);
    if (has(p, "mode")) {
        m.mode = toEnum<loaderlab::ModelMode>(p, "mode", loaderlab::modelModeFromName);
        any = true;
    }
    if (has(p, "precision")) {
        m.precision = toEnum<loaderlab::ModelPrecision>(p, "precision",
                                                        loaderlab::modelPrecisionFromName);
        any = true;
    }
    if (has(p, "threads")) {
        m.threads = toInt(p, "threads", 0);
        any = true;
    }
    if (has(p, "num-classes")) {
        m.numClasses = toInt(p, "num-classes", 1);
        any = true;
    }
    if (has(p, "lr")) {
        m.learningRate = toDouble(p, "lr");
        any = true;
    }
    m.channelsLast = m.channelsLast || has(p, "channels-last");
    m.checkpointing = m.checkpointing || has(p, "checkpointing");
    any = any || has(p, "channels-last") || has(p, "checkpointing");
    if (any)
        consumer.kind = loaderlab::ConsumerKind::Model;
    if (m.optimizer != "sgd" && m.optimizer != "adam")
        throw std::invalid_argument("--optimizer: unknown value '" + m.optimizer
                                    + "' (sgd or adam)");
    if (m.device != "cpu" && !m.device.starts_with("cuda"))
        throw std::invalid_argument("--device: unknown value '" + m.device
                                    + "' (cpu, cuda or cuda:N)");
}

} // namespace

void addRunOptions(QCommandLineParser &parser)
{
    for (const auto &spec : kOptions) {
        QCommandLineOption option(QLatin1String(spec.name), QLatin1String(spec.help));
        if (spec.valueName)
            option.setValueName(QLatin1String(spec.valueName));
        parser.addOption(option);
    }
}

RunConfig runConfigFromOptions(const QCommandLineParser &p)
{
    RunConfig c;
    if (has(p, "config"))
        c = loaderlab::loadRunConfig(p.value(QStringLiteral("config")).toStdString());
    auto &d = c.dataset;
    auto &l = c.loader;
    if (has(p, "dataset"))
        d.kind = toEnum<loaderlab::DatasetKind>(p, "dataset", loaderlab::datasetKindFromName);
    if (has(p, "path"))
        d.path = p.value(QStringLiteral("path")).toStdString();
    if (has(p, "transform"))
        d.transform = toEnum<loaderlab::TransformKind>(p, "transform", loaderlab::transformKindFromName);
    if (has(p, "shape")) {
        static const QRegularExpression pattern(QStringLiteral("^(\\d+)x(\\d+)x(\\d+)$"));
        const auto match = pattern.match(p.value(QStringLiteral("shape")));
        if (!match.hasMatch() || match.captured(1).toInt() < 1 || match.captured(2).toInt() < 1
            || match.captured(3).toInt() < 1)
            throw std::invalid_argument("--shape: expected CxHxW such as 3x224x224");
        d.syntheticShape = {match.captured(1).toInt(), match.captured(2).toInt(),
                            match.captured(3).toInt()};
    }
    if (has(p, "samples"))
        d.syntheticSamples = toInt(p, "samples", 1);
    if (has(p, "workers"))
        l.numWorkers = toInt(p, "workers", 0);
    if (has(p, "batch-size"))
        l.batchSize = toInt(p, "batch-size", 1);
    if (has(p, "prefetch"))
        l.prefetchFactor = toInt(p, "prefetch", 1);
    if (has(p, "strategy"))
        l.strategy = toEnum<loaderlab::Strategy>(p, "strategy", loaderlab::strategyFromName);
    if (has(p, "bad-samples"))
        l.badSamples = toEnum<loaderlab::BadSamplePolicy>(p, "bad-samples",
                                                          loaderlab::badSamplePolicyFromName);
    if (has(p, "seed"))
        l.seed = static_cast<std::uint64_t>(toInt(p, "seed", 0));
    l.shuffle = l.shuffle || has(p, "shuffle");
    l.dropLast = l.dropLast || has(p, "drop-last");
    l.persistentWorkers = l.persistentWorkers || has(p, "persistent-workers");
    l.pinMemory = l.pinMemory || has(p, "pin-memory");
    l.inOrder = l.inOrder && !has(p, "out-of-order");
    if (has(p, "sleep-batch-ms"))
        c.consumer.sleepPerBatchMs = toDouble(p, "sleep-batch-ms");
    if (has(p, "sleep-sample-ms"))
        c.consumer.sleepPerSampleMs = toDouble(p, "sleep-sample-ms");
    if (c.consumer.sleepPerBatchMs > 0 || c.consumer.sleepPerSampleMs > 0)
        c.consumer.kind = loaderlab::ConsumerKind::Sleep;
    applyModelOptions(p, c.consumer);
    if (has(p, "epochs"))
        c.epochs = toInt(p, "epochs", 0);
    if (has(p, "batches"))
        c.maxBatches = toInt(p, "batches", 1);
    if (has(p, "seconds"))
        c.maxSeconds = toDouble(p, "seconds");
    if (has(p, "warmup"))
        c.warmupBatches = toInt(p, "warmup", 0);
    loaderlab::validate(l);
    return c;
}

} // namespace Cli
