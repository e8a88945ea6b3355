#pragma once

// Checks an output path before a run starts, so a run of an hour never ends with
// "cannot write" or with an output written over one of its inputs.

#include <string>
#include <vector>

namespace loaderlab {

// Throws std::invalid_argument "<option> <path>: reason" when `path` cannot be
// written atomically (its folder is missing or read-only, it is a directory or not a
// regular file), when it is one of `inputs` (same device and inode), or when two
// outputs name the same file. `outputs` are (option, path) pairs; empty paths are
// skipped.
void checkOutputPaths(const std::vector<std::pair<std::string, std::string>> &outputs,
                      const std::vector<std::string> &inputs);

} // namespace loaderlab
