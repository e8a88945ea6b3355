#include "core/limits/ceilings.h"

#include "core/engine/engine.h"
#include "core/limits/ceiling_lifts.h"
#include "core/limits/ceiling_probes.h"
#include "core/loader/open_dataset.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace loaderlab {
namespace {

constexpr CeilingKind kLoaderStages[] = {CeilingKind::Storage, CeilingKind::Decode,
                                         CeilingKind::Handover};

// 12345.6 -> "12,346".
std::string samplesText(double samplesPerSecond)
{
    char digits[32];
    const int n = std::snprintf(digits, sizeof digits, "%.0f", samplesPerSecond);
    std::string text;
    for (int i = 0; i < n; ++i) {
        if (i > 0 && (n - i) % 3 == 0 && digits[i - 1] != '-')
            text.push_back(',');
        text.push_back(digits[i]);
    }
    return text;
}

std::string stageWords(const Ceiling &c, const CeilingReport &r)
{
    char cores[48];
    std::snprintf(cores, sizeof cores, "%.1f", r.freeCores);
    switch (c.kind) {
    case CeilingKind::Storage:
        return "reading the data";
    case CeilingKind::Decode:
        return std::string("the decode on ") + cores + " free cores";
    case CeilingKind::Handover:
        return "the loader's hand-over";
    case CeilingKind::Step:
        return "the step";
    case CeilingKind::Preprocessed:
        return "preprocessed tensors";
    }
    return {};
}

} // namespace

const char *ceilingKindName(CeilingKind kind)
{
    switch (kind) {
    case CeilingKind::Storage:
        return "storage";
    case CeilingKind::Decode:
        return "decode";
    case CeilingKind::Handover:
        return "hand-over";
    case CeilingKind::Step:
        return "step";
    case CeilingKind::Preprocessed:
        return "preprocessed";
    }
    return "?";
}

const Ceiling *CeilingReport::find(CeilingKind kind) const
{
    for (const Ceiling &c : ceilings)
        if (c.kind == kind)
            return &c;
    return nullptr;
}

const Ceiling *CeilingReport::loaderBinding() const
{
    const Ceiling *lowest = nullptr;
    for (CeilingKind kind : kLoaderStages) {
        const Ceiling *c = find(kind);
        if (c && c->measured() && (!lowest || c->samplesPerSecond < lowest->samplesPerSecond))
            lowest = c;
    }
    return lowest;
}

const Ceiling *CeilingReport::jobBinding() const
{
    const Ceiling *loader = loaderBinding();
    const Ceiling *step = find(CeilingKind::Step);
    if (step && step->measured() && (!loader || step->samplesPerSecond < loader->samplesPerSecond))
        return step;
    return loader;
}

namespace {

// The ceilings of a dataset LoaderLab reads itself (every kind but a pipeline file).
CeilingReport measureDatasetCeilings(const RunConfig &config, const CeilingOptions &options)
{
    const bool pytorch = config.engine == EngineKind::PyTorch;
    const DatasetPtr dataset = openDataset(config.dataset);
    CeilingReport report;
    report.dataset = dataset->description();
    ProbeProgress next(options);
    const double t = options.secondsEach;
    if (next(CeilingKind::Storage))
        report.ceilings.push_back(probeStorage(*dataset, t, options.stop));
    FreeCores free;
    double perCore = 0.0;
    if (next(CeilingKind::Decode)) {
        // LoaderLab's rate a core: what the preprocessing below is sized by, and beside
        // PyTorch's decode for that engine (whose probe needs only the free cores).
        if (pytorch) {
            perCore = probeDecodeAlone(*dataset, t / 2, options.stop, free);
            report.ceilings.push_back(probePytorchDecode(config, t, options.stop, free, perCore));
        } else {
            report.ceilings.push_back(probeDecode(*dataset, t, options.stop, free));
            perCore = free.free > 0.0 ? report.ceilings.back().samplesPerSecond / free.free : 0.0;
        }
        report.cores = free.cores;
        report.freeCores = free.free;
    }
    if (next(CeilingKind::Handover))
        report.ceilings.push_back(
            pytorch ? probePytorchHandover(config, std::min(t, 1.0), options.stop)
                    : probeHandover(config.loader, std::min(t, 1.0), options.stop));
    if (next(CeilingKind::Step))
        report.ceilings.push_back(probeStep(dataset, config, t, options.stop));
    if (next(CeilingKind::Preprocessed) && free.cores > 0) {
        // As many images as the decode gets through in about one probe's time.
        const auto images = static_cast<std::int64_t>(std::clamp(
            perCore * std::max(free.free, 1.0) * t, 32.0, static_cast<double>(dataset->size())));
        Ceiling pre = probePreprocessed(config.dataset, images, free, t, options.keepTensorFile,
                                        options.stop);
        // Read from where the images are, a float32 tensor costs its bytes: the storage
        // measured above bounds it too.
        const Ceiling *storage = report.find(CeilingKind::Storage);
        const double tensorBytes = static_cast<double>(dataset->sampleShape().elements()) * 4.0;
        if (pre.measured() && storage && storage->bytesPerSecond > 0.0) {
            const double fromStorage = storage->bytesPerSecond / tensorBytes;
            char text[160];
            std::snprintf(text, sizeof text,
                          "; %.0f KB a sample, %.0f samples/s at the storage rate above",
                          tensorBytes / 1e3, fromStorage);
            pre.basis += text;
            pre.samplesPerSecond = std::min(pre.samplesPerSecond, fromStorage);
        }
        report.ceilings.push_back(std::move(pre));
    }
    return report;
}

} // namespace

