#pragma once

// What keeps a file LoaderLab writes from landing on one it reads. Every writer that
// goes through "<name>.part" (core/system/atomic_file.h, the streaming CSV, the tensor
// file writer) and the checks made before a run (core/run/output_paths.h) use these,
// so an output, or the ".part" it is written through, can never be an input, a file
// inside an input folder, or a planted symlink.

#include <string>
#include <vector>

namespace loaderlab {

// Why writing `output` (through "<output>.part", then renamed) would destroy one of
// `inputs`; empty when it would not. Compared by device and inode, so another
// spelling, a symlink or a hard link is caught:
// - `output` or "<output>.part" is the same file as an input;
// - an input is a folder (an image-folder dataset, an IDX or CIFAR folder) and
//   `output` lies anywhere inside it, at any depth (its real folder, symlinks
//   resolved, is the input folder or below it), whether or not the file exists yet.
// The reason names the input, e.g. "is an input of the run (data/train.ltf); it would
// be overwritten". Empty inputs are skipped.
std::string outputInputConflict(const std::string &output, const std::vector<std::string> &inputs);

// Why "<output>.part" cannot be written through: "is a symbolic link (to ...)", "is a
// directory", "is not a regular file"; empty when it is missing or a regular file (a
// stale one from an interrupted write, replaced by a new file, never written through).
std::string partFileProblem(const std::string &part);

// Inputs of the runs this process started (datasets, models), which every writer
// checks its output against (outputInputConflict) even when its caller has no list
// of inputs, e.g. an export from the window. Keeps the last 32 distinct paths.
void protectInput(const std::string &path);
std::vector<std::string> protectedInputs();

} // namespace loaderlab
