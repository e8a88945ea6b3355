#pragma once

// Keeps warnings that can repeat once per sample from flooding the log. A corrupt
// image is skipped again in every epoch, a truncated tensor file fails every later
// index: unlimited, such a run wrote hundreds of megabytes of warnings a minute.
//
// Rules (docs/limits.md, "Warnings"):
//  - a message already logged is not logged again, only counted (up to kMaxKeys
//    distinct messages are remembered; past that every message counts as new);
//  - at most kBurst new messages are logged per kWindowNs; the others are counted;
//  - when the counted ones are not zero, a line says how many were held back, at the
//    first warning after each window and at flush() (the end of a run).
// Thread-safe: loader workers and ranks log through one instance.

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_set>

namespace loaderlab {

class RepeatedWarnings
{
public:
    static constexpr int kBurst = 20;
    static constexpr std::int64_t kWindowNs = 10'000'000'000;
    static constexpr std::size_t kMaxKeys = 100'000;

    // `sink` receives each line to log (default: spdlog::warn); `nowNs` the time
    // (default: the steady clock). Tests pass their own.
    explicit RepeatedWarnings(std::function<void(const std::string &)> sink = {},
                              std::function<std::int64_t()> nowNs = {});

    // Logs `message` (already escaped for the terminal) or counts it.
    void warn(const std::string &message);
    // Logs how many warnings were held back since the last such line, if any.
    void flush();
    // Forgets the messages seen and the counts, after flush(): a new run starts clean.
    void reset();

    std::int64_t heldBack() const;

private:
    void reportHeldBackLocked();

    std::function<void(const std::string &)> m_sink;
    std::function<std::int64_t()> m_nowNs;
    mutable std::mutex m_mutex;
    std::unordered_set<std::size_t> m_seen; // hashes of the messages logged
    std::int64_t m_windowStartNs = 0;
    int m_loggedInWindow = 0;
    std::int64_t m_heldRepeats = 0; // since the last held-back line
    std::int64_t m_heldNew = 0;
    std::int64_t m_heldTotal = 0;
    bool m_started = false;
};

// The process's limiter for per-sample warnings (skipped samples, decoder warnings).
// RunController resets it when a run starts and flushes it when the run ends.
RepeatedWarnings &sampleWarnings();

} // namespace loaderlab
