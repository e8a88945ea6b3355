// The figure table itself: every figure a sweep reports, once. What the entries mean
// is in core/sweep/sweep_figures.h.

#include "core/sweep/sweep_figures.h"

#include <array>
#include <cstdio>
#include <stdexcept>

// lupdate reads the labels from this file (context "SweepText"); core has no Qt, so
// the marker expands to the plain text here.
#define QT_TRANSLATE_NOOP(scope, text) text

namespace loaderlab {
namespace {

// The order of SweepFigureId, which sweepFigure(id) relies on (checked below).
constexpr std::array kSweepFigures = {
    SweepFigure{.id = SweepFigureId::EndToEnd,
                .name = "end_to_end_s",
                .summaryKey = "wall_seconds",
                .label = QT_TRANSLATE_NOOP("SweepText", "End-to-end time (s)"),
                .heading = QT_TRANSLATE_NOOP("SweepText", "End to end (s)"),
                .column = "end-to-end s",
                .unit = "s",
                .higherIsBetter = false,
                .share = false,
                .decimals = {.terminal = 3, .table = 3, .map = 3}},
    SweepFigure{.id = SweepFigureId::SamplesPerSecond,
                .name = "samples_per_sec",
                .summaryKey = "samples_per_sec_mean",
                .label = QT_TRANSLATE_NOOP("SweepText", "Throughput (samples/s)"),
                .heading = QT_TRANSLATE_NOOP("SweepText", "Samples/s"),
                .column = "samples/s",
                .unit = "samples/s",
                .higherIsBetter = true,
                .share = false,
                .decimals = {.terminal = 1, .table = 1, .map = 0}},
    SweepFigure{.id = SweepFigureId::FirstBatch,
                .name = "first_batch_ms",
                .summaryKey = "first_batch_latency_ms",
                .label = QT_TRANSLATE_NOOP("SweepText", "First-batch latency (ms)"),
                .heading = QT_TRANSLATE_NOOP("SweepText", "First batch (ms)"),
                .column = "first batch ms",
                .unit = "ms",
                .higherIsBetter = false,
                .share = false,
                .decimals = {.terminal = 1, .table = 1, .map = 1}},
    SweepFigure{.id = SweepFigureId::InputBoundShare,
                .name = "input_bound_share",
                .summaryKey = "input_bound_share",
                .label = QT_TRANSLATE_NOOP("SweepText", "Input-bound share"),
                .heading = QT_TRANSLATE_NOOP("SweepText", "Input-bound"),
                .column = "input-bound",
                .unit = "",
                .higherIsBetter = false,
                .share = true,
                .decimals = {.terminal = 0, .table = 1, .map = 0}},
    SweepFigure{.id = SweepFigureId::WaitP95,
                .name = "wait_p95_ms",
                .summaryKey = "wait_p95_ms", // wait_ms.p95 (SweepRecord::figure)
                .label = QT_TRANSLATE_NOOP("SweepText", "Wait p95 (ms)"),
                .heading = QT_TRANSLATE_NOOP("SweepText", "Wait p95 (ms)"),
                .column = "wait p95 ms",
                .unit = "ms",
                .higherIsBetter = false,
                .share = false,
                .decimals = {.terminal = 2, .table = 2, .map = 2}},
};

constexpr bool inIdOrder()
{
    for (std::size_t i = 0; i < kSweepFigures.size(); ++i) {
        if (static_cast<std::size_t>(kSweepFigures[i].id) != i)
            return false;
    }
    return true;
}
static_assert(inIdOrder(), "kSweepFigures must list the figures in SweepFigureId's order");

} // namespace

std::span<const SweepFigure> sweepFigures()
{
    return kSweepFigures;
}

const SweepFigure *findSweepFigure(std::string_view name)
{
    for (const SweepFigure &f : kSweepFigures) {
        if (f.name == name)
            return &f;
    }
    return nullptr;
}

const SweepFigure &sweepFigure(std::string_view name)
{
    if (const SweepFigure *f = findSweepFigure(name))
        return *f;
    throw std::invalid_argument("unknown figure '" + std::string(name)
                                + "' (known: " + sweepFigureNames() + ")");
}

const SweepFigure &sweepFigure(SweepFigureId id)
{
    const auto i = static_cast<std::size_t>(id);
    if (i >= kSweepFigures.size())
        throw std::invalid_argument("unknown figure id " + std::to_string(i));
    return kSweepFigures[i];
}

std::string sweepFigureNames()
{
    std::string names;
    for (const SweepFigure &f : kSweepFigures)
        names += (names.empty() ? "" : ", ") + std::string(f.name);
    return names;
}

std::string sweepFigureText(const SweepFigure &figure, double value)
{
    char text[48];
    std::snprintf(text, sizeof text, "%.*f", figure.decimals.terminal, figure.shown(value));
    return figure.share ? std::string(text) + " %" : std::string(text);
}

} // namespace loaderlab

#undef QT_TRANSLATE_NOOP
