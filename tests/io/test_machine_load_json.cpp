// The machine's load in a run's JSON summary ("machine_load", docs/metrics.md):
// written with its six fields when it is known and not at all when it is not, read
// back as written, and a summary without it, or with a field missing or out of range,
// read as an unknown load while the rest of the run opens as before.

#include "core/io/run_reader.h"
#include "core/io/summary_json.h"
#include "tests/support/test_main.h"

#include <QtTest>

using namespace loaderlab;
using nlohmann::json;

class TestMachineLoadJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void writesAKnownLoad();
    void writesNothingForAnUnknownLoad();
    void readsItBack();
    void aSummaryWithoutItOpensWithAnUnknownLoad();
    void aBrokenLoadIsUnknown_data();
    void aBrokenLoadIsUnknown();
};

namespace {

RunReport reportWithLoad()
{
    RunReport r;
    r.config.loader.numWorkers = 1;
    r.state = "finished";
    r.configVersions.push_back({0, 0, 0, r.config});
    r.machine.logicalCores = 2;
    r.machineLoad.cores = 2;
    r.machineLoad.seconds = 12.5;
    r.machineLoad.ownBusyCores = 1.02;
    r.machineLoad.otherBusyCores = 0.93;
    r.machineLoad.groupBusyCores = 0.5;
    r.machineLoad.stealCores = 0.02;
    r.machineLoad.availableCores = 1.05;
    return r;
}

} // namespace

void TestMachineLoadJson::writesAKnownLoad()
{
    const json j = toJson(reportWithLoad());
    const json &load = j.at("machine_load");
    QCOMPARE(load.at("cores").get<int>(), 2);
    QCOMPARE(load.at("seconds").get<double>(), 12.5);
    QCOMPARE(load.at("own_busy_cores").get<double>(), 1.02);
    QCOMPARE(load.at("other_busy_cores").get<double>(), 0.93);
    QCOMPARE(load.at("group_busy_cores").get<double>(), 0.5);
    QCOMPARE(load.at("steal_cores").get<double>(), 0.02);
    QCOMPARE(load.at("available_cores").get<double>(), 1.05);
    QCOMPARE(load.size(), std::size_t{7});
}

void TestMachineLoadJson::writesNothingForAnUnknownLoad()
{
    RunReport r = reportWithLoad();
    r.machineLoad = {};
    QVERIFY(!toJson(r).contains("machine_load"));
}

void TestMachineLoadJson::readsItBack()
{
    const RunReport written = reportWithLoad();
    const RunReport read = runReportFromJson(toJson(written), "run.json");
    QVERIFY(read.machineLoad.known());
    QCOMPARE(read.machineLoad.cores, 2);
    QCOMPARE(read.machineLoad.seconds, 12.5);
    QCOMPARE(read.machineLoad.ownBusyCores, 1.02);
    QCOMPARE(read.machineLoad.otherBusyCores, 0.93);
    QCOMPARE(read.machineLoad.groupBusyCores, 0.5);
    QCOMPARE(read.machineLoad.stealCores, 0.02);
    QCOMPARE(read.machineLoad.availableCores, 1.05);
    // Without the group's share (it is optional): every other program outside it.
    json j = toJson(written);
    j["machine_load"].erase("group_busy_cores");
    const RunReport older = runReportFromJson(j, "older.json");
    QVERIFY(older.machineLoad.known());
    QCOMPARE(older.machineLoad.groupBusyCores, 0.0);
    QCOMPARE(older.machineLoad.otherBusyCores, 0.93);
}

void TestMachineLoadJson::aSummaryWithoutItOpensWithAnUnknownLoad()
{
    json j = toJson(reportWithLoad());
    j.erase("machine_load");
    const RunReport read = runReportFromJson(j, "old.json");
    QVERIFY(!read.machineLoad.known());
    QCOMPARE(read.machine.logicalCores, 2);
    QCOMPARE(read.state, std::string("finished"));
}

void TestMachineLoadJson::aBrokenLoadIsUnknown_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value"); // JSON text; empty: the field removed
    QTest::newRow("not an object") << QString() << QStringLiteral("[1, 2]");
    QTest::newRow("no cores") << QStringLiteral("cores") << QString();
    QTest::newRow("0 cores") << QStringLiteral("cores") << QStringLiteral("0");
    QTest::newRow("cores not a whole number") << QStringLiteral("cores") << QStringLiteral("1.5");
    QTest::newRow("no seconds") << QStringLiteral("seconds") << QString();
    QTest::newRow("a negative load")
        << QStringLiteral("other_busy_cores") << QStringLiteral("-0.5");
    QTest::newRow("more than the cores")
        << QStringLiteral("available_cores") << QStringLiteral("3");
    QTest::newRow("a string") << QStringLiteral("steal_cores") << QStringLiteral("\"0.1\"");
    QTest::newRow("the group above the others")
        << QStringLiteral("group_busy_cores") << QStringLiteral("1.5");
}

void TestMachineLoadJson::aBrokenLoadIsUnknown()
{
    QFETCH(QString, field);
    QFETCH(QString, value);
    json j = toJson(reportWithLoad());
    if (field.isEmpty())
        j["machine_load"] = json::parse(value.toStdString());
    else if (value.isEmpty())
        j["machine_load"].erase(field.toStdString());
    else
        j["machine_load"][field.toStdString()] = json::parse(value.toStdString());
    const RunReport read = runReportFromJson(j, "broken.json");
    QVERIFY(!read.machineLoad.known());
    QCOMPARE(read.machine.logicalCores, 2); // the rest as before
}

LOADERLAB_GUILESS_TEST_MAIN(TestMachineLoadJson)
#include "test_machine_load_json.moc"
