#pragma once

// The kinds of activity the loader model's clock runs (ActivityTag::kind), shared by
// the files of LoaderSimulation.

namespace loaderlab::simactivity {

// What a clock activity is, in ActivityTag::kind.
enum SimActivity : int {
    kWorkersStarted, // delay: the rank's workers (re)starting
    kWorkerTakes,    // delay: a per-worker worker taking its next task
    kWorkerBatch,    // CPU: a per-worker batch, its samples and its collate
    kWorkerSlot,     // CPU: one sample of a sample-parallel batch
    kWorkerCollate,  // CPU: the collate of a sample-parallel batch, by its last worker
    kPinThread,      // CPU: the pin thread copying a batch into pinned memory
    kConsumerLoad,   // CPU: W = 0, the consumer loading its batch
    kConsumerPin,    // CPU: W = 0, the consumer pinning it
    kHandoff,        // delay: a ready batch handed to the waiting consumer
    kCopy,           // delay: host-to-device copy
    kStep,           // CPU (consumer threads) or delay: the step
    kRecorded,       // delay: the consumer's work after the step
    kExchanged,      // delay: the gradient all-reduce after the step's barrier
};

} // namespace loaderlab::simactivity
