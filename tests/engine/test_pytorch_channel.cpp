// The PyTorch engine's channel (core/engine/pytorch/pytorch_channel.h) and its process handling
// (core/engine/pytorch/python_process.h, PyTorchRun): the record parser's refusals, and real
// runs of small fake "python" scripts (fake_python.h) that pass the import check
// and then misbehave: bad records, a line without end, a hanging import check, a
// Python that ignores SIGTERM with a `setsid` grandchild holding its stdout. No
// torch needed; each run takes about a second.

#include "core/engine/pytorch/python_process.h"
#include "core/engine/pytorch/pytorch_channel.h"
#include "core/engine/pytorch/pytorch_run.h"
#include "tests/support/fake_python.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <future>
#include <limits>

#include <csignal>

using namespace loaderlab;
using namespace faketest;

namespace {

RunConfig syntheticRun()
{
    RunConfig c;
    c.dataset.kind = DatasetKind::Synthetic;
    c.dataset.syntheticSamples = 100;
    c.loader.numWorkers = 0;
    c.loader.batchSize = 4;
    c.consumer.kind = ConsumerKind::None;
    c.epochs = 0;
    c.maxBatches = 0;
    return c;
}

// Parses `line` in `c` and moves `c` past it.
EngineRecord acceptLine(ChannelContext &c, const std::string &line)
{
    const EngineRecord r = parseEngineRecord(line, c);
    acceptEngineRecord(c, r);
    return r;
}

// Whether `line` is refused in `c`, with a reason that contains `why`.
bool refusedWith(const ChannelContext &c, const std::string &line, const char *why)
{
    try {
        parseEngineRecord(line, c);
    } catch (const ChannelError &e) {
        return QString::fromUtf8(e.what()).contains(QString::fromUtf8(why));
    }
    return false;
}

ChannelContext startedContext()
{
    ChannelContext c;
    c.earliestNs = 1000;
    c.latestNs = 1'000'000;
    c.batchSize = 4;
    c.workers = 2;
    acceptEngineRecord(c, ChannelStart{"fake", 100, 1000, {}});
    return c;
}

std::string batchLine(const std::string &changes = {})
{
    nlohmann::json j = {{"type", "batch"},
                        {"index", 0},
                        {"epoch", 0},
                        {"worker", 1},
                        {"samples", 4},
                        {"version", 0},
                        {"first", 0},
                        {"ids", 0},
                        {"load_start", 2000},
                        {"collate_start", 2500},
                        {"load_end", 3000},
                        {"read", 100},
                        {"decode", 200},
                        {"transform", 300},
                        {"request", 1500},
                        {"delivery", 3100},
                        {"compute_start", 3100},
                        {"compute_end", 4000}};
    if (!changes.empty())
        j.update(nlohmann::json::parse(changes));
    return j.dump();
}

std::int64_t peakRssKiB()
{
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stoll(line.substr(6));
    return 0;
}

} // namespace

class TestPyTorchChannel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void cleanup();
    void parserAcceptsTheEnginesRecords();
    void parserRefusesBadRecords_data();
    void parserRefusesBadRecords();
    void splitterBoundsLines();
    void parserFollowsLiveChanges();
    void parserFollowsEachRank();
    void parserFollowsAReplay();
    void badRecordFailsTheRunAndKeepsTheBatches_data();
    void badRecordFailsTheRunAndKeepsTheBatches();
    void endlessLineIsRefusedInBoundedMemory();
    void hangingImportCheckTimesOut();
    void stopEndsTheGroupDespiteSigtermAndAnEscapedHolder();
    void printedLinesAreNotRecords();
    void failureNamesTheLastLinesOfStdoutAndStderr();

private:
    QTemporaryDir m_dir;
    std::vector<int> m_escaped; // setsid grandchildren to kill after each test
};

void TestPyTorchChannel::cleanup()
{
    for (int pid : m_escaped)
        kill(pid, SIGKILL);
    m_escaped.clear();
}

