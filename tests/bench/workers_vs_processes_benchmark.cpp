// loaderlab_bench_workers_vs_processes: does a loader of W worker threads do what
// W independent processes can? On each dataset given (image folders, tensor files)
// and for each W, every round runs A S B B S A:
//   (A) one process whose Loader has W persistent workers (PyTorch's semantics),
//   (S) the same with the sample-parallel strategy (all workers on the oldest batch),
//   (B) W processes at once, each loading on its own thread (workers 0),
// all of them this program started again as children, after the same warm-up epoch,
// timed from a common start. It prints each loader's rate over the sum of B's (the
// ratios a loader should keep near 1), and where the time went: CPU milliseconds,
// minor page faults and context switches per image, the consumer thread's share of
// A's CPU, and the share of the loading threads' time spent loading. Figures are
// min / median / max over the rounds, with the commit, machine and load. Not a test:
// nothing here asserts on a figure.

#include "bench_machine.h"
#include "bench_rounds.h"
#include "core/loader/loader.h"
#include "core/loader/open_dataset.h"
#include "core/system/clock.h"
#include "core/system/cpu_load.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace fs = std::filesystem;
using namespace loaderlab;
using benchmachine::Rounds;

namespace {

constexpr std::int64_t kMinTimedNs = 2'000'000'000;
// The loaders of one process measured against B: A PyTorch's semantics (per-worker
// round robin), S the sample-parallel strategy.
constexpr const char *kVariants = "AS";

struct Options
{
    std::vector<std::string> data; // image folders and tensor files
    std::vector<int> workers{1, 2, 3};
    int batchSize = 32;
    int epochs = 6;
    int rounds = 5;
    std::string json;
};

// ---- child side --------------------------------------------------------------------

// One thread's CPU ticks and minor faults, from /proc/self/task/TID/stat.
struct ThreadCounters
{
    long ticks = 0;
    long minorFaults = 0;
};

std::map<int, ThreadCounters> readThreads()
{
    std::map<int, ThreadCounters> out;
    for (const auto &entry : fs::directory_iterator("/proc/self/task")) {
        std::ifstream file(entry.path() / "stat");
        std::string text((std::istreambuf_iterator<char>(file)), {});
        const auto close = text.rfind(')'); // the name may hold spaces
        if (close == std::string::npos)
            continue;
        std::istringstream fields(text.substr(close + 2));
        std::vector<std::string> f{std::istream_iterator<std::string>(fields), {}};
        // After the name: state(3) ... minflt(10) ... utime(14) stime(15).
        if (f.size() < 13)
            continue;
        out[std::stoi(entry.path().filename().string())] = {std::stol(f[11]) + std::stol(f[12]),
                                                            std::stol(f[7])};
    }
    return out;
}

struct Snapshot
{
    std::int64_t ns = 0;
    rusage usage{};
    std::map<int, ThreadCounters> threads;
};

Snapshot snapshot()
{
    Snapshot s;
    s.threads = readThreads();
    getrusage(RUSAGE_SELF, &s.usage);
    s.ns = steadyNowNs();
    return s;
}

double seconds(const timeval &t)
{
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
}

// The time a loader's workers spent loading the batches delivered, in ns.
std::int64_t drainEpoch(Loader &loader, int epoch, std::int64_t *loadingNs = nullptr)
{
    loader.startEpoch(epoch);
    std::int64_t images = 0;
    while (BatchPtr batch = loader.next()) {
        images += batch->size();
        for (const WorkerSpan &span : batch->spans) // a worker's part of the batch
            if (loadingNs)
                *loadingNs += span.endNs - span.startNs;
    }
    return images;
}

DatasetConfig datasetFor(const std::string &path)
{
    DatasetConfig config;
    config.kind = fs::is_directory(path) ? DatasetKind::ImageFolder : DatasetKind::TensorFile;
    config.path = path;
    return config;
}

// --child PATH WORKERS EPOCHS BATCH VARIANT: one warm-up epoch, "ready" on stdout, a line
// on stdin to start, then the timed epochs and one line of figures.
int childMain(const std::string &path, int workers, int epochs, int batchSize, char variant)
{
    LoaderConfig config;
    config.batchSize = batchSize;
    config.numWorkers = workers;
    config.persistentWorkers = true;
    if (variant == 'S')
        config.strategy = Strategy::SampleParallel;
    Loader loader(openDataset(datasetFor(path)), config, steadyNowNs());
    int epoch = 0;
    drainEpoch(loader, epoch++);
    std::printf("ready\n");
    std::fflush(stdout);
    char go[8];
    if (!std::fgets(go, sizeof go, stdin))
        return 1;
    const Snapshot start = snapshot();
    std::int64_t images = 0;
    std::int64_t loadingNs = 0;
    // At least `epochs`, and as many more as make kMinTimedSeconds (a tensor file's
    // epoch can take milliseconds).
    for (int i = 0; i < epochs || steadyNowNs() - start.ns < kMinTimedNs; ++i)
        images += drainEpoch(loader, epoch++, &loadingNs);
    const Snapshot end = snapshot();
    double consumerTicks = 0;
    double allTicks = 0;
    for (const auto &[tid, c] : end.threads) {
        const auto before = start.threads.find(tid);
        const long ticks = c.ticks - (before == start.threads.end() ? 0 : before->second.ticks);
        allTicks += static_cast<double>(ticks);
        if (tid == getpid())
            consumerTicks += static_cast<double>(ticks);
    }
    const double cpu = seconds(end.usage.ru_utime) - seconds(start.usage.ru_utime)
                       + seconds(end.usage.ru_stime) - seconds(start.usage.ru_stime);
    const double sys = seconds(end.usage.ru_stime) - seconds(start.usage.ru_stime);
    const double wallNs = static_cast<double>(end.ns - start.ns);
    std::printf(
        "%lld %.6f %.6f %.6f %ld %ld %ld %.6f %.6f\n", static_cast<long long>(images),
        static_cast<double>(end.ns - start.ns) * 1e-9, cpu, sys,
        end.usage.ru_minflt - start.usage.ru_minflt, end.usage.ru_nvcsw - start.usage.ru_nvcsw,
        end.usage.ru_nivcsw - start.usage.ru_nivcsw, allTicks > 0 ? consumerTicks / allTicks : 0.0,
        static_cast<double>(loadingNs) / (std::max(workers, 1) * wallNs));
    return 0;
}

// ---- parent side -------------------------------------------------------------------

struct ChildResult
{
    double images = 0, seconds = 0, cpu = 0, sys = 0, minflt = 0, nvcsw = 0, nivcsw = 0;
    double consumerShare = 0;
    double loadingShare = 0; // of the loading threads' time (W, or 1 without workers)
};

class Child
{
public:
    Child(const std::string &path, int workers, int epochs, int batchSize, char variant)
    {
        int in[2];
        int out[2];
        if (pipe(in) != 0 || pipe(out) != 0)
            throw std::runtime_error("pipe failed");
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, in[0], 0);
        posix_spawn_file_actions_adddup2(&actions, out[1], 1);
        posix_spawn_file_actions_addclose(&actions, in[1]);
        posix_spawn_file_actions_addclose(&actions, out[0]);
        const std::vector<std::string> args{"/proc/self/exe",
                                            "--child",
                                            path,
                                            std::to_string(workers),
                                            std::to_string(epochs),
                                            std::to_string(batchSize),
                                            std::string(1, variant)};
        std::vector<char *> argv;
        for (const std::string &a : args)
            argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        const int failed = posix_spawn(&m_pid, "/proc/self/exe", &actions, nullptr, argv.data(),
                                       environ);
        posix_spawn_file_actions_destroy(&actions);
        close(in[0]);
        close(out[1]);
        if (failed != 0)
            throw std::runtime_error("cannot start a child: " + std::string(strerror(failed)));
        m_toChild = fdopen(in[1], "w");
        m_fromChild = fdopen(out[0], "r");
    }
    ~Child()
    {
        if (m_toChild)
            std::fclose(m_toChild);
        if (m_fromChild)
            std::fclose(m_fromChild);
        int status = 0;
        waitpid(m_pid, &status, 0);
    }
    Child(const Child &) = delete;
    Child &operator=(const Child &) = delete;

