#include "core/stats/straggler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
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

std::string stragglerText(const std::vector<double> &waits, std::vector<int> ranks,
                          const std::string &source)
{
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    ranks.erase(ranks.begin(), std::upper_bound(ranks.begin(), ranks.end(), 1));
    if (waits.empty() || ranks.empty())
        return {};
    ranks.insert(ranks.begin(), 1);
    const auto figures = stragglerAmplification(waits, ranks);
    char part[160];
    std::snprintf(part, sizeof part,
                  "'s %zu steady waits (mean %.2f ms), taken as independent "
                  "draws, the slowest of",
                  waits.size(), figures[0].slowestWait * 1e3);
    std::string text = "stragglers: a step waits for the slowest rank's data; from " + source
                       + part;
    for (std::size_t k = 1; k < figures.size(); ++k) {
        std::snprintf(part, sizeof part, "%s %d ranks waits %.2f ms (%.2fx)", k == 1 ? "" : ",",
                      figures[k].ranks, figures[k].slowestWait * 1e3, figures[k].amplification);
        text += part;
    }
    return text;
}

} // namespace loaderlab
