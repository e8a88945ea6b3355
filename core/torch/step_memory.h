// StepMemory: peak memory of a model step. On CUDA, the caching allocator's peak
// allocated bytes (reset before the step); on CPU, the process's peak resident set
// (VmHWM), whose high-water mark is reset by writing "5" to /proc/self/clear_refs
// (no privilege needed). Without that reset the figure is the process's lifetime peak.
#pragma once

#include <cstdint>

namespace loaderlab::torchmodels {

class StepMemory
{
public:
    // cudaDevice < 0: measure host memory.
    explicit StepMemory(int cudaDevice = -1)
        : m_cudaDevice(cudaDevice)
    {
    }

    void beginStep();
    void endStep();                                       // updates peakBytes() and lastStepBytes()
    std::int64_t peakBytes() const { return m_peak; }     // over every step so far
    std::int64_t lastStepBytes() const { return m_last; } // of the last step alone
    bool resetWorks() const { return m_resetWorks; }

    // The process's VmHWM / VmRSS in bytes, 0 when /proc is unreadable.
    static std::int64_t processPeakRss();
    static std::int64_t processRss();

private:
    int m_cudaDevice;
    bool m_resetWorks = true;
    std::int64_t m_peak = 0;
    std::int64_t m_last = 0;
};

} // namespace loaderlab::torchmodels
