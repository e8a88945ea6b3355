#pragma once

// plotOf<T>(window): the window's plot of type T (WaitTimePlot, WorkerTimelinePlot,
// ...), as the window lists them. A window without one ends the test.

#include "app/window/main_window.h"
#include "widgets/plots/live_plot.h"

#include <QtGlobal>

template <typename T>
T *plotOf(const loaderlab::MainWindow &window)
{
    for (loaderlab::LivePlot *plot : window.plots())
        if (auto *p = qobject_cast<T *>(plot))
            return p;
    qFatal("no such plot");
    return nullptr;
}
