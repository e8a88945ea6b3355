#pragma once

// FolderLock: only one writer at a time in a folder that whole runs write alone and
// the tasks of a job array write shard by shard (a sweep's results folder,
// preprocess's shard folder). Every writer holds an flock(2) on lock files in the
// folder for as long as it writes:
//   <folder lock>            exclusive for a whole run; shared for a shard
//   <prefix>K-of-N.lock      exclusive for shard K of N
// The holder writes "PID <pid> on <host>" into the file it holds alone, so a second
// writer is refused with who holds it; the file is emptied when the lock is let go
// (a kill leaves the PID, which names no holder since the lock went with it). The
// lock files are never removed: removing one while another process waits on it
// would let two writers in. A lock file is opened without following a symlink and
// must be a regular file with one link, so a planted link never has the holder
// write into another file.

#include <string>

namespace loaderlab {

struct FolderLockNames
{
    std::string folderLock;  // "sweep.lock"
    std::string shardPrefix; // "cells-": shard K of N locks "cells-K-of-N.lock"
    std::string folderWord;  // "results folder", for messages
    std::string writerWord;  // "sweep", for messages
    // Shards counted from 1 in names and messages (a sweep's cells-K-of-N), or from
    // 0 (preprocess's shards, as --shard and Slurm's array task ids count them).
    bool oneBased = true;
};

// "<prefix>K-of-N.lock" for shard `index` (0-based) of `count`, K counted as the
// names say; "" when count <= 1.
std::string folderShardLockName(const FolderLockNames &names, int index, int count);

class FolderLock
{
public:
    // Locks `dir` (which exists) for a whole run (count <= 1) or for shard `index`
    // (0-based) of `count`. Never waits: throws std::invalid_argument naming the
    // folder and the holder's PID when another process holds it, or why the lock
    // file cannot be made (a read-only folder: nothing can be written there).
    FolderLock(const std::string &dir, const FolderLockNames &names, int index = 0, int count = 1);
    ~FolderLock();
    FolderLock(const FolderLock &) = delete;
    FolderLock &operator=(const FolderLock &) = delete;

private:
    int m_folderFd = -1;
    int m_shardFd = -1;
};

} // namespace loaderlab
