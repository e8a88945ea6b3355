// A machine other programs kept busy (core/predict/busy_machine.h): the model with
// the cores other scheduling groups held taken away and B busy threads of other
// programs in the run's own group beside its threads (sharing as core_sharing.h says)
// on constant costs; the split and B fitted from a run's profile and its recorded load;
// and the calibration of a run with known costs recorded under a known load: the
// known per-sample work, the run itself predicted back, an idle machine's prediction;
// an idle or unknown load leaves the calibration exactly as it was.

#include "core/predict/busy_machine.h"
#include "core/predict/calibration.h"
#include "core/predict/contention_profile.h"
#include "tests/support/known_cost_run.h"
#include "tests/support/predicted_rate.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <cmath>

using namespace loaderlab;
using predictedrate::constantCosts;
using predictedrate::steadyRate;

class TestBusyMachine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void otherThreadsShareTheCores();
    void theProfileSaysWhatOtherThreadsWouldHaveHad();
    void fitsTheOtherProgramsThreads();
    void calibratesTheThreadsOwnWork_data();
    void calibratesTheThreadsOwnWork();
    void anIdleOrUnknownLoadChangesNothing();
};

namespace {

constexpr std::int64_t kBusyNs = 1'000'000'000;

bool near(double a, double b, double relative = 1e-6)
{
    return std::abs(a - b) <= relative * std::max(std::abs(a), std::abs(b)) + 1e-12;
}

ModelSetting longRun(int workers, int cores, double otherLoad, double outsideCores = 0.0)
{
    ModelSetting s;
    s.workers = workers;
    s.batchSize = 1;
    s.cores = cores;
    s.otherLoad = otherLoad;
    s.outsideCores = outsideCores;
    s.samplesPerEpoch = 400;
    s.epochs = 1;
    return s;
}

// `group` of `others` in LoaderLab's own scheduling group.
MachineLoad loadOf(int cores, double others, double group, double steal = 0.0)
{
    MachineLoad load;
    load.cores = cores;
    load.seconds = 4.0;
    load.otherBusyCores = others;
    load.groupBusyCores = group;
    load.stealCores = steal;
    load.availableCores = cores - others - steal;
    load.ownBusyCores = load.availableCores;
    return load;
}

} // namespace

void TestBusyMachine::otherThreadsShareTheCores()
{
    const double load = 0.1;
    // Two workers and one busy thread of another program on two cores: halfway between
    // sharing the core the loop leaves free (1/2 each) and even sharing (2/3 each),
    // 7/12 of a core each (core_sharing.h). A load takes 12 L / 7 and two batches come
    // every 12 L / 7: 7 / (6 L), a sixth more than one worker.
    const Prediction shared = predictLoader(constantCosts(load, 0.001), longRun(2, 2, 1.0));
    QVERIFY(near(steadyRate(shared, 8, 2), 7 / (6 * load), 1e-9));
    for (const PredictedBatch &b : shared.batches)
        QVERIFY(near(b.loadEnd - b.loadStart, 12 * load / 7, 1e-9));
    // Three: two on the free core, one beside the loop, each at 1/2: three batches
    // every 2 L.
    const Prediction three = predictLoader(constantCosts(load, 0.001), longRun(3, 2, 1.0));
    QVERIFY(near(steadyRate(three, 9, 3), 3 / (2 * load), 1e-9));
    // One worker beside it: 2 threads on 2 cores, nobody waits: 1 / L.
    const Prediction one = predictLoader(constantCosts(load, 0.001), longRun(1, 2, 1.0));
    QVERIFY(near(steadyRate(one, 4, 1), 1 / load, 1e-9));
    // Four other threads (two on each core) and one worker: the worker joins a pair
    // and has 1/3 of a core.
    const Prediction squeezed = predictLoader(constantCosts(load, 0.001), longRun(1, 2, 4.0));
    QVERIFY(near(steadyRate(squeezed, 4, 1), (1.0 / 3.0) / load, 1e-9));
    // Other groups held 1.6 of the 2 cores: one worker has the 0.4 left, and four
    // share it.
    const Prediction outside = predictLoader(constantCosts(load, 0.001), longRun(1, 2, 0.0, 1.6));
    QVERIFY(near(steadyRate(outside, 4, 1), 0.4 / load, 1e-9));
    const Prediction four = predictLoader(constantCosts(load, 0.001), longRun(4, 2, 0.0, 1.6));
    QVERIFY(near(steadyRate(four, 8, 4), 0.4 / load, 1e-9));
    // A negative load, or other groups holding every core, is no machine at all.
    QVERIFY(!modelInputProblem(constantCosts(load, 0.0), longRun(1, 2, -1.0)).empty());
    QVERIFY(!modelInputProblem(constantCosts(load, 0.0), longRun(1, 2, NAN)).empty());
    QVERIFY(!modelInputProblem(constantCosts(load, 0.0), longRun(1, 2, 0.0, 2.0)).empty());
}

