// A measured cell's machine load (SweepRecord::machineLoad): written in its cells.jsonl
// line as "machine_load", the run summary's JSON, and read back; a line without it (an
// older folder) still reads, as an unknown load; a malformed one is refused naming the
// field. calibrateFromSweepCell counts a recorded load as calibrateFromRun counts a
// run's (the same busy machine and costs from the same records), and `sweep
// --predict-first`'s load notes (predictFirstLoadNote) give known texts for known
// loads. No test here depends on how busy the machine running it is.

#include "core/io/trace_csv.h"
#include "core/predict/predict_first.h"
#include "core/predict/sweep_prediction_error.h"
#include "core/sweep/sweep_records.h"
#include "core/sweep/sweep_results.h"
#include "tests/support/known_cost_run.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <string>

using namespace loaderlab;
using nlohmann::json;

namespace {

// 2 cores: other programs took 1.0 (0.4 of it in LoaderLab's session), the hypervisor
// 0.1.
MachineLoad busyLoad()
{
    MachineLoad load;
    load.cores = 2;
    load.seconds = 4.0;
    load.ownBusyCores = 0.9;
    load.otherBusyCores = 1.0;
    load.groupBusyCores = 0.4;
    load.stealCores = 0.1;
    load.availableCores = 0.9;
    return load;
}

// Other programs took `others` of 2 cores, none in LoaderLab's session.
MachineLoad loadOf(double others)
{
    MachineLoad load;
    load.cores = 2;
    load.seconds = 4.0;
    load.otherBusyCores = others;
    load.availableCores = 2.0 - others;
    load.ownBusyCores = std::min(1.0, load.availableCores);
    return load;
}

void compareLoads(const MachineLoad &a, const MachineLoad &b)
{
    QCOMPARE(a.cores, b.cores);
    QCOMPARE(a.seconds, b.seconds);
    QCOMPARE(a.ownBusyCores, b.ownBusyCores);
    QCOMPARE(a.otherBusyCores, b.otherBusyCores);
    QCOMPARE(a.groupBusyCores, b.groupBusyCores);
    QCOMPARE(a.stealCores, b.stealCores);
    QCOMPARE(a.availableCores, b.availableCores);
}

void compareBusy(const BusyMachine &a, const BusyMachine &b)
{
    QCOMPARE(a.busy, b.busy);
    QCOMPARE(a.takenCores, b.takenCores);
    QCOMPARE(a.freeCores, b.freeCores);
    QCOMPARE(a.outsideCores, b.outsideCores);
    QCOMPARE(a.groupCores, b.groupCores);
    QCOMPARE(a.shareCores, b.shareCores);
    QCOMPARE(a.otherLoad, b.otherLoad);
}

// 1 worker on 2 cores, 40 batches of 8, each loaded in 0.1 s (known_cost_run.h).
KnownCostRun knownRun()
{
    return knownCostRun(1, 2, 8, 40, 0.100, 4);
}

// A sweep of one cell whose config is the known run's (its budget: its 40 batches).
SweepDefinition oneCellSweep(const RunConfig &base)
{
    SweepDefinition d;
    d.base = base;
    d.axes = {{"loader.num_workers", {1}}};
    d.budget = {SweepBudget::Kind::Batches, 40};
    return d;
}

// A results folder holding the known run as the sweep's only cell, measured with
// `load` (unknown: the record has none); returns its record.
SweepRecord recordedCell(const std::string &dir, const KnownCostRun &run, const MachineLoad &load)
{
    const SweepDefinition d = oneCellSweep(run.report.config);
    std::filesystem::create_directories(std::filesystem::path(dir) / "traces");
    std::ofstream(dir + "/sweep.json") << sweepDefinitionFileJson(d).dump() << '\n';
    saveTraceCsv(dir + "/" + sweepTraceName(0), run.records);
    SweepRecord r = sweepRecordOf(expandSweep(d).at(0), "finished");
    r.summary = toJson(run.report.summary);
    r.trace = sweepTraceName(0);
    r.machineLoad = load;
    std::ofstream(dir + "/cells.jsonl") << toJson(r).dump() << '\n';
    return r;
}

} // namespace

