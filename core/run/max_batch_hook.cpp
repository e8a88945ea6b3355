#include "core/run/max_batch_hook.h"

#include <mutex>

namespace loaderlab {
namespace {

std::mutex g_hookMutex;
MaxBatchFinderHook g_hook;

} // namespace

void setMaxBatchFinderHook(MaxBatchFinderHook hook)
{
    std::lock_guard lock(g_hookMutex);
    g_hook = std::move(hook);
}

MaxBatchFinderHook maxBatchFinderHook()
{
    std::lock_guard lock(g_hookMutex);
    return g_hook;
}

} // namespace loaderlab
