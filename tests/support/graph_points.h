#pragma once

// values / keys: a QCPGraph's data as plain vectors, for comparing what a plot drew.

#include "widgets/plots/qcustomplot_include.h"

#include <vector>

inline std::vector<double> values(const QCPGraph *graph)
{
    std::vector<double> out;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        out.push_back(it->value);
    return out;
}

inline std::vector<double> keys(const QCPGraph *graph)
{
    std::vector<double> out;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        out.push_back(it->key);
    return out;
}