class TestSweepMachineLoad : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void aRecordKeepsItsLoad();
    void aRecordWithoutALoadStillReads();
    void aMalformedLoadIsRefused_data();
    void aMalformedLoadIsRefused();
    void theFolderReadsTheLoadBack();
    void aCellCalibratesForItsLoadAsARunDoes();
    void anOlderCellCalibratesForAnIdleMachine();
    void anotherCoreCountLeavesTheLoadOut();
    void theCalibrationCellSaysHowBusy();
    void aCellWhoseLoadDifferedIsFlagged();

private:
    QTemporaryDir m_dir;
};

void TestSweepMachineLoad::aRecordKeepsItsLoad()
{
    SweepRecord r;
    r.state = "finished";
    r.values = {1};
    r.summary = json::object();
    r.machineLoad = busyLoad();
    const json j = toJson(r);
    // The run summary's own JSON of the load, under the same name.
    QCOMPARE(j.at("machine_load"), toJson(busyLoad()));
    QCOMPARE(j.at("machine_load").at("other_busy_cores").get<double>(), 1.0);
    QCOMPARE(j.at("machine_load").at("group_busy_cores").get<double>(), 0.4);
    const SweepRecord back = sweepRecordFromJson(json::parse(j.dump()));
    compareLoads(back.machineLoad, busyLoad());
    QCOMPARE(toJson(back), j);
}

void TestSweepMachineLoad::aRecordWithoutALoadStillReads()
{
    SweepRecord r;
    r.state = "finished";
    r.values = {1};
    r.summary = json::object();
    const json j = toJson(r);
    QVERIFY(!j.contains("machine_load")); // an unknown load is not written
    // A line as written before cells recorded their load.
    const json old = json::parse(R"({"order":0,"grid":0,"repeat":0,"values":[1],)"
                                 R"("state":"finished","cell_seconds":0.5,"summary":{}})");
    const SweepRecord back = sweepRecordFromJson(old);
    QVERIFY(!back.machineLoad.known());
    QCOMPARE(back.cellSeconds, 0.5);
    // A failed and a skipped cell have none either.
    SweepRecord failed = sweepRecordOf(SweepCell{}, "failed");
    failed.error = "no";
    QVERIFY(!toJson(failed).contains("machine_load"));
    // Without group_busy_cores (an older summary's), every other program is outside.
    json load = toJson(busyLoad());
    load.erase("group_busy_cores");
    json withoutGroup = old;
    withoutGroup["machine_load"] = load;
    const SweepRecord noGroup = sweepRecordFromJson(withoutGroup);
    QCOMPARE(noGroup.machineLoad.otherBusyCores, 1.0);
    QCOMPARE(noGroup.machineLoad.groupBusyCores, 0.0);
}

void TestSweepMachineLoad::aMalformedLoadIsRefused_data()
{
    QTest::addColumn<QString>("field"); // under machine_load; "" for the whole
    QTest::addColumn<QString>("value"); // JSON; "-" to remove the field
    QTest::addColumn<QString>("why");
    QTest::newRow("not an object") << ""
                                   << "[1]"
                                   << "machine_load: expected an object";
    QTest::newRow("no cores") << "cores"
                              << "-"
                              << "machine_load.cores: missing";
    QTest::newRow("zero cores") << "cores"
                                << "0"
                                << "machine_load.cores: expected a whole number from 1";
    QTest::newRow("fractional cores") << "cores"
                                      << "1.5"
                                      << "machine_load.cores: expected a whole";
    QTest::newRow("a text") << "other_busy_cores"
                            << "\"1\""
                            << "machine_load.other_busy_cores: expected a number";
    QTest::newRow("more than the cores") << "steal_cores"
                                         << "2.5"
                                         << "machine_load.steal_cores: expected a number from 0 to";
    QTest::newRow("negative") << "own_busy_cores"
                              << "-0.1"
                              << "machine_load.own_busy_cores: expected a number";
    QTest::newRow("no seconds") << "seconds"
                                << "-"
                                << "machine_load.seconds: missing";
    QTest::newRow("group over others") << "group_busy_cores"
                                       << "1.5"
                                       << "machine_load.group_busy_cores: expected a number";
}

