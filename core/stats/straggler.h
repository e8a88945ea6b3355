#pragma once

// Stragglers: with data-parallel ranks every step waits for the slowest rank, so a
// step's wait for data is the largest of N ranks' waits, not one rank's. From one
// run's measured per-step data waits, the expected largest of N, taking the ranks'
// waits as independent draws from that distribution (ranks with their own loaders,
// as on separate hosts; ranks that share one host's cores also slow each other down,
// which the loader model's simulation counts and this does not).

#include <string>
#include <vector>

namespace loaderlab {

// The expected largest of `draws` independent draws from the empirical distribution
// of `values`: sum over the sorted values x(1) <= ... <= x(m) of
// x(i) ((i / m)^draws - ((i - 1) / m)^draws). 0 for no values; the mean for 1 draw.
double expectedLargestOf(std::vector<double> values, int draws);

struct StragglerFigure
{
    int ranks = 1;
    double slowestWait = 0.0;   // the expected wait of a step, in the unit of the waits
    double amplification = 1.0; // slowestWait over one rank's mean wait (1 when it is 0)
};

// One figure per rank count, from the run's per-step data waits.
std::vector<StragglerFigure> stragglerAmplification(const std::vector<double> &waits,
                                                    const std::vector<int> &ranks);

// "stragglers: a step waits for the slowest rank's data; from <source>'s 812 steady
// waits (mean 1.20 ms), taken as independent draws, the slowest of 2 ranks waits
// 1.90 ms (1.58x), ..." for `ranks` (those above 1; one rank gives the mean), waits
// in seconds. Empty for no waits or no rank count above 1.
std::string stragglerText(const std::vector<double> &waits, std::vector<int> ranks,
                          const std::string &source);

} // namespace loaderlab
