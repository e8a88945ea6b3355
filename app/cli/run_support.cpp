#include "app/cli/run_support.h"

#include "core/io/safe_text.h"
#include "core/tools/default_dataset.h"

#include <atomic>
#include <csignal>
#include <cstdio>

namespace Cli {
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

} // namespace Cli
