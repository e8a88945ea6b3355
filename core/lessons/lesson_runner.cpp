#include "core/lessons/lesson_runner.h"

#include "core/dataset/tensor_file_dataset.h"
#include "core/engine/run_service.h"
#include "core/image/image_decoder.h"
#include "core/image/image_folder_dataset.h"
#include "core/tools/default_dataset.h"
#include "core/tools/preprocess.h"

#include <filesystem>
#include <functional>
#include <stdexcept>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace loaderlab {
namespace {

namespace fs = std::filesystem;

std::int64_t bytesOnDisk(const std::string &path)
{
    std::error_code ec;
    if (fs::is_regular_file(path, ec))
        return static_cast<std::int64_t>(fs::file_size(path, ec));
    std::int64_t total = 0;
    for (auto it = fs::recursive_directory_iterator(path, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec))
            total += static_cast<std::int64_t>(it->file_size(ec));
    }
    return total;
}

// The mean pixels of a sample as the data holds it: an image folder's images as
// stored (the headers of up to 32 files spread over the folder; no pixel decoded), a
// tensor file's samples; 0 for other kinds, or where none could be read.
double storedPixelsPerSample(const DatasetConfig &dataset)
{
    try {
        if (dataset.kind == DatasetKind::TensorFile) {
            const SampleShape shape = TensorFileDataset(dataset.path).sampleShape();
            return static_cast<double>(shape.height) * shape.width;
        }
        if (dataset.kind != DatasetKind::ImageFolder)
            return 0.0;
        const ImageFolderDataset folder(dataset);
        const auto &entries = folder.entries();
        constexpr std::size_t kFiles = 32;
        const std::size_t stride = std::max<std::size_t>(1, entries.size() / kFiles);
        std::vector<std::uint8_t> bytes;
        double pixels = 0.0;
        int counted = 0;
        for (std::size_t i = 0; i < entries.size() && counted < int{kFiles}; i += stride) {
            try {
                readImageFile(entries[i].path, DecodeLimits{}.maxFileBytes, bytes);
                const ImageHeaderInfo header = parseImageHeader(bytes, entries[i].path);
                pixels += static_cast<double>(header.width) * header.height;
                ++counted;
            } catch (const std::exception &) {
                // a corrupt image: the run skips it, and so does the mean
            }
        }
        return counted > 0 ? pixels / counted : 0.0;
    } catch (const std::exception &) {
        return 0.0; // no data to measure: the run says why
    }
}

} // namespace

std::string lessonTensorFile(const std::string &folder,
                             const std::function<void(const std::string &)> &note,
                             std::stop_token stop)
{
    const std::string canonical = fs::weakly_canonical(folder).string();
    const auto tag = std::hash<std::string>{}(canonical) % 1'000'000'007ULL;
    const fs::path file = fs::path(cacheDirectory()) / "lessons"
                          / (fs::path(canonical).filename().string() + "-" + std::to_string(tag)
                             + ".u8.tensor");
    if (fs::exists(file))
        return file.string();
    fs::create_directories(file.parent_path());
    if (note)
        note("preparing the tensor file " + file.string() + " from " + canonical);
    PreprocessOptions options;
    options.dtype = DType::UInt8;
    // Thrown from the progress callback: preprocessImageFolder then stops its workers
    // and its writer removes the unfinished file.
    preprocessImageFolder(
        canonical, file.string(), options, [&stop, &file](std::int64_t, std::int64_t) {
            if (stop.stop_requested())
                throw std::runtime_error(file.string() + ": preparing the tensor file stopped");
        });
    return file.string();
}

LessonPhaseResult lessonPhaseResult(std::string label, const RunConfig &config,
                                    std::vector<TraceRecord> records, const RunSummary &summary)
{
    LessonPhaseResult r;
    r.label = std::move(label);
    r.config = config;
    r.summary = summary;
    // The first round (one batch per worker) starts together, and a new loader's first
    // fill faults its buffers in: the pattern is read after both.
    r.waits = analyzeWaits(
        records, std::max(1, config.loader.numWorkers),
        loaderFirstFillBatches(config.loader.numWorkers, config.loader.prefetchFactor));
    r.records = std::move(records);
    if (!config.dataset.path.empty()) {
        r.datasetBytes = bytesOnDisk(config.dataset.path);
        r.storedPixels = storedPixelsPerSample(config.dataset);
    }
    return r;
}

std::string lessonEngineProblem(const Lesson &lesson, const RunConfig &base)
{
    for (std::size_t i = 0; i < lesson.phases.size(); ++i) {
        if (const std::string why = engineProblem(lessonPhaseConfig(lesson, base, i)); !why.empty())
            return "phase '" + lesson.phases[i].label + "': " + why;
    }
    return {};
}

std::vector<LessonPhaseResult>
runLesson(const Lesson &lesson, const RunConfig &base, std::stop_token stop,
          const std::function<void(const LessonProgress &)> &onProgress, const LessonSetup &setup)
{
    if (const std::string why = lessonEngineProblem(lesson, base); !why.empty())
        throw std::invalid_argument("lesson " + lesson.name + " on the "
                                    + engineKindName(base.engine) + " engine: " + why);
    std::vector<LessonPhaseResult> results;
    std::string folder;
    for (std::size_t i = 0; i < lesson.phases.size(); ++i) {
        if (stop.stop_requested())
            break;
#if defined(__GLIBC__)
        // The phase before has ended and its run (model, activations) is freed: hand
        // the heap back to the system, so this phase's peak resident memory
        // (model-trade compares them) starts where the first one did, not from what
        // the allocator kept.
        if (i > 0)
            malloc_trim(0);
#endif
        RunConfig config = lessonPhaseConfig(lesson, base, i, setup);
        LessonProgress progress;
        progress.phase = i;
        progress.step = &lesson.phases[i];
        const auto note = [&](const std::string &text) {
            progress.note = text;
            if (onProgress)
                onProgress(progress);
            progress.note.clear();
        };
        if (config.dataset.kind == DatasetKind::ImageFolder) {
            if (config.dataset.path.empty())
                config.dataset.path = ensureDefaultImageFolder();
            folder = config.dataset.path;
        } else if (config.dataset.kind == DatasetKind::TensorFile && lesson.needsTensorFile) {
            config.dataset.path = lessonTensorFile(
                folder.empty() ? ensureDefaultImageFolder() : folder, note);
        }
        // Said before the phase, from the phases that ran: the window shows it with
        // the next step, the command line before the phase's figures.
        LessonBriefing briefing;
        if (lesson.briefing && i > 0)
            briefing = lesson.briefing(results, config);
        progress.briefing = briefing.text.empty() ? nullptr : &briefing;
        if (onProgress)
            onProgress(progress);
        progress.briefing = nullptr;
        RunService service;
        service.start(config);
        std::stop_callback stopRun(stop, [&service] { service.stop(); });
        service.wait();
        if (stop.stop_requested())
            break;
        const RunReport report = service.report();
        LessonPhaseResult result = lessonPhaseResult(
            lesson.phases[i].label, config, service.engine().trace()->records(), report.summary);
        if (service.state() == RunState::Failed)
            result.error = report.error;
        // Predict-then-watch counts the other programs that took cores meanwhile.
        result.load = report.machineLoad;
        result.briefing = std::move(briefing);
        results.push_back(std::move(result));
        progress.result = &results.back();
        if (onProgress)
            onProgress(progress);
    }
    return results;
}

} // namespace loaderlab
