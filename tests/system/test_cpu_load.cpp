// CPU load: /proc/stat's aggregate line parsed from given text, and the load over an
// interval between two samples (the machine's busy and steal shares, ours, the
// others', what was available) as known answers; the meter over a real interval, and
// a live child's CPU time counted as ours.

#include "core/system/cpu_load.h"
#include "tests/support/test_main.h"

#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <ctime>
#include <fstream>
#include <set>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

using loaderlab::CpuLoadMeter;
using loaderlab::CpuSample;
using loaderlab::MachineLoad;
using loaderlab::ProcStatTimes;

class TestCpuLoad : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parsesTheAggregateLineAndCountsCores();
    void readsAnOldKernelsFourFields();
    void textWithoutACpuLineIsUnknown();
    void loadOverAnIntervalIsKnown();
    void ourLoadAboveTheMachinesLeavesOthersAtZero();
    void missingOrBackwardCountersAreUnknown();
    void readsAProcesssStat();
    void aFileThatCannotBeReadIsEmpty();
    void findsTheProcessesBelowOne();
    void aLiveChildsTimeIsOurs();
    void namesTheSchedulingGroup();
    void countsTheGroupsProcessesThatRanThroughout();
    void meterMeasuresARealInterval();
};

namespace {

// A 2-core machine's /proc/stat at some moment, with the fields a 6.1 kernel writes.
const char *const kStatStart = "cpu  1000 20 500 8000 100 10 5 0 0 0\n"
                               "cpu0 500 10 250 4000 50 5 3 0 0 0\n"
                               "cpu1 500 10 250 4000 50 5 2 0 0 0\n"
                               "intr 123456 0 9 0\n"
                               "ctxt 987654\n"
                               "btime 1700000000\n"
                               "procs_running 3\n";

CpuSample sampleOf(const std::string &stat, double ownCpuSeconds, double wallSeconds)
{
    CpuSample s;
    s.machine = loaderlab::parseProcStat(stat);
    s.ownCpuSeconds = ownCpuSeconds;
    s.wallSeconds = wallSeconds;
    return s;
}

// kStatStart plus: user 120, system 40, idle 200, steal 40 ticks (400 in all).
const char *const kStatEnd = "cpu  1120 20 540 8200 100 10 5 40 0 0\n"
                             "cpu0 560 10 270 4100 50 5 3 20 0 0\n"
                             "cpu1 560 10 270 4100 50 5 2 20 0 0\n";

} // namespace

void TestCpuLoad::parsesTheAggregateLineAndCountsCores()
{
    const auto t = loaderlab::parseProcStat(kStatStart);
    QVERIFY(t.has_value());
    QCOMPARE(t->user, std::uint64_t{1000});
    QCOMPARE(t->nice, std::uint64_t{20});
    QCOMPARE(t->system, std::uint64_t{500});
    QCOMPARE(t->idle, std::uint64_t{8000});
    QCOMPARE(t->iowait, std::uint64_t{100});
    QCOMPARE(t->irq, std::uint64_t{10});
    QCOMPARE(t->softirq, std::uint64_t{5});
    QCOMPARE(t->steal, std::uint64_t{0});
    QCOMPARE(t->cores, 2);
    QCOMPARE(t->busy(), std::uint64_t{1000 + 20 + 500 + 10 + 5});
    QCOMPARE(t->total(), std::uint64_t{1535 + 8000 + 100});
}

void TestCpuLoad::readsAnOldKernelsFourFields()
{
    const auto t = loaderlab::parseProcStat("cpu 7 1 2 90\ncpu0 7 1 2 90\n");
    QVERIFY(t.has_value());
    QCOMPARE(t->user, std::uint64_t{7});
    QCOMPARE(t->idle, std::uint64_t{90});
    QCOMPARE(t->iowait, std::uint64_t{0});
    QCOMPARE(t->steal, std::uint64_t{0});
    QCOMPARE(t->cores, 1);
}

void TestCpuLoad::textWithoutACpuLineIsUnknown()
{
    QVERIFY(!loaderlab::parseProcStat("").has_value());
    QVERIFY(!loaderlab::parseProcStat("intr 1 2 3\nctxt 4\n").has_value());
    QVERIFY(!loaderlab::parseProcStat("cpu  1 2 3\n").has_value());   // too few fields
    QVERIFY(!loaderlab::parseProcStat("cpu  1 2 x 4\n").has_value()); // not a number
    QVERIFY(!loaderlab::parseProcStat("cpux 1 2 3 4\n").has_value()); // not the line
}

