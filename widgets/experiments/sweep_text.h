#pragma once

// A sweep's words in the window's language: an axis value ("2 workers", "batch 32")
// and the recommendation, worded from the analysis' figures with tr() in the context
// "SweepText". Core words the same for the command line in English
// (sweepValueText(), SweepRecommendation::sentence); the English sources here are
// core's words, so an untranslated window says what `loaderlab sweep` says for the
// loader's axes. Other axes are named by their field's label ("Devices 2") where
// core names the key.

#include "core/sweep/sweep_analysis.h"

#include <QString>

#include <string>
#include <vector>

namespace loaderlab::sweeptext {

// One axis value: "2 workers", "batch 32", "prefetch 4", else "<label> <value>".
QString value(const std::string &key, const nlohmann::json &value);

// The values of `keys` joined by ", ", leaving out index `skip` (-1: none).
QString values(const std::vector<std::string> &keys, const std::vector<nlohmann::json> &values,
               int skip = -1);

// The recommendation's sentence: the best cell, its figures, the margin to the
// runner-up against the noise, and where throughput is highest.
QString recommendation(const loaderlab::SweepAnalysis &analysis,
                       const loaderlab::SweepRecommendation &rec);

} // namespace loaderlab::sweeptext
