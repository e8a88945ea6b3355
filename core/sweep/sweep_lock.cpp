#include "core/sweep/sweep_lock.h"

namespace loaderlab {

const FolderLockNames &sweepLockNames()
{
    static const FolderLockNames names{kSweepLockName, "cells-", "results folder", "sweep"};
    return names;
}

std::string sweepShardLockName(SweepShard shard)
{
    return folderShardLockName(sweepLockNames(), shard.index, shard.count);
}

SweepFolderLock::SweepFolderLock(const std::string &dir, SweepShard shard)
    : m_lock(dir, sweepLockNames(), shard.index, shard.count)
{
}

} // namespace loaderlab