void TestBusyMachine::theProfileSaysWhatOtherThreadsWouldHaveHad()
{
    // One thread busy for 1 s of 2, none the other second, on 2 cores.
    ContentionProfile profile(2, 1);
    profile.addLoad(0, kBusyNs, 1.0);
    profile.addBusy(2 * kBusyNs - 1, 2 * kBusyNs, 1e-12); // the profile's end: nothing busy
    profile.finish();
    // B = 1: 1 beside the thread (2 on 2 cores), 1 after: a whole core throughout.
    QVERIFY(near(profile.otherBusyCores(2, 1.0), 1.0));
    // B = 3: 3 x 2/4 beside the thread, then 2 (the cores): (1.5 + 2) / 2.
    QVERIFY(near(profile.otherBusyCores(2, 3.0), 1.75));
    // On 1 core, B = 1: 1/2 beside the thread, then 1: 0.75.
    QVERIFY(near(profile.otherBusyCores(1, 1.0), 0.75));
    QCOMPARE(profile.otherBusyCores(2, 0.0), 0.0);
    // And the thread's own work beside B = 3: 2/4 of its second; on 0.4 cores alone,
    // 0.4 of it.
    QVERIFY(near(profile.workSeconds(0, kBusyNs), 1.0, 1e-12));
    profile.shareMachine(2, 3.0);
    QVERIFY(near(profile.workSeconds(0, kBusyNs), 0.5, 1e-12));
    profile.shareMachine(0.4, 0.0);
    QVERIFY(near(profile.workSeconds(0, kBusyNs), 0.4, 1e-12));
    profile.shareMachine(2, 0.0);
    QVERIFY(near(profile.workSeconds(0, kBusyNs), 1.0, 1e-12));
}

void TestBusyMachine::fitsTheOtherProgramsThreads()
{
    // One thread busy all the time on 2 cores.
    ContentionProfile profile(2, 1);
    profile.addLoad(0, 4 * kBusyNs, 1.0);
    profile.finish();
    // A busy loop in LoaderLab's own session took a whole core: B = 1 beside the
    // thread, on all 2 cores.
    const BusyMachine loop = busyMachine(loadOf(2, 1.0, 1.0), 2, profile);
    QVERIFY(loop.busy);
    QVERIFY(near(loop.otherLoad, 1.0));
    QVERIFY(near(loop.takenCores, 1.0));
    QVERIFY(near(loop.freeCores, 1.0));
    QCOMPARE(loop.outsideCores, 0.0);
    QCOMPARE(loop.shareCores, 2.0);
    // The same loop in another session: its core is held, the run's group has 1.
    const BusyMachine apart = busyMachine(loadOf(2, 1.0, 0.0), 2, profile);
    QVERIFY(near(apart.outsideCores, 1.0));
    QVERIFY(near(apart.shareCores, 1.0));
    QCOMPARE(apart.otherLoad, 0.0);
    // A build in its own session took 1.6 cores, leaving the thread 0.4. Beside the
    // thread, 3 others have 1 + 1/2 cores (1 and 2 on the cores, the thread with the
    // 1) and 4 have 1 + 2/3 (2 and 2): 1.6 lies 0.6 of the way, B = 3.6.
    QVERIFY(near(busyMachine(loadOf(2, 1.6, 1.6), 2, profile).otherLoad, 3.6));
    // Steal is held outside: 1.2 in the group beside 0.4 stolen, on the 1.6 left,
    // between 1 core (3 others beside the thread: 3/4) and 2 (1 + 1/2):
    // 0.4 x 3/4 + 0.6 x 3/2 = 1.2 at B = 3.
    const BusyMachine stolen = busyMachine(loadOf(2, 1.2, 1.2, 0.4), 2, profile);
    QVERIFY(near(stolen.shareCores, 1.6));
    QVERIFY(near(stolen.otherLoad, 3.0));
    // Half a core beside one thread on 2 cores shares nothing: B = 0.5.
    QVERIFY(near(busyMachine(loadOf(2, 0.5, 0.5), 2, profile).otherLoad, 0.5));
    // Under a tenth of a core, or unknown: an idle machine.
    QVERIFY(!busyMachine(loadOf(2, 0.09, 0.09), 2, profile).busy);
    QCOMPARE(busyMachine(loadOf(2, 0.09, 0.09), 2, profile).otherLoad, 0.0);
    QVERIFY(!busyMachine(MachineLoad{}, 2, profile).busy);
}

