#pragma once

// The figures a sweep reports for each cell, each one once: its name (as the analysis,
// the prediction error, the exported CSV and the window's choice call it), where a
// run's summary holds it, its English label, its unit, whether higher is better and
// the decimals each view shows. Every place that takes a figure by name looks it up
// here, so an unknown name is refused the same way everywhere (std::invalid_argument
// listing the known names) and a figure is added in one place. The labels are marked
// for lupdate in sweep_figures.cpp (context "SweepText"); the window translates them
// (widgets/experiments/sweep_text.h), the terminal shows them in English.

#include <span>
#include <string>
#include <string_view>

namespace loaderlab {

// What a cell's figures are kept by (SweepCellStats, SweepCellFigures): a switch over
// it without a default makes the compiler name a figure a struct does not hold.
enum class SweepFigureId {
    EndToEnd,
    SamplesPerSecond,
    FirstBatch,
    InputBoundShare,
    WaitP95,
};

// Decimals shown, per view (of the percent for a share).
struct SweepFigureDecimals
{
    int terminal = 0; // `loaderlab sweep`'s table
    int table = 0;    // the window's table
    int map = 0;      // the heatmap's cells, where room is short
};

struct SweepFigure
{
    SweepFigureId id;
    std::string_view name;       // "samples_per_sec"
    std::string_view summaryKey; // in a run's summary (SweepRecord::figure): "samples_per_sec_mean"
    // English, NUL-terminated for QCoreApplication::translate: the window's choice and
    // the heatmap's colour scale ("Throughput (samples/s)"), and the column of the
    // window's table ("Samples/s").
    const char *label;
    const char *heading;
    std::string_view column; // the terminal table's column ("samples/s")
    std::string_view unit;   // of the value: "samples/s", "s", "ms"; "" for a share
    bool higherIsBetter;
    bool share; // a fraction of 1, shown in percent
    SweepFigureDecimals decimals;

    // The number a view shows for `value`: a share in percent.
    double shown(double value) const { return share ? value * 100.0 : value; }
};

// Every figure, in the order the terminal's table and the CSV show them.
std::span<const SweepFigure> sweepFigures();

// The figure called `name`; nullptr when there is none.
const SweepFigure *findSweepFigure(std::string_view name);
// The figure called `name`. Throws std::invalid_argument for an unknown name, naming
// it and the known ones: "unknown figure 'x' (known: end_to_end_s, samples_per_sec,
// ...)".
const SweepFigure &sweepFigure(std::string_view name);
const SweepFigure &sweepFigure(SweepFigureId id);

// The known names joined by ", ", in table order.
std::string sweepFigureNames();

// `value` as the terminal's table shows it: "1520.3", "12 %".
std::string sweepFigureText(const SweepFigure &figure, double value);

} // namespace loaderlab