void TestPyTorchChannel::parserAcceptsTheEnginesRecords()
{
    ChannelContext c;
    c.earliestNs = 1000;
    c.latestNs = 1'000'000;
    c.batchSize = 4;
    c.workers = 2;
    EngineRecord r = parseEngineRecord(R"({"type":"start","torch":"1.13","samples":100,"t0":1000})",
                                       c);
    QCOMPARE(std::get<ChannelStart>(r).torch, std::string("1.13"));
    acceptEngineRecord(c, r);
    r = parseEngineRecord(batchLine(), c);
    const ChannelBatch &b = std::get<ChannelBatch>(r);
    QCOMPARE(b.worker, 1);
    QCOMPARE(b.transformNs, std::int64_t{300});
    acceptEngineRecord(c, r);
    QCOMPARE(c.batches, std::int64_t{1});
    r = parseEngineRecord(batchLine(R"({"index":1,"epoch":1})"), c);
    acceptEngineRecord(c, r);
    QCOMPARE(std::get<ChannelFailure>(parseEngineRecord(R"({"type":"error","message":"no"})", c))
                 .message,
             std::string("no"));
    r = parseEngineRecord(R"({"type":"end","batches":2})", c);
    acceptEngineRecord(c, r);
    QVERIFY(c.ended);

    // A pipeline file's phases before the start (the time LoaderLab gives each), and an
    // error that refuses the dataset.
    ChannelContext q;
    q.earliestNs = 1000;
    q.latestNs = 1'000'000;
    r = parseEngineRecord(R"({"type":"phase","what":"importing p.py","seconds":2.5,"t":1500})", q);
    QCOMPARE(std::get<ChannelPhase>(r).what, std::string("importing p.py"));
    QCOMPARE(std::get<ChannelPhase>(r).seconds, 2.5);
    QCOMPARE(std::get<ChannelPhase>(r).tNs, std::int64_t{1500});
    acceptEngineRecord(q, r);
    QVERIFY(!q.started);
    const ChannelFailure refusal = std::get<ChannelFailure>(
        parseEngineRecord(R"({"type":"error","message":"p.py: empty","refused":true})", q));
    QVERIFY(refusal.refused);
    QVERIFY(!std::get<ChannelFailure>(parseEngineRecord(R"({"type":"error","message":"x"})", q))
                 .refused);
    // A phase has a limit of more than 0 s and at most a day.
    for (const char *seconds : {"0", "-1", "86401", "\"5\""}) {
        const std::string line = std::string(R"({"type":"phase","what":"x","seconds":)") + seconds
                                 + R"(,"t":1500})";
        QVERIFY_THROWS_EXCEPTION(ChannelError, parseEngineRecord(line, q));
    }

    // A pipeline file's batch: two samples skipped with their reasons, each sample's
    // span; the epoch's next place counts the skipped ones too.
    ChannelContext p = startedContext();
    r = parseEngineRecord(
        batchLine(R"j({"samples":2,"skipped":2,"skips":[[1,"ValueError: bad (p.py:9)"],[3,"x"]],)j"
                  R"j("spans":[[2000,2100],[2100,2200],[2200,2300],[2300,2400]]})j"),
        p);
    const ChannelBatch &skipping = std::get<ChannelBatch>(r);
    QCOMPARE(skipping.skipped, 2);
    QCOMPARE(skipping.skips.size(), std::size_t{2});
    QCOMPARE(skipping.skips[0].index, std::int64_t{1});
    QCOMPARE(skipping.skips[0].reason, std::string("ValueError: bad (p.py:9)"));
    QCOMPARE(skipping.spans.size(), std::size_t{4});
    acceptEngineRecord(p, r);
    QCOMPARE(p.epochSamples, std::int64_t{4});
    // A batch of skipped samples only.
    r = parseEngineRecord(batchLine(R"({"index":1,"first":4,"samples":0,"skipped":4})"), p);
    QCOMPARE(std::get<ChannelBatch>(r).samples, 0);
    // A stream of unknown length (an IterableDataset): "samples" 0 at the start.
    ChannelContext s;
    s.earliestNs = 1000;
    s.latestNs = 1'000'000;
    s.batchSize = 4;
    r = parseEngineRecord(
        R"({"type":"start","torch":"1.13","samples":0,"t0":1000,"dataset":"Stream from p.py"})", s);
    QCOMPARE(std::get<ChannelStart>(r).dataset, std::string("Stream from p.py"));
    acceptEngineRecord(s, r);
    QCOMPARE(s.datasetSamples, std::numeric_limits<std::int64_t>::max());
}