void TestBusyMachine::calibratesTheThreadsOwnWork_data()
{
    QTest::addColumn<double>("others");
    QTest::addColumn<double>("group");     // of them in LoaderLab's own session
    QTest::addColumn<double>("outside");   // held by other groups
    QTest::addColumn<double>("otherLoad"); // B
    QTest::addColumn<double>("work");      // a batch's load, work (its wall time: 0.1 s)
    // A busy loop on one of 2 cores beside 1 worker: the worker had its core.
    QTest::newRow("a busy loop in its session") << 1.0 << 1.0 << 0.0 << 1.0 << 0.100;
    QTest::newRow("a busy loop in another session") << 1.0 << 0.0 << 1.0 << 0.0 << 0.100;
    // A build left the worker 0.4 of a core: 0.1 s of wall was 0.04 s of work.
    QTest::newRow("a build in its session") << 1.6 << 1.6 << 0.0 << 3.6 << 0.040;
    QTest::newRow("a build in another session") << 1.6 << 0.0 << 1.6 << 0.0 << 0.040;
}

void TestBusyMachine::calibratesTheThreadsOwnWork()
{
    QFETCH(double, others);
    QFETCH(double, group);
    QFETCH(double, outside);
    QFETCH(double, otherLoad);
    QFETCH(double, work);
    // 1 worker on 2 cores, 40 batches of 8, each loaded in 0.1 s, while other
    // programs took `others` cores.
    const double wall = 0.100;
    KnownCostRun run = knownCostRun(1, 2, 8, 40, wall, 4);
    run.report.machineLoad = loadOf(2, others, group);
    const Calibration cal = calibrateFromRun(run.records, run.report);
    QVERIFY(cal.busyMachine.busy);
    QVERIFY(near(cal.setting.otherLoad, otherLoad));
    QCOMPARE(cal.setting.outsideCores, outside);
    QCOMPARE(cal.setting.cores, 2);
    for (const double v : cal.costs.sampleSeconds)
        QVERIFY2(near(v, work / 8), qPrintable(QString::number(v)));
    QVERIFY(std::any_of(cal.notes.begin(), cal.notes.end(), [](const std::string &note) {
        return note.rfind("other programs used ", 0) == 0;
    }));
    // The run itself, predicted on the machine as it was: what it measured, 8 / wall.
    const double measured = run.report.summary.samplesPerSecMean;
    QVERIFY(near(measured, 8 / wall, 1e-9));
    QVERIFY(near(predictLoader(cal.costs, cal.setting).samplesPerSecond, measured));
    // An idle machine of 2 cores (settingFor with cores): 8 / work.
    RunConfig config = cal.config;
    const ModelSetting idle = settingFor(cal, config, 2);
    QCOMPARE(idle.otherLoad, 0.0);
    QCOMPARE(idle.outsideCores, 0.0);
    QVERIFY(near(predictLoader(costsFor(cal, config), idle).samplesPerSecond, 8 / work));
    // The machine as it was (cores 0): the load stays.
    QVERIFY(near(settingFor(cal, config).otherLoad, otherLoad));
    QCOMPARE(settingFor(cal, config).outsideCores, outside);
}

void TestBusyMachine::anIdleOrUnknownLoadChangesNothing()
{
    const KnownCostRun plain = knownCostRun(2, 2, 8, 40, 0.050, 4);
    const Calibration unknown = calibrateFromRun(plain.records, plain.report);
    KnownCostRun quiet = plain;
    quiet.report.machineLoad = loadOf(2, 0.05, 0.05, 0.02);
    const Calibration idle = calibrateFromRun(quiet.records, quiet.report);
    QVERIFY(!unknown.busyMachine.busy);
    QVERIFY(!idle.busyMachine.busy);
    QCOMPARE(idle.setting.otherLoad, 0.0);
    QCOMPARE(idle.costs.sampleSeconds, unknown.costs.sampleSeconds); // exactly
    QCOMPARE(idle.costs.collate.fixed, unknown.costs.collate.fixed);
    QCOMPARE(idle.costs.startupSeconds, unknown.costs.startupSeconds);
    QCOMPARE(idle.notes, unknown.notes);
    QCOMPARE(predictLoader(idle.costs, idle.setting).samplesPerSecond,
             predictLoader(unknown.costs, unknown.setting).samplesPerSecond);
}

LOADERLAB_GUILESS_TEST_MAIN(TestBusyMachine)
#include "test_busy_machine.moc"
