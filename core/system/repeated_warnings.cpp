#include "core/system/repeated_warnings.h"

#include <spdlog/spdlog.h>

#include <utility>

namespace loaderlab {
namespace {

std::int64_t steadyNow()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

RepeatedWarnings::RepeatedWarnings(std::function<void(const std::string &)> sink,
                                   std::function<std::int64_t()> nowNs)
    : m_sink(sink ? std::move(sink) : [](const std::string &line) { spdlog::warn("{}", line); })
    , m_nowNs(nowNs ? std::move(nowNs) : steadyNow)
{
}

void RepeatedWarnings::warn(const std::string &message)
{
    std::lock_guard lock(m_mutex);
    const std::int64_t now = m_nowNs();
    if (!m_started || now - m_windowStartNs >= kWindowNs) {
        reportHeldBackLocked();
        m_started = true;
        m_windowStartNs = now;
        m_loggedInWindow = 0;
    }
    const std::size_t key = std::hash<std::string>{}(message);
    if (m_seen.contains(key)) {
        ++m_heldRepeats;
        ++m_heldTotal;
        return;
    }
    if (m_loggedInWindow >= kBurst) {
        ++m_heldNew;
        ++m_heldTotal;
        return;
    }
    ++m_loggedInWindow;
    if (m_seen.size() < kMaxKeys)
        m_seen.insert(key);
    m_sink(message);
}

void RepeatedWarnings::flush()
{
    std::lock_guard lock(m_mutex);
    reportHeldBackLocked();
}

void RepeatedWarnings::reset()
{
    std::lock_guard lock(m_mutex);
    m_seen.clear();
    m_started = false;
    m_loggedInWindow = 0;
    m_heldRepeats = m_heldNew = m_heldTotal = 0;
}

std::int64_t RepeatedWarnings::heldBack() const
{
    std::lock_guard lock(m_mutex);
    return m_heldTotal;
}

void RepeatedWarnings::reportHeldBackLocked()
{
    if (m_heldRepeats == 0 && m_heldNew == 0)
        return;
    std::string line = "held back " + std::to_string(m_heldRepeats + m_heldNew) + " warning"
                       + (m_heldRepeats + m_heldNew == 1 ? "" : "s") + " (";
    line += std::to_string(m_heldRepeats) + " repeating one already shown, "
            + std::to_string(m_heldNew) + " over " + std::to_string(kBurst)
            + " new ones in 10 s); the run's skipped samples are all counted in its summary";
    m_heldRepeats = m_heldNew = 0;
    m_sink(line);
}

RepeatedWarnings &sampleWarnings()
{
    static RepeatedWarnings instance;
    return instance;
}

} // namespace loaderlab
