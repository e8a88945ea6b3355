#pragma once

// The probes behind measureCeilings() (core/limits/ceilings.h), one a stage: each runs
// for about `seconds` (fewer when the data runs out) and returns its ceiling, or a
// ceiling with no rate and the reason in its basis. Each ends promptly on `stop`.

#include "core/config/run_config.h"
#include "core/dataset/dataset.h"
#include "core/limits/ceilings.h"
#include "core/system/cpu_load.h"

#include <stop_token>
#include <string>
#include <vector>

namespace loaderlab {

// Says each probe's start to CeilingOptions::progress, numbering them; false when the
// measurement is to stop.
class ProbeProgress
{
public:
    explicit ProbeProgress(const CeilingOptions &options)
        : m_options(options)
    {
    }
    bool operator()(CeilingKind kind)
    {
        if (m_options.progress)
            m_options.progress(kind, m_done++, kTotal);
        return !m_options.stop.stop_requested();
    }

private:
    static constexpr int kTotal = 5;
    const CeilingOptions &m_options;
    int m_done = 0;
};

// A probe's basis or lift text: printf `pattern` with up to three numbers.
std::string probeText(const char *pattern, double a, double b = 0.0, double c = 0.0);

// What the machine left to the run while a probe ran.
struct FreeCores
{
    int cores = 0;
    double free = 0.0; // cores less other programs' busy cores and the host's steal
};

Ceiling probeStorage(const Dataset &dataset, double seconds, std::stop_token stop);
// One thread's decode rate a CPU second on `dataset`, and the cores the machine left
// free meanwhile (the first half of probeDecode()); `load`, when given, gets the load.
double probeDecodeAlone(const Dataset &dataset, double seconds, std::stop_token stop,
                        FreeCores &freeCores, MachineLoad *load = nullptr);
Ceiling probeDecode(const Dataset &dataset, double seconds, std::stop_token stop,
                    FreeCores &freeCores);
Ceiling probeHandover(const LoaderConfig &loader, double seconds, std::stop_token stop);
Ceiling probeStep(const DatasetPtr &dataset, const RunConfig &config, double seconds,
                  std::stop_token stop);
// PyTorch's DataLoader as the PyTorch engine runs it (a Python process; a few seconds
// to start): one worker's samples a second of its time on the run's data times the
// free cores, beside LoaderLab's rate a core; and the run's workers, batch size and
// prefetch on samples of one float.
Ceiling probePytorchDecode(const RunConfig &run, double seconds, std::stop_token stop,
                           const FreeCores &freeCores, double loaderlabPerCore);
Ceiling probePytorchHandover(const RunConfig &run, double seconds, std::stop_token stop);
// The run's step on its first 3 batches kept, on the PyTorch engine (run --replay).
Ceiling probePytorchStep(const RunConfig &run, double seconds, std::stop_token stop);
// The cores others leave free, measured over `seconds` while this process waits.
FreeCores probeFreeCores(double seconds, std::stop_token stop);
// The ceilings of a pipeline file (DatasetKind::Python) on the PyTorch engine: its
// DataLoader's decode (the file's own loading) and hand-over, and its step replayed;
// its storage and a preprocessed copy are not measured (its data is Python's).
CeilingReport measurePipelineCeilings(const RunConfig &config, const CeilingOptions &options);
Ceiling probePreprocessed(const DatasetConfig &dataset, std::int64_t images,
                          const FreeCores &freeCores, double seconds,
                          const std::string &keepTensorFile, std::stop_token stop);

// What the calling thread loaded of `dataset` in about `seconds` (at least 3 samples
// after 2 of warm-up), visiting its samples spread over the whole dataset from `first`,
// and the CPU time that took, also in slices of about an eighth of the time each.
struct ThreadLoads
{
    std::int64_t samples = 0;
    double cpuSeconds = 0.0;
    std::vector<double> sliceRates; // samples per CPU second of each slice

    // The median slice's rate with 3 slices or more, else samples / cpuSeconds: a
    // thread's CPU clock runs on while the host has taken its virtual CPU away, so a
    // moment of that would otherwise pull the whole rate down.
    double perCpuSecond() const;
};
ThreadLoads timedLoads(const Dataset &dataset, double seconds, std::stop_token stop,
                       std::int64_t first = 0);

} // namespace loaderlab
