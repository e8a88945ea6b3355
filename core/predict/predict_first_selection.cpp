#include "core/predict/predict_first_selection.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace loaderlab {

void checkPredictMargin(double margin)
{
    if (!(margin >= 0.0 && margin <= 10.0))
        throw std::invalid_argument("the model's error margin must be a number from 0 to 10 "
                                    "(0.15: 15 %), not "
                                    + std::to_string(margin));
}

PredictFirstSelection::PredictFirstSelection(std::vector<PredictFirstCell> cells, double margin)
    : m_cells(std::move(cells))
    , m_margin(margin)
{
    checkPredictMargin(margin);
}

void PredictFirstSelection::setMeasured(std::size_t cell, double seconds)
{
    PredictFirstCell &c = m_cells.at(cell);
    if (!(seconds > 0.0) || !std::isfinite(seconds)) {
        c.state = PredictFirstCell::State::Failed; // nothing to compare with
        return;
    }
    c.state = PredictFirstCell::State::Measured;
    c.measuredSeconds = seconds;
}

void PredictFirstSelection::setFailed(std::size_t cell)
{
    m_cells.at(cell).state = PredictFirstCell::State::Failed;
}

double PredictFirstSelection::error() const
{
    double e = m_margin;
    for (const PredictFirstCell &c : m_cells) {
        if (c.state == PredictFirstCell::State::Measured && c.predictedSeconds > 0.0)
            e = std::max(e, c.predictedSeconds / c.measuredSeconds - 1.0);
    }
    return e;
}

std::optional<std::size_t> PredictFirstSelection::best(const std::string &group) const
{
    std::optional<std::size_t> found;
    for (std::size_t i = 0; i < m_cells.size(); ++i) {
        const PredictFirstCell &c = m_cells[i];
        if (c.group == group && c.state == PredictFirstCell::State::Measured
            && (!found || c.measuredSeconds < m_cells[*found].measuredSeconds))
            found = i;
    }
    return found;
}

bool PredictFirstSelection::couldBeBest(std::size_t cell) const
{
    const PredictFirstCell &c = m_cells.at(cell);
    if (c.state != PredictFirstCell::State::Open)
        return false;
    const auto b = best(c.group);
    if (c.predictedSeconds <= 0.0 || !b)
        return true;
    return c.predictedSeconds / (1.0 + error()) <= m_cells[*b].measuredSeconds;
}

std::optional<std::size_t> PredictFirstSelection::next() const
{
    // Each group's yardstick: its best measured time, else its fastest prediction.
    std::map<std::string, double> reference;
    for (const PredictFirstCell &c : m_cells) {
        if (c.state != PredictFirstCell::State::Open || c.predictedSeconds <= 0.0)
            continue;
        const auto it = reference.find(c.group);
        if (it == reference.end() || c.predictedSeconds < it->second)
            reference[c.group] = c.predictedSeconds;
    }
    for (auto &[group, seconds] : reference) {
        if (const auto b = best(group))
            seconds = m_cells[*b].measuredSeconds;
    }
    std::optional<std::size_t> chosen;
    double chosenKey = 0.0;
    for (std::size_t i = 0; i < m_cells.size(); ++i) {
        if (!couldBeBest(i))
            continue;
        const PredictFirstCell &c = m_cells[i];
        // Cells the model cannot predict run last: nothing says they are fast.
        const double key = c.predictedSeconds > 0.0 ? c.predictedSeconds / reference.at(c.group)
                                                    : std::numeric_limits<double>::infinity();
        if (!chosen || key < chosenKey) {
            chosen = i;
            chosenKey = key;
        }
    }
    return chosen;
}

std::vector<PredictFirstSkip> PredictFirstSelection::skips() const
{
    std::vector<PredictFirstSkip> out;
    const double e = error();
    for (std::size_t i = 0; i < m_cells.size(); ++i) {
        const PredictFirstCell &c = m_cells[i];
        if (c.state != PredictFirstCell::State::Open || couldBeBest(i))
            continue;
        const std::size_t b = *best(c.group); // couldBeBest is true without one
        out.push_back({i, c.predictedSeconds, e, m_cells[b].measuredSeconds, b});
    }
    return out;
}

} // namespace loaderlab
