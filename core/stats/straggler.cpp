#include "core/stats/straggler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace loaderlab {

double expectedLargestOf(std::vector<double> values, int draws)
{
    if (values.empty() || draws < 1)
        return 0.0;
    std::sort(values.begin(), values.end());
    const auto m = static_cast<double>(values.size());
    double expected = 0.0;
    double below = 0.0; // P(largest <= x(i-1)) = ((i - 1) / m)^draws
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double upTo = std::pow(static_cast<double>(i + 1) / m, draws);
        expected += values[i] * (upTo - below);
        below = upTo;
    }
    return expected;
}

std::vector<StragglerFigure> stragglerAmplification(const std::vector<double> &waits,
                                                    const std::vector<int> &ranks)
{
    const double mean = waits.empty() ? 0.0
                                      : std::accumulate(waits.begin(), waits.end(), 0.0)
                                            / static_cast<double>(waits.size());
    std::vector<StragglerFigure> figures;
    for (const int n : ranks) {
        StragglerFigure f;
        f.ranks = n;
        f.slowestWait = expectedLargestOf(waits, n);
        f.amplification = mean > 0.0 ? f.slowestWait / mean : 1.0;
        figures.push_back(f);
    }
    return figures;
}

} // namespace loaderlab
