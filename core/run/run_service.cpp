#include "core/run/run_service.h"

#include "core/io/trace_csv.h"
#include "core/run/output_paths.h"

namespace loaderlab {

RunReport makeRunReport(const RunController &controller,
                        const std::map<std::string, std::string> &versions)
{
    RunReport report;
    const auto trace = controller.trace();
    report.config = controller.config();
    report.dataset = controller.datasetDescription();
    report.state = runStateName(controller.state());
    report.error = controller.error();
    report.summary = summarize(trace->records(), trace->spans(), trace->workersByVersion(),
                               report.config.warmupBatches, trace->skippedCount());
    report.summary.peakMemoryBytes = controller.peakMemoryBytes();
    report.summary.droppedRecords = trace->droppedRecords();
    report.summary.droppedSpans = trace->droppedSpans();
    report.skipped = trace->skipped();
    report.markers = trace->markers();
    report.configVersions = trace->configVersions();
    report.machine = machineInfo();
    for (const auto &[name, version] : versions)
        report.machine.versions[name] = version;
    return report;
}

void RunService::start(const RunConfig &config, const RunOutputs &outputs)
{
    checkOutputPaths({{"--csv", outputs.csvPath}, {"--json", outputs.jsonPath}},
                     {config.dataset.path, config.consumer.model.scriptPath});
    m_controller.start(config);
    m_outputs = outputs;
}

void RunService::setOnEnded(std::function<void(RunState)> callback)
{
    m_controller.setOnEnded(std::move(callback));
}

std::vector<std::string> RunService::writeOutputs(const RunReport &report,
                                                  std::vector<std::string> *written) const
{
    std::vector<std::string> errors;
    const auto write = [&](const std::string &path, const std::string &what, auto save) {
        if (path.empty())
            return;
        try {
            save();
            if (written)
                written->push_back("wrote " + what + " to " + path);
        } catch (const std::exception &e) {
            errors.push_back(e.what());
        }
    };
    const auto trace = m_controller.trace();
    write(m_outputs.csvPath, std::to_string(trace->size()) + " batches",
          [&] { saveTraceCsv(m_outputs.csvPath, trace->records()); });
    write(m_outputs.jsonPath, "the summary", [&] { saveRunReport(m_outputs.jsonPath, report); });
    return errors;
}

} // namespace loaderlab
