// The Chrome JSON trace (Perfetto) of real runs through RunService: the file
// parses, every track is named, events are ordered by time, slices on one track
// nest or follow each other, the stage slices sit inside their batch, and there is
// one step per batch, a slice per worker span, the epoch marker and the
// throughput counter. With 0 workers the batches go on the consumer's loading
// track; sample-parallel batches (every worker on each) get no stage slices.

#include "core/engine/run_service.h"
#include "core/io/chrome_trace.h"
#include "tests/support/test_main.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace loaderlab;
using nlohmann::json;

namespace {

RunConfig smallRun(int workers, Strategy strategy = Strategy::PerWorkerBatch)
{
    RunConfig c;
    c.dataset.kind = DatasetKind::Synthetic;
    c.dataset.syntheticShape = {1, 16, 16};
    c.dataset.syntheticSamples = 80;
    c.loader.numWorkers = workers;
    c.loader.batchSize = 8;
    c.loader.strategy = strategy;
    c.consumer.kind = ConsumerKind::Sleep;
    c.consumer.sleepPerBatchMs = 2.0;
    c.epochs = 2;
    return c;
}

json runAndRead(const RunConfig &config, const QString &path, RunReport *reportOut = nullptr)
{
    RunService service;
    RunOutputs outputs;
    outputs.traceJsonPath = path.toStdString();
    service.start(config, outputs);
    service.wait();
    const RunReport report = service.report();
    const auto errors = service.writeOutputs(report);
    if (!errors.empty())
        qFatal("%s", errors.front().c_str());
    if (reportOut)
        *reportOut = report;
    std::ifstream in(path.toStdString());
    return json::parse(in); // throws if it does not parse
}

// A track's key in checkStructure's map: the tid for process 1, and further
// processes (data-parallel ranks) above it.
constexpr int kProcessStride = 100000;

int trackKey(const json &e)
{
    return (e.at("pid").get<int>() - 1) * kProcessStride + e.at("tid").get<int>();
}

// Every check that holds for any trace; returns the slices per track.
std::map<int, std::vector<json>> checkStructure(const json &trace)
{
    std::map<int, std::vector<json>> slices;
    std::map<int, std::string> names;
    double lastTs = -1;
    for (const json &e : trace.at("traceEvents")) {
        const std::string ph = e.at("ph").get<std::string>();
        if (ph == "M") {
            if (e.at("name") == "thread_name")
                names[trackKey(e)] = e.at("args").at("name").get<std::string>();
            continue;
        }
        const double ts = e.at("ts").get<double>();
        if (ts < lastTs)
            qFatal("events out of order at ts %f after %f", ts, lastTs);
        lastTs = ts;
        if (ph == "X") {
            if (e.at("dur").get<double>() < 0)
                qFatal("negative duration");
            slices[trackKey(e)].push_back(e);
        }
    }
    for (const auto &[tid, list] : slices) {
        if (!names.count(tid))
            qFatal("track %d has no name", tid);
        // Nesting: a stack of open slices; each slice lies inside the top or after it.
        std::vector<double> openEnds;
        for (const json &s : list) {
            const double start = s.at("ts").get<double>();
            const double end = start + s.at("dur").get<double>();
            while (!openEnds.empty() && start >= openEnds.back() - 1e-6)
                openEnds.pop_back();
            if (!openEnds.empty() && end > openEnds.back() + 1e-6)
                qFatal("track %d: '%s' at %f overlaps its parent's end %f", tid,
                       s.at("name").get<std::string>().c_str(), start, openEnds.back());
            openEnds.push_back(end);
        }
    }
    return slices;
}

int countNamed(const std::vector<json> &list, const std::string &name)
{
    int n = 0;
    for (const json &e : list)
        n += e.at("name") == name;
    return n;
}

} // namespace

class TestChromeTrace : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void workersRunHasEveryTrackNestedAndOrdered();
    void zeroWorkersLoadOnTheConsumersThread();
    void sampleParallelSpansHaveNoStages();
    void badPathIsRefusedBeforeTheRun();
    void dataParallelRunHasAProcessPerRank();

private:
    QTemporaryDir m_dir;
};

