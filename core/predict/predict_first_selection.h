#pragma once

// The rule by which `sweep --predict-first` (predict_first.h) picks the cells it runs:
// the model's prediction of every cell's end-to-end time (the figure the sweep's
// recommendation ranks by) against the cells measured so far.
//
//   - The model's error e is the larger of a margin (--predict-margin, 0.15) and the
//     largest relative under-prediction of a rate seen so far: predicted / measured
//     time - 1 over the measured cells. A model that predicted a cell slower than it
//     ran may do so for others, so e grows; a cell it predicted faster than it ran
//     (more workers than cores) raises no doubt about skipping others: its measured
//     time is what a skipped cell is compared with.
//   - A cell not yet measured could still be the best of its group (the cells that
//     get one recommendation, isSweepGroupAxis) unless its predicted time / (1 + e)
//     is longer than the group's best measured time: in rates, unless predicted
//     samples/s x (1 + e) is below the best measured samples/s. A cell the model
//     cannot predict, or of a group with no measured cell yet, always could.
//   - Of the cells that could, the next to run is the one predicted fastest relative
//     to its group's best (measured, else predicted); when none could, the rest are
//     skipped, each with the figures that ruled it out.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace loaderlab {

// The margin on the model's error when no measured cell says it is larger.
inline constexpr double kDefaultPredictMargin = 0.15;

// Throws std::invalid_argument unless `margin` is a number from 0 to 10 (1000 %).
void checkPredictMargin(double margin);

// One cell of the grid as the rule weighs it.
struct PredictFirstCell
{
    std::string group;              // cells compete within their group only
    double predictedSeconds = -1.0; // end to end; < 0: the model could not predict it
    enum class State { Open, Measured, Failed } state = State::Open;
    double measuredSeconds = 0.0; // end to end, when Measured
};

// Why an open cell need not run.
struct PredictFirstSkip
{
    std::size_t cell = 0;
    double predictedSeconds = 0.0;
    double error = 0.0;       // the model's error it was given
    double bestSeconds = 0.0; // the measured best of its group
    std::size_t best = 0;     // that cell
};

class PredictFirstSelection
{
public:
    // Throws what checkPredictMargin throws.
    PredictFirstSelection(std::vector<PredictFirstCell> cells, double margin);

    // A cell ran: its measured end-to-end time (> 0), or it failed.
    void setMeasured(std::size_t cell, double seconds);
    void setFailed(std::size_t cell);

    // max(margin, largest predicted / measured time - 1 over the measured cells).
    double error() const;
    // The measured cell with the shortest time in `group`; nullopt when none.
    std::optional<std::size_t> best(const std::string &group) const;
    // Whether an open cell could still be its group's best (the rule above).
    bool couldBeBest(std::size_t cell) const;
    // The open cell to run next; nullopt when no open cell could be the best.
    std::optional<std::size_t> next() const;
    // The open cells that could not be the best, with the figures that say so, in
    // cell order.
    std::vector<PredictFirstSkip> skips() const;

    const std::vector<PredictFirstCell> &cells() const { return m_cells; }
    double margin() const { return m_margin; }

private:
    std::vector<PredictFirstCell> m_cells;
    double m_margin;
};

} // namespace loaderlab
