#pragma once

// Checks an output path before a run starts, so a run of an hour never ends with
// "cannot write" or with an output written over one of its inputs.

#include <string>
#include <vector>

namespace loaderlab {

// Throws std::invalid_argument "<option> <path>: reason" when `path` cannot be
// written atomically (its folder is missing or read-only, it is a directory or not a
// regular file), when it or the "<path>.part" it is written through is one of
// `inputs` or lies inside an input folder (core/system/output_guard.h), when that
// ".part" is a symlink or not a regular file, when it names a file LoaderLab did not
// write (core/system/own_output.h: a user's file, a pipeline's module), or when two
// outputs (or one's ".part") name the same file. `outputs` are (option, path) pairs; empty paths
// are skipped.
void checkOutputPaths(const std::vector<std::pair<std::string, std::string>> &outputs,
                      const std::vector<std::string> &inputs);

} // namespace loaderlab
