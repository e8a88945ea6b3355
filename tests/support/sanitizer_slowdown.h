#pragma once

// How much slower code runs in this build: ThreadSanitizer's and AddressSanitizer's
// instrumentation make every memory access cost more (TSan most). A test that waits
// for a real loader to get somewhere (not a timing it asserts) scales its patience
// by this, as ctest scales the tests' time limits (tests/CMakeLists.txt).

namespace loaderlab::test {

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
inline constexpr int kSanitizerSlowdown = 3;
#else
inline constexpr int kSanitizerSlowdown = 1;
#endif

} // namespace loaderlab::test