    std::string line()
    {
        char text[512];
        if (!std::fgets(text, sizeof text, m_fromChild))
            throw std::runtime_error("a child ended without its figures");
        return text;
    }
    void go()
    {
        std::fputs("go\n", m_toChild);
        std::fflush(m_toChild);
    }

private:
    pid_t m_pid = 0;
    std::FILE *m_toChild = nullptr;
    std::FILE *m_fromChild = nullptr;
};

// `processes` children with `workers` each, started together after their warm-up.
std::vector<ChildResult> runTogether(const std::string &path, int processes, int workers,
                                     char variant, const Options &options)
{
    std::vector<std::unique_ptr<Child>> children;
    for (int i = 0; i < processes; ++i)
        children.push_back(
            std::make_unique<Child>(path, workers, options.epochs, options.batchSize, variant));
    for (auto &child : children)
        if (child->line() != "ready\n")
            throw std::runtime_error("a child did not get ready");
    for (auto &child : children)
        child->go();
    std::vector<ChildResult> results;
    for (auto &child : children) {
        std::istringstream fields(child->line());
        ChildResult r;
        fields >> r.images >> r.seconds >> r.cpu >> r.sys >> r.minflt >> r.nvcsw >> r.nivcsw
            >> r.consumerShare >> r.loadingShare;
        if (!fields)
            throw std::runtime_error("a child's figures could not be read");
        results.push_back(r);
    }
    return results;
}

