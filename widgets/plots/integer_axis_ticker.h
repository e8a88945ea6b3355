#pragma once

// IntegerAxisTicker: ticks on whole numbers only, for axes whose values are counts
// (a batch number, a position in a round). QCustomPlot's default ticker picks steps
// of 0.5 or 2.5 on a zoomed-in axis, which would label batches "2.5" and "7.5": this
// one never steps by less than 1 and never by a fraction, and puts sub-ticks on whole
// numbers only. Header-only: two overrides.

#include "widgets/plots/qcustomplot_include.h"

#include <algorithm>
#include <cmath>

namespace loaderlab {

class IntegerAxisTicker : public QCPAxisTicker
{
protected:
    double getTickStep(const QCPRange &range) override
    {
        // The base's steps are 1, 2, 2.5 or 5 times a power of ten: below 1 or 2.5 are
        // the only fractions.
        const double step = QCPAxisTicker::getTickStep(range);
        return std::max(1.0, std::floor(step));
    }

    int getSubTickCount(double tickStep) override
    {
        int count = QCPAxisTicker::getSubTickCount(tickStep);
        while (count > 0 && std::fmod(tickStep, count + 1.0) != 0.0)
            --count;
        return count;
    }
};

} // namespace loaderlab