void TestPyTorchChannel::parserRefusesBadRecords_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("why");
    // Records accepted before `line`, and the latest change LoaderLab asked for.
    QTest::addColumn<QStringList>("before");
    QTest::addColumn<int>("requested");
    const auto rowAfter = [](const char *name, const QStringList &before, int requested,
                             const std::string &line, const char *why) {
        QTest::newRow(name) << QString::fromStdString(line) << QString::fromLatin1(why) << before
                            << requested;
    };
    const auto row = [&rowAfter](const char *name, const std::string &line, const char *why) {
        rowAfter(name, {}, 0, line, why);
    };
    row("number", "42", "not a JSON object but number");
    row("null", "null", "not a JSON object but null");
    row("not JSON", "Downloading weights...", "not JSON");
    row("empty", "", "not JSON");
    row("no type", "{}", "no \"type\"");
    row("unknown type", R"({"type":"x\u001b[2J"})", "unknown type \"x\\x1B[2J\"");
    row("string index", batchLine(R"({"index":"x"})"), "\"index\" is not an integer");
    row("index out of order", batchLine(R"({"index":5})"), "\"index\" is 5, not in [0, 0]");
    row("negative index", batchLine(R"({"index":-1})"), "\"index\" is -1");
    row("float time", batchLine(R"({"load_end":2999.5})"), "\"load_end\" is not an integer");
    row("huge time", batchLine(R"({"compute_end":18446744073709551615})"),
        "\"compute_end\" is out of range");
    row("future time", batchLine(R"({"compute_end":2000000})"), "\"compute_end\" is 2000000");
    row("before t0", batchLine(R"({"request":999})"), "\"request\" is 999");
    std::string huge = batchLine(); // 1e400 does not fit a double: nlohmann refuses it
    huge.replace(huge.find("\"read\":100"), 10, "\"read\":1e400");
    row("1e400", huge, "not JSON");
    row("times out of order", batchLine(R"({"delivery":1400})"),
        "\"request\" is after \"delivery\"");
    row("sums longer than the load", batchLine(R"({"read":900})"), "longer than the load");
    row("worker out of range", batchLine(R"({"worker":2})"), "\"worker\" is 2");
    row("too many samples", batchLine(R"({"samples":5})"), "\"samples\" is 5");
    row("no samples", batchLine(R"({"samples":0})"), "\"samples\" is 0");
    row("missing field", R"({"type":"batch","index":0})", "no \"epoch\"");
    row("nested", batchLine(R"({"worker":[[[[[[1]]]]]]})"), "nested too deeply");
    row("second start", R"({"type":"start","torch":"x","samples":1,"t0":1000})",
        "a second start record");
    row("message not a string", R"({"type":"error","message":7})", "\"message\" is not a string");
    row("end with wrong count", R"({"type":"end","batches":3})", "\"batches\" is 3");
    row("gap in the epoch", batchLine(R"({"first":4})"), "\"first\" is 4, not in [0, 0]");
    row("version not in force", batchLine(R"({"version":1})"), "\"version\" is 1");
    row("ids out of range", batchLine(R"({"ids":2305843009213693952})"), "\"ids\" is");
    row("change not asked for",
        R"({"type":"reconfigured","version":1,"index":0,"t":2000,"batch_size":4,"workers":0})",
        "\"version\" is 1, not in [1, 0]");
    row("resumed without a pause", R"({"type":"resumed","index":0,"t":2000})",
        "resumed without a pause");
    // A pipeline file's batches: skipped samples, their reasons, each sample's span.
    row("skipped past the batch", batchLine(R"({"skipped":5})"), "\"skipped\" is 5");
    row("skipped and samples past the batch", batchLine(R"({"skipped":1,"samples":4})"),
        "\"samples\" is 4, not in [0, 3]");
    row("more skips than skipped",
        batchLine(R"({"skipped":1,"samples":3,"skips":[[1,"a"],[2,"b"]]})"),
        "\"skips\" is not an array of at most \"skipped\" entries");
    row("a skip not a pair", batchLine(R"({"skipped":1,"samples":3,"skips":[[1]]})"),
        "not [index, reason]");
    row("a skip past the dataset", batchLine(R"({"skipped":1,"samples":3,"skips":[[100,"x"]]})"),
        "not a sample of the dataset");
    row("more spans than samples",
        batchLine(R"({"spans":[[2000,2100],[2100,2200],[2200,2300],[2300,2400],[2400,2500]]})"),
        "at most one span per sample");
    row("a span before the load", batchLine(R"({"spans":[[1900,2100]]})"), "not inside the load");
    row("a span after collate", batchLine(R"({"spans":[[2000,2600]]})"), "not inside the load");
    row("spans overlapping", batchLine(R"({"spans":[[2000,2200],[2100,2300]]})"),
        "after the one before");
    // A phase is the pipeline's set-up: before the start record, with a time limit.
    row("phase after the start",
        R"j({"type":"phase","what":"make_step(args)","seconds":1,"t":2000})j",
        "a phase record after the start record");
    row("refused not a boolean", R"({"type":"error","message":"x","refused":"yes"})",
        "\"refused\" is not true or false");
    // Epochs only go forward: a batch of epoch 0 after one of epoch 1 (which began the
    // order again at 0, as this one claims to).
    rowAfter("epoch 0 after epoch 1",
             {QString::fromStdString(batchLine()),
              QString::fromStdString(batchLine(R"({"index":1,"epoch":1,"first":0})"))},
             0, batchLine(R"({"index":2,"epoch":0,"first":0})"),
             "\"epoch\" is 0, not in [1, 2147483647]");
    // Each change is answered once: a second "refused" for change 1.
    rowAfter("change refused twice",
             {QStringLiteral(R"({"type":"refused","version":1,"message":"no"})")}, 1,
             R"({"type":"refused","version":1,"message":"no again"})",
             "\"version\" is 1, not in [2, 1]");
    rowAfter(
        "change applied, then refused",
        {QStringLiteral(
            R"({"type":"reconfigured","version":1,"index":0,"t":2000,"batch_size":4,"workers":2})")},
        1, R"({"type":"refused","version":1,"message":"no"})", "\"version\" is 1, not in [2, 1]");
}