void addCounters(Rounds &rounds, const std::string &prefix, const std::vector<ChildResult> &rs)
{
    double images = 0, cpu = 0, sys = 0, minflt = 0, switches = 0;
    for (const ChildResult &r : rs) {
        images += r.images;
        cpu += r.cpu;
        sys += r.sys;
        minflt += r.minflt;
        switches += r.nvcsw + r.nivcsw;
    }
    rounds.add(prefix + " CPU ms/image", 1e3 * cpu / images);
    rounds.add(prefix + " of it kernel ms/image", 1e3 * sys / images);
    rounds.add(prefix + " minor faults/image", minflt / images);
    rounds.add(prefix + " context switches/image", switches / images);
}

// The machine's CPU time since `before` that the hypervisor gave to other machines
// (/proc/stat's steal), as a share of all of it.
double stealShareSince(const ProcStatTimes &before)
{
    const auto now = parseProcStat(procFileText("/proc/stat"));
    const auto total = [](const ProcStatTimes &t) {
        return static_cast<double>(t.user + t.nice + t.system + t.idle + t.iowait + t.irq
                                   + t.softirq + t.steal);
    };
    if (!now || total(before) <= 0.0 || total(*now) <= total(before))
        return 0.0;
    return static_cast<double>(now->steal - before.steal) / (total(*now) - total(before));
}

std::vector<int> parseList(const std::string &text)
{
    std::vector<int> out;
    std::istringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
        out.push_back(std::stoi(item));
    return out;
}

void usage()
{
    std::printf("usage: loaderlab_bench_workers_vs_processes --data PATH [--data PATH ...]\n"
                "       [--workers 1,2,3] [--epochs 6] [--rounds 5] [--batch-size 32]\n"
                "       [--json FILE]\n"
                "PATH: an image folder or a tensor file. Each child times --epochs epochs,\n"
                "and more until 2 s have passed, after one warm-up epoch.\n");
}

Options parseArgs(int argc, char **argv)
{
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc)
                throw std::invalid_argument(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--data")
            options.data.push_back(value());
        else if (arg == "--workers")
            options.workers = parseList(value());
        else if (arg == "--epochs")
            options.epochs = std::stoi(value());
        else if (arg == "--rounds")
            options.rounds = std::stoi(value());
        else if (arg == "--batch-size")
            options.batchSize = std::stoi(value());
        else if (arg == "--json")
            options.json = value();
        else
            throw std::invalid_argument("unknown option " + arg);
    }
    if (options.data.empty())
        throw std::invalid_argument("give at least one --data");
    return options;
}

} // namespace

