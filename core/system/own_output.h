#pragma once

// What LoaderLab may replace when it writes an output: nothing but its own files. A
// path given as an output (--csv, --json, --trace-json, a lesson's or max-batch's
// --json, bench-model's --csv) may name a file that does not exist yet, an empty
// .csv or .json file (a name made ready with touch or mktemp), or a file LoaderLab
// wrote before (recognised by its first bytes). preprocess's tensor file keeps to
// the same rule. Anything else (a user's spreadsheet,
// a training job's train.csv, a pipeline's helper module) is refused before a run
// starts, and stays as it was.

#include <string>

namespace loaderlab {

// Why writing `path` would replace a file that is not LoaderLab's; empty when it is
// missing, an empty .csv or .json file, or one of LoaderLab's outputs:
// - a CSV whose first line is the per-batch trace's header ("index,epoch,worker,...")
//   or bench-model's ("model,mode,precision,...");
// - a tensor file (its magic "LLTENSOR", what preprocess writes);
// - a JSON file whose first 64 KiB hold "format": "loaderlab-..." (run summaries,
//   lessons, max-batch results) or Perfetto's "generator": "LoaderLab".
// A symlink is judged by its target. Only regular files are read (the callers
// refuse anything else).
std::string foreignFileProblem(const std::string &path);

} // namespace loaderlab