void TestCpuLoad::loadOverAnIntervalIsKnown()
{
    // Over 2 s: busy 160 and steal 40 of 400 ticks on 2 cores, so 0.8 cores busy and
    // 0.2 stolen; we used 0.6 CPU seconds, 0.3 cores; the others 0.8 - 0.3 = 0.5; so
    // 2 - 0.5 - 0.2 = 1.3 cores were there for the run.
    const MachineLoad load = loaderlab::machineLoadBetween(sampleOf(kStatStart, 10.0, 100.0),
                                                           sampleOf(kStatEnd, 10.6, 102.0));
    QVERIFY(load.known());
    QCOMPARE(load.cores, 2);
    QCOMPARE(load.seconds, 2.0);
    QCOMPARE(load.ownBusyCores, 0.3);
    QCOMPARE(load.stealCores, 0.2);
    QCOMPARE(load.otherBusyCores, 0.5);
    QCOMPARE(load.availableCores, 1.3);
}

void TestCpuLoad::ourLoadAboveTheMachinesLeavesOthersAtZero()
{
    // Our 1.2 CPU seconds in 1 s (rusage and /proc/stat tick apart) against a machine
    // busy 0.8 cores: nobody else took anything.
    const MachineLoad load = loaderlab::machineLoadBetween(sampleOf(kStatStart, 0.0, 0.0),
                                                           sampleOf(kStatEnd, 1.2, 1.0));
    QCOMPARE(load.ownBusyCores, 1.2);
    QCOMPARE(load.otherBusyCores, 0.0);
    QCOMPARE(load.availableCores, 1.8); // less the 0.2 stolen
}

void TestCpuLoad::missingOrBackwardCountersAreUnknown()
{
    const CpuSample start = sampleOf(kStatStart, 0.0, 0.0);
    const CpuSample end = sampleOf(kStatEnd, 0.5, 1.0);
    CpuSample none;
    none.wallSeconds = 1.0;
    QVERIFY(!loaderlab::machineLoadBetween(none, end).known());
    QVERIFY(!loaderlab::machineLoadBetween(start, none).known());
    QVERIFY(!loaderlab::machineLoadBetween(end, start).known());   // backwards
    QVERIFY(!loaderlab::machineLoadBetween(start, start).known()); // no tick, no time
    CpuSample sameTime = end;
    sameTime.wallSeconds = start.wallSeconds;
    QVERIFY(!loaderlab::machineLoadBetween(start, sameTime).known());
}

void TestCpuLoad::readsAProcesssStat()
{
    // ppid 1, utime 250 and stime 40 (fields 14 and 15), cutime 7 and cstime 3 (16 and
    // 17); a command name with spaces and ')'.
    const auto stat = loaderlab::parseProcessStat("4242 (my (odd) prog) S 1 4242 4242 0 -1 4194560 "
                                                  "900 0 3 0 250 40 7 3 20 0 3 0 100 12345 67");
    QVERIFY(stat.has_value());
    QCOMPARE(stat->parent, 1);
    QCOMPARE(stat->ticks, std::uint64_t{290});
    QCOMPARE(stat->childTicks, std::uint64_t{10});
    QCOMPARE(stat->nice, 0); // field 19
    const auto niced = loaderlab::parseProcessStat(
        "7 (make) R 1 7 7 0 -1 0 0 0 0 0 5 1 0 0 39 19 1");
    QVERIFY(niced.has_value());
    QCOMPARE(niced->nice, 19);
    QCOMPARE(loaderlab::parseProcessStat("7 (make) R 1 7 7 0 -1 0 0 0 0 0 5 1 0 0 0 -20 1")->nice,
             -20);
    QVERIFY(!loaderlab::parseProcessStat("").has_value());
    QVERIFY(!loaderlab::parseProcessStat("4242 (cut) S 1 2 3").has_value());
    QVERIFY(!loaderlab::parseProcessStat("4242 (cut) S 1 2 3 4 5 6 7 8 9 10 250 40").has_value());
    QVERIFY(!loaderlab::parseProcessStat("4242 (bad) S 1 2 3 4 5 6 7 8 9 10 x 40 0 0").has_value());
}