int main(int argc, char **argv)
{
    try {
        if (argc == 7 && std::string(argv[1]) == "--child")
            return childMain(argv[2], std::stoi(argv[3]), std::stoi(argv[4]), std::stoi(argv[5]),
                             argv[6][0]);
        if (argc == 2 && std::string(argv[1]) == "--help") {
            usage();
            return 0;
        }
        const Options options = parseArgs(argc, argv);
        const std::string commit = benchmachine::commandOutput(
            "git -C '" LOADERLAB_SOURCE_DIR "' describe --always --dirty --abbrev=12 2>/dev/null");
        std::printf("commit:  %s\nmachine: %s, %ld CPUs, %s\n",
                    commit.empty() ? "unknown" : commit.c_str(), benchmachine::cpuModel().c_str(),
                    sysconf(_SC_NPROCESSORS_ONLN),
                    benchmachine::commandOutput("uname -sr").c_str());
        std::printf("batch size %d, %d timed epoch(s) or more (2 s) after 1 warm-up, %d rounds\n",
                    options.batchSize, options.epochs, options.rounds);
        std::printf("load average at start: %s\n", benchmachine::loadAverage().c_str());
        Rounds rounds;
        for (int round = 0; round < options.rounds; ++round) {
            for (const std::string &path : options.data) {
                const std::string name = fs::path(path).filename().string();
                for (int w : options.workers) {
                    // The loaders, B twice, the loaders again in reverse (A S B B S A):
                    // a steady drift of the machine's speed during
                    // the round cancels out of the ratios.
                    std::map<char, std::vector<ChildResult>> results;
                    std::map<char, double> rate;
                    const ProcStatTimes ticksBefore =
                        parseProcStat(procFileText("/proc/stat")).value_or(ProcStatTimes{});
                    std::string order = std::string(kVariants) + "B";
                    order += std::string(order.rbegin(), order.rend());
                    for (char which : order) {
                        const auto got = which == 'B' ? runTogether(path, w, 0, 'A', options)
                                                      : runTogether(path, 1, w, which, options);
                        for (const ChildResult &r : got)
                            rate[which] += r.images / r.seconds / 2;
                        auto &all = results[which];
                        all.insert(all.end(), got.begin(), got.end());
                    }
                    const double steal = stealShareSince(ticksBefore);
                    const std::string key = name + ", W=" + std::to_string(w) + ":";
                    std::printf("round %d %s B %.1f images/s", round + 1, key.c_str(), rate['B']);
                    for (const char *v = kVariants; *v; ++v)
                        std::printf(", %c/B %.3f", *v, rate[*v] / rate['B']);
                    std::printf("; steal %.1f%%, load %s\n", 100 * steal,
                                benchmachine::loadAverage().c_str());
                    std::fflush(stdout);
                    const auto loading = [](const std::vector<ChildResult> &rs) {
                        double sum = 0;
                        for (const ChildResult &r : rs)
                            sum += r.loadingShare / static_cast<double>(rs.size());
                        return sum;
                    };
                    for (const char *v = kVariants; *v; ++v)
                        rounds.add(key + " " + *v + "/B", rate[*v] / rate['B']);
                    for (const char v : std::string(kVariants) + "B") {
                        const std::string who = key + " " + v;
                        rounds.add(who + " images/s", rate[v]);
                        addCounters(rounds, who, results[v]);
                        rounds.add(who + (v == 'B' ? " threads'" : " workers'") + " time loading",
                                   loading(results[v]));
                    }
                    const auto &a = results['A'];
                    rounds.add(key + " A consumer thread's CPU share",
                               (a[0].consumerShare + a[1].consumerShare) / 2);
                    rounds.add(key + " CPU time stolen by the host", steal);
                }
            }
        }
        rounds.print();
        std::printf("load average at end: %s\n", benchmachine::loadAverage().c_str());
        if (!options.json.empty()) {
            std::ofstream file(options.json);
            file << nlohmann::json{{"commit", commit},
                                   {"machine", benchmachine::cpuModel()},
                                   {"rounds", rounds.toJson()}}
                        .dump(2)
                 << '\n';
            if (!file)
                throw std::runtime_error(options.json + ": cannot write");
        }
    } catch (const std::exception &error) {
        std::fprintf(stderr, "loaderlab_bench_workers_vs_processes: %s\n", error.what());
        return 1;
    }
    return 0;
}
