#pragma once

// Trace times in the tests' own words: a trace's timestamps are nanoseconds.

#include <cstdint>

namespace loaderlab::test {

inline constexpr std::int64_t kMs = 1'000'000; // one millisecond, in a trace's nanoseconds

} // namespace loaderlab::test