void TestCpuLoad::aFileThatCannotBeReadIsEmpty()
{
    // A file read whole: our own stat parses.
    QVERIFY(loaderlab::parseProcessStat(loaderlab::procFileText("/proc/self/stat")).has_value());
    // Opened but unreadable: a directory fails read() (EISDIR) as a process that exited
    // after /proc was listed does (ESRCH); a std::ifstream threw out of its buffer
    // there and ended the autotuner's thread. Empty, no exception.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QCOMPARE(loaderlab::procFileText(dir.path().toStdString()), std::string());
    QCOMPARE(loaderlab::procFileText(dir.filePath(QStringLiteral("missing")).toStdString()),
             std::string());
    // A child that exited and was reaped: its /proc entry is gone.
    const pid_t child = fork();
    if (child == 0)
        _exit(0);
    QVERIFY(child > 0);
    int status = 0;
    QCOMPARE(waitpid(child, &status, 0), child);
    QCOMPARE(loaderlab::procFileText("/proc/" + std::to_string(child) + "/stat"), std::string());
}

void TestCpuLoad::findsTheProcessesBelowOne()
{
    // 10 started 11 and 12; 12 started 13; 20 and 21 are someone else's; 1 is its own
    // parent's (init's table entry) and a loop 30 <-> 31 ends.
    const std::map<int, int> parents{{10, 1},  {11, 10}, {12, 10}, {13, 12}, {20, 1},
                                     {21, 20}, {30, 31}, {31, 30}, {1, 1}};
    QCOMPARE(loaderlab::descendantsOf(10, parents), (std::set<int>{11, 12, 13}));
    QCOMPARE(loaderlab::descendantsOf(12, parents), (std::set<int>{13}));
    QVERIFY(loaderlab::descendantsOf(13, parents).empty());
    QCOMPARE(loaderlab::descendantsOf(30, parents), (std::set<int>{31}));
}

void TestCpuLoad::aLiveChildsTimeIsOurs()
{
    if (!loaderlab::sampleCpu().machine)
        QSKIP("no /proc/stat here: the load is unknown");
    const CpuSample start = loaderlab::sampleCpu();
    // A child that works for 0.3 s of CPU time, then waits to be stopped: still alive,
    // so its time is not in getrusage(RUSAGE_CHILDREN) yet.
    const pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        volatile double sink = 0.0;
        while (std::clock() < static_cast<std::clock_t>(0.3 * CLOCKS_PER_SEC))
            for (int i = 0; i < 100000; ++i)
                sink = sink + i;
        pause();
        _exit(0);
    }
    const auto childTicks = [child] {
        std::ifstream in("/proc/" + std::to_string(child) + "/stat");
        std::string text;
        std::getline(in, text);
        const auto stat = loaderlab::parseProcessStat(text);
        return stat ? stat->ticks : std::uint64_t{0};
    };
    const double tick = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
    QTRY_VERIFY_WITH_TIMEOUT(childTicks() * tick >= 0.28, 60'000);
    const CpuSample end = loaderlab::sampleCpu();
    const double childSeconds = childTicks() * tick;
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    // Ours, not another program's of our group.
    QVERIFY(!end.groupCpuSeconds.contains(child));
    QVERIFY2(end.ownCpuSeconds - start.ownCpuSeconds >= childSeconds - 1e-9,
             qPrintable(QStringLiteral("own %1 s, the child %2 s")
                            .arg(end.ownCpuSeconds - start.ownCpuSeconds)
                            .arg(childSeconds)));
    // Reaped, its time moves to getrusage(RUSAGE_CHILDREN): the sum does not fall back.
    QVERIFY(loaderlab::sampleCpu().ownCpuSeconds >= end.ownCpuSeconds);
}

