// `loaderlab predict`: the loader model (core/predict) calibrated from one recorded
// run of either engine predicts other settings without running them, in the sweep
// table's format with its recommendation; the run itself predicted back comes first,
// so the reader sees how far to trust the rest.

#include "app/cli/cli.h"
#include "app/cli/sweep_table.h"

#include "core/predict/fault_probe.h"
#include "core/predict/node_scaling.h"
#include "core/predict/predicted_sweep.h"
#include "core/stats/straggler.h"
#include "core/sweep/sweep_analysis.h"
#include "core/system/safe_text.h"

#include <QCommandLineParser>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace loaderlab::cli {
namespace {

using loaderlab::escapeForTerminal;

std::string msText(double seconds)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
    return text;
}

std::string lineText(const loaderlab::LinearCost &c)
{
    std::string text = msText(c.fixed);
    if (c.perSample > 0.0)
        text += " + " + msText(c.perSample) + "/sample";
    return text;
}

double quantileOf(std::vector<double> values, double q)
{
    std::sort(values.begin(), values.end());
    const auto at = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1) + 0.5);
    return values[at];
}

std::string runText(const loaderlab::Calibration &c)
{
    const auto &s = c.setting;
    char text[256];
    std::snprintf(text, sizeof text,
                  "%s engine, %d workers, batch %d, prefetch %d, %s%s, %d cores, %d device%s; "
                  "%lld batches, %lld samples",
                  loaderlab::engineKindName(c.config.engine), s.workers, s.batchSize,
                  s.prefetchFactor, loaderlab::strategyName(s.strategy),
                  s.persistentWorkers ? ", persistent" : "", s.cores, s.devices,
                  s.devices == 1 ? "" : "s", static_cast<long long>(s.batches),
                  static_cast<long long>(c.measuredSamples));
    return text;
}

std::string costsText(const loaderlab::Calibration &c)
{
    const auto &k = c.costs;
    std::string text = "costs: sample " + msText(quantileOf(k.sampleSeconds, 0.5)) + " (p95 "
                       + msText(quantileOf(k.sampleSeconds, 0.95)) + "), collate "
                       + lineText(k.collate);
    if (k.pin.fixed > 0.0 || k.pin.perSample > 0.0)
        text += ", pin " + lineText(k.pin);
    if (k.copy.fixed > 0.0 || k.copy.perSample > 0.0)
        text += ", copy " + lineText(k.copy);
    if (k.handoff.fixed > 0.0 || k.handoff.perSample > 0.0)
        text += ", hand-over " + lineText(k.handoff);
    text += ", step " + lineText(k.step);
    if (k.afterStepSeconds > 0.0)
        text += " then " + msText(k.afterStepSeconds);
    if (k.consumerThreads > 0.0)
        text += " on " + std::to_string(std::lround(k.consumerThreads)) + " CPU threads";
    text += ", worker start-up " + msText(k.startupSeconds);
    if (k.firstFill.fixed > 0.0 || k.firstFill.perSample > 0.0)
        text += ", a fresh buffer's first fill " + lineText(k.firstFill);
    if (k.taskStartSeconds > 0.0)
        text += ", " + msText(k.taskStartSeconds) + " to take each task";
    return text;
}

// What the predictions assume of the programs that kept the machine busy while the
// run was recorded (core/predict/busy_machine.h); empty when it was idle or its load
// is unknown. `cores`: --cores, 0 when not given.
std::string busyMachineLine(const loaderlab::Calibration &c, int cores)
{
    using loaderlab::coresText;
    const loaderlab::BusyMachine &busy = c.busyMachine;
    if (!busy.busy)
        return {};
    const int runCores = c.setting.cores;
    if (cores > 0)
        return loaderlab::busyCalibrationOpening(busy, c.load, runCores)
               + "; the costs count only the " + coresText(busy.freeCores)
               + " cores that were free; predicted for an idle machine of " + std::to_string(cores)
               + (cores == 1 ? " core." : " cores.");
    return loaderlab::busyCalibrationLine(busy, c.load, runCores) + " --cores "
           + std::to_string(runCores) + " predicts for an idle machine.";
}

