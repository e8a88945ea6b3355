#include "core/sweep/sweep_analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace loaderlab {
namespace {

using nlohmann::json;

std::string percentText(double percent)
{
    char text[32];
    std::snprintf(text, sizeof text, percent < 10 ? "%.1f %%" : "%.0f %%", percent);
    return text;
}

std::string joinValues(const std::vector<std::string> &keys, const std::vector<json> &values,
                       bool group)
{
    std::string text;
    for (std::size_t a = 0; a < keys.size(); ++a) {
        if (isSweepGroupAxis(keys[a]) != group)
            continue;
        if (!text.empty())
            text += ", ";
        text += sweepValueText(keys[a], values[a]);
    }
    return text;
}

// The tuning values in which `other` differs from `best`: "batch 256".
std::string difference(const std::vector<std::string> &keys, const SweepCellStats &best,
                       const SweepCellStats &other)
{
    std::string text;
    for (std::size_t a = 0; a < keys.size(); ++a) {
        if (isSweepGroupAxis(keys[a]) || best.values[a] == other.values[a])
            continue;
        if (!text.empty())
            text += ", ";
        text += sweepValueText(keys[a], other.values[a]);
    }
    return text;
}

// "more workers add nothing past 4": every cell like the best but with more workers
// is no faster beyond the noise.
std::string workersNote(const std::vector<std::string> &keys,
                        const std::vector<const SweepCellStats *> &group,
                        const SweepCellStats &best, double noise)
{
    const auto w = std::find(keys.begin(), keys.end(), "loader.num_workers");
    if (w == keys.end())
        return {};
    const auto axis = static_cast<std::size_t>(w - keys.begin());
    int more = 0;
    for (const SweepCellStats *c : group) {
        bool same = true;
        for (std::size_t a = 0; a < keys.size(); ++a)
            same = same && (a == axis || c->values[a] == best.values[a]);
        if (!same || c->values[axis].get<double>() <= best.values[axis].get<double>())
            continue;
        if (c->endToEndMean < best.endToEndMean * (1.0 - noise))
            return {};
        ++more;
    }
    if (more == 0)
        return {};
    return "more workers add nothing past " + best.values[axis].dump();
}

// Where a cell keeps a figure: its mean over the repeats.
template <typename Stats>
auto &meanOf(Stats &c, SweepFigureId id)
{
    switch (id) {
    case SweepFigureId::EndToEnd:
        return c.endToEndMean;
    case SweepFigureId::SamplesPerSecond:
        return c.throughputMean;
    case SweepFigureId::FirstBatch:
        return c.firstBatchMs;
    case SweepFigureId::InputBoundShare:
        return c.inputBoundShare;
    case SweepFigureId::WaitP95:
        return c.waitP95Ms;
    }
    throw std::invalid_argument("unknown figure id " + std::to_string(static_cast<int>(id)));
}

// A skipped cell's figures: those the loader model predicted for it.
SweepCellStats predictedStats(const SweepRecord &r)
{
    SweepCellStats c;
    c.grid = r.grid;
    c.values = r.values;
    for (const SweepFigure &f : sweepFigures())
        meanOf(c, f.id) = r.predictedFigure(std::string(f.summaryKey));
    c.endToEndMin = c.endToEndMax = c.endToEndMean;
    c.throughputMin = c.throughputMax = c.throughputMean;
    return c;
}

} // namespace

double SweepCellStats::spread() const
{
    return runs >= 2 && endToEndMean > 0 ? (endToEndMax - endToEndMin) / endToEndMean : 0.0;
}

double SweepCellStats::figure(SweepFigureId id) const
{
    return meanOf(*this, id);
}

double SweepCellStats::figure(const std::string &name) const
{
    return figure(sweepFigure(name).id);
}

bool isSweepGroupAxis(const std::string &key)
{
    return key == "engine" || key.starts_with("dataset.") || key == "consumer.kind"
           || key == "consumer.model.name" || key == "consumer.model.script_path"
           || key == "consumer.model.mode" || key == "consumer.sleep_per_batch_ms"
           || key == "consumer.sleep_per_sample_ms";
}