void TestCpuLoad::namesTheSchedulingGroup()
{
    const char *v1 = "12:pids:/user.slice\n4:cpu,cpuacct:/user.slice/session-3.scope\n"
                     "0::/user.slice/session-3.scope\n";
    // cgroup v1: the cpu controller's path; the autogroup's name without its nice.
    QCOMPARE(loaderlab::schedulingGroup("/autogroup-12 nice 0\n", v1),
             std::string("/autogroup-12|/user.slice/session-3.scope"));
    // Only the cpu controller counts: another memory cgroup is the same group.
    QCOMPARE(
        loaderlab::schedulingGroup("/autogroup-12 nice 5\n", "4:memory:/other\n1:cpu:/\n0::/\n"),
        loaderlab::schedulingGroup("/autogroup-12 nice 0\n", "4:memory:/mine\n1:cpu:/\n"));
    // cgroup v2 only: its path; autogroups off: no name.
    QCOMPARE(loaderlab::schedulingGroup("", "0::/app.slice/term-1.scope\n"),
             std::string("|/app.slice/term-1.scope"));
    QVERIFY(loaderlab::schedulingGroup("/autogroup-12 nice 0", "1:cpu:/")
            != loaderlab::schedulingGroup("/autogroup-13 nice 0", "1:cpu:/"));
}

void TestCpuLoad::countsTheGroupsProcessesThatRanThroughout()
{
    // Over 2 s: process 10 ran 0.4 s, 11 ran 0.2 s; 12 only ended, 13 only started,
    // 14's time went back (a new process with its PID): 0.6 s, 0.3 cores of the 0.5
    // other programs took.
    CpuSample start = sampleOf(kStatStart, 10.0, 100.0);
    CpuSample end = sampleOf(kStatEnd, 10.6, 102.0);
    start.groupCpuSeconds = {{10, 1.0}, {11, 5.0}, {12, 3.0}, {14, 9.0}};
    end.groupCpuSeconds = {{10, 1.4}, {11, 5.2}, {13, 7.0}, {14, 0.5}};
    const MachineLoad load = loaderlab::machineLoadBetween(start, end);
    QCOMPARE(load.groupBusyCores, 0.3);
    QCOMPARE(load.otherBusyCores, 0.5);
    // Never more than all others took.
    end.groupCpuSeconds[10] = 3.0;
    QCOMPARE(loaderlab::machineLoadBetween(start, end).groupBusyCores, 0.5);
    // A process of the group niced 10 levels or more below this one (a background
    // build) ran 0.4 s of them: it yields, and its 0.2 cores are not other programs'.
    end.groupCpuSeconds[10] = 1.4;
    start.yieldingCpuSeconds = {{20, 2.0}};
    end.yieldingCpuSeconds = {{20, 2.4}};
    const MachineLoad niced = loaderlab::machineLoadBetween(start, end);
    QCOMPARE(niced.yieldingCores, 0.2);
    QCOMPARE(niced.otherBusyCores, 0.3);
    QCOMPARE(niced.groupBusyCores, 0.3);
}

void TestCpuLoad::meterMeasuresARealInterval()
{
    CpuLoadMeter meter;
    QVERIFY(!meter.load().known()); // not begun
    const CpuSample start = loaderlab::sampleCpu();
    if (!start.machine)
        QSKIP("no /proc/stat here: the load is unknown");
    meter.begin(start);
    // Busy for a while, so the interval has ticks and CPU time of ours.
    volatile double sink = 0.0;
    const double until = start.wallSeconds + 0.2;
    while (loaderlab::sampleCpu().wallSeconds < until)
        for (int i = 0; i < 100000; ++i)
            sink = sink + i;
    meter.end();
    QVERIFY(meter.ended());
    const MachineLoad load = meter.load();
    QVERIFY(load.known());
    QCOMPARE(load.cores, start.machine->cores);
    QCOMPARE(meter.load().seconds, load.seconds); // ended: the same interval each time
    meter.end();                                  // a second end changes nothing
    QCOMPARE(meter.load().seconds, load.seconds);
    QVERIFY(load.ownBusyCores > 0.0);
    QVERIFY(load.ownBusyCores <= load.cores);
    // What was available is what others and the hypervisor did not take.
    QVERIFY(qAbs(load.availableCores + load.otherBusyCores + load.stealCores - load.cores) < 1e-9);
    meter.begin(loaderlab::sampleCpu());
    QVERIFY(!meter.ended());
}

LOADERLAB_GUILESS_TEST_MAIN(TestCpuLoad)
#include "test_cpu_load.moc"
