#pragma once

// A sweep's words in the window's language: an axis value ("2 workers", "batch 32")
// and the recommendation, worded from the analysis' figures with tr() in the context
// "SweepText". Core words the same for the command line in English
// (sweepValueText(), SweepRecommendation::sentence); the English sources here are
// core's words, so an untranslated window says what `loaderlab sweep` says for the
// loader's axes. Other axes are named by their field's label ("Devices 2") where
// core names the key. The figures' labels and headings come from core's figure table
// (core/sweep/sweep_figures.h), marked there for lupdate in the same context.

#include "core/sweep/sweep_analysis.h"

#include <QString>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace loaderlab::sweeptext {

// An axis value as its config field words it ("2", "true"); the JSON for a key the
// config table does not know.
QString axisValue(const std::string &key, const nlohmann::json &value);

// Every figure of the table, in the order the window offers them: the ones a choice
// is made on first (throughput, end-to-end time, input-bound share), then the others.
const std::vector<const loaderlab::SweepFigure *> &figures();

// A figure's label ("Throughput (samples/s)") and its table heading ("Samples/s").
QString figureLabel(const loaderlab::SweepFigure &figure);
QString figureHeading(const loaderlab::SweepFigure &figure);

// `value` with `decimals` (one of figure.decimals): "1520.3", a share "12 %".
QString figureValue(const loaderlab::SweepFigure &figure, double value, int decimals);

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
