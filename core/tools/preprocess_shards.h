#pragma once

// preprocessShards: offline preprocessing as a cluster job. The folder's images, in
// their sorted order, are cut into N contiguous shards; each shard becomes a tensor
// file of its own, and a manifest lists them in order, so the shards read one after
// the other hold the same records, byte for byte, as preprocess writes into one
// file. One process can write every shard in turn, or each task of a job array
// one shard (`--shards N --shard I`, or Slurm's SLURM_ARRAY_TASK_ID). In OUT_DIR:
//   preprocess.json                  the plan: source, its listing's fingerprint,
//                                    dtype, size, shard count; every task checks it
//   shard-0000K-of-0000N.lltensor    shard K (0-based, as --shard and the array
//                                    task id count): a tensor file
//   shard-0000K-of-0000N.json        what shard K holds: its images, records, skips
//   manifest.json                    written by the task that finds every shard done
//   *.lock                           the folder's and the shards' locks
//                                    (core/system/folder_lock.h)
// Resumable: a shard whose tensor file and record agree is kept, any other is
// written again (atomically: a shard is renamed into place whole, its record
// after it). Nothing in OUT_DIR is replaced that the plan did not name and that is
// not LoaderLab's (core/system/own_output.h); a folder planned for another source,
// listing, dtype, size or shard count is refused, naming what differs.

#include "core/tools/preprocess.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loaderlab {

inline constexpr const char *kShardManifestName = "manifest.json";

struct ShardedPreprocessResult
{
    std::vector<int> written;           // shards written now (0-based)
    std::vector<int> kept;              // shards found done and kept
    std::vector<int> busy;              // shards another process was writing
    std::int64_t records = 0;           // in the shards written now
    std::vector<SkippedSample> skipped; // in the shards written now
    std::string manifestPath;           // "" until every shard is done
    int shardsDone = 0;                 // of all, after this run
};

// "shard-0000K-of-0000N.lltensor" for shard `index` (0-based) of `count`.
std::string shardFileName(int index, int count);

// [first, end) of the `images` for shard `index` of `count`: contiguous, in order,
// sizes differing by at most one.
std::pair<std::int64_t, std::int64_t> shardRange(std::int64_t images, int index, int count);

// Makes `outDir` (its parent must exist), or checks that it is a folder; either way
// outside `inputDir`. Throws std::invalid_argument naming the folder and why.
void prepareShardFolder(const std::string &inputDir, const std::string &outDir);

// Writes shard `shard` (0-based) of `shards` of `inputDir` into `outDir` (made if
// missing, its parent must exist), or, when `shard` < 0, every shard in turn that is
// not done and that no other process is writing (so that the tasks of a job array
// running the same command share the shards out as they come free), and the
// manifest once every shard is done. Throws DatasetError for a bad input folder,
// std::invalid_argument for a refused folder or option (before decoding anything)
// or a `shard` another process is writing, std::runtime_error for a failed write.
ShardedPreprocessResult preprocessShards(const std::string &inputDir, const std::string &outDir,
                                         const PreprocessOptions &options, int shards, int shard,
                                         const ProgressCallback &progress = {});

} // namespace loaderlab
