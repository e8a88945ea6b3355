#include "app/cli/sweep_predict_first.h"

#include "app/cli/cli.h"
#include "app/cli/run_support.h"
#include "app/cli/sweep_table.h"

#include "core/stats/straggler.h"
#include "core/sweep/sweep_analysis.h"
#include "core/system/safe_text.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace loaderlab::cli {
namespace {

using loaderlab::escapeForTerminal;
using Event = loaderlab::PredictFirstProgress::Event;

std::string percentText(double fraction)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.0f %%", fraction * 100.0);
    return text;
}

// "; predicted 1.234 s (-9.9 %)": how far the model was from what the cell measured.
std::string predictedText(const loaderlab::SweepRecord &record)
{
    const double predicted = record.predictedFigure("wall_seconds");
    const double measured = record.endToEndSeconds();
    if (!(predicted > 0.0) || !(measured > 0.0))
        return {};
    char text[64];
    std::snprintf(text, sizeof text, "; predicted %.3f s (%+.1f %%)", predicted,
                  (predicted / measured - 1.0) * 100.0);
    return text;
}

void printProgress(const loaderlab::SweepDefinition &d, const loaderlab::PredictFirstProgress &p,
                   bool &skipHeading)
{
    const std::string cell = escapeForTerminal(sweepCellText(d, *p.cell));
    switch (p.event) {
    case Event::Starting:
        if (p.calibration)
            std::fprintf(stderr, "[cell %d/%d] %s: calibrates the loader model\n", p.done + 1,
                         p.total, cell.c_str());
        else if (p.predictedSeconds > 0.0)
            std::fprintf(stderr, "[cell %d/%d] %s (predicted %.3f s end to end)\n", p.done + 1,
                         p.total, cell.c_str(), p.predictedSeconds);
        else
            std::fprintf(stderr, "[cell %d/%d] %s (not predicted)\n", p.done + 1, p.total,
                         cell.c_str());
        return;
    case Event::Ended: {
        const loaderlab::SweepRecord &r = *p.record;
        if (r.failed()) {
            std::fprintf(stderr, "  failed: %s\n", escapeForTerminal(r.error).c_str());
        } else {
            std::string tail = predictedText(r);
            if (!p.calibration)
                tail += "; the model's error now " + percentText(p.error);
            std::fprintf(stderr, "  %.3f s end to end, %.1f samples/s (%.1f s with set-up)%s\n",
                         r.endToEndSeconds(), r.samplesPerSecond(), r.cellSeconds, tail.c_str());
        }
        if (!p.note.empty())
            std::fprintf(stderr, "  %s\n", escapeForTerminal(p.note).c_str());
        if (!p.loadNote.empty())
            std::fprintf(stderr, "  %s\n", escapeForTerminal(p.loadNote).c_str());
        return;
    }
    case Event::Calibrated:
        std::fprintf(stderr, "%s: %s\n", cell.c_str(), escapeForTerminal(p.note).c_str());
        if (!p.loadNote.empty())
            std::fprintf(stderr, "  %s\n", escapeForTerminal(p.loadNote).c_str());
        return;
    case Event::Skipped:
        if (!skipHeading) {
            std::fprintf(stderr, "skipped, predicted slower than their group's measured best even "
                                 "with the model's error:\n");
            skipHeading = true;
        }
        std::fprintf(stderr,
                     "  %s: predicted %.3f s end to end / %.2f = %.3f s > measured best "
                     "%.3f s (%s)\n",
                     cell.c_str(), p.skip->predictedSeconds, 1.0 + p.skip->error,
                     p.skip->predictedSeconds / (1.0 + p.skip->error), p.skip->bestSeconds,
                     escapeForTerminal(sweepCellText(d, *p.best)).c_str());
        return;
    }
}

// The rank counts the sweep asks for: the devices axis's values, else the base's.
std::vector<int> rankCounts(const loaderlab::SweepDefinition &d)
{
    for (const loaderlab::SweepAxis &axis : d.axes) {
        if (axis.key != "devices")
            continue;
        std::vector<int> out;
        for (const auto &value : axis.values) {
            if (value.is_number_integer())
                out.push_back(value.get<int>());
        }
        return out;
    }
    return {d.base.devices};
}

} // namespace