void TestPyTorchChannel::parserRefusesBadRecords()
{
    QFETCH(QString, line);
    QFETCH(QString, why);
    QFETCH(QStringList, before);
    QFETCH(int, requested);
    ChannelContext context = startedContext();
    context.requestedVersion = requested;
    for (const QString &accepted : before)
        acceptEngineRecord(context, parseEngineRecord(accepted.toStdString(), context));
    try {
        parseEngineRecord(line.toStdString(), context);
        QFAIL("accepted");
    } catch (const ChannelError &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(why), e.what());
    }
    ChannelContext fresh;
    QVERIFY_THROWS_EXCEPTION(ChannelError, parseEngineRecord(batchLine(), fresh));
    ChannelContext ended = startedContext();
    acceptEngineRecord(ended, ChannelEnd{0});
    QVERIFY_THROWS_EXCEPTION(ChannelError,
                             parseEngineRecord(R"({"type":"end","batches":0})", ended));
}

void TestPyTorchChannel::splitterBoundsLines()
{
    ChannelLineSplitter splitter(10);
    std::vector<std::string> lines;
    const auto keep = [&](std::string_view line) { lines.emplace_back(line); };
    splitter.feed("ab\ncd", keep);
    splitter.feed("e\n\n0123456789\n", keep);
    QCOMPARE(lines, (std::vector<std::string>{"ab", "cde", "", "0123456789"}));
    splitter.feed("01234", keep);
    QVERIFY_THROWS_EXCEPTION(ChannelError, splitter.feed("567890", keep));
    QVERIFY(splitter.pending().size() <= 10);
    QCOMPARE(quoteEngineLine(std::string(300, 'a'), 5), std::string("aaaaa... (300 bytes)"));
    QCOMPARE(quoteEngineLine("a\nb\xff"), std::string("a\\x0Ab\\xFF"));
}