void TestChromeTrace::workersRunHasEveryTrackNestedAndOrdered()
{
    RunReport report;
    const json trace = runAndRead(smallRun(2), m_dir.filePath(QStringLiteral("w2.json")), &report);
    const auto slices = checkStructure(trace);
    const auto &consumer = slices.at(ChromeTraceTracks::kConsumer);
    QCOMPARE(countNamed(consumer, "step"), 20); // 80 samples / 8, twice
    const auto &w0 = slices.at(ChromeTraceTracks::kFirstWorker);
    const auto &w1 = slices.at(ChromeTraceTracks::kFirstWorker + 1);
    int batches = 0;
    int stages = 0;
    for (const auto *list : {&w0, &w1}) {
        for (const json &s : *list) {
            const std::string name = s.at("name").get<std::string>();
            if (name.starts_with("batch "))
                ++batches;
            else if (name == "read" || name == "decode" || name == "transform" || name == "collate")
                ++stages;
        }
    }
    QCOMPARE(batches, 20); // one span per batch: each built by one worker
    QVERIFY2(stages >= 20, qPrintable(QString::number(stages)));
    QVERIFY(w0.size() > 0 && w1.size() > 0);

    int epochMarkers = 0;
    int counters = 0;
    for (const json &e : trace.at("traceEvents")) {
        if (e.at("ph") == "i" && e.at("name") == "epoch 1")
            ++epochMarkers;
        if (e.at("ph") == "C" && e.at("name") == "throughput") {
            ++counters;
            QVERIFY(e.at("args").at("samples/s").get<double>() > 0);
        }
    }
    QCOMPARE(epochMarkers, 1);
    QCOMPARE(counters, 20 - 8);
    QCOMPARE(trace.at("otherData").at("batches_in_file").get<int>(), 20);
    QCOMPARE(trace.at("otherData").at("batches_in_run").get<std::int64_t>(),
             report.summary.batches);
}

void TestChromeTrace::zeroWorkersLoadOnTheConsumersThread()
{
    const json trace = runAndRead(smallRun(0), m_dir.filePath(QStringLiteral("w0.json")));
    const auto slices = checkStructure(trace);
    QVERIFY(slices.count(ChromeTraceTracks::kConsumerLoading));
    int loads = 0;
    for (const json &s : slices.at(ChromeTraceTracks::kConsumerLoading))
        loads += s.at("name").get<std::string>().starts_with("batch ");
    QCOMPARE(loads, 20);
    QVERIFY(!slices.count(ChromeTraceTracks::kFirstWorker));
}

void TestChromeTrace::sampleParallelSpansHaveNoStages()
{
    const json trace = runAndRead(smallRun(2, Strategy::SampleParallel),
                                  m_dir.filePath(QStringLiteral("sp.json")));
    const auto slices = checkStructure(trace);
    // Workers claim a batch's samples as they come free, so which of the two worked
    // on a batch depends on the scheduler (on a busy machine one may build them all);
    // every batch has at least one worker's span, and no span holds stage slices.
    std::set<std::string> batchesSeen;
    for (const int tid : {ChromeTraceTracks::kFirstWorker, ChromeTraceTracks::kFirstWorker + 1}) {
        if (!slices.count(tid))
            continue;
        for (const json &s : slices.at(tid)) {
            const std::string name = s.at("name").get<std::string>();
            QVERIFY2(name.starts_with("batch "), s.dump().c_str());
            batchesSeen.insert(name); // a run's batch numbers go on across epochs
        }
    }
    QVERIFY(slices.count(ChromeTraceTracks::kFirstWorker + 2) == 0);
    QCOMPARE(static_cast<int>(batchesSeen.size()), 20); // 80 samples / 8, twice
}

void TestChromeTrace::badPathIsRefusedBeforeTheRun()
{
    RunService service;
    RunOutputs outputs;
    outputs.traceJsonPath = m_dir.filePath(QStringLiteral("no-such-dir/t.json")).toStdString();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, service.start(smallRun(1), outputs));
    QCOMPARE(service.state(), RunState::Idle);
}

void TestChromeTrace::dataParallelRunHasAProcessPerRank()
{
    RunConfig config = smallRun(1);
    config.devices = 2;
    const json trace = runAndRead(config, m_dir.filePath(QStringLiteral("ranks.json")));
    const auto slices = checkStructure(trace);
    std::map<int, std::string> processes;
    for (const json &e : trace.at("traceEvents"))
        if (e.at("ph") == "M" && e.at("name") == "process_name")
            processes[e.at("pid").get<int>()] = e.at("args").at("name").get<std::string>();
    QCOMPARE(processes.size(), std::size_t{2});
    QVERIFY2(processes[1].starts_with("LoaderLab rank 0: "), processes[1].c_str());
    QVERIFY2(processes[2].starts_with("LoaderLab rank 1: "), processes[2].c_str());
    for (int rank = 0; rank < 2; ++rank) {
        // 80 samples over 2 ranks, batch 8, 2 epochs: 10 steps and 10 batches each.
        const int base = rank * kProcessStride;
        QCOMPARE(countNamed(slices.at(base + ChromeTraceTracks::kConsumer), "step"), 10);
        int batches = 0;
        for (const json &s : slices.at(base + ChromeTraceTracks::kFirstWorker))
            batches += s.at("name").get<std::string>().starts_with("batch ");
        QCOMPARE(batches, 10);
    }
}

LOADERLAB_GUILESS_TEST_MAIN(TestChromeTrace)
#include "test_chrome_trace.moc"
