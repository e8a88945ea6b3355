#include "app/cli/run_support.h"

#include "core/system/safe_text.h"
#include "core/tools/default_dataset.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <vector>

namespace loaderlab::cli {
namespace {

std::atomic<int> g_signal{0};
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

void onSignal(int signal)
{
    g_signal = signal;
}

} // namespace

StopSignals::StopSignals()
{
    for (int s : kSignals)
        std::signal(s, onSignal);
}

StopSignals::~StopSignals()
{
    for (int s : kSignals)
        std::signal(s, SIG_DFL);
}

int takeStopSignal()
{
    return g_signal.exchange(0);
}

void ensureDefaultDataset(loaderlab::RunConfig &config)
{
    if (config.dataset.kind != loaderlab::DatasetKind::ImageFolder || !config.dataset.path.empty())
        return;
    std::fprintf(stderr, "No --path given: using the default dataset (generated on first use).\n");
    config.dataset.path = loaderlab::ensureDefaultImageFolder(
        [](std::int64_t done, std::int64_t total) {
            if (done % 100 == 0 || done == total)
                std::fprintf(stderr, "generating default dataset: %lld/%lld images\n",
                             static_cast<long long>(done), static_cast<long long>(total));
        });
    std::fprintf(stderr, "default dataset: %s\n",
                 loaderlab::escapeForTerminal(config.dataset.path).c_str());
}

void printRunProgress(const loaderlab::TraceLog &trace, bool tty, double elapsedSeconds,
                      double idleSeconds)
{
    const char *start = tty ? "\r" : "";
    const char *end = tty ? "   " : "\n";
    const std::size_t n = trace.size();
    // A copy: the run thread may free old batches (--keep-batches) meanwhile.
    const std::vector<loaderlab::TraceRecord> last = n == 0 ? std::vector<loaderlab::TraceRecord>()
                                                            : trace.records(n > 50 ? n - 50 : 0, n);
    if (last.empty()) {
        std::fprintf(stderr, "%s[%7.1f s] no batch yet%s", start, elapsedSeconds, end);
        return;
    }
    std::int64_t samples = 0;
    for (const auto &r : last)
        samples += r.samples;
    const double span = static_cast<double>(last.back().computeEndNs - last.front().requestNs)
                        / 1e9;
    char idle[48] = "";
    if (idleSeconds >= 2.0)
        std::snprintf(idle, sizeof idle, "; no batch for %.0f s", idleSeconds);
    std::fprintf(stderr, "%s[%7.1f s] %lld batches, %.0f samples/s (last %zu batches)%s%s", start,
                 elapsedSeconds, static_cast<long long>(n), span > 0 ? samples / span : 0.0,
                 last.size(), idle, end);
}

SignalStop::SignalStop()
    : m_watcher([this](std::stop_token done) {
        while (!done.stop_requested()) {
            if (const int s = takeStopSignal(); s != 0) {
                m_signal = s;
                m_stop.request_stop();
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    })
{
}

SignalStop::~SignalStop() = default; // the jthread asks its loop to end and joins

loaderlab::ProgressCallback progressPrinter(const char *what)
{
    return [what](std::int64_t done, std::int64_t total) {
        const std::int64_t step = std::max<std::int64_t>(total / 20, 1);
        if (done % step == 0 || done == total)
            std::fprintf(stderr, "%s: %lld/%lld\n", what, static_cast<long long>(done),
                         static_cast<long long>(total));
    };
}

} // namespace loaderlab::cli