void TestPyTorchChannel::parserFollowsLiveChanges()
{
    ChannelContext c = startedContext(); // batch size 4, 2 workers, 100 samples
    c.requestedVersion = 2;
    const auto accept = [&c](const std::string &line) { return acceptLine(c, line); };
    const auto refused = [&c](const std::string &line, const char *why) {
        return refusedWith(c, line, why);
    };
    accept(batchLine());
    const auto r = std::get<ChannelReconfigured>(accept(
        R"({"type":"reconfigured","version":1,"index":1,"t":3000,"batch_size":8,"workers":1})"));
    QCOMPARE(r.batchSize, 8);
    QCOMPARE(c.batchSize, 8);
    QCOMPARE(c.workers, 1);
    QCOMPARE(c.version, std::int64_t{1});
    // After the change: its version, its workers, its batch size, where the epoch was.
    QVERIFY(
        refused(batchLine(R"({"index":1,"worker":0,"first":4,"samples":8})"), "\"version\" is 0"));
    QVERIFY(refused(batchLine(R"({"index":1,"version":1,"first":4})"), "\"worker\" is 1"));
    QVERIFY(refused(batchLine(R"({"index":1,"version":1,"worker":0,"first":4,"samples":9})"),
                    "\"samples\" is 9"));
    QVERIFY(
        refused(batchLine(R"({"index":1,"version":1,"worker":0,"first":5})"), "\"first\" is 5"));
    accept(batchLine(R"({"index":1,"version":1,"worker":0,"first":4,"samples":8})"));
    QCOMPARE(c.epochSamples, std::int64_t{12});
    // The second change refused: answered, and the version in force stays 1.
    QCOMPARE(std::get<ChannelRefused>(accept(R"({"type":"refused","version":2,"message":"no"})"))
                 .message,
             std::string("no"));
    QCOMPARE(c.version, std::int64_t{1});
    QVERIFY(refused(
        R"({"type":"reconfigured","version":2,"index":2,"t":3000,"batch_size":8,"workers":1})",
        "\"version\" is 2, not in [3, 2]"));
    accept(R"({"type":"paused","index":2,"t":3000})");
    QVERIFY(refused(batchLine(R"({"index":2,"version":1,"worker":0,"first":12})"),
                    "a batch while paused"));
    QVERIFY(refused(R"({"type":"paused","index":2,"t":3000})", "paused twice"));
    QVERIFY(refused(R"({"type":"resumed","index":2,"t":2999})", "after"));
    accept(R"({"type":"resumed","index":2,"t":3500})");
    // A new epoch starts at the beginning of its order; the last one may be short.
    QVERIFY(refused(batchLine(R"({"index":2,"epoch":1,"version":1,"worker":0,"first":12})"),
                    "\"first\" is 12, not in [0, 0]"));
    accept(batchLine(R"({"index":2,"epoch":1,"version":1,"worker":0,"first":0,"samples":8})"));
    c.epochSamples = 96;
    QVERIFY(refused(batchLine(R"({"index":3,"epoch":1,"version":1,"worker":0,"first":96,)"
                              R"("samples":8})"),
                    "\"samples\" is 8, not in [1, 4]"));
    QCOMPARE(engineSampleId(0), std::uint64_t{0xE220A8397B1DCDAFULL});
}

void TestPyTorchChannel::parserFollowsAReplay()
{
    ChannelContext c = startedContext(); // batch size 4, 2 workers, 100 samples
    const auto refused = [&c](const std::string &line, const char *why) {
        return refusedWith(c, line, why);
    };
    acceptLine(c, batchLine());
    QVERIFY(refused(R"({"type":"replay","index":1,"t":3000,"batches":2})",
                    "\"batches\" is 2, not in [1, 1]"));
    QVERIFY(refused(R"({"type":"replay","index":0,"t":3000,"batches":1})", "\"index\" is 0"));
    const auto r = std::get<ChannelReplay>(
        acceptLine(c, R"({"type":"replay","index":1,"t":3000,"batches":1})"));
    QCOMPARE(r.batches, std::int64_t{1});
    QVERIFY(c.replaying);
    QVERIFY(refused(R"({"type":"replay","index":1,"t":3000,"batches":1})", "a second replay"));
    // A replayed batch: built by no worker, its place goes on from the one before.
    QVERIFY(refused(batchLine(R"({"index":1,"first":4})"), "\"worker\" is 1, not in [-1, -1]"));
    const auto b = std::get<ChannelBatch>(acceptLine(
        c, batchLine(R"({"index":1,"first":4,"worker":-1,"load_start":3000,"collate_start":3000,)"
                     R"("load_end":3000,"read":0,"decode":0,"transform":0})")));
    QVERIFY(b.replayed);
    QCOMPARE(b.worker, -1);
    QCOMPARE(c.epochSamples, std::int64_t{8});
    // Past the epoch's order, a replayed batch keeps its size (the kept batches in turn).
    c.epochSamples = 98;
    acceptLine(c, batchLine(R"({"index":2,"first":98,"worker":-1,"load_start":3000,)"
                            R"("collate_start":3000,"load_end":3000,"read":0,"decode":0,)"
                            R"("transform":0})"));
    QCOMPARE(c.epochSamples, std::int64_t{102});
}