void TestSweepMachineLoad::aMalformedLoadIsRefused()
{
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, why);
    json j = json::parse(R"({"order":0,"grid":0,"repeat":0,"values":[1],)"
                         R"("state":"finished","summary":{}})");
    json load = toJson(busyLoad());
    if (field.isEmpty())
        load = json::parse(value.toStdString());
    else if (value == QStringLiteral("-"))
        load.erase(field.toStdString());
    else
        load[field.toStdString()] = json::parse(value.toStdString());
    j["machine_load"] = load;
    try {
        sweepRecordFromJson(j);
        QFAIL("a malformed machine_load was read");
    } catch (const std::invalid_argument &e) {
        QVERIFY2(QString::fromStdString(e.what()).startsWith(why), e.what());
    }
}

void TestSweepMachineLoad::theFolderReadsTheLoadBack()
{
    const std::string dir = m_dir.filePath(QStringLiteral("folder")).toStdString();
    const KnownCostRun run = knownRun();
    recordedCell(dir, run, busyLoad());
    SweepDefinition read;
    auto records = readSweepRecords(dir, &read);
    QCOMPARE(records.size(), std::size_t{1});
    compareLoads(records.at(0).machineLoad, busyLoad());

    const std::string older = m_dir.filePath(QStringLiteral("older")).toStdString();
    recordedCell(older, run, {});
    records = readSweepRecords(older, &read);
    QCOMPARE(records.size(), std::size_t{1});
    QVERIFY(!records.at(0).machineLoad.known());
}

void TestSweepMachineLoad::aCellCalibratesForItsLoadAsARunDoes()
{
    const std::string dir = m_dir.filePath(QStringLiteral("busy")).toStdString();
    const KnownCostRun run = knownRun();
    QCOMPARE(recordedCell(dir, run, busyLoad()).machineLoad.cores, 2);
    SweepDefinition d;
    const auto records = readSweepRecords(dir, &d);
    const Calibration fromCell = calibrateFromSweepCell(dir, d, records.at(0));

    // The same records and the report the cell's run would have written.
    RunReport report = run.report;
    report.config = expandSweep(d).at(0).config;
    report.configVersions = {{0, 0, 0, report.config}};
    report.machineLoad = busyLoad();
    const Calibration fromRun = calibrateFromRun(run.records, report);

    compareLoads(fromCell.load, busyLoad());
    compareBusy(fromCell.busyMachine, fromRun.busyMachine);
    // Known: 1.0 + 0.1 of 2 cores taken; 0.4 in the session, 0.7 outside.
    QVERIFY(fromCell.busyMachine.busy);
    QCOMPARE(fromCell.busyMachine.takenCores, 1.1);
    QCOMPARE(fromCell.busyMachine.groupCores, 0.4);
    QVERIFY(qFuzzyCompare(fromCell.busyMachine.outsideCores, 0.7));
    QVERIFY(qFuzzyCompare(fromCell.busyMachine.shareCores, 1.3));
    QVERIFY(fromCell.busyMachine.otherLoad > 0.0);
    QCOMPARE(fromCell.setting.cores, 2); // the load's cores, not this machine's
    QCOMPARE(fromCell.setting.outsideCores, fromRun.setting.outsideCores);
    QCOMPARE(fromCell.setting.otherLoad, fromRun.setting.otherLoad);
    QVERIFY(fromCell.costs.sampleSeconds == fromRun.costs.sampleSeconds);
    QVERIFY(std::any_of(fromCell.notes.begin(), fromCell.notes.end(), [](const std::string &n) {
        return n == "2 cores assumed (the cell's machine's, as its recorded load names them)";
    }));
    // The same load on a run predicted back: the same figures.
    const Prediction a = predictLoader(costsFor(fromCell, fromCell.config),
                                       settingFor(fromCell, fromCell.config));
    const Prediction b = predictLoader(costsFor(fromRun, fromRun.config),
                                       settingFor(fromRun, fromRun.config));
    QCOMPARE(a.samplesPerSecond, b.samplesPerSecond);
}

void TestSweepMachineLoad::anOlderCellCalibratesForAnIdleMachine()
{
    const std::string dir = m_dir.filePath(QStringLiteral("idle")).toStdString();
    const KnownCostRun run = knownRun();
    recordedCell(dir, run, {});
    SweepDefinition d;
    const auto records = readSweepRecords(dir, &d);
    const Calibration cal = calibrateFromSweepCell(dir, d, records.at(0), 2);
    QVERIFY(!cal.load.known());
    QVERIFY(!cal.busyMachine.busy);
    QCOMPARE(cal.setting.outsideCores, 0.0);
    QCOMPARE(cal.setting.otherLoad, 0.0);
    QVERIFY(std::any_of(cal.notes.begin(), cal.notes.end(), [](const std::string &n) {
        return n == "the sweep's files name no core count: 2 cores assumed (as asked)";
    }));
}

