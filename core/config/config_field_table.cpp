// The config table itself: every RunConfig field, once. What the entries mean is in
// core/config/config_fields.h; the functions that use the table are in config_fields.cpp.

#include "core/config/config_fields.h"

#include <algorithm>
#include <limits>

// lupdate reads labels and help texts from this file (context "ConfigField"); core
// has no Qt, so the marker expands to the plain text here.
#define QT_TRANSLATE_NOOP(scope, text) text

namespace loaderlab {
namespace {

using nlohmann::json;

constexpr double kMaxSleepMs = 3'600'000.0; // an hour per batch is already absurd
constexpr double kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr double kInt53Max = 9'007'199'254'740'991.0; // exact in a double

template <typename Enum, typename Parse>
Enum parseChoice(const json &value, Parse parse)
{
    return *parse(value.get<std::string>());
}

std::string checkDevice(const json &value)
{
    const std::string device = value.get<std::string>();
    if (device == "cpu" || device == "cuda")
        return {};
    if (device.starts_with("cuda:") && device.size() > 5
        && std::all_of(device.begin() + 5, device.end(),
                       [](char c) { return c >= '0' && c <= '9'; }))
        return {};
    return "unknown device '" + device + "' (cpu, cuda or cuda:N)";
}

// clang-format off
const std::vector<ConfigField> &table()
{
    static const std::vector<ConfigField> fields = {
        // dataset
        {"dataset.kind", FieldType::Choice, QT_TRANSLATE_NOOP("ConfigField", "Dataset"),
         QT_TRANSLATE_NOOP("ConfigField", "Where the samples come from."), "dataset", "kind", 0, 0, false,
         {"synthetic", "tensor", "folder", "idx", "cifar10"}, false,
         [](const RunConfig &c) -> json { return datasetKindName(c.dataset.kind); },
         [](RunConfig &c, const json &v) { c.dataset.kind = parseChoice<DatasetKind>(v, datasetKindFromName); }},
        {"dataset.path", FieldType::Path, QT_TRANSLATE_NOOP("ConfigField", "Path"),
         QT_TRANSLATE_NOOP("ConfigField", "The dataset's folder or file (an image folder without a path: the generated default dataset)."),
         "path", "path", 0, 0, false, {}, false,
         [](const RunConfig &c) -> json { return c.dataset.path; },
         [](RunConfig &c, const json &v) { c.dataset.path = v.get<std::string>(); }},
        {"dataset.synthetic_shape", FieldType::Shape, QT_TRANSLATE_NOOP("ConfigField", "Sample shape"),
         QT_TRANSLATE_NOOP("ConfigField", "Shape of a synthetic sample, channels x height x width."), "shape", "CxHxW",
         1, 1 << 20, false, {}, false,
         [](const RunConfig &c) -> json {
             const SampleShape &s = c.dataset.syntheticShape;
             return json::array({s.channels, s.height, s.width});
         },
         [](RunConfig &c, const json &v) {
             c.dataset.syntheticShape = {v[0].get<int>(), v[1].get<int>(), v[2].get<int>()};
         }},
        {"dataset.synthetic_samples", FieldType::Integer, QT_TRANSLATE_NOOP("ConfigField", "Samples"),
         QT_TRANSLATE_NOOP("ConfigField", "Number of samples in the synthetic dataset."), "samples", "n", 1, kInt53Max, false, {}, false,
         [](const RunConfig &c) -> json { return c.dataset.syntheticSamples; },
         [](RunConfig &c, const json &v) { c.dataset.syntheticSamples = v.get<std::int64_t>(); }},
        {"dataset.transform", FieldType::Choice, QT_TRANSLATE_NOOP("ConfigField", "Transform"),
         QT_TRANSLATE_NOOP("ConfigField", "Image-folder pipeline: eval resizes and center-crops, train does a random resized crop and flip."),
         "transform", "kind", 0, 0, false, {"eval", "train"}, false,
         [](const RunConfig &c) -> json { return transformKindName(c.dataset.transform); },
         [](RunConfig &c, const json &v) { c.dataset.transform = parseChoice<TransformKind>(v, transformKindFromName); }},
        {"dataset.decode", FieldType::Choice, QT_TRANSLATE_NOOP("ConfigField", "Decode"),
         QT_TRANSLATE_NOOP("ConfigField", "Image-folder JPEGs: exact gives torchvision's pixels; fast (eval transform only) decodes at a reduced DCT scale no smaller than the resize size, then resizes: faster on large photos, not pixel-exact."),
         "decode", "mode", 0, 0, false, {"exact", "fast"}, false,
         [](const RunConfig &c) -> json { return decodeModeName(c.dataset.decode); },
         [](RunConfig &c, const json &v) { c.dataset.decode = parseChoice<DecodeMode>(v, decodeModeFromName); }},
        {"dataset.resize", FieldType::Integer, QT_TRANSLATE_NOOP("ConfigField", "Resize"),
         QT_TRANSLATE_NOOP("ConfigField", "Eval transform: the short side after resizing, in pixels."), "resize", "px", 1, 65536, false, {}, false,
         [](const RunConfig &c) -> json { return c.dataset.resizeSize; },
         [](RunConfig &c, const json &v) { c.dataset.resizeSize = v.get<int>(); }},
        {"dataset.crop", FieldType::Integer, QT_TRANSLATE_NOOP("ConfigField", "Crop"),
         QT_TRANSLATE_NOOP("ConfigField", "Side of the square crop fed to the model, in pixels."), "crop", "px", 1, 65536, false, {}, false,
         [](const RunConfig &c) -> json { return c.dataset.cropSize; },
         [](RunConfig &c, const json &v) { c.dataset.cropSize = v.get<int>(); }},
        {"dataset.max_image_pixels", FieldType::Integer, QT_TRANSLATE_NOOP("ConfigField", "Largest image"),
         QT_TRANSLATE_NOOP("ConfigField", "Images declaring more pixels are refused before decoding (decompression-bomb guard)."),
         "max-image-pixels", "n", 1, kInt53Max, false, {}, false,
         [](const RunConfig &c) -> json { return c.dataset.maxImagePixels; },
         [](RunConfig &c, const json &v) { c.dataset.maxImagePixels = v.get<std::int64_t>(); }},
        {"dataset.max_file_bytes", FieldType::Integer, QT_TRANSLATE_NOOP("ConfigField", "Largest file"),
         QT_TRANSLATE_NOOP("ConfigField", "Image files larger than this many bytes are refused without reading them."),
         "max-file-bytes", "bytes", 1, kInt53Max, false, {}, false,
         [](const RunConfig &c) -> json { return c.dataset.maxFileBytes; },
         [](RunConfig &c, const json &v) { c.dataset.maxFileBytes = v.get<std::int64_t>(); }},
        // loader
        {"loader.batch_size", FieldType::Integer, QT_TRANSLATE_NOOP("ConfigField", "Batch size"),
         QT_TRANSLATE_NOOP("ConfigField", "Samples per batch."), "batch-size", "n", 1, kInt32Max, false, {}, false,
         [](const RunConfig &c) -> json { return c.loader.batchSize; },
         [](RunConfig &c, const json &v) { c.loader.batchSize = v.get<int>(); }},
        {"loader.num_workers", FieldType::Integer, QT_TRANSLATE_NOOP("ConfigField", "Workers"),
         QT_TRANSLATE_NOOP("ConfigField", "Worker threads loading batches; 0 loads on the model's thread (PyTorch's num_workers)."),
         "workers", "n", 0, 1024, false, {}, false,
         [](const RunConfig &c) -> json { return c.loader.numWorkers; },
         [](RunConfig &c, const json &v) { c.loader.numWorkers = v.get<int>(); }},
        {"loader.prefetch_factor", FieldType::Integer, QT_TRANSLATE_NOOP("ConfigField", "Prefetch"),
         QT_TRANSLATE_NOOP("ConfigField", "Batches each worker may have loaded ahead of the model (PyTorch's prefetch_factor)."),
         "prefetch", "n", 1, 1024, false, {}, false,
         [](const RunConfig &c) -> json { return c.loader.prefetchFactor; },
         [](RunConfig &c, const json &v) { c.loader.prefetchFactor = v.get<int>(); }},
        {"loader.strategy", FieldType::Choice, QT_TRANSLATE_NOOP("ConfigField", "Strategy"),
         QT_TRANSLATE_NOOP("ConfigField", "Per-worker gives each batch whole to one worker like PyTorch; sample-parallel builds each batch with all workers."),
         "strategy", "name", 0, 0, false, {"per-worker", "sample-parallel"}, false,
         [](const RunConfig &c) -> json { return strategyName(c.loader.strategy); },
         [](RunConfig &c, const json &v) { c.loader.strategy = parseChoice<Strategy>(v, strategyFromName); }},
        {"loader.shuffle", FieldType::Boolean, QT_TRANSLATE_NOOP("ConfigField", "Shuffle"),
         QT_TRANSLATE_NOOP("ConfigField", "Visit the samples in a new random order every epoch (seeded)."), "shuffle", "", 0, 0, false, {}, false,
         [](const RunConfig &c) -> json { return c.loader.shuffle; },
         [](RunConfig &c, const json &v) { c.loader.shuffle = v.get<bool>(); }},
        {"loader.seed", FieldType::Unsigned, QT_TRANSLATE_NOOP("ConfigField", "Seed"),
         QT_TRANSLATE_NOOP("ConfigField", "Seed of the shuffle and of random transforms."), "seed", "n", 0, 0, false, {}, false,
         [](const RunConfig &c) -> json { return c.loader.seed; },
         [](RunConfig &c, const json &v) { c.loader.seed = v.get<std::uint64_t>(); }},
        {"loader.drop_last", FieldType::Boolean, QT_TRANSLATE_NOOP("ConfigField", "Drop last"),
         QT_TRANSLATE_NOOP("ConfigField", "Leave out the last batch of an epoch when it is incomplete."), "drop-last", "", 0, 0, false, {}, false,
         [](const RunConfig &c) -> json { return c.loader.dropLast; },
         [](RunConfig &c, const json &v) { c.loader.dropLast = v.get<bool>(); }},
        {"loader.persistent_workers", FieldType::Boolean, QT_TRANSLATE_NOOP("ConfigField", "Persistent workers"),
         QT_TRANSLATE_NOOP("ConfigField", "Keep the workers alive between epochs instead of starting new ones."),
         "persistent-workers", "", 0, 0, false, {}, false,
         [](const RunConfig &c) -> json { return c.loader.persistentWorkers; },
         [](RunConfig &c, const json &v) { c.loader.persistentWorkers = v.get<bool>(); }},
        {"loader.pin_memory", FieldType::Boolean, QT_TRANSLATE_NOOP("ConfigField", "Pin memory"),
         QT_TRANSLATE_NOOP("ConfigField", "Copy batches into page-locked memory for faster transfers to the GPU."),
         "pin-memory", "", 0, 0, false, {}, false,
         [](const RunConfig &c) -> json { return c.loader.pinMemory; },
         [](RunConfig &c, const json &v) { c.loader.pinMemory = v.get<bool>(); }},
        {"loader.in_order", FieldType::Boolean, QT_TRANSLATE_NOOP("ConfigField", "In order"),
         QT_TRANSLATE_NOOP("ConfigField", "Deliver batches in order; off hands over whichever batch is ready first (in_order=False)."),
         "out-of-order", "", 0, 0, false, {}, true,
         [](const RunConfig &c) -> json { return c.loader.inOrder; },
         [](RunConfig &c, const json &v) { c.loader.inOrder = v.get<bool>(); }},
        {"loader.bad_samples", FieldType::Choice, QT_TRANSLATE_NOOP("ConfigField", "Bad samples"),
         QT_TRANSLATE_NOOP("ConfigField", "What happens to a sample that cannot be read: skip it (and record why) or fail the run."),
         "bad-samples", "policy", 0, 0, false, {"skip", "fail"}, false,
         [](const RunConfig &c) -> json { return badSamplePolicyName(c.loader.badSamples); },
         [](RunConfig &c, const json &v) { c.loader.badSamples = parseChoice<BadSamplePolicy>(v, badSamplePolicyFromName); }},
        // consumer
        {"consumer.kind", FieldType::Choice, QT_TRANSLATE_NOOP("ConfigField", "Model step"),
         QT_TRANSLATE_NOOP("ConfigField", "What the run does with each batch: nothing, a simulated step, or a LibTorch model."),
         "consumer", "kind", 0, 0, false, {"none", "sleep", "model"}, false,
         [](const RunConfig &c) -> json { return consumerKindName(c.consumer.kind); },
         [](RunConfig &c, const json &v) { c.consumer.kind = parseChoice<ConsumerKind>(v, consumerKindFromName); }},
        {"consumer.sleep_per_batch_ms", FieldType::Number, QT_TRANSLATE_NOOP("ConfigField", "Step per batch"),
         QT_TRANSLATE_NOOP("ConfigField", "Simulated model step: milliseconds per batch, whatever its size."),
         "sleep-batch-ms", "ms", 0, kMaxSleepMs, false, {}, false,
         [](const RunConfig &c) -> json { return c.consumer.sleepPerBatchMs; },
         [](RunConfig &c, const json &v) { c.consumer.sleepPerBatchMs = v.get<double>(); }},
        {"consumer.sleep_per_sample_ms", FieldType::Number, QT_TRANSLATE_NOOP("ConfigField", "Step per sample"),
         QT_TRANSLATE_NOOP("ConfigField", "Simulated model step: milliseconds per sample of a batch."),
         "sleep-sample-ms", "ms", 0, kMaxSleepMs, false, {}, false,
         [](const RunConfig &c) -> json { return c.consumer.sleepPerSampleMs; },
         [](RunConfig &c, const json &v) { c.consumer.sleepPerSampleMs = v.get<double>(); }},
        {"consumer.model.name", FieldType::Text, QT_TRANSLATE_NOOP("ConfigField", "Model"),
         QT_TRANSLATE_NOOP("ConfigField", "Built-in LibTorch model: resnet18, resnet50, mobilenet_v2, efficientnet_v2_s, vit_b_16, ..."),
         "model", "name", 0, 0, false, {}, false,
         [](const RunConfig &c) -> json { return c.consumer.model.name; },
         [](RunConfig &c, const json &v) { c.consumer.model.name = v.get<std::string>(); }},
        {"consumer.model.script", FieldType::Path, QT_TRANSLATE_NOOP("ConfigField", "Model file"),
         QT_TRANSLATE_NOOP("ConfigField", "A TorchScript file to run instead of a built-in model."), "model-file", "file", 0, 0, false, {}, false,
         [](const RunConfig &c) -> json { return c.consumer.model.scriptPath; },
         [](RunConfig &c, const json &v) { c.consumer.model.scriptPath = v.get<std::string>(); }},
        {"consumer.model.mode", FieldType::Choice, QT_TRANSLATE_NOOP("ConfigField", "Mode"),
         QT_TRANSLATE_NOOP("ConfigField", "Inference (forward only) or a training step (forward, backward, optimizer)."),
         "mode", "mode", 0, 0, false, {"inference", "train"}, false,
         [](const RunConfig &c) -> json { return modelModeName(c.consumer.model.mode); },
         [](RunConfig &c, const json &v) { c.consumer.model.mode = parseChoice<ModelMode>(v, modelModeFromName); }},
        {"consumer.model.device", FieldType::Text, QT_TRANSLATE_NOOP("ConfigField", "Device"),
         QT_TRANSLATE_NOOP("ConfigField", "Where the model runs: cpu, cuda or cuda:N."), "device", "device", 0, 0, false, {}, false,
         [](const RunConfig &c) -> json { return c.consumer.model.device; },
         [](RunConfig &c, const json &v) { c.consumer.model.device = v.get<std::string>(); }, checkDevice},
        {"consumer.model.precision", FieldType::Choice, QT_TRANSLATE_NOOP("ConfigField", "Precision"),
         QT_TRANSLATE_NOOP("ConfigField", "fp32, or bf16 / fp16 autocast (fp16 on CUDA only)."), "precision", "p", 0, 0, false,
         {"fp32", "bf16", "fp16"}, false,
         [](const RunConfig &c) -> json { return modelPrecisionName(c.consumer.model.precision); },
         [](RunConfig &c, const json &v) { c.consumer.model.precision = parseChoice<ModelPrecision>(v, modelPrecisionFromName); }},
        {"consumer.model.channels_last", FieldType::Boolean, QT_TRANSLATE_NOOP("ConfigField", "Channels last"),
         QT_TRANSLATE_NOOP("ConfigField", "Model and input in channels-last memory format."), "channels-last", "", 0, 0, false, {}, false,
         [](const RunConfig &c) -> json { return c.consumer.model.channelsLast; },
         [](RunConfig &c, const json &v) { c.consumer.model.channelsLast = v.get<bool>(); }},
        {"consumer.model.threads", FieldType::Integer, QT_TRANSLATE_NOOP("ConfigField", "Threads"),
         QT_TRANSLATE_NOOP("ConfigField", "Intra-op threads of the model; 0 = all cores."), "threads", "n", 0, 1024, false, {}, false,
         [](const RunConfig &c) -> json { return c.consumer.model.threads; },
         [](RunConfig &c, const json &v) { c.consumer.model.threads = v.get<int>(); }},
        {"consumer.model.checkpointing", FieldType::Boolean, QT_TRANSLATE_NOOP("ConfigField", "Checkpointing"),
         QT_TRANSLATE_NOOP("ConfigField", "Activation checkpointing per stage (training step): less memory, more time."),
         "checkpointing", "", 0, 0, false, {}, false,
         [](const RunConfig &c) -> json { return c.consumer.model.checkpointing; },
         [](RunConfig &c, const json &v) { c.consumer.model.checkpointing = v.get<bool>(); }},
        {"consumer.model.optimizer", FieldType::Choice, QT_TRANSLATE_NOOP("ConfigField", "Optimizer"),
         QT_TRANSLATE_NOOP("ConfigField", "Optimizer of the training step."), "optimizer", "name", 0, 0, false, {"sgd", "adam"}, false,
         [](const RunConfig &c) -> json { return c.consumer.model.optimizer; },
         [](RunConfig &c, const json &v) { c.consumer.model.optimizer = v.get<std::string>(); }},
        {"consumer.model.learning_rate", FieldType::Number, QT_TRANSLATE_NOOP("ConfigField", "Learning rate"),
         QT_TRANSLATE_NOOP("ConfigField", "Learning rate of the training step."), "lr", "x", 0, 1e6, true, {}, false,
         [](const RunConfig &c) -> json { return c.consumer.model.learningRate; },
         [](RunConfig &c, const json &v) { c.consumer.model.learningRate = v.get<double>(); }},
        {"consumer.model.num_classes", FieldType::Integer, QT_TRANSLATE_NOOP("ConfigField", "Classes"),
         QT_TRANSLATE_NOOP("ConfigField", "Model outputs; labels are taken modulo this."), "num-classes", "n", 1, 1'000'000, false, {}, false,
         [](const RunConfig &c) -> json { return c.consumer.model.numClasses; },
         [](RunConfig &c, const json &v) { c.consumer.model.numClasses = v.get<int>(); }},
        // the run
        {"epochs", FieldType::Integer, QT_TRANSLATE_NOOP("ConfigField", "Epochs"),
         QT_TRANSLATE_NOOP("ConfigField", "Epochs to run; 0 = until stopped or a limit."), "epochs", "n", 0, kInt32Max, false, {}, false,
         [](const RunConfig &c) -> json { return c.epochs; },
         [](RunConfig &c, const json &v) { c.epochs = v.get<int>(); }},
        {"max_batches", FieldType::Integer, QT_TRANSLATE_NOOP("ConfigField", "Batch limit"),
         QT_TRANSLATE_NOOP("ConfigField", "Stop after this many batches; 0 = no limit."), "batches", "n", 0, kInt53Max, false, {}, false,
         [](const RunConfig &c) -> json { return c.maxBatches; },
         [](RunConfig &c, const json &v) { c.maxBatches = v.get<std::int64_t>(); }},
        {"max_seconds", FieldType::Number, QT_TRANSLATE_NOOP("ConfigField", "Time limit"),
         QT_TRANSLATE_NOOP("ConfigField", "Stop after this many seconds, also during a long model step; 0 = no limit."),
         "seconds", "s", 0, 1e9, false, {}, false,
         [](const RunConfig &c) -> json { return c.maxSeconds; },
         [](RunConfig &c, const json &v) { c.maxSeconds = v.get<double>(); }},
        {"warmup_batches", FieldType::Integer, QT_TRANSLATE_NOOP("ConfigField", "Warm-up"),
         QT_TRANSLATE_NOOP("ConfigField", "Batches at the start left out of the throughput and wait figures."), "warmup", "n",
         0, kInt32Max, false, {}, false,
         [](const RunConfig &c) -> json { return c.warmupBatches; },
         [](RunConfig &c, const json &v) { c.warmupBatches = v.get<int>(); }},
        {"devices", FieldType::Integer, QT_TRANSLATE_NOOP("ConfigField", "Devices"),
         QT_TRANSLATE_NOOP("ConfigField", "Data-parallel ranks on this host, each with its own loader over a shard of every epoch, its own workers and its own model step (cuda:0..N-1 for a CUDA model, the CPU threads split for a CPU model, one simulated device each for the sleep step)."),
         "devices", "n", 1, 64, false, {}, false,
         [](const RunConfig &c) -> json { return c.devices; },
         [](RunConfig &c, const json &v) { c.devices = v.get<int>(); }},
        {"sync_devices", FieldType::Boolean, QT_TRANSLATE_NOOP("ConfigField", "Synchronised steps"),
         QT_TRANSLATE_NOOP("ConfigField", "With several devices, every step waits for all ranks, as the gradient all-reduce of distributed training does; off: ranks run independently, as for inference."),
         "independent-devices", "", 0, 0, false, {}, true,
         [](const RunConfig &c) -> json { return c.syncDevices; },
         [](RunConfig &c, const json &v) { c.syncDevices = v.get<bool>(); }},
        {"memory_budget_mb", FieldType::Integer, QT_TRANSLATE_NOOP("ConfigField", "Memory budget"),
         QT_TRANSLATE_NOOP("ConfigField", "Host memory a run may plan to use, in MiB; a setting estimated to need more is refused before it starts. 0 = the default share of this machine's memory."),
         "memory-budget", "MiB", 0, kInt53Max, false, {}, false,
         [](const RunConfig &c) -> json { return c.memoryBudgetMb; },
         [](RunConfig &c, const json &v) { c.memoryBudgetMb = v.get<std::int64_t>(); }},
    };
    return fields;
}
// clang-format on

} // namespace

std::span<const ConfigField> configFields()
{
    return table();
}

} // namespace loaderlab