// The exchange a step pays at each rank count the prediction may meet.
std::string exchangeNote(const loaderlab::Calibration &c)
{
    std::string text = "a ring all-reduce of "
                       + std::to_string(std::lround(c.costs.gradientBytes / 1e6))
                       + " MB after every step takes";
    const double cores = c.setting.cores - c.setting.outsideCores;
    for (const int ranks : {2, 3, 4, 8, 32}) {
        char part[64];
        std::snprintf(
            part, sizeof part, "%s %.1f ms with %d ranks", ranks == 2 ? "" : ",",
            loaderlab::ringAllreduceSeconds(c.costs.network, c.costs.gradientBytes, ranks, cores)
                * 1e3,
            ranks);
        text += part;
    }
    return text + " (2(N-1)/N of it through each rank's link"
           + (c.costs.network.cpuShare > 0.0 ? std::string(", the ranks sharing this host's cores)")
                                             : std::string(")"));
}

// --nodes 1,2,4: node counts in increasing order, each 1..1024.
std::vector<int> nodeCounts(const QString &text)
{
    std::vector<int> out;
    for (const QString &part : text.split(QLatin1Char(','))) {
        bool ok = false;
        const int n = part.trimmed().toInt(&ok);
        if (!ok || n < 1 || n > 1024)
            throw std::invalid_argument("--nodes " + text.toStdString()
                                        + ": expected node counts 1..1024, such as 1,2,4,8");
        out.push_back(n);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::string nodeScalingText(const loaderlab::NodeScaling &scaling, const std::string &links)
{
    std::string text =
        "nodes x devices (each node with the cores above; " + links + "; each rank runs at least "
        + std::to_string(loaderlab::kLeastRankBatches) + " batches past its warm-up"
        + (scaling.epochs > 1 ? ", " + std::to_string(scaling.epochs) + " epochs" : std::string())
        + "):\n";
    char line[256];
    std::snprintf(line, sizeof line, "  one rank: %.1f samples/s\n",
                  scaling.oneRankSamplesPerSecond);
    text += line;
    for (const loaderlab::NodeScalingRow &r : scaling.rows) {
        std::snprintf(line, sizeof line,
                      "  %d node%s x %d device%s = %d rank%s: %.1f samples/s, speedup %.2fx, "
                      "efficiency %.0f %%; all-reduce %.2f ms a step (%.2f ms of it between "
                      "nodes); data wait %.2f ms a batch\n",
                      r.nodes, r.nodes == 1 ? "" : "s", r.devicesPerNode,
                      r.devicesPerNode == 1 ? "" : "s", r.ranks(), r.ranks() == 1 ? "" : "s",
                      r.samplesPerSecond, r.speedup, r.efficiency * 100.0, r.exchangeSeconds * 1e3,
                      r.betweenNodesSeconds * 1e3, r.waitMeanSeconds * 1e3);
        text += line;
    }
    return text;
}

int positiveOption(const QCommandLineParser &parser, const char *name)
{
    return intOption(parser, name, 1, 4096);
}

// Why each grid cell cannot run (loaderlab::runRefusal), by grid position; none for a
// cell that can.
std::map<std::int64_t, std::string> refusalsByGrid(const loaderlab::PredictedSweep &predicted)
{
    std::map<std::int64_t, std::string> out;
    for (std::size_t k = 0; k < predicted.cells.size(); ++k) {
        if (!predicted.cannotRun[k].empty())
            out[predicted.cells[k].grid] = predicted.cannotRun[k];
    }
    return out;
}

// The sweep table shows a cell with no finished run as "0 +N failed" and lists its
// error under the table; a cell that cannot run gets "cannot run: <reason>" in its
// row instead, from the runs column on, and no line under the table. Every grid cell
// has records and none is skipped, so the row of grid cell g is line g + 1.
std::string markCannotRun(const std::string &table,
                          const std::map<std::int64_t, std::string> &refusals)
{
    std::vector<std::string> lines;
    for (std::size_t start = 0; start < table.size();) {
        const std::size_t end = std::min(table.find('\n', start), table.size());
        lines.push_back(table.substr(start, end - start));
        start = end + 1;
    }
    const std::size_t runs = lines.empty() ? std::string::npos : lines[0].find("  runs  ");
    std::set<std::string> marked; // the lines under the table their rows now hold
    for (const auto &[grid, reason] : refusals) {
        const std::string text = escapeForTerminal("cannot run: " + reason);
        const auto row = static_cast<std::size_t>(grid) + 1;
        if (runs == std::string::npos || row >= lines.size() || lines[row].size() < runs + 2
            || lines[row].compare(runs + 2, 3, "0 +") != 0)
            continue; // not the table this expects: its line under it still says why
        lines[row] = lines[row].substr(0, runs + 2) + text;
        marked.insert("failed: cell " + std::to_string(grid) + ": " + text);
    }
    std::string out;
    for (const std::string &line : lines) {
        if (!marked.count(line))
            out += line + '\n';
    }
    return out;
}

} // namespace

int predictCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Predicts other loader settings from one recorded run, without running them: a model "
        "of the loader (workers, prefetch, in-order delivery, epochs, devices, CPU cores shared "
        "by processor sharing, the first fill of the loader's buffers) driven by the costs the "
        "run measured. Prints the run itself "
        "predicted back, then a table in the format of `loaderlab sweep` with its "
        "recommendation. A setting `loaderlab run` would refuse here (its engine cannot run "
        "it, over the memory budget) is marked \"cannot run\" and never recommended. The "
        "model has no memory-bandwidth or cache model: check the recommended "
        "setting with a run. With --devices and --network (or a run that exchanged a gradient "
        "among ranks) each step pays a ring all-reduce of the gradient."));
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("from"),
         QStringLiteral("the run: its summary JSON (or per-batch CSV), written by loaderlab run "
                        "--csv RUN.csv --json RUN.json, with the other beside it"),
         QStringLiteral("file")},
        {QStringLiteral("axis"),
         QStringLiteral("an axis: a loader setting, devices or the simulated step, and its "
                        "values, e.g. loader.num_workers=0,1,2,4 (repeatable)"),
         QStringLiteral("KEY=v1,v2,...")},
        {QStringLiteral("cores"),
         QStringLiteral("CPU cores the workers and the step share, on a machine with nothing "
                        "else to do (default: the run's machine, with the other programs that "
                        "kept it busy while the run was recorded still running)"),
         QStringLiteral("n")},
        {QStringLiteral("devices"),
         QStringLiteral("data-parallel devices, each with its own loader and workers (default: "
                        "the run's)"),
         QStringLiteral("n")},
        {QStringLiteral("network"),
         QStringLiteral("the link the ranks' gradient all-reduce crosses on the target machine "
                        "(with --nodes: the link between nodes): 10gbe, 25gbe, 100gbe, ib-hdr, "
                        "nvlink, or GB/s (default: the link the run measured, if it exchanged a "
                        "gradient among ranks)"),
         QStringLiteral("name")},
        {QStringLiteral("nodes"),
         QStringLiteral("also predict these node counts, each node with --devices ranks and the "
                        "cores above, the gradient all-reduced within each node and then "
                        "between nodes over --network, e.g. 1,2,4,8"),
         QStringLiteral("n,...")},
        {QStringLiteral("node-link"),
         QStringLiteral("with --nodes: the link among one node's devices, named as for --network "
                        "(default: the link the run measured)"),
         QStringLiteral("name")},
        {QStringLiteral("gradient-mb"),
         QStringLiteral("the gradient each rank all-reduces after every step, in MB (default: "
                        "the run's consumer.gradient_mb)"),
         QStringLiteral("MB")},
        {QStringLiteral("repeats"),
         QStringLiteral("simulate each setting n times, each drawing the run's sample costs in "
                        "another order: the table's spread is the model's own (default 3; its "
                        "error against runs is in docs/what-if.md)"),
         QStringLiteral("n"), QStringLiteral("3")},
    });
    if (const auto code = parseCommandLine(parser, arguments, "predict"))
        return *code;
    if (rejectPositionals(parser, 0, "predict"))
        return kUsage;

    loaderlab::Calibration calibration;
    bool ranksAsked = false; // a prediction for several ranks: stragglers matter
    loaderlab::PredictedSweep predicted;
    std::string from;
    int cores = 0;          // --cores; 0: the run's machine as it was
    std::vector<int> nodes; // --nodes
    loaderlab::NetworkLink betweenNodes;
    loaderlab::NodeScaling scaling;
    loaderlab::ModelCosts runCosts;
    try {
        if (parser.isSet(QStringLiteral("nodes")))
            nodes = nodeCounts(parser.value(QStringLiteral("nodes")));
        else if (parser.isSet(QStringLiteral("node-link")))
            throw std::invalid_argument("--node-link names the link within a node: give --nodes");
        if (!parser.isSet(QStringLiteral("from")))
            throw std::invalid_argument("--from RUN.json: the run to predict from");
        from = pathFromArgument(parser.value(QStringLiteral("from")));
        if (parser.isSet(QStringLiteral("cores")))
            cores = positiveOption(parser, "cores");
        std::vector<loaderlab::SweepAxis> axes;
        for (const QString &axis : parser.values(QStringLiteral("axis"))) {
            axes.push_back(loaderlab::parseSweepAxis(axis.toStdString()));
            ranksAsked = ranksAsked || axes.back().key == "devices";
        }
        calibration = loaderlab::calibrateFromFiles(from);
        // This machine's page-fault lanes are those of its own cores: for another core
        // count they say nothing, and faults are taken to scale with the cores.
        if (cores == 0 || cores == calibration.setting.cores)
            loaderlab::probeFaultLanesHere(calibration);
        else if (calibration.costs.firstFill.perSample > 0.0
                 || calibration.costs.firstFill.fixed > 0.0)
            calibration.notes.push_back("predicting for " + std::to_string(cores)
                                        + " cores: fresh pages are taken to fault in on every "
                                          "core at once (no lanes probed)");
        runCosts = calibration.costs; // the run predicted back on what it measured
        if (parser.isSet(QStringLiteral("devices")))
            calibration.config.devices = positiveOption(parser, "devices");
        ranksAsked = ranksAsked || calibration.config.devices > 1
                     || (!nodes.empty() && nodes.back() > 1);
        if (parser.isSet(QStringLiteral("gradient-mb"))) {
            bool ok = false;
            const double mb = parser.value(QStringLiteral("gradient-mb")).toDouble(&ok);
            if (!ok || mb < 0.0 || mb > 1e6)
                throw std::invalid_argument("--gradient-mb: expected 0 to 1000000");
            calibration.config.gradientMb = mb;
            calibration.costs.gradientBytes = mb * 1e6;
        }
        if (!nodes.empty()) {
            if (parser.isSet(QStringLiteral("node-link")))
                calibration.costs.network = loaderlab::networkLinkNamed(
                    parser.value(QStringLiteral("node-link")).toStdString());
            if (calibration.costs.network.known())
                calibration.notes.push_back("within a node the gradient exchange crosses "
                                            + calibration.costs.network.description);
            if (parser.isSet(QStringLiteral("network"))) {
                betweenNodes = loaderlab::networkLinkNamed(
                    parser.value(QStringLiteral("network")).toStdString());
                calibration.notes.push_back("between nodes it crosses " + betweenNodes.description
                                            + ", one link a node");
            }
        } else if (parser.isSet(QStringLiteral("network"))) {
            calibration.costs.network = loaderlab::networkLinkNamed(
                parser.value(QStringLiteral("network")).toStdString());
            calibration.notes.push_back("the gradient exchange crosses "
                                        + calibration.costs.network.description);
        }
        if (calibration.costs.gradientBytes > 0.0 && calibration.costs.network.known())
            calibration.notes.push_back((nodes.empty() ? "" : "within a node, ")
                                        + exchangeNote(calibration));
        const int repeats = intOption(parser, "repeats", 1, 1000);
        predicted = loaderlab::predictSweep(calibration, axes, cores, repeats);
        if (!nodes.empty())
            scaling = loaderlab::predictNodeScaling(calibration, nodes,
                                                    std::max(1, calibration.config.devices),
                                                    calibration.costs.network, betweenNodes, cores);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab predict: %s\n", escapeForTerminal(e.what()).c_str());
        return kUsage;
    }

    // Settings `loaderlab run` refuses are never predicted, let alone recommended; when
    // none of those asked for can run, there is nothing to show.
    const std::map<std::int64_t, std::string> refusals = refusalsByGrid(predicted);
    const auto gridCells = static_cast<std::size_t>(
        std::count_if(predicted.cells.begin(), predicted.cells.end(),
                      [](const loaderlab::SweepCell &c) { return c.repeat == 0; }));
    if (refusals.size() == gridCells) {
        for (const loaderlab::SweepCell &cell : predicted.cells) {
            if (cell.repeat != 0)
                continue;
            std::string name; // the cell's axis values; none with no axis
            for (std::size_t a = 0; a < predicted.definition.axes.size(); ++a)
                name += (a ? ", " : "")
                        + loaderlab::sweepValueText(predicted.definition.axes[a].key,
                                                    cell.values[a]);
            std::fprintf(stderr, "loaderlab predict: %s%scannot run: %s\n",
                         escapeForTerminal(name).c_str(), name.empty() ? "" : ": ",
                         escapeForTerminal(refusals.at(cell.grid)).c_str());
        }
        std::fprintf(stderr, "loaderlab predict: none of the settings asked for can run here: "
                             "nothing to predict\n");
        return kUsage;
    }

    std::printf("from %s: %s\n", escapeForTerminal(from).c_str(), runText(calibration).c_str());
    if (const std::string busy = busyMachineLine(calibration, cores); !busy.empty())
        std::printf("%s\n", busy.c_str());
    std::printf("%s\n", costsText(calibration).c_str());
    for (const std::string &note : calibration.notes)
        std::printf("  assumed: %s\n", escapeForTerminal(note).c_str());
    if (const std::string stragglers = loaderlab::stragglerText(calibration.stepWaitSeconds,
                                                                {2, 4, 8, 32}, "this run");
        ranksAsked && !stragglers.empty())
        std::printf("%s\n", stragglers.c_str());
    // The run itself, predicted back: how far the model is from what was measured.
    try {
        const loaderlab::Prediction back = loaderlab::predictLoader(runCosts, calibration.setting);
        const double measured = calibration.measured.samplesPerSecMean;
        std::printf("the run itself: measured %.1f samples/s, predicted %.1f", measured,
                    back.samplesPerSecond);
        if (measured > 0.0)
            std::printf(" (%+.1f %%)", (back.samplesPerSecond / measured - 1.0) * 100.0);
        std::printf("\n\n");
    } catch (const std::invalid_argument &e) {
        std::printf("the run itself: not predicted (%s)\n\n", escapeForTerminal(e.what()).c_str());
    }

    const loaderlab::SweepAnalysis analysis = loaderlab::analyzeSweep(predicted.definition,
                                                                      predicted.records);
    SweepTableColumn period{"wait period", {}};
    for (std::size_t k = 0; k < predicted.cells.size(); ++k) {
        if (!predicted.predictions[k].batches.empty())
            period.byGrid[predicted.cells[k].grid] = std::to_string(
                predicted.predictions[k].dominantWaitPeriod);
    }
    std::fputs(markCannotRun(sweepTable(analysis, {}, {period}), refusals).c_str(), stdout);
    if (!scaling.rows.empty()) {
        std::string links = calibration.costs.network.known()
                                ? "within a node " + calibration.costs.network.description
                                : std::string("no link within a node");
        links += betweenNodes.known() ? ", between nodes " + betweenNodes.description
                                      : std::string(", no link between nodes");
        std::printf("\n%s", nodeScalingText(scaling, links).c_str()); // no text of the user's
    }
    std::printf("\npredicted by the loader model: CPU cores shared by processor sharing; the "
                "gradient exchange as a ring all-reduce on the link above (when there is one); no "
                "memory-bandwidth or cache model. Its error is at least the run "
                "itself's above; the spread is the model's own over --repeats draws; its "
                "error between settings, measured against sweeps: docs/what-if.md\n");
    return kOk;
}

} // namespace loaderlab::cli
