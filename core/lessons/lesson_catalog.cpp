// The lessons: what each one shows, its preset and its phases. The settings are
// chosen so that on a small machine (2 cores) the pattern shows within seconds on
// the default dataset; a lesson whose verdict depends on the step against the
// loader (Lesson::setup) chooses its step on the chosen data before its first phase
// (lesson_setup.h), and the verdicts say so when the pattern does not show.
#include "core/lessons/lesson.h"

#include "core/config/config_fields.h"

#include <algorithm>
#include <thread>

// Marks the texts the window shows for lupdate (context "Lesson"); the window
// translates them (widgets/lessons/lesson_panel.cpp), the command line keeps them English.
#define QT_TRANSLATE_NOOP(scope, text) text

namespace loaderlab {
namespace {

using Changes = std::vector<std::pair<std::string, nlohmann::json>>;

// The user's image folder, pipeline file or (where `tensorFile` allows it) tensor
// file, or else the default dataset (its path is filled in when the lesson runs).
void onUserData(RunConfig &c, bool tensorFile)
{
    const DatasetKind kind = c.dataset.kind;
    if (kind != DatasetKind::ImageFolder && kind != DatasetKind::Python
        && !(tensorFile && kind == DatasetKind::TensorFile)) {
        c.dataset.kind = DatasetKind::ImageFolder;
        c.dataset.path.clear();
    }
    c.epochs = 0; // the phase's batch count ends it
    c.loader.strategy = Strategy::PerWorkerBatch;
}

// `tensorFile`: the phases can run on a tensor file of the user's; false for a
// lesson that compares an image folder with the tensor file made from it.
std::function<void(RunConfig &)> loaderPreset(int workers, int batch, double sleepMs,
                                              bool tensorFile = true)
{
    return [=](RunConfig &c) {
        onUserData(c, tensorFile);
        c.loader.numWorkers = workers;
        c.loader.batchSize = batch;
        c.consumer.kind = sleepMs > 0 ? ConsumerKind::Sleep : ConsumerKind::None;
        c.consumer.sleepPerBatchMs = sleepMs;
    };
}

LessonPhase phase(std::string label, std::string instruction, Changes changes, std::int64_t batches)
{
    return {std::move(label), std::move(instruction), std::move(changes), batches};
}

// `pattern` with its %1 replaced by `n`: the window finds the pattern's translation
// by putting %1 back where the number is.
std::string numbered(const char *pattern, int n)
{
    std::string text = pattern;
    text.replace(text.find("%1"), 2, std::to_string(n));
    return text;
}

std::vector<Lesson> makeLessons()
{
    const int cores = std::max(1U, std::thread::hardware_concurrency());
    std::vector<Lesson> all;
    all.push_back(
        {"first-batch",
         QT_TRANSLATE_NOOP("Lesson", "The first batch waits longest"),
         QT_TRANSLATE_NOOP(
             "Lesson",
             "Before the first step every worker starts with an empty queue, so the first "
             "batch waits for a whole batch to be read, decoded and transformed. After "
             "that the workers build the next batches while the model steps."),
         QT_TRANSLATE_NOOP("Lesson", "In the wait plot, batch 0 towers over every later batch."),
         loaderPreset(2, 32, 60.0),
         {phase(QT_TRANSLATE_NOOP("Lesson", "2 workers, batch 32"), "", {}, 30)},
         firstBatchVerdict});
    all.push_back(
        {"spikes-every-w",
         QT_TRANSLATE_NOOP("Lesson", "With W workers the wait spikes every W batches"),
         QT_TRANSLATE_NOOP(
             "Lesson", "Each worker builds whole batches, and the workers start together: a round "
                       "of W batches arrives almost at once, the consumer takes them one after "
                       "another, and then waits for the next round."),
         QT_TRANSLATE_NOOP("Lesson",
                           "Spikes in the wait plot every W batches, following W when it changes."),
         loaderPreset(2, 32, 10.0),
         {phase(QT_TRANSLATE_NOOP("Lesson", "2 workers"), "", {}, 60),
          phase(QT_TRANSLATE_NOOP("Lesson", "3 workers"),
                QT_TRANSLATE_NOOP("Lesson", "Now set workers to 3."), {{"loader.num_workers", 3}},
                60)},
         periodVerdict});
    // The step is chosen on the chosen data (lesson_setup.h): shorter than the
    // loader's time per batch with 3 workers, so the loader stays the limit.
    all.back().setup = {StepNeed::LoaderLimits, 1, true};
    all.push_back(
        {"slow-model",
         QT_TRANSLATE_NOOP("Lesson", "A slow model hides loading"),
         QT_TRANSLATE_NOOP(
             "Lesson", "When the step takes longer than loading a batch, the workers finish the "
                       "next batches while the step runs: only the first batch waits."),
         QT_TRANSLATE_NOOP("Lesson", "One wait at batch 0, then (almost) none."),
         loaderPreset(2, 32, 150.0),
         {phase(QT_TRANSLATE_NOOP("Lesson", "2 workers, a slow step"), "", {}, 25)},
         slowModelVerdict});
    all.back().setup = {StepNeed::StepHides, 0, false};
    all.push_back(
        {"bigger-batches",
         QT_TRANSLATE_NOOP("Lesson", "Bigger batches: higher spikes, a slower first batch"),
         QT_TRANSLATE_NOOP(
             "Lesson",
             "A worker delivers a batch only when all of its samples are done: more "
             "samples per batch means a longer wait for the first one and higher spikes."),
         QT_TRANSLATE_NOOP("Lesson", "The first wait and the spikes grow with the batch size."),
         loaderPreset(2, 16, 10.0),
         {phase(QT_TRANSLATE_NOOP("Lesson", "batch 16"), "", {}, 96),
          phase(QT_TRANSLATE_NOOP("Lesson", "batch 128"),
                QT_TRANSLATE_NOOP("Lesson", "Now set the batch size to 128."),
                {{"loader.batch_size", 128}}, 12)},
         biggerBatchVerdict});
    Lesson tensors{
        "tensors-vs-jpeg",
        QT_TRANSLATE_NOOP("Lesson", "Preprocessed tensors load faster than JPEGs five times "
                                    "smaller"),
        QT_TRANSLATE_NOOP(
            "Lesson",
            "Decoding and resizing a JPEG costs far more than reading its bytes. A tensor "
            "file holds the images already decoded, resized and cropped (uint8): several "
            "times the bytes, much less work per sample."),
        QT_TRANSLATE_NOOP("Lesson",
                          "More samples/s from the tensor file than from the JPEG folder."),
        loaderPreset(2, 32, 0.0, false),
        {phase(QT_TRANSLATE_NOOP("Lesson", "JPEG folder"), "", {}, 60),
         phase(
             QT_TRANSLATE_NOOP("Lesson", "tensor file"),
             QT_TRANSLATE_NOOP("Lesson", "Now switch the dataset to the preprocessed tensor file."),
             {{"dataset.kind", "tensor"}}, 60)},
        tensorVerdict};
    tensors.needsTensorFile = true;
    all.push_back(std::move(tensors));
    all.push_back(
        {"zero-vs-one-worker",
         QT_TRANSLATE_NOOP("Lesson", "0 workers vs 1 worker"),
         QT_TRANSLATE_NOOP(
             "Lesson", "With 0 workers the step's own thread loads every batch, so the load time "
                       "adds to every step. One worker loads the next batch while the step runs."),
         QT_TRANSLATE_NOOP("Lesson",
                           "Long waits on every batch with 0 workers, almost none with 1."),
         loaderPreset(0, 16, 60.0),
         {phase(QT_TRANSLATE_NOOP("Lesson", "0 workers"), "", {}, 40),
          phase(QT_TRANSLATE_NOOP("Lesson", "1 worker"),
                QT_TRANSLATE_NOOP("Lesson", "Now set workers to 1."), {{"loader.num_workers", 1}},
                40)},
         zeroWorkerVerdict});
    // The step hides one worker's loading: 0 workers then wait for every batch, 1
    // worker for none.
    all.back().setup = {StepNeed::StepHides, 1, false};
    all.push_back(
        {"more-workers-than-cores",
         QT_TRANSLATE_NOOP("Lesson", "More workers than cores"),
         QT_TRANSLATE_NOOP(
             "Lesson",
             "Decoding is CPU work: past one worker per core the workers only take turns."),
         QT_TRANSLATE_NOOP("Lesson", "Samples/s stops growing at the number of cores."),
         // Persistent workers: on a small folder (epochs of a few batches) each epoch's
         // restart would be idle time that more workers overlap, not decoding.
         [preset = loaderPreset(cores, 32, 0.0)](RunConfig &c) {
             preset(c);
             c.loader.persistentWorkers = true;
         },
         {phase(numbered(QT_TRANSLATE_NOOP("Lesson", "%1 workers (one per core)"), cores), "", {},
                60),
          phase(numbered(QT_TRANSLATE_NOOP("Lesson", "%1 workers"), 2 * cores),
                QT_TRANSLATE_NOOP("Lesson", "Now double the workers."),
                {{"loader.num_workers", 2 * cores}}, 60),
          phase(numbered(QT_TRANSLATE_NOOP("Lesson", "%1 workers"), 4 * cores),
                QT_TRANSLATE_NOOP("Lesson", "Now double them again."),
                {{"loader.num_workers", 4 * cores}}, 60),
          // The first setting again: how far two phases of one setting differ is the
          // spread a gain must beat before it counts.
          phase(numbered(QT_TRANSLATE_NOOP("Lesson", "%1 workers again"), cores),
                QT_TRANSLATE_NOOP("Lesson",
                                  "Now go back to one worker per core: the same setting twice "
                                  "shows how much phases this short differ by chance."),
                {{"loader.num_workers", cores}}, 60)},
         oversubscribedVerdict});
    all.push_back(
        {"sample-parallel",
         QT_TRANSLATE_NOOP("Lesson", "Sample-parallel loading removes the spikes"),
         QT_TRANSLATE_NOOP(
             "Lesson", "If every worker builds a part of each batch, batches arrive one at a time, "
                       "evenly, instead of in rounds of W."),
         QT_TRANSLATE_NOOP("Lesson", "The spikes every W batches flatten out."),
         loaderPreset(2, 32, 10.0),
         {phase(QT_TRANSLATE_NOOP("Lesson", "batch per worker"), "", {}, 60),
          phase(QT_TRANSLATE_NOOP("Lesson", "sample-parallel"),
                QT_TRANSLATE_NOOP("Lesson", "Now set the strategy to sample-parallel."),
                {{"loader.strategy", "sample-parallel"}}, 60)},
         sampleParallelVerdict});
    all.back().setup = {StepNeed::LoaderLimits, 0, true};
    // The loader the limit with 1 worker (the set-up chooses the step on the chosen
    // data), so the second worker changes the rate, and the model says by how much
    // before it runs.
    Lesson predict{
        "predict-then-watch",
        QT_TRANSLATE_NOOP("Lesson", "Predict, then watch"),
        QT_TRANSLATE_NOOP(
            "Lesson",
            "LoaderLab's loader model replays the loader from the costs of one run: what a "
            "sample costs to load, collating, handing a batch over, the step, the workers' "
            "start. When the first phase ends, the model is calibrated on its trace and "
            "predicts the next setting before it runs; the second phase then measures it."),
        QT_TRANSLATE_NOOP("Lesson", "The prediction before the step, then the measured "
                                    "samples/s within 15 % of it."),
        loaderPreset(1, 32, 10.0),
        {phase(QT_TRANSLATE_NOOP("Lesson", "1 worker"), "", {}, 40),
         phase(QT_TRANSLATE_NOOP("Lesson", "2 workers"),
               QT_TRANSLATE_NOOP("Lesson", "Now set workers to 2."), {{"loader.num_workers", 2}},
               40)},
        predictionVerdict};
    predict.briefing = predictionBriefing;
    // Loader-limited with 2 workers, so with 1 too: each worker changes the rate.
    predict.setup = {StepNeed::LoaderLimits, 1, false};
    all.push_back(std::move(predict));
    // The preset is one where checkpointing's trade shows on a 2-core CPU: resnet50
    // training at 3x128x128, batch 32, where activations dominate the step's memory
    // (docs/lessons.md has the figures). At resnet18, 3x64x64, batch 16 they do not:
    // checkpointing used more peak memory than fp32 there.
    Lesson model{
        "model-trade",
        QT_TRANSLATE_NOOP("Lesson", "bf16, channels-last and checkpointing trade time and memory"),
        QT_TRANSLATE_NOOP(
            "Lesson",
            "Lower precision, another memory layout and activation checkpointing change "
            "how long a training step takes and how much memory it needs, by amounts that "
            "depend on the hardware. Checkpointing keeps only each stage's input and "
            "recomputes the rest in the backward pass: less memory for more time, where "
            "activations are a large part of the memory."),
        QT_TRANSLATE_NOOP(
            "Lesson",
            "Step time and peak memory per setting, against float32; checkpointing slower "
            "but with a lower peak."),
        [](RunConfig &c) {
            c.dataset.kind = DatasetKind::Synthetic;
            c.dataset.syntheticShape = {3, 128, 128};
            c.dataset.syntheticSamples = 512;
            c.epochs = 0;
            c.warmupBatches = 2; // the first steps allocate; the steps after are timed
            c.loader.numWorkers = 1;
            c.loader.batchSize = 32;
            c.consumer.kind = ConsumerKind::Model;
            c.consumer.model.name = "resnet50";
            c.consumer.model.mode = ModelMode::Train;
            c.consumer.model.numClasses = 10;
        },
        {phase("float32", "", {}, 6),
         phase("bf16", QT_TRANSLATE_NOOP("Lesson", "Now set the precision to bf16."),
               {{"consumer.model.precision", "bf16"}}, 6),
         phase("channels-last",
               QT_TRANSLATE_NOOP("Lesson", "Now back to fp32, with channels-last."),
               {{"consumer.model.channels_last", true}}, 6),
         phase(QT_TRANSLATE_NOOP("Lesson", "checkpointing"),
               QT_TRANSLATE_NOOP("Lesson", "Now fp32 with activation checkpointing."),
               {{"consumer.model.checkpointing", true}}, 6)},
        modelTradeVerdict};
    model.needsModel = true;
    all.push_back(std::move(model));
    // The notes' 4 GPUs that gave 3.5x: ranks that all-reduce a real model's gradient
    // (ResNet-18's 11.7 M float32 parameters, 46.8 MB) after a 50 ms step. Synthetic
    // samples, so that loading stays out of the way and the exchange shows.
    Lesson devices{
        "more-devices",
        QT_TRANSLATE_NOOP("Lesson", "More devices, less than linear"),
        QT_TRANSLATE_NOOP(
            "Lesson",
            "Data-parallel ranks each load and step their share of the batches at once, then "
            "wait for the slowest of them and all-reduce the gradient before the next step. "
            "That part does not shrink with more ranks: N ranks give less than N times the "
            "samples/s."),
        QT_TRANSLATE_NOOP("Lesson",
                          "Samples/s grows by less than the number of ranks; the rank time "
                          "shows where the rest went."),
        [](RunConfig &c) {
            c.dataset.kind = DatasetKind::Synthetic;
            c.dataset.syntheticShape = {3, 64, 64};
            c.dataset.syntheticSamples = 100000;
            c.epochs = 0;
            c.loader.numWorkers = 1;
            c.loader.batchSize = 32;
            c.consumer.kind = ConsumerKind::Sleep;
            c.consumer.sleepPerBatchMs = 50.0;
            c.devices = 1;
            c.syncDevices = true;
            c.gradientMb = 46.8;
        },
        {phase(QT_TRANSLATE_NOOP("Lesson", "1 rank"), "", {}, 60),
         phase(numbered(QT_TRANSLATE_NOOP("Lesson", "%1 ranks"), 2),
               QT_TRANSLATE_NOOP("Lesson", "Now use 2 devices."), {{"devices", 2}}, 80),
         phase(numbered(QT_TRANSLATE_NOOP("Lesson", "%1 ranks"), 4),
               QT_TRANSLATE_NOOP("Lesson", "Now use 4 devices."), {{"devices", 4}}, 120)},
        devicesVerdict};
    devices.needsModel = true; // the gradient exchange is LibTorch's (c10d)
    all.push_back(std::move(devices));
    all.push_back(
        {"what-limits",
         QT_TRANSLATE_NOOP("Lesson", "What is the limit here?"),
         QT_TRANSLATE_NOOP(
             "Lesson",
             "A job runs at the speed of its slowest stage: the loader or the step. The lesson "
             "runs your settings, keeps the first batches, then stops loading and runs the step "
             "on the kept batches: the step alone, with a loader that costs nothing. The gap "
             "between the two rates is what loading costs, and the second rate is the next "
             "ceiling once the loader is lifted."),
         QT_TRANSLATE_NOOP("Lesson",
                           "At the replay marker the waits drop to 0 and the workers go idle; "
                           "samples/s jumps if the loader was the limit, and stays if the "
                           "step was."),
         [](RunConfig &c) {
             onUserData(c, true);
             // Keep the user's step; with none, a 20 ms one (a step of 0 has no rate).
             if (c.consumer.kind == ConsumerKind::None) {
                 c.consumer.kind = ConsumerKind::Sleep;
                 c.consumer.sleepPerBatchMs = 20.0;
             }
             c.replayBatches = 30;
         },
         {phase(QT_TRANSLATE_NOOP("Lesson", "Your settings, then loading made free"), "", {}, 90)},
         limitVerdict});
    return all;
}

} // namespace

const std::vector<Lesson> &lessons()
{
    static const std::vector<Lesson> all = makeLessons();
    return all;
}

const Lesson *findLesson(const std::string &name)
{
    for (const Lesson &l : lessons()) {
        if (l.name == name)
            return &l;
    }
    return nullptr;
}

RunConfig lessonPhaseConfig(const Lesson &lesson, const RunConfig &base, std::size_t phase,
                            const LessonSetup &setup)
{
    RunConfig c = base;
    if (lesson.preset)
        lesson.preset(c);
    for (const auto &[key, value] : setup.changes)
        setConfigField(c, key, value);
    // The user's settings win over the preset and the set-up; the keys the phases
    // change are the lesson's guided steps.
    bool userStep = false;
    for (const auto &setting : setup.userSettings) {
        // Not a structured binding: clang 14 (CI's ASan build) cannot capture one.
        const std::string &key = setting.first;
        const nlohmann::json &value = setting.second;
        const bool stepKey = std::any_of(
            lesson.phases.begin(), lesson.phases.end(), [&key](const LessonPhase &p) {
                return std::any_of(p.changes.begin(), p.changes.end(),
                                   [&key](const auto &change) { return change.first == key; });
            });
        if (stepKey)
            continue;
        setConfigField(c, key, value);
        userStep = userStep || key == "consumer.sleep_per_batch_ms";
    }
    // A simulated step's time chooses it (as `loaderlab run --sleep-batch-ms` does),
    // unless the user named the kind of step.
    const bool kindSet = std::any_of(setup.userSettings.begin(), setup.userSettings.end(),
                                     [](const auto &s) { return s.first == "consumer.kind"; });
    if ((userStep || !setup.changes.empty()) && !kindSet && c.consumer.kind != ConsumerKind::Model)
        c.consumer.kind = c.consumer.sleepPerBatchMs > 0 ? ConsumerKind::Sleep : ConsumerKind::None;
    // Each phase's changes are relative to the preset, not to the phase before.
    for (const auto &[key, value] : lesson.phases.at(phase).changes)
        setConfigField(c, key, value);
    c.maxBatches = lesson.phases.at(phase).batches;
    return c;
}

} // namespace loaderlab