void TestPyTorchChannel::parserFollowsEachRank()
{
    // 3 ranks over 100 samples: each rank's shard is 34 places (100 padded to 102),
    // each rank numbers its own batches and goes through its own shard.
    ChannelContext c;
    c.earliestNs = 1000;
    c.latestNs = 1'000'000;
    c.batchSize = 4;
    c.workers = 2;
    c.ranks = 3;
    const auto accept = [&c](const std::string &line) { return acceptLine(c, line); };
    const auto refused = [&c](const std::string &line, const char *why) {
        return refusedWith(c, line, why);
    };
    QVERIFY(refused(R"({"type":"start","torch":"x","samples":100,"t0":1000,"ranks":2})",
                    "\"ranks\" is 2, not in [3, 3]"));
    accept(R"({"type":"start","torch":"x","samples":100,"t0":1000,"ranks":3})");
    QCOMPARE(c.orderSamples, std::int64_t{34});
    QCOMPARE(c.otherRanks.size(), std::size_t{2});
    const std::string sync = R"("sync_start":4000,"sync_end":4100,"exchange_end":4200)";
    const auto b0 = std::get<ChannelBatch>(accept(batchLine("{" + sync + "}")));
    QCOMPARE(b0.rank, 0);
    QCOMPARE(b0.syncEndNs, std::int64_t{4100});
    QCOMPARE(b0.exchangeEndNs, std::int64_t{4200});
    // Rank 2's first batch is its own index 0 and the start of its own shard.
    QVERIFY(refused(batchLine(R"({"rank":2,"index":1,"first":4})"), "\"index\" is 1"));
    QVERIFY(refused(batchLine(R"({"rank":3})"), "\"rank\" is 3, not in [0, 2]"));
    const auto b2 = std::get<ChannelBatch>(accept(batchLine(R"({"rank":2})")));
    QCOMPARE(b2.rank, 2);
    QCOMPARE(b2.syncStartNs, std::int64_t{0}); // not taken
    accept(batchLine(R"({"rank":2,"index":1,"first":4})"));
    QCOMPARE(c.otherRanks[1].batches, std::int64_t{2});
    QCOMPARE(c.otherRanks[1].epochSamples, std::int64_t{8});
    QCOMPARE(c.batches, std::int64_t{1}); // rank 0's own
    // The last places of a rank's shard: 34 - 32 = 2 samples at most.
    c.otherRanks[0] = {8, 0, 32};
    QVERIFY(refused(batchLine(R"({"rank":1,"index":8,"first":32})"),
                    "\"samples\" is 4, not in [1, 2]"));
    accept(batchLine(R"({"rank":1,"index":8,"first":32,"samples":2})"));
    // The sync times follow the step, in order; an exchange follows a sync.
    QVERIFY(refused(batchLine(R"({"index":1,"first":4,"sync_start":3900,"sync_end":4000})"),
                    "\"compute_end\" is after \"sync_start\""));
    QVERIFY(refused(batchLine(R"({"index":1,"first":4,"sync_start":4000,"sync_end":4100,)"
                              R"("exchange_end":4050})"),
                    "\"sync_end\" is after \"exchange_end\""));
    QVERIFY(refused(batchLine(R"({"index":1,"first":4,"exchange_end":4050})"),
                    "\"exchange_end\" without"));
    // An error says its rank.
    QCOMPARE(std::get<ChannelFailure>(accept(R"({"type":"error","message":"m","rank":2})")).rank,
             2);
}