SweepAnalysis analyzeSweep(const SweepDefinition &definition,
                           const std::map<std::int64_t, SweepRecord> &records)
{
    SweepAnalysis analysis;
    for (const auto &axis : definition.axes)
        analysis.keys.push_back(axis.key);
    std::map<std::int64_t, SweepCellStats> byGrid;
    std::map<std::int64_t, SweepCellStats> skipped;
    for (const auto &[order, r] : records) {
        if (r.skipped()) {
            skipped.try_emplace(r.grid, predictedStats(r));
            continue;
        }
        SweepCellStats &c = byGrid[r.grid];
        c.grid = r.grid;
        c.values = r.values;
        if (r.failed()) {
            ++c.failures;
            if (c.error.empty())
                c.error = r.error;
            continue;
        }
        const double e2e = r.endToEndSeconds();
        const double thr = r.samplesPerSecond();
        c.endToEndMin = c.runs ? std::min(c.endToEndMin, e2e) : e2e;
        c.endToEndMax = c.runs ? std::max(c.endToEndMax, e2e) : e2e;
        c.throughputMin = c.runs ? std::min(c.throughputMin, thr) : thr;
        c.throughputMax = c.runs ? std::max(c.throughputMax, thr) : thr;
        for (const SweepFigure &f : sweepFigures())
            meanOf(c, f.id) += r.figure(std::string(f.summaryKey));
        ++c.runs;
    }
    for (auto &[grid, c] : byGrid) {
        if (c.runs > 0) {
            const double n = c.runs;
            for (const SweepFigure &f : sweepFigures())
                meanOf(c, f.id) /= n;
        }
        analysis.cells.push_back(std::move(c));
    }
    for (auto &[grid, c] : skipped) {
        if (!byGrid.count(grid))
            analysis.skipped.push_back(std::move(c));
    }

    // Group the cells by what runs; recommend the settings within each group.
    std::map<std::string, std::vector<const SweepCellStats *>> groups;
    for (const SweepCellStats &c : analysis.cells) {
        if (c.runs > 0)
            groups[joinValues(analysis.keys, c.values, true)].push_back(&c);
    }
    for (auto &[name, group] : groups) {
        SweepRecommendation rec;
        rec.group = name;
        std::sort(group.begin(), group.end(),
                  [](const auto *a, const auto *b) { return a->endToEndMean < b->endToEndMean; });
        rec.best = group.front();
        rec.fastest = *std::max_element(
            group.begin(), group.end(),
            [](const auto *a, const auto *b) { return a->throughputMean < b->throughputMean; });
        std::string sentence = (name.empty() ? "" : name + ": ");
        const std::string settings = joinValues(analysis.keys, rec.best->values, false);
        sentence += settings.empty() ? "the best cell" : settings;
        char figures[96];
        std::snprintf(figures, sizeof figures, " (%.3f s end to end, %.0f samples/s)",
                      rec.best->endToEndMean, rec.best->throughputMean);
        sentence += figures;
        if (group.size() > 1) {
            rec.runnerUp = group[1];
            rec.marginPercent = (rec.runnerUp->endToEndMean / rec.best->endToEndMean - 1.0) * 100.0;
            rec.noiseKnown = rec.best->runs >= 2 && rec.runnerUp->runs >= 2;
            rec.noisePercent = std::max(rec.best->spread(), rec.runnerUp->spread()) * 100.0;
            rec.withinNoise = rec.noiseKnown && rec.marginPercent <= rec.noisePercent;
            const std::string diff = difference(analysis.keys, *rec.best, *rec.runnerUp);
            if (const std::string more = workersNote(analysis.keys, group, *rec.best,
                                                     rec.noisePercent / 100.0);
                !more.empty()) {
                sentence += "; " + more;
                rec.moreWorkersAddNothing = true;
            }
            sentence += "; " + (diff.empty() ? std::string("the runner-up") : diff) + " is "
                        + percentText(rec.marginPercent) + " slower";
            if (!rec.noiseKnown)
                sentence += " (one run per cell: the spread is unknown; use --repeats)";
            else if (rec.withinNoise)
                sentence += ", within noise (repeats spread " + percentText(rec.noisePercent) + ")";
            else
                sentence += ", more than the repeats' spread of " + percentText(rec.noisePercent);
        }
        if (rec.fastest != rec.best)
            sentence += "; highest throughput with "
                        + joinValues(analysis.keys, rec.fastest->values, false);
        rec.sentence = sentence;
        analysis.recommendations.push_back(std::move(rec));
    }
    return analysis;
}

std::vector<ScalingLine> scalingAlong(const SweepAnalysis &analysis, const std::string &key)
{
    const auto it = std::find(analysis.keys.begin(), analysis.keys.end(), key);
    if (it == analysis.keys.end())
        throw std::invalid_argument(key + ": not an axis of this sweep");
    const auto axis = static_cast<std::size_t>(it - analysis.keys.begin());
    std::map<std::string, ScalingLine> lines;
    std::vector<std::string> order;
    for (const SweepCellStats &c : analysis.cells) {
        if (c.runs == 0)
            continue;
        std::string label;
        for (std::size_t a = 0; a < analysis.keys.size(); ++a) {
            if (a == axis)
                continue;
            label += (label.empty() ? "" : ", ") + sweepValueText(analysis.keys[a], c.values[a]);
        }
        if (!lines.count(label))
            order.push_back(label);
        ScalingLine &line = lines[label];
        line.label = label;
        line.values = c.values;
        line.points.push_back({c.values[axis], c.throughputMean, 0.0, 0.0});
    }
    std::vector<ScalingLine> out;
    for (const std::string &label : order) {
        ScalingLine line = lines[label];
        // Relative to the first positive value (1 worker, not the 0 of loading on the
        // step's own thread), as throughput_N / throughput_1 is defined.
        const auto positive = std::find_if(
            line.points.begin(), line.points.end(), [](const auto &p) {
                return p.value.is_number() && p.value.template get<double>() > 0;
            });
        const ScalingPoint base = positive != line.points.end() ? *positive : line.points.front();
        line.baseValue = base.value;
        for (ScalingPoint &p : line.points) {
            p.speedup = base.throughput > 0 ? p.throughput / base.throughput : 0.0;
            const bool numeric = p.value.is_number() && base.value.is_number()
                                 && base.value.get<double>() > 0 && p.value.get<double>() > 0;
            p.efficiency = numeric ? p.speedup / (p.value.get<double>() / base.value.get<double>())
                                   : std::numeric_limits<double>::quiet_NaN();
        }
        out.push_back(std::move(line));
    }
    return out;
}

} // namespace loaderlab