void TestSweepMachineLoad::anotherCoreCountLeavesTheLoadOut()
{
    const std::string dir = m_dir.filePath(QStringLiteral("four")).toStdString();
    const KnownCostRun run = knownRun();
    recordedCell(dir, run, busyLoad());
    SweepDefinition d;
    const auto records = readSweepRecords(dir, &d);
    const Calibration cal = calibrateFromSweepCell(dir, d, records.at(0), 4);
    QCOMPARE(cal.setting.cores, 4);
    QVERIFY(!cal.busyMachine.busy);
    QCOMPARE(cal.setting.outsideCores, 0.0);
    QVERIFY(std::any_of(cal.notes.begin(), cal.notes.end(), [](const std::string &n) {
        return n
               == "4 cores assumed (as asked); the cell's recorded load is of 2 cores, so it "
                  "is left out: the costs as on an idle machine";
    }));
}

void TestSweepMachineLoad::theCalibrationCellSaysHowBusy()
{
    KnownCostRun run = knownRun();
    run.report.machineLoad = loadOf(1.0);
    const Calibration cal = calibrateFromRun(run.records, run.report);
    // The wording `predict` uses, without its --cores advice (busy_machine.h).
    QCOMPARE(predictFirstLoadNote(cal, cal.load, true),
             std::string("During the calibration run other programs used 1.0 of 2 cores; "
                         "predicted for the 1.0 cores that were free."));
    run.report.machineLoad = busyLoad();
    const Calibration group = calibrateFromRun(run.records, run.report);
    QCOMPARE(predictFirstLoadNote(group, group.load, true),
             std::string("During the calibration run other programs and the hypervisor used 1.1 "
                         "of 2 cores (0.4 of them in LoaderLab's own session); predicted for the "
                         "machine as it was: the 1.3 cores other sessions left, shared with the "
                         "programs of LoaderLab's session thread by thread."));
    // Under a tenth of a core, or unknown: nothing to say.
    run.report.machineLoad = loadOf(0.05);
    const Calibration idle = calibrateFromRun(run.records, run.report);
    QCOMPARE(predictFirstLoadNote(idle, idle.load, true), std::string());
    run.report.machineLoad = {};
    const Calibration unknown = calibrateFromRun(run.records, run.report);
    QCOMPARE(predictFirstLoadNote(unknown, unknown.load, true), std::string());
}

void TestSweepMachineLoad::aCellWhoseLoadDifferedIsFlagged()
{
    KnownCostRun run = knownRun();
    run.report.machineLoad = loadOf(0.5);
    const Calibration cal = calibrateFromRun(run.records, run.report);
    // Within a quarter of a core either way: like for like.
    QCOMPARE(predictFirstLoadNote(cal, loadOf(0.75), false), std::string());
    QCOMPARE(predictFirstLoadNote(cal, loadOf(0.3), false), std::string());
    QCOMPARE(predictFirstLoadNote(cal, loadOf(0.5), false), std::string());
    QCOMPARE(predictFirstLoadNote(cal, loadOf(1.5), false),
             std::string("other programs used 1.5 of 2 cores during this cell, 0.5 during the "
                         "calibration run: its prediction and measurement are not like for like"));
    QCOMPARE(predictFirstLoadNote(cal, loadOf(0.0), false),
             std::string("other programs used 0.0 of 2 cores during this cell, 0.5 during the "
                         "calibration run: its prediction and measurement are not like for like"));
    // Steal counts as other programs' load.
    MachineLoad stolen = loadOf(0.5);
    stolen.stealCores = 0.4;
    QVERIFY(!predictFirstLoadNote(cal, stolen, false).empty());
    // An unknown load on either side: nothing to compare.
    QCOMPARE(predictFirstLoadNote(cal, MachineLoad{}, false), std::string());
    run.report.machineLoad = {};
    const Calibration unknown = calibrateFromRun(run.records, run.report);
    QCOMPARE(predictFirstLoadNote(unknown, loadOf(1.5), false), std::string());
}

LOADERLAB_GUILESS_TEST_MAIN(TestSweepMachineLoad)
#include "test_sweep_machine_load.moc"
