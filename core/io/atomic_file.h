#pragma once

// writeFileAtomically: every export goes through here. The content is written to
// "<path>.part" in the same directory, flushed to disk, and renamed over `path`
// only when complete, so a failed export never leaves a half-written file in place
// of a good one.

#include <functional>
#include <ostream>
#include <string>

namespace loaderlab {

// Throws std::runtime_error naming the path and the reason; `path` is then unchanged.
void writeFileAtomically(const std::string &path, const std::function<void(std::ostream &)> &write);

} // namespace loaderlab
