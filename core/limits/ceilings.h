#pragma once

// Ceilings: how many samples a second each stage of a run's input pipeline could give
// on this machine, each measured for a few seconds on the run's own data and settings
// (docs/ceilings.md):
//   - storage: reading the samples' bytes (cold with O_DIRECT where the file system
//     allows it, else from the page cache, said which);
//   - decode: read + decode + transform, per CPU second of threads decoding on as many
//     cores as the machine leaves free to the run (others' load measured while one
//     thread decoded), times those free cores;
//   - hand-over: LoaderLab's own cost per batch (dispatch, reorder, delivery) with the
//     run's workers and batch size on samples that cost nothing;
//   - step: the consumer's step replayed on batches loaded once and kept in memory,
//     so loading costs nothing: the job's speed with a perfect loader;
//   - preprocessed: the same images preprocessed into a tensor file (a sample of the
//     folder, written into a folder of LoaderLab's own and deleted unless kept), read
//     by one thread, times the free cores.
// The loader's ceiling is the lowest of storage, decode (or preprocessed, for the
// alternative) and hand-over; the job's the lower of that and the step.

#include "core/config/run_config.h"

#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace loaderlab {

enum class CeilingKind { Storage, Decode, Handover, Step, Preprocessed };

// "storage", "decode", "hand-over", "step", "preprocessed".
const char *ceilingKindName(CeilingKind kind);

struct Ceiling
{
    CeilingKind kind = CeilingKind::Storage;
    // 0 when it was not measured: `basis` says why (no files to read, no step).
    double samplesPerSecond = 0.0;
    std::string basis;           // how it was measured, in a line: "O_DIRECT, 41.2 MB in 2.0 s"
    std::string lift;            // what raises it
    double bytesPerSecond = 0.0; // storage: the bytes read a second

    bool measured() const { return samplesPerSecond > 0.0; }
};

// What lifting a ceiling would give the whole job, predicted by the loader model
// (core/limits/ceiling_lifts.h).
enum class LiftKind {
    AsSet,        // the run's settings
    MoreWorkers,  // a worker more
    MoreCores,    // a free core more and a worker more
    Preprocessed, // the preprocessed tensors' rate a core instead of the decode's
    FasterStep,   // the step in half its time (half precision, a faster device)
};

struct PredictedLift
{
    LiftKind kind = LiftKind::AsSet;
    int workers = 0;               // the workers it is predicted with
    double samplesPerSecond = 0.0; // the job's predicted rate
    bool storageBound = false;     // cut to the storage ceiling
};

// "as set (2 workers)", "3 workers", "a core more, 3 workers", "preprocessed tensors",
// "a step twice as fast".
std::string liftName(const PredictedLift &lift);

struct CeilingOptions
{
    double secondsEach = 2.0; // each probe's measuring time
    // Where to keep the preprocessed sample; empty: deleted. Refused when it exists.
    std::string keepTensorFile;
    // Called before each probe with its name and how many probes came before.
    std::function<void(CeilingKind kind, int done, int total)> progress;
    std::stop_token stop;
};

struct CeilingReport
{
    std::vector<Ceiling> ceilings; // in the order of CeilingKind
    int cores = 0;                 // the machine's logical cores
    double freeCores = 0.0;        // what others left to the run while decode was measured
    std::string dataset;           // its description
    // The job as set, then with each lift, from the loader model; empty when the
    // decode or the step was not measured.
    std::vector<PredictedLift> predicted;

    const Ceiling *find(CeilingKind kind) const;
    // The lowest of storage, decode and hand-over that were measured; nullptr if none.
    const Ceiling *loaderBinding() const;
    // The lower of the loader's binding ceiling and the step.
    const Ceiling *jobBinding() const;
};

// On the PyTorch engine the decode and the hand-over are PyTorch's DataLoader's, and a
// pipeline file's step is replayed there too (core/limits/ceiling_probes.h); a Python
// that cannot run it leaves them unmeasured, saying why. Throws std::invalid_argument
// for a config the probes cannot measure (what the config's engine refuses, a
// --keep-tensor file that exists), and what opening the
// dataset throws. A stop request ends the probe under way; the report then holds the
// ceilings measured so far.
CeilingReport measureCeilings(const RunConfig &config, const CeilingOptions &options);

// "the decode on 2 cores binds at 830 samples/s; you run at 690, 83 % of it; the step
// alone could take 2,400": the binding ceiling, the run's rate against it when given,
// the step's ceiling and the next ceiling once the binding one is lifted.
std::string bindingSentence(const CeilingReport &report, std::optional<double> runRate);

} // namespace loaderlab
