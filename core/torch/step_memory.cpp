// StepMemory: /proc/self/status parsing and the CUDA allocator's statistics (only in
// builds against a CUDA-enabled LibTorch, LOADERLAB_TORCH_CUDA).
#include "core/torch/step_memory.h"

#ifdef LOADERLAB_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace loaderlab::torchmodels {
namespace {

// A "Name:   1234 kB" line of /proc/self/status, in bytes.
std::int64_t statusField(const char *name)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::string prefix = std::string(name) + ":";
    while (std::getline(in, line)) {
        if (!line.starts_with(prefix))
            continue;
        std::istringstream fields(line.substr(prefix.size()));
        std::int64_t kb = 0;
        fields >> kb;
        return kb * 1024;
    }
    return 0;
}

} // namespace

std::int64_t StepMemory::processPeakRss()
{
    return statusField("VmHWM");
}

std::int64_t StepMemory::processRss()
{
    return statusField("VmRSS");
}

void StepMemory::beginStep()
{
    if (m_cudaDevice >= 0) {
#ifdef LOADERLAB_TORCH_CUDA
        c10::cuda::CUDACachingAllocator::resetPeakStats(m_cudaDevice);
#endif
        return;
    }
    if (m_resetWorks) {
        std::ofstream clearRefs("/proc/self/clear_refs");
        clearRefs << "5";
        clearRefs.flush();
        m_resetWorks = static_cast<bool>(clearRefs);
    }
}

void StepMemory::endStep()
{
    std::int64_t peak = 0;
    if (m_cudaDevice >= 0) {
#ifdef LOADERLAB_TORCH_CUDA
        const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(m_cudaDevice);
        peak = stats
                   .allocated_bytes[static_cast<std::size_t>(
                       c10::cuda::CUDACachingAllocator::StatType::AGGREGATE)]
                   .peak;
#endif
    } else {
        peak = processPeakRss();
    }
    m_last = peak;
    m_peak = std::max(m_peak, peak);
}

} // namespace loaderlab::torchmodels