CeilingReport measureCeilings(const RunConfig &config, const CeilingOptions &options)
{
    if (const std::string why = engineProblem(config); !why.empty())
        throw std::invalid_argument(why);
    if (!options.keepTensorFile.empty()) {
        std::error_code ec;
        if (std::filesystem::exists(std::filesystem::symlink_status(options.keepTensorFile, ec)))
            throw std::invalid_argument(options.keepTensorFile
                                        + ": exists; limits keeps its tensor file only under a "
                                          "new name");
        if (config.dataset.kind != DatasetKind::ImageFolder)
            throw std::invalid_argument("--keep-tensor: only an image folder is preprocessed");
    }
    CeilingReport report = config.dataset.kind == DatasetKind::Python
                               ? measurePipelineCeilings(config, options)
                               : measureDatasetCeilings(config, options);
    if (!options.stop.stop_requested()) {
        try {
            report.predicted = predictLifts(report, config);
        } catch (const std::invalid_argument &) {
            // Costs the model refuses (a step of years): no prediction, the ceilings stand.
        }
    }
    return report;
}

std::string bindingSentence(const CeilingReport &report, std::optional<double> runRate)
{
    const Ceiling *loader = report.loaderBinding();
    if (!loader)
        return "no ceiling of the loader was measured";
    std::string text = stageWords(*loader, report) + " binds the loader at "
                       + samplesText(loader->samplesPerSecond) + " samples/s";
    const Ceiling *job = report.jobBinding();
    if (runRate && *runRate > 0.0 && job) {
        char share[64];
        std::snprintf(share, sizeof share, "%.0f %%", 100.0 * *runRate / job->samplesPerSecond);
        text += "; you run at " + samplesText(*runRate) + ", " + share + " of "
                + (job == loader ? std::string("it")
                                 : "the step's " + samplesText(job->samplesPerSecond));
    }
    if (const Ceiling *step = report.find(CeilingKind::Step); step && step->measured()) {
        text += step->samplesPerSecond < loader->samplesPerSecond
                    ? "; the step binds first, at " + samplesText(step->samplesPerSecond)
                          + ": the job is not input-bound"
                    : "; the step alone could take " + samplesText(step->samplesPerSecond);
    }
    // The next ceiling once the binding one is lifted.
    const Ceiling *after = nullptr;
    for (CeilingKind kind : kLoaderStages) {
        const Ceiling *c = report.find(kind);
        if (c && c->measured() && c != loader
            && (!after || c->samplesPerSecond < after->samplesPerSecond))
            after = c;
    }
    if (after)
        text += "; lifted, " + stageWords(*after, report) + " binds next, at "
                + samplesText(after->samplesPerSecond);
    if (const Ceiling *pre = report.find(CeilingKind::Preprocessed);
        pre && pre->measured() && loader->kind == CeilingKind::Decode)
        text += "; preprocessed tensors would read at " + samplesText(pre->samplesPerSecond);
    return text;
}

} // namespace loaderlab
