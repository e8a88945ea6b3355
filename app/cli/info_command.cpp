// `loaderlab info`: what this machine offers, for bug reports and to label results;
// `loaderlab python-path`: where this binary's Python probe module is.

#include "app/cli/cli.h"
#ifdef LOADERLAB_TORCH_MODELS
#include "app/cli/torch_plugin.h"
#endif

#include "core/engine/pytorch/python_probe.h"
#include "core/io/summary_json.h"
#include "core/system/machine_info.h"
#include "core/system/safe_text.h"

#include <QCommandLineParser>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <stdexcept>

namespace loaderlab::cli {

int infoCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Prints CPU, memory, library versions and CUDA availability."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("json"), QStringLiteral("print as JSON")});
    if (const auto code = parseCommandLine(parser, arguments, "info"))
        return *code;
    if (rejectPositionals(parser, 0, "info"))
        return kUsage;
    loaderlab::MachineInfo info = loaderlab::machineInfo();
    info.versions["qt"] = qVersion();
#ifdef LOADERLAB_TORCH_MODELS
    // Loads the models (LibTorch), as a run with one would: a bug report says whether
    // they load and from where.
    const loaderlab::TorchPluginStatus models = loaderlab::torchPluginStatus();
#else
    const struct
    {
        std::string path, error;
    } models{"", "not in this build (LOADERLAB_WITH_TORCH=OFF)"};
#endif
    const std::string modelsText = models.error.empty() ? models.path : models.error;
    if (parser.isSet(QStringLiteral("json"))) {
        nlohmann::json json = loaderlab::toJson(info);
        json["models"] = {{"path", models.path}, {"loaded", models.error.empty()}};
        if (!models.error.empty())
            json["models"]["error"] = models.error;
        std::printf("%s\n", json.dump(2).c_str());
        return kOk;
    }
    std::printf("CPU           %s\n", info.cpuModel.c_str());
    std::printf("cores         %d logical\n", info.logicalCores);
    std::printf("memory        %.1f GiB\n",
                static_cast<double>(info.memoryBytes) / (1024.0 * 1024 * 1024));
    std::printf("OS            %s\n", info.os.c_str());
    for (const auto &[name, version] : info.versions)
        std::printf("%-13s %s\n", name.c_str(), version.c_str());
    std::printf("CUDA          %s\n",
                info.cudaAvailable ? (std::to_string(info.cudaDevices) + " device(s)").c_str()
                                   : "not available");
    std::printf("models        %s\n", loaderlab::escapeForTerminal(modelsText).c_str());
    return kOk;
}

int pythonPathCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Prints the folder that holds the loaderlab_probe Python module, to put on "
                       "PYTHONPATH:\n  PYTHONPATH=$(loaderlab python-path) python3 train.py"));
    parser.addHelpOption();
    if (const auto code = parseCommandLine(parser, arguments, "python-path"))
        return *code;
    if (rejectPositionals(parser, 0, "python-path"))
        return kUsage;
    try {
        std::printf("%s\n", loaderlab::loaderlabPythonDir().c_str());
    } catch (const std::runtime_error &e) {
        std::fprintf(stderr, "loaderlab python-path: %s\n", e.what());
        return kFailed;
    }
    return kOk;
}

} // namespace loaderlab::cli
