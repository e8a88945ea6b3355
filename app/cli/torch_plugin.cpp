// The LibTorch plugin: found beside the executable (the build tree) or in
// ../lib/loaderlab (installed), loaded once with dlopen.
#include "app/cli/torch_plugin.h"

#include "core/run/max_batch_hook.h"
#include "core/system/torch_info.h"
#include "core/torch/model_names.h"

#include <dlfcn.h>

#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <system_error>

namespace loaderlab {

namespace {

constexpr const char *kPluginFile = "loaderlab_torch_plugin.so";

struct Loaded
{
    TorchPluginStatus status;
    const torchmodels::TorchPluginApi *api = nullptr;
};

std::filesystem::path executableDir()
{
    std::error_code error;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::filesystem::path() : exe.parent_path();
}

Loaded load()
{
    Loaded loaded;
    const auto dir = executableDir();
    const std::filesystem::path candidates[] = {dir / kPluginFile,
                                                dir / ".." / "lib" / "loaderlab" / kPluginFile};
    for (const auto &candidate : candidates) {
        std::error_code error;
        if (std::filesystem::is_regular_file(candidate, error)) {
            loaded.status.path = candidate.lexically_normal().string();
            break;
        }
    }
    if (loaded.status.path.empty()) {
        loaded.status.error = "the LibTorch models are not installed: no "
                              + std::string(kPluginFile) + " in "
                              + candidates[0].parent_path().string() + " or "
                              + candidates[1].parent_path().lexically_normal().string();
        return loaded;
    }
    // Kept loaded for the life of the process (LibTorch's threads and registries).
    void *handle = dlopen(loaded.status.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        loaded.status.error = "the LibTorch models in " + loaded.status.path
                              + " could not be loaded: " + (why ? why : "unknown reason");
        return loaded;
    }
    using Entry = const torchmodels::TorchPluginApi *(*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(handle, LOADERLAB_TORCH_PLUGIN_ENTRY));
    const torchmodels::TorchPluginApi *api = entry ? entry() : nullptr;
    if (!api) {
        loaded.status.error = loaded.status.path + " is not LoaderLab's LibTorch plugin (no "
                              + LOADERLAB_TORCH_PLUGIN_ENTRY + ")";
        return loaded;
    }
    if (!api->loaderlabVersion || std::strcmp(api->loaderlabVersion, LOADERLAB_VERSION) != 0) {
        loaded.status.error = loaded.status.path + " belongs to LoaderLab "
                              + (api->loaderlabVersion ? api->loaderlabVersion : "(unknown)")
                              + ", not to this loaderlab (" + LOADERLAB_VERSION + ")";
        return loaded;
    }
    loaded.api = api;
    return loaded;
}

const Loaded &loadedOnce()
{
    static std::once_flag once;
    static Loaded loaded;
    std::call_once(once, [] { loaded = load(); });
    return loaded;
}

std::unique_ptr<Consumer> makeModelConsumer(const ConsumerConfig &config, std::int64_t originNs,
                                            std::stop_token stop)
{
    return torchPlugin().makeConsumer(config, originNs, std::move(stop));
}

std::unique_ptr<ExchangeGroup> makeExchangeGroupByPlugin(int ranks, const std::string &backend,
                                                         std::chrono::milliseconds timeout)
{
    return torchPlugin().makeExchangeGroup(ranks, backend, timeout);
}

} // namespace

const torchmodels::TorchPluginApi &torchPlugin()
{
    const Loaded &loaded = loadedOnce();
    if (!loaded.api)
        throw std::runtime_error(loaded.status.error);
    return *loaded.api;
}

TorchPluginStatus torchPluginStatus()
{
    return loadedOnce().status;
}

void registerTorchPlugin()
{
#ifdef LOADERLAB_TORCH_CUDA
    ModelCapabilities capabilities;
    try {
        capabilities = torchPlugin().capabilities();
    } catch (const std::runtime_error &e) {
        // Runs that ask for a model get the same reason from torchPlugin().
        capabilities.builtinModels = torchmodels::builtinModelNames();
        capabilities.cudaUnavailableReason = e.what();
    }
#else
    const ModelCapabilities capabilities = torchmodels::cpuOnlyCapabilities(torchInfo().version);
#endif
    setModelConsumerFactory(&makeModelConsumer, capabilities);
    setExchangeGroupFactory(&makeExchangeGroupByPlugin);
    setMaxBatchFinderHook([](const torchmodels::MaxBatchRequest &request, std::stop_token stop,
                             const AttemptCallback &onAttempt) {
        return torchPlugin().findMaxBatch(request, std::move(stop), onAttempt);
    });
}

} // namespace loaderlab
