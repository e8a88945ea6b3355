#pragma once

// The words of the plots' export title lines (widgets/plots/plot_export.h), in the window's
// language (context "PlotTitle"): a run's main settings, its dataset, the date.

#include "core/config/run_config.h"

#include <QString>

#include <set>
#include <string>

namespace loaderlab::plottitle {

// "LoaderLab, 4 workers, batch 64, prefetch 2, pin memory off, step: sleep 5 ms per
// batch". Fields whose config key (core/config/config_fields.h) is in `omitted`, or
// under an omitted group ("consumer"), are left out: a sweep's base leaves out its axes.
QString settings(const loaderlab::RunConfig &config, const std::set<std::string> &omitted = {});

// "image folder imagenette-10 (eval)", "synthetic 4096 × 3x224x224".
QString dataset(const loaderlab::DatasetConfig &dataset);

// "exported 2026-05-04 14:03": runs do not record their date, so the export's.
QString exportDate();

} // namespace loaderlab::plottitle