void TestPyTorchChannel::badRecordFailsTheRunAndKeepsTheBatches_data()
{
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("message");
    QTest::newRow("42") << QStringLiteral("line('42')")
                        << QStringLiteral("line 5 (not a JSON object but number): 42");
    QTest::newRow("null") << QStringLiteral("line('null')")
                          << QStringLiteral("line 5 (not a JSON object but null): null");
    QTest::newRow("string index") << QStringLiteral("b = batch(3); b['index'] = 'x'; emit(b)")
                                  << QStringLiteral("(\"index\" is not an integer): {");
}

void TestPyTorchChannel::badRecordFailsTheRunAndKeepsTheBatches()
{
    QFETCH(QString, body);
    QFETCH(QString, message);
    // After the bad line the fake Python waits: the run must end it, not wait for it.
    const QString python = writeFakePython(m_dir.path(),
                                           QStringLiteral("bad_%1")
                                               .arg(QString::fromLatin1(QTest::currentDataTag()))
                                               .replace(QLatin1Char(' '), QLatin1Char('_')),
                                           body + QStringLiteral("\ntime.sleep(60)"));
    PyTorchRun run(python.toStdString());
    run.start(syntheticRun());
    QVERIFY(run.wait(15'000));
    QCOMPARE(run.state(), RunState::Failed);
    const QString error = QString::fromStdString(run.error());
    QVERIFY2(error.contains(QStringLiteral("the PyTorch engine (") + python
                            + QStringLiteral(") sent a bad record on"))
                 && error.contains(message),
             qPrintable(error));
    QCOMPARE(run.trace()->size(), std::size_t{3}); // the batches before it are kept
    QCOMPARE(run.report().state, std::string("failed"));
    const std::vector<int> pids = notedPids(python);
    QCOMPARE(pids.size(), std::size_t{2}); // the import check, the engine
    QTRY_VERIFY_WITH_TIMEOUT(livingInGroup(pids[1]).empty(), 3'000);
}

void TestPyTorchChannel::endlessLineIsRefusedInBoundedMemory()
{
    // 64 MiB without a newline, then a wait: it must be refused after the first MiB.
    const QString python = writeFakePython(
        m_dir.path(), QStringLiteral("endless"),
        QStringLiteral("for _ in range(1024):\n    RECORDS.write('x' * 65536)\n"
                       "RECORDS.flush()\ntime.sleep(60)"));
    const std::int64_t before = peakRssKiB();
    PyTorchRun run(python.toStdString());
    run.start(syntheticRun());
    QVERIFY(run.wait(20'000));
    QCOMPARE(run.state(), RunState::Failed);
    const QString error = QString::fromStdString(run.error());
    QVERIFY2(error.contains(QStringLiteral("line 5 (a line longer than 1048576 bytes): xxxx")),
             qPrintable(error));
    QVERIFY2(error.size() < 400, qPrintable(error));
    QCOMPARE(run.trace()->size(), std::size_t{3});
    const std::int64_t grownKiB = peakRssKiB() - before;
    QVERIFY2(grownKiB < 24 * 1024,
             qPrintable(QStringLiteral("peak RSS grew %1 KiB").arg(grownKiB)));
}

void TestPyTorchChannel::hangingImportCheckTimesOut()
{
    const QString python = writeFakePython(m_dir.path(), QStringLiteral("hanging_check"),
                                           QStringLiteral("pass"),
                                           QStringLiteral("time.sleep(600)"));
    qputenv("LOADERLAB_PYTORCH_CHECK_SECONDS", "2");
    const auto start = std::chrono::steady_clock::now();
    auto problem = std::async(std::launch::async,
                              [&] { return pytorchEngineProblem(python.toStdString()); });
    const bool done = problem.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
    qunsetenv("LOADERLAB_PYTORCH_CHECK_SECONDS");
    const std::vector<int> pids = notedPids(python);
    if (!done) {
        for (int pid : pids)
            kill(pid, SIGKILL); // lets the check return, so that the test can end
        problem.wait();
        QFAIL("the import check did not end within 10 s");
    }
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    const QString why = QString::fromStdString(problem.get());
    QVERIFY2(why.contains(QStringLiteral("timed out after 2 s")), qPrintable(why));
    QVERIFY2(ms < 5'000, qPrintable(QStringLiteral("took %1 ms").arg(ms)));
    QCOMPARE(pids.size(), std::size_t{1});
    QVERIFY(!alive(pids[0]));
    // A timed-out check is not remembered: the next start checks again.
    qputenv("LOADERLAB_PYTORCH_CHECK_SECONDS", "0.5");
    PyTorchRun run(python.toStdString());
    try {
        run.start(syntheticRun());
        QFAIL("started");
    } catch (const std::runtime_error &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("timed out after 0.5 s")),
                 e.what());
    }
    qunsetenv("LOADERLAB_PYTORCH_CHECK_SECONDS");
    QCOMPARE(run.state(), RunState::Idle);
}

void TestPyTorchChannel::stopEndsTheGroupDespiteSigtermAndAnEscapedHolder()
{
    // The fake Python ignores SIGTERM, starts a "worker" in its group that ignores it
    // too, and a grandchild in a session of its own that keeps stdout open.
    const QString python = writeFakePython(m_dir.path(), QStringLiteral("stubborn"),
                                           stubbornEngineStart()
                                               + QStringLiteral("emit(batch(3))\n"
                                                                "while True:\n    time.sleep(1)"));
    PyTorchRun run(python.toStdString());
    run.start(syntheticRun());
    QTRY_VERIFY_WITH_TIMEOUT(run.trace()->size() >= 4, 10'000);
    std::vector<int> pids = notedPids(python);
    QCOMPARE(pids.size(), std::size_t{4}); // check, engine, worker, holder
    m_escaped.push_back(pids[3]);
    const auto start = std::chrono::steady_clock::now();
    run.stop();
    const bool ended = run.wait(10'000);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    if (!ended)
        kill(pids[3], SIGKILL); // closes the pipes, so that the test can end
    QVERIFY2(ended, "stop did not end the run within 10 s");
    QVERIFY2(ms < 6'000, qPrintable(QStringLiteral("stop took %1 ms").arg(ms)));
    QCOMPARE(run.state(), RunState::Stopped);
    QCOMPARE(run.trace()->size(), std::size_t{4});
    QTRY_VERIFY_WITH_TIMEOUT(livingInGroup(pids[1]).empty(), 3'000);
    QVERIFY(!alive(pids[2]));
}

void TestPyTorchChannel::printedLinesAreNotRecords()
{
    // stdout and stderr, of the engine and of a child that inherits them, carry lines
    // that look like records: the run reads only its records pipe.
    const QString python = writeFakePython(
        m_dir.path(), QStringLiteral("noisy"),
        QStringLiteral("for text in ['{\"type\":\"end\",\"batches\":0}', 'null', 'x' * 5000]:\n"
                       "    print(text, flush=True)\n"
                       "    sys.stderr.write(text + '\\n')\n"
                       "subprocess.run([sys.executable, '-c', 'print(\"{}\")'])\n"
                       "emit(batch(3))\n"
                       "emit({'type': 'end', 'batches': 4})"));
    PyTorchRun run(python.toStdString());
    run.start(syntheticRun());
    QVERIFY(run.wait(15'000));
    QVERIFY2(run.state() == RunState::Finished, run.error().c_str());
    QCOMPARE(run.trace()->size(), std::size_t{4});
}

void TestPyTorchChannel::failureNamesTheLastLinesOfStdoutAndStderr()
{
    const QString python = writeFakePython(
        m_dir.path(), QStringLiteral("failing"),
        QStringLiteral("print('loading shard 7', flush=True)\n"
                       "sys.stderr.write('Traceback...\\nOSError: disk gone\\n')\n"
                       "sys.exit(1)"));
    PyTorchRun run(python.toStdString());
    run.start(syntheticRun());
    QVERIFY(run.wait(15'000));
    QCOMPARE(run.state(), RunState::Failed);
    const QString error = QString::fromStdString(run.error());
    QVERIFY2(error.contains(QStringLiteral("(exit 1) before its end record: OSError: disk gone; "
                                           "stdout: loading shard 7")),
             qPrintable(error));
}

LOADERLAB_GUILESS_TEST_MAIN(TestPyTorchChannel)
#include "test_pytorch_channel.moc"