bool predictFirstFromOptions(const QCommandLineParser &parser,
                             const loaderlab::SweepDefinition &definition,
                             const loaderlab::SweepShard &shard,
                             loaderlab::PredictFirstOptions &options)
{
    if (!parser.isSet(QStringLiteral("predict-first"))) {
        if (parser.isSet(QStringLiteral("predict-margin")))
            throw std::invalid_argument("--predict-margin: goes with --predict-first");
        return false;
    }
    if (parser.isSet(QStringLiteral("run-skipped")))
        throw std::invalid_argument("--run-skipped runs the cells --predict-first skipped; "
                                    "give one of the two");
    if (parser.isSet(QStringLiteral("slurm-script")))
        throw std::invalid_argument("--predict-first chooses the cells as it goes: a Slurm job "
                                    "array runs them all (leave out --slurm-script)");
    if (const std::string why = loaderlab::predictFirstProblem(definition, shard); !why.empty())
        throw std::invalid_argument(why);
    if (parser.isSet(QStringLiteral("predict-margin"))) {
        const QString text = parser.value(QStringLiteral("predict-margin"));
        bool ok = false;
        options.margin = text.toDouble(&ok);
        if (!ok || !(options.margin >= 0.0 && options.margin <= 10.0))
            throw std::invalid_argument("--predict-margin: '" + text.toStdString()
                                        + "' is not a fraction from 0 to 10 (0.15: 15 %)");
    }
    return true;
}

int runPredictFirstSweep(loaderlab::SweepRunner &runner,
                         const loaderlab::PredictFirstOptions &options, bool quiet,
                         const std::string &scalingKey)
{
    const loaderlab::SweepDefinition &definition = runner.definition();
    const StopSignals handlers;
    SignalStop stop; // the work runs on this thread; a signal stops it
    loaderlab::PredictFirstOutcome outcome;
    bool skipHeading = false;
    try {
        outcome = loaderlab::runPredictFirst(runner, options, stop.token(),
                                             [&](const loaderlab::PredictFirstProgress &p) {
                                                 if (!quiet)
                                                     printProgress(definition, p, skipHeading);
                                             });
    } catch (const std::invalid_argument &e) {
        std::fprintf(stderr, "loaderlab sweep: %s\n", escapeForTerminal(e.what()).c_str());
        return kUsage;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab sweep: %s\n", escapeForTerminal(e.what()).c_str());
        return kFailed;
    }

    const auto analysis = loaderlab::analyzeSweep(definition, runner.results().records());
    std::fputs(sweepTable(analysis, scalingKey).c_str(), stdout);
    std::string calibrated = "the model was not calibrated";
    if (outcome.calibrationOrder >= 0) {
        const auto values = loaderlab::sweepGridValues(definition, outcome.calibrationOrder);
        std::string cell;
        for (std::size_t a = 0; a < definition.axes.size(); ++a)
            cell += (a ? ", " : "") + loaderlab::sweepValueText(definition.axes[a].key, values[a]);
        calibrated = "the model calibrated from " + escapeForTerminal(cell) + ", its error "
                     + percentText(outcome.error);
    }
    if (const std::string stragglers = loaderlab::stragglerText(
            outcome.stepWaitSeconds, rankCounts(definition), "the calibration cell");
        !stragglers.empty())
        std::printf("\n%s\n", stragglers.c_str());
    std::fprintf(
        stderr, "%s: ran %d cells (%d failed), skipped %d, %d found done; %s; results in %s\n",
        outcome.stopped ? "stopped" : "done", outcome.ran, outcome.failed, outcome.skipped,
        outcome.found, calibrated.c_str(), escapeForTerminal(runner.results().dir()).c_str());
    if (const int signal = stop.signal(); signal != 0)
        return kInterruptedBase + signal;
    return outcome.stopped ? kFailed : kOk;
}

} // namespace loaderlab::cli
