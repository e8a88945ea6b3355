#pragma once

// Loader: PyTorch DataLoader semantics on threads. See docs/loader-semantics.md.
//
// With W > 0 workers the loader keeps at most W x prefetch_factor batches in
// flight (dispatched and not yet delivered). Under the per-worker strategy, the
// k-th batch since the epoch (or a reconfiguration) started goes to worker k mod W;
// under sample-parallel, all workers build the oldest outstanding batch together.
// Batches are delivered in order unless inOrder is false. With W = 0, next()
// builds the batch on the calling thread.

#include "core/config/loader_config.h"
#include "core/dataset/dataset.h"
#include "core/loader/batch.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

namespace loaderlab {

// Thrown by Loader::next() under BadSamplePolicy::Fail; the message names the
// file and the reason.
class LoadError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// Thrown by Loader::next() when a worker or the pin thread ended with an error
// outside a sample load (pinning, collation, an allocation): the message names the
// thread and the reason. The batches that thread held would never arrive.
class LoaderThreadError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// Thrown by Loader::next() when stop() was called.
class LoaderStopped : public std::runtime_error
{
public:
    LoaderStopped()
        : std::runtime_error("loader stopped")
    {
    }
};

// One data-parallel rank's share of every epoch, as PyTorch's DistributedSampler
// (drop_last=False) gives it: see shardOrder().
struct Shard
{
    int rank = 0;
    int count = 1;
};

class Loader
{
public:
    // `originNs` is the steady-clock time trace stamps are relative to.
    // Throws std::invalid_argument for a bad config.
    Loader(DatasetPtr dataset, LoaderConfig config, std::int64_t originNs);
    ~Loader(); // stops and joins every thread
    Loader(const Loader &) = delete;
    Loader &operator=(const Loader &) = delete;

    // Begins an epoch in its (possibly shuffled) order, or the `shard` of it. Non-persistent
    // workers are started here and joined when the epoch ends.
    void startEpoch(int epoch, Shard shard = {});
    // Begins an epoch that visits only `indices` (in that order): how a run resumes
    // an epoch after a reconfiguration.
    void resumeEpoch(int epoch, std::vector<std::int64_t> indices);

    // The next batch of the current epoch, or nullptr at its end. Stamps request
    // and delivery. Throws LoaderStopped after stop(), LoadError under the fail policy,
    // LoaderThreadError once a loader thread has died.
    BatchPtr next();

    // Dataset indices of the current epoch not yet delivered by next() (skipped
    // samples count as delivered), in epoch order: the resume point for a
    // reconfiguration, exact also with out-of-order delivery.
    std::vector<std::int64_t> remainingIndices() const;
    int maxInFlight() const; // the most batches ever dispatched and not yet delivered

    // Prompt: wakes every waiting thread, workers abandon their batch mid-way.
    // Safe from any thread.
    void stop();

    // Threads alive right now (workers and the pin thread).
    int liveThreads() const;

    class Impl;

private:
    std::unique_ptr<Impl> m_impl;
};

// The order in which an epoch visits the dataset: 0..n-1, or a seeded shuffle of
// it that depends only on (seed, epoch).
std::vector<std::int64_t> epochOrder(std::int64_t datasetSize, bool shuffle, std::uint64_t seed,
                                     int epoch);

// One rank's part of an epoch order, as DistributedSampler: the order is padded with
// its own first indices up to a multiple of `shard.count` (so every rank gets the same
// number of samples, ceil(n / count)), and rank r takes positions r, r + count, ...
// Throws std::invalid_argument for a rank outside [0, count).
std::vector<std::int64_t> shardOrder(const std::vector<std::int64_t> &order, Shard shard);

} // namespace loaderlab
