// The config table itself: every RunConfig field, once. What the entries mean is in
// core/config/config_fields.h; the functions that use the table are in config_fields.cpp.

#include "core/config/config_field_macros.h"
#include "core/config/config_fields.h"

#include <algorithm>
#include <limits>

namespace loaderlab {
namespace {

using nlohmann::json;

constexpr double kMaxSleepMs = 3'600'000.0; // an hour per batch is already absurd
constexpr double kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr double kInt53Max = 9'007'199'254'740'991.0; // exact in a double
constexpr double kReplayBatchesMax = 1'000'000;       // the memory budget bounds it further

// dataset.kind's choices: the names in the table of dataset kinds.
std::vector<std::string_view> datasetKindChoices()
{
    std::vector<std::string_view> names;
    for (const DatasetKindInfo &kind : datasetKinds())
        names.push_back(kind.name);
    return names;
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

// Every field but the data-parallel ones (config_field_table_devices.cpp).
std::vector<ConfigField> ownFields()
{
    return {
        {.key = "engine",
         .type = FieldType::Choice,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Engine"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField",
             "Which loader runs: LoaderLab's own (threads, C++) or PyTorch's DataLoader (worker "
             "processes, Python; needs torch and torchvision)."),
         .flag = "engine",
         .valueName = "name",
         .choices = enumChoices(kEngineKindNames),
         CHOICE_MEMBER(engine, engineKindName, engineKindFromName)},
        // dataset
        {.key = "dataset.kind",
         .type = FieldType::Choice,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Dataset"),
         .help = QT_TRANSLATE_NOOP("ConfigField", "Where the samples come from."),
         .flag = "dataset",
         .valueName = "kind",
         .choices = datasetKindChoices(),
         CHOICE_MEMBER(dataset.kind, datasetKindName, datasetKindFromName)},
        {.key = "dataset.path",
         .type = FieldType::Path,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Path"),
         .help = QT_TRANSLATE_NOOP("ConfigField",
                                   "The dataset's folder or file (an image folder without a path: "
                                   "the generated default dataset)."),
         .flag = "path",
         .valueName = "path",
         MEMBER(dataset.path)},
        {.key = "dataset.args",
         .type = FieldType::Object,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Pipeline arguments"),
         .help = QT_TRANSLATE_NOOP("ConfigField",
                                   "Names and values passed to a Python pipeline file's "
                                   "make_dataset(args) and make_step(args), e.g. --set "
                                   "dataset.args.size=64."),
         OBJECT_MEMBER(dataset.args)},
        {.key = "dataset.synthetic_shape",
         .type = FieldType::Shape,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Sample shape"),
         .help = QT_TRANSLATE_NOOP("ConfigField",
                                   "Shape of a synthetic sample, channels x height x width."),
         .flag = "shape",
         .valueName = "CxHxW",
         .min = 1,
         .max = 1 << 20,
         .get = [](const RunConfig &c) -> json {
             const SampleShape &s = c.dataset.syntheticShape;
             return json::array({s.channels, s.height, s.width});
         },
         .set =
             [](RunConfig &c, const json &v) {
                 c.dataset.syntheticShape = {v[0].get<int>(), v[1].get<int>(), v[2].get<int>()};
             }},
        {.key = "dataset.synthetic_samples",
         .type = FieldType::Integer,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Samples"),
         .help = QT_TRANSLATE_NOOP("ConfigField", "Number of samples in the synthetic dataset."),
         .flag = "samples",
         .valueName = "n",
         .min = 1,
         .max = kInt53Max,
         MEMBER(dataset.syntheticSamples)},
        {.key = "dataset.transform",
         .type = FieldType::Choice,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Transform"),
         .help = QT_TRANSLATE_NOOP("ConfigField",
                                   "Image-folder pipeline: eval resizes and center-crops, train "
                                   "does a random resized crop and flip."),
         .flag = "transform",
         .valueName = "kind",
         .choices = enumChoices(kTransformKindNames),
         CHOICE_MEMBER(dataset.transform, transformKindName, transformKindFromName)},
        {.key = "dataset.decode",
         .type = FieldType::Choice,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Decode"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField", "Image-folder JPEGs: exact gives torchvision's pixels; fast (eval "
                            "transform only) decodes at a reduced DCT scale no smaller than the "
                            "resize size, then resizes: faster on large photos, not pixel-exact."),
         .flag = "decode",
         .valueName = "mode",
         .choices = enumChoices(kDecodeModeNames),
         CHOICE_MEMBER(dataset.decode, decodeModeName, decodeModeFromName)},
        {.key = "dataset.resize",
         .type = FieldType::Integer,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Resize"),
         .help = QT_TRANSLATE_NOOP("ConfigField",
                                   "Eval transform: the short side after resizing, in pixels."),
         .flag = "resize",
         .valueName = "px",
         .min = 1,
         .max = 65536,
         MEMBER(dataset.resizeSize)},
        {.key = "dataset.crop",
         .type = FieldType::Integer,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Crop"),
         .help = QT_TRANSLATE_NOOP("ConfigField",
                                   "Side of the square crop fed to the model, in pixels."),
         .flag = "crop",
         .valueName = "px",
         .min = 1,
         .max = 65536,
         MEMBER(dataset.cropSize)},
        {.key = "dataset.max_image_pixels",
         .type = FieldType::Integer,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Largest image"),
         .help = QT_TRANSLATE_NOOP("ConfigField", "Images declaring more pixels are refused before "
                                                  "decoding (decompression-bomb guard)."),
         .flag = "max-image-pixels",
         .valueName = "n",
         .min = 1,
         .max = kInt53Max,
         MEMBER(dataset.maxImagePixels)},
        {.key = "dataset.max_file_bytes",
         .type = FieldType::Integer,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Largest file"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField",
             "Image files larger than this many bytes are refused without reading them."),
         .flag = "max-file-bytes",
         .valueName = "bytes",
         .min = 1,
         .max = kInt53Max,
         MEMBER(dataset.maxFileBytes)},
        // loader
        {.key = "loader.batch_size",
         .type = FieldType::Integer,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Batch size"),
         .help = QT_TRANSLATE_NOOP("ConfigField", "Samples per batch."),
         .flag = "batch-size",
         .valueName = "n",
         .min = 1,
         .max = kInt32Max,
         MEMBER(loader.batchSize)},
        {.key = "loader.num_workers",
         .type = FieldType::Integer,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Workers"),
         .help = QT_TRANSLATE_NOOP("ConfigField", "Worker threads loading batches; 0 loads on the "
                                                  "model's thread (PyTorch's num_workers)."),
         .flag = "workers",
         .valueName = "n",
         .max = 1024,
         MEMBER(loader.numWorkers)},
        {.key = "loader.prefetch_factor",
         .type = FieldType::Integer,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Prefetch"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField",
             "Batches each worker may have loaded ahead of the model (PyTorch's prefetch_factor)."),
         .flag = "prefetch",
         .valueName = "n",
         .min = 1,
         .max = 1024,
         MEMBER(loader.prefetchFactor)},
        {.key = "loader.strategy",
         .type = FieldType::Choice,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Strategy"),
         .help = QT_TRANSLATE_NOOP("ConfigField",
                                   "Per-worker gives each batch whole to one worker like PyTorch; "
                                   "sample-parallel builds each batch with all workers."),
         .flag = "strategy",
         .valueName = "name",
         .choices = enumChoices(kStrategyNames),
         CHOICE_MEMBER(loader.strategy, strategyName, strategyFromName)},
        {.key = "loader.shuffle",
         .type = FieldType::Boolean,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Shuffle"),
         .help = QT_TRANSLATE_NOOP("ConfigField",
                                   "Visit the samples in a new random order every epoch (seeded)."),
         .flag = "shuffle",
         MEMBER(loader.shuffle)},
        {.key = "loader.seed",
         .type = FieldType::Unsigned,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Seed"),
         .help = QT_TRANSLATE_NOOP("ConfigField", "Seed of the shuffle and of random transforms."),
         .flag = "seed",
         .valueName = "n",
         MEMBER(loader.seed)},
        {.key = "loader.drop_last",
         .type = FieldType::Boolean,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Drop last"),
         .help = QT_TRANSLATE_NOOP("ConfigField",
                                   "Leave out the last batch of an epoch when it is incomplete."),
         .flag = "drop-last",
         MEMBER(loader.dropLast)},
        {.key = "loader.persistent_workers",
         .type = FieldType::Boolean,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Persistent workers"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField", "Keep the workers alive between epochs instead of starting new ones."),
         .flag = "persistent-workers",
         MEMBER(loader.persistentWorkers)},
        {.key = "loader.pin_memory",
         .type = FieldType::Boolean,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Pin memory"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField",
             "Copy batches into page-locked memory for faster transfers to the GPU."),
         .flag = "pin-memory",
         MEMBER(loader.pinMemory)},
        {.key = "loader.in_order",
         .type = FieldType::Boolean,
         .label = QT_TRANSLATE_NOOP("ConfigField", "In order"),
         .help = QT_TRANSLATE_NOOP("ConfigField",
                                   "Deliver batches in order; off hands over whichever batch is "
                                   "ready first (in_order=False)."),
         .flag = "out-of-order",
         .flagSetsFalse = true,
         MEMBER(loader.inOrder)},
        {.key = "loader.bad_samples",
         .type = FieldType::Choice,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Bad samples"),
         .help = QT_TRANSLATE_NOOP("ConfigField", "What happens to a sample that cannot be read: "
                                                  "skip it (and record why) or fail the run."),
         .flag = "bad-samples",
         .valueName = "policy",
         .choices = enumChoices(kBadSamplePolicyNames),
         CHOICE_MEMBER(loader.badSamples, badSamplePolicyName, badSamplePolicyFromName)},
        // consumer
        {.key = "consumer.kind",
         .type = FieldType::Choice,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Model step"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField",
             "What the run does with each batch: nothing, a simulated step, or a LibTorch model."),
         .flag = "consumer",
         .valueName = "kind",
         .choices = enumChoices(kConsumerKindNames),
         CHOICE_MEMBER(consumer.kind, consumerKindName, consumerKindFromName)},
        {.key = "consumer.sleep_per_batch_ms",
         .type = FieldType::Number,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Step per batch"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField", "Simulated model step: milliseconds per batch, whatever its size."),
         .flag = "sleep-batch-ms",
         .valueName = "ms",
         .max = kMaxSleepMs,
         MEMBER(consumer.sleepPerBatchMs)},
        {.key = "consumer.sleep_per_sample_ms",
         .type = FieldType::Number,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Step per sample"),
         .help = QT_TRANSLATE_NOOP("ConfigField",
                                   "Simulated model step: milliseconds per sample of a batch."),
         .flag = "sleep-sample-ms",
         .valueName = "ms",
         .max = kMaxSleepMs,
         MEMBER(consumer.sleepPerSampleMs)},
        {.key = "consumer.model.name",
         .type = FieldType::Text,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Model"),
         .help = QT_TRANSLATE_NOOP("ConfigField", "Built-in LibTorch model: resnet18, resnet50, "
                                                  "mobilenet_v2, efficientnet_v2_s, vit_b_16, ..."),
         .flag = "model",
         .valueName = "name",
         MEMBER(consumer.model.name)},
        {.key = "consumer.model.script",
         .type = FieldType::Path,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Model file"),
         .help = QT_TRANSLATE_NOOP("ConfigField",
                                   "A TorchScript file to run instead of a built-in model."),
         .flag = "model-file",
         .valueName = "file",
         MEMBER(consumer.model.scriptPath)},
        {.key = "consumer.model.mode",
         .type = FieldType::Choice,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Mode"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField",
             "Inference (forward only) or a training step (forward, backward, optimizer)."),
         .flag = "mode",
         .valueName = "mode",
         .choices = enumChoices(kModelModeNames),
         CHOICE_MEMBER(consumer.model.mode, modelModeName, modelModeFromName)},
        {.key = "consumer.model.device",
         .type = FieldType::Text,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Device"),
         .help = QT_TRANSLATE_NOOP("ConfigField", "Where the model runs: cpu, cuda or cuda:N."),
         .flag = "device",
         .valueName = "device",
         MEMBER(consumer.model.device),
         .check = checkDevice},
        {.key = "consumer.model.precision",
         .type = FieldType::Choice,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Precision"),
         .help = QT_TRANSLATE_NOOP("ConfigField",
                                   "fp32, or bf16 / fp16 autocast (fp16 on CUDA only)."),
         .flag = "precision",
         .valueName = "p",
         .choices = enumChoices(kModelPrecisionNames),
         CHOICE_MEMBER(consumer.model.precision, modelPrecisionName, modelPrecisionFromName)},
        {.key = "consumer.model.channels_last",
         .type = FieldType::Boolean,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Channels last"),
         .help = QT_TRANSLATE_NOOP("ConfigField",
                                   "Model and input in channels-last memory format."),
         .flag = "channels-last",
         MEMBER(consumer.model.channelsLast)},
        {.key = "consumer.model.threads",
         .type = FieldType::Integer,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Threads"),
         .help = QT_TRANSLATE_NOOP("ConfigField", "Intra-op threads of the model; 0 = all cores."),
         .flag = "threads",
         .valueName = "n",
         .max = 1024,
         MEMBER(consumer.model.threads)},
        {.key = "consumer.model.checkpointing",
         .type = FieldType::Boolean,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Checkpointing"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField",
             "Activation checkpointing per stage (training step): less memory, more time."),
         .flag = "checkpointing",
         MEMBER(consumer.model.checkpointing)},
        {.key = "consumer.model.optimizer",
         .type = FieldType::Choice,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Optimizer"),
         .help = QT_TRANSLATE_NOOP("ConfigField", "Optimizer of the training step."),
         .flag = "optimizer",
         .valueName = "name",
         .choices = {"sgd", "adam"},
         MEMBER(consumer.model.optimizer)},
        {.key = "consumer.model.learning_rate",
         .type = FieldType::Number,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Learning rate"),
         .help = QT_TRANSLATE_NOOP("ConfigField", "Learning rate of the training step."),
         .flag = "lr",
         .valueName = "x",
         .max = 1e6,
         .minExclusive = true,
         MEMBER(consumer.model.learningRate)},
        {.key = "consumer.model.num_classes",
         .type = FieldType::Integer,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Classes"),
         .help = QT_TRANSLATE_NOOP("ConfigField", "Model outputs; labels are taken modulo this."),
         .flag = "num-classes",
         .valueName = "n",
         .min = 1,
         .max = 1'000'000,
         MEMBER(consumer.model.numClasses)},
        // the run
        {.key = "epochs",
         .type = FieldType::Integer,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Epochs"),
         .help = QT_TRANSLATE_NOOP("ConfigField", "Epochs to run; 0 = until stopped or a limit."),
         .flag = "epochs",
         .valueName = "n",
         .max = kInt32Max,
         MEMBER(epochs)},
        {.key = "max_batches",
         .type = FieldType::Integer,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Batch limit"),
         .help = QT_TRANSLATE_NOOP("ConfigField", "Stop after this many batches; 0 = no limit."),
         .flag = "batches",
         .valueName = "n",
         .max = kInt53Max,
         MEMBER(maxBatches)},
        {.key = "max_seconds",
         .type = FieldType::Number,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Time limit"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField",
             "Stop after this many seconds, also during a long model step; 0 = no limit."),
         .flag = "seconds",
         .valueName = "s",
         .max = 1e9,
         MEMBER(maxSeconds)},
        {.key = "warmup_batches",
         .type = FieldType::Integer,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Warm-up"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField", "Batches at the start left out of the throughput and wait figures."),
         .flag = "warmup",
         .valueName = "n",
         .max = kInt32Max,
         MEMBER(warmupBatches)},
        {.key = "replay_batches",
         .type = FieldType::Integer,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Replay"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField",
             "After this many batches, stop loading and run the step on those batches, kept "
             "in memory, for the rest of the run: the speed with free loading. 0 = off."),
         .flag = "replay",
         .valueName = "n",
         .max = kReplayBatchesMax,
         MEMBER(replayBatches)},
        {.key = "memory_budget_mb",
         .type = FieldType::Integer,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Memory budget"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField",
             "Host memory a run may plan to use, in MiB; a setting estimated to need more is "
             "refused before it starts. 0 = the default share of this machine's memory."),
         .flag = "memory-budget",
         .valueName = "MiB",
         .max = kInt53Max,
         MEMBER(memoryBudgetMb)},
    };
}

const std::vector<ConfigField> &table()
{
    static const std::vector<ConfigField> fields = [] {
        std::vector<ConfigField> all = ownFields();
        const std::vector<ConfigField> devices = configtable::dataParallelFields();
        all.insert(all.end(), devices.begin(), devices.end());
        return all;
    }();
    return fields;
}

} // namespace

std::span<const ConfigField> configFields()
{
    return table();
}

const ConfigField *configObjectEntry(const ConfigField &object)
{
    // One entry row per Object field; its get and set are those of the object,
    // by the entry's name (config_fields.cpp).
    static const ConfigField pipelineArgument{
        .key = "dataset.args.*",
        .type = FieldType::Scalar,
        .label = QT_TRANSLATE_NOOP("ConfigField", "Pipeline argument"),
        .help = QT_TRANSLATE_NOOP("ConfigField", "One name of dataset.args and its value."),
    };
    return object.key == "dataset.args" ? &pipelineArgument : nullptr;
}

} // namespace loaderlab
