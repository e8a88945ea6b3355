#pragma once

// SweepFolderLock: only one writer at a time in a sweep's results folder (a
// FolderLock, core/system/folder_lock.h). Two sweeps on one folder would run every
// cell twice and interleave their lines and traces, so every writer (a sweep, a
// resume, a merge, --slurm-script, the window) holds an flock(2) on a lock file in
// the folder for as long as it writes:
//   sweep.lock           exclusive for a whole sweep and a merge; shared for a shard
//   cells-K-of-N.lock    exclusive for shard K of N (the shards of a Slurm job array
//                        write one folder at once, each its own cells-K-of-N.jsonl)
// The holder writes "PID <pid> on <host>" into the file it holds alone, so a second
// writer is refused with who holds it; the file is emptied when the lock is let go
// (a kill leaves the PID, which names no holder since the lock went with it). The
// lock files are never removed: removing one while another process waits on it
// would let two writers in. Readers (`sweep report`, the window's views) take no
// lock: appends are whole lines and a torn last line is ignored.

#include "core/sweep/sweep.h"
#include "core/system/folder_lock.h"

#include <string>

namespace loaderlab {

inline constexpr const char *kSweepLockName = "sweep.lock";

// "cells-K-of-N.lock" for a shard, "" for a whole sweep.
std::string sweepShardLockName(SweepShard shard);

class SweepFolderLock
{
public:
    // Locks `dir` (which exists) for a whole sweep (shard.count == 1) or for one
    // shard. Never waits: throws std::invalid_argument naming the folder and the
    // holder's PID when another process holds it, or why the lock file cannot be
    // made (a read-only folder: nothing can be written there).
    SweepFolderLock(const std::string &dir, SweepShard shard = {});

private:
    FolderLock m_lock;
};

} // namespace loaderlab
