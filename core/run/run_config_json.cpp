#include "core/run/run_config_json.h"

#include "core/io/atomic_file.h"
#include "core/io/safe_json.h"

#include <fstream>
#include <set>
#include <stdexcept>

namespace loaderlab {
namespace {

using nlohmann::json;

template <typename T>
void read(const json &object, const char *key, T &value, const std::string &where)
{
    if (!object.contains(key))
        return;
    try {
        value = object.at(key).get<T>();
    } catch (const json::exception &) {
        throw std::invalid_argument(where + key + ": wrong type (" + object.at(key).dump() + ")");
    }
}

template <typename Enum, typename Parse>
void readEnum(const json &object, const char *key, Enum &value, Parse parse, const std::string &where)
{
    std::string name;
    read(object, key, name, where);
    if (name.empty())
        return;
    const auto parsed = parse(name);
    if (!parsed)
        throw std::invalid_argument(where + key + ": unknown value '" + name + "'");
    value = *parsed;
}

void rejectUnknown(const json &object, const std::set<std::string> &known, const std::string &where)
{
    if (!object.is_object())
        throw std::invalid_argument(where + ": expected an object");
    for (const auto &[key, value] : object.items()) {
        if (!known.contains(key))
            throw std::invalid_argument(where + key + ": unknown key");
    }
}

json toJson(const ModelConfig &m)
{
    return json{{"name", m.name},
                {"script", m.scriptPath},
                {"mode", modelModeName(m.mode)},
                {"device", m.device},
                {"precision", modelPrecisionName(m.precision)},
                {"channels_last", m.channelsLast},
                {"threads", m.threads},
                {"checkpointing", m.checkpointing},
                {"optimizer", m.optimizer},
                {"learning_rate", m.learningRate},
                {"num_classes", m.numClasses}};
}

void readModel(const json &m, ModelConfig &model)
{
    const std::string where = "consumer.model.";
    rejectUnknown(m, {"name", "script", "mode", "device", "precision", "channels_last", "threads",
                      "checkpointing", "optimizer", "learning_rate", "num_classes"},
                  where);
    read(m, "name", model.name, where);
    read(m, "script", model.scriptPath, where);
    readEnum(m, "mode", model.mode, modelModeFromName, where);
    read(m, "device", model.device, where);
    readEnum(m, "precision", model.precision, modelPrecisionFromName, where);
    read(m, "channels_last", model.channelsLast, where);
    read(m, "threads", model.threads, where);
    read(m, "checkpointing", model.checkpointing, where);
    read(m, "optimizer", model.optimizer, where);
    read(m, "learning_rate", model.learningRate, where);
    read(m, "num_classes", model.numClasses, where);
    if (model.optimizer != "sgd" && model.optimizer != "adam")
        throw std::invalid_argument(where + "optimizer: unknown value '" + model.optimizer
                                    + "' (sgd or adam)");
    if (model.device != "cpu" && !model.device.starts_with("cuda"))
        throw std::invalid_argument(where + "device: unknown value '" + model.device
                                    + "' (cpu, cuda or cuda:N)");
    if (model.threads < 0)
        throw std::invalid_argument(where + "threads: must be >= 0");
    if (model.numClasses < 1)
        throw std::invalid_argument(where + "num_classes: must be >= 1");
    if (!(model.learningRate > 0.0))
        throw std::invalid_argument(where + "learning_rate: must be > 0");
}

} // namespace

json toJson(const RunConfig &c)
{
    const auto &d = c.dataset;
    const auto &l = c.loader;
    return json{
        {"dataset",
         {{"kind", datasetKindName(d.kind)},
          {"path", d.path},
          {"synthetic_shape", {d.syntheticShape.channels, d.syntheticShape.height, d.syntheticShape.width}},
          {"synthetic_samples", d.syntheticSamples},
          {"transform", transformKindName(d.transform)},
          {"resize", d.resizeSize},
          {"crop", d.cropSize},
          {"max_image_pixels", d.maxImagePixels},
          {"max_file_bytes", d.maxFileBytes}}},
        {"loader",
         {{"batch_size", l.batchSize},
          {"num_workers", l.numWorkers},
          {"prefetch_factor", l.prefetchFactor},
          {"shuffle", l.shuffle},
          {"seed", l.seed},
          {"drop_last", l.dropLast},
          {"persistent_workers", l.persistentWorkers},
          {"pin_memory", l.pinMemory},
          {"in_order", l.inOrder},
          {"strategy", strategyName(l.strategy)},
          {"bad_samples", badSamplePolicyName(l.badSamples)}}},
        {"consumer",
         {{"kind", consumerKindName(c.consumer.kind)},
          {"sleep_per_batch_ms", c.consumer.sleepPerBatchMs},
          {"sleep_per_sample_ms", c.consumer.sleepPerSampleMs},
          {"model", toJson(c.consumer.model)}}},
        {"epochs", c.epochs},
        {"max_batches", c.maxBatches},
        {"max_seconds", c.maxSeconds},
        {"warmup_batches", c.warmupBatches},
    };
}

RunConfig runConfigFromJson(const json &j, RunConfig c)
{
    rejectUnknown(j, {"dataset", "loader", "consumer", "epochs", "max_batches", "max_seconds",
                      "warmup_batches"}, "config");
    if (j.contains("dataset")) {
        const json &d = j.at("dataset");
        const std::string where = "dataset.";
        rejectUnknown(d, {"kind", "path", "synthetic_shape", "synthetic_samples", "transform",
                          "resize", "crop", "max_image_pixels", "max_file_bytes"}, "dataset");
        readEnum(d, "kind", c.dataset.kind, datasetKindFromName, where);
        read(d, "path", c.dataset.path, where);
        if (d.contains("synthetic_shape")) {
            std::vector<int> shape;
            read(d, "synthetic_shape", shape, where);
            if (shape.size() != 3 || shape[0] < 1 || shape[1] < 1 || shape[2] < 1)
                throw std::invalid_argument("dataset.synthetic_shape: expected [C, H, W], all >= 1");
            c.dataset.syntheticShape = {shape[0], shape[1], shape[2]};
        }
        read(d, "synthetic_samples", c.dataset.syntheticSamples, where);
        readEnum(d, "transform", c.dataset.transform, transformKindFromName, where);
        read(d, "resize", c.dataset.resizeSize, where);
        read(d, "crop", c.dataset.cropSize, where);
        read(d, "max_image_pixels", c.dataset.maxImagePixels, where);
        read(d, "max_file_bytes", c.dataset.maxFileBytes, where);
    }
    if (j.contains("loader")) {
        const json &l = j.at("loader");
        const std::string where = "loader.";
        rejectUnknown(l, {"batch_size", "num_workers", "prefetch_factor", "shuffle", "seed",
                          "drop_last", "persistent_workers", "pin_memory", "in_order", "strategy",
                          "bad_samples"}, "loader");
        read(l, "batch_size", c.loader.batchSize, where);
        read(l, "num_workers", c.loader.numWorkers, where);
        read(l, "prefetch_factor", c.loader.prefetchFactor, where);
        read(l, "shuffle", c.loader.shuffle, where);
        read(l, "seed", c.loader.seed, where);
        read(l, "drop_last", c.loader.dropLast, where);
        read(l, "persistent_workers", c.loader.persistentWorkers, where);
        read(l, "pin_memory", c.loader.pinMemory, where);
        read(l, "in_order", c.loader.inOrder, where);
        readEnum(l, "strategy", c.loader.strategy, strategyFromName, where);
        readEnum(l, "bad_samples", c.loader.badSamples, badSamplePolicyFromName, where);
    }
    if (j.contains("consumer")) {
        const json &k = j.at("consumer");
        const std::string where = "consumer.";
        rejectUnknown(k, {"kind", "sleep_per_batch_ms", "sleep_per_sample_ms", "model"},
                      "consumer");
        readEnum(k, "kind", c.consumer.kind, consumerKindFromName, where);
        read(k, "sleep_per_batch_ms", c.consumer.sleepPerBatchMs, where);
        read(k, "sleep_per_sample_ms", c.consumer.sleepPerSampleMs, where);
        if (k.contains("model"))
            readModel(k.at("model"), c.consumer.model);
    }
    read(j, "epochs", c.epochs, "");
    read(j, "max_batches", c.maxBatches, "");
    read(j, "max_seconds", c.maxSeconds, "");
    read(j, "warmup_batches", c.warmupBatches, "");
    validate(c.loader);
    return c;
}

RunConfig loadRunConfig(const std::string &path, RunConfig base)
{
    std::ifstream in(path);
    if (!in)
        throw std::invalid_argument(path + ": cannot open config file");
    try {
        return runConfigFromJson(json::parse(in), std::move(base));
    } catch (const json::parse_error &e) {
        throw std::invalid_argument(path + ": not valid JSON (" + e.what() + ")");
    } catch (const std::invalid_argument &e) {
        throw std::invalid_argument(path + ": " + e.what());
    }
}

void saveRunConfig(const std::string &path, const RunConfig &config)
{
    writeFileAtomically(path, [&](std::ostream &out) {
        out << toSafeJson(toJson(config)).dump(2) << '\n';
    });
}

} // namespace loaderlab
