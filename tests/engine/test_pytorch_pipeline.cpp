// A user's pipeline file on the PyTorch engine (dataset kind "python", real torch):
// the shipped examples deliver every sample once per epoch, the step a file defines
// is the step in the trace, an IterableDataset sharded per worker delivers each item
// once, and bad user code ends or goes on as documented (docs/your-pipeline.md), with
// the reason and the file's line in the message and no process left behind.

#include "core/config/config_fields.h"
#include "core/engine/engine.h"
#include "core/engine/pytorch/pytorch_channel.h"
#include "core/engine/pytorch/pytorch_run.h"

#include "tests/support/engine_checks.h"
#include "tests/support/require_pytorch.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <cerrno>
#include <fstream>
#include <map>
#include <numeric>

#include <csignal>

using namespace loaderlab;
using loaderlab::test::epochIds;
using loaderlab::test::groupGone;

namespace {

QString examplePath(const char *name)
{
    return qEnvironmentVariable("LOADERLAB_SOURCE_DIR") + QStringLiteral("/resources/examples/")
           + QLatin1String(name);
}

RunConfig pipelineRun(const QString &path, int workers, int batchSize)
{
    RunConfig c;
    c.engine = EngineKind::PyTorch;
    c.dataset.kind = DatasetKind::Python;
    c.dataset.path = path.toStdString();
    c.loader.numWorkers = workers;
    c.loader.batchSize = batchSize;
    c.consumer.kind = ConsumerKind::None;
    c.epochs = 1;
    return c;
}

// Runs `config` to its end; the run's process group must be gone after it.
void runToEnd(PyTorchRun &run, const RunConfig &config, int timeoutMs = 180'000)
{
    run.start(config);
    const int pgid = run.processGroup();
    QVERIFY(run.wait(timeoutMs));
    QVERIFY2(groupGone(pgid), "a process of the engine's group is still alive");
}

// The environment variable `name` as it was (set or not), however the test ends.
class RestoreEnv
{
public:
    explicit RestoreEnv(const char *name)
        : m_name(name)
        , m_set(qEnvironmentVariableIsSet(name))
        , m_value(qgetenv(name))
    {
    }
    ~RestoreEnv() { m_set ? qputenv(m_name, m_value) : qunsetenv(m_name); }
    RestoreEnv(const RestoreEnv &) = delete;
    RestoreEnv &operator=(const RestoreEnv &) = delete;

private:
    const char *m_name;
    bool m_set;
    QByteArray m_value;
};

} // namespace

class TestPyTorchPipeline : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void fashionExampleDeliversEverySampleOncePerEpoch();
    void textExampleStreamsItsFiles();
    void theFilesStepIsTheStepInTheTrace();
    void aSamplerSetsEachEpochsOrder();
    void anIterableShardedPerWorkerDeliversEachItemOnce_data();
    void anIterableShardedPerWorkerDeliversEachItemOnce();
    void liveChangesOnAPipeline_data();
    void liveChangesOnAPipeline();
    void badUserCode_data();
    void badUserCode();
    void aBadSampleIsSkippedWithItsReason();
    void aTorchThatCannotBeImportedFailsTheRunWithPythonsError();
    void aPythonWithoutTorchIsRefusedByTheCheck();
    void loaderlabsEngineRefusesAPipelineFile();

private:
    QTemporaryDir m_dir;
    QString write(const char *name, const char *code);
};

QString TestPyTorchPipeline::write(const char *name, const char *code)
{
    const QString path = m_dir.filePath(QLatin1String(name));
    std::ofstream(path.toStdString()) << code;
    return path;
}

void TestPyTorchPipeline::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

void TestPyTorchPipeline::fashionExampleDeliversEverySampleOncePerEpoch()
{
    REQUIRE_PYTORCH();
    RunConfig config = pipelineRun(examplePath("fashion_augment.py"), 2, 32);
    config.epochs = 2;
    config.loader.shuffle = true;
    setConfigFieldFromText(config, "dataset.args.samples", "300");
    setConfigFieldFromText(config, "dataset.args.step", "none");
    PyTorchRun run;
    runToEnd(run, config);
    QVERIFY2(run.state() == RunState::Finished, run.error().c_str());
    const auto records = run.trace()->records();
    QCOMPARE(records.size(), std::size_t{2 * 10}); // 9 x 32 + 12 per epoch
    const auto epochs = run.epochSamples();
    QCOMPARE(epochs.size(), std::size_t{2});
    for (const auto &[epoch, seen] : epochs) {
        QCOMPARE(seen.samples, std::int64_t{300});
        QCOMPARE(seen.ids, epochIds(300));
    }
    // One span per sample (each __getitem__), inside its batch's load; the stages the
    // file marks (read, transform) are timed, the one it does not (decode) is 0.
    const auto spans = run.trace()->spans();
    QCOMPARE(spans.size(), std::size_t{600});
    std::int64_t read = 0, decode = 0, transform = 0;
    for (const TraceRecord &r : records) {
        read += r.readNs;
        decode += r.decodeNs;
        transform += r.transformNs;
    }
    QVERIFY(read > 0 && transform > read);
    QCOMPARE(decode, std::int64_t{0});
    QVERIFY(QString::fromStdString(run.datasetDescription())
                .contains(QStringLiteral("AugmentedFashion from fashion_augment.py")));
}

void TestPyTorchPipeline::textExampleStreamsItsFiles()
{
    REQUIRE_PYTORCH();
    RunConfig config = pipelineRun(examplePath("text_tokens.py"), 2, 16);
    setConfigFieldFromText(config, "dataset.args.max_files", "12");
    setConfigFieldFromText(config, "dataset.args.step", "forward");
    PyTorchRun run;
    runToEnd(run, config);
    QVERIFY2(run.state() == RunState::Finished, run.error().c_str());
    const auto records = run.trace()->records();
    QVERIFY(records.size() >= 4);
    // Both workers read their share of the files. A file is read and tokenised
    // when its first window is asked for: those items carry the stages.
    std::map<int, int> byWorker;
    std::int64_t read = 0, decode = 0, transform = 0;
    for (const TraceRecord &r : records) {
        ++byWorker[r.worker];
        read += r.readNs;
        decode += r.decodeNs;
        transform += r.transformNs;
        QVERIFY(r.computeNs() > 0);
    }
    QCOMPARE(byWorker.size(), std::size_t{2});
    QVERIFY(read > 0 && decode > 0 && transform > 0);
}

void TestPyTorchPipeline::theFilesStepIsTheStepInTheTrace()
{
    REQUIRE_PYTORCH();
    const QString path = write("sleepy_step.py", R"(
import time, torch
def make_dataset(args):
    return [torch.zeros(4)] * int(args["n"])
def make_step(args):
    def step(batch):
        time.sleep(args["ms"] / 1000)
    return step
)");
    RunConfig config = pipelineRun(path, 1, 8);
    setConfigFieldFromText(config, "dataset.args.n", "80");
    setConfigFieldFromText(config, "dataset.args.ms", "40");
    // The file's step replaces the simulated one: a 500 ms sleep here would show.
    config.consumer.kind = ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 500;
    PyTorchRun run;
    runToEnd(run, config);
    QVERIFY2(run.state() == RunState::Finished, run.error().c_str());
    const auto records = run.trace()->records();
    QCOMPARE(records.size(), std::size_t{10});
    for (const TraceRecord &r : records) {
        const double ms = static_cast<double>(r.computeNs()) / 1e6;
        // The file's 40 ms, however late a busy machine wakes the sleeper; far from the
        // 500 ms simulated step.
        QVERIFY2(ms >= 40.0 && ms < 250.0, qPrintable(QStringLiteral("step %1 ms").arg(ms)));
    }
}

// make_sampler's order, per epoch (set_epoch is called), and the file's collate_fn.
void TestPyTorchPipeline::aSamplerSetsEachEpochsOrder()
{
    REQUIRE_PYTORCH();
    const QString path = write("sampled.py", R"(
import torch
class Reversed(torch.utils.data.Sampler):
    def __init__(self, n): self.n, self.epoch = n, 0
    def set_epoch(self, epoch): self.epoch = epoch
    def __iter__(self):
        order = list(range(self.n - 1, -1, -1))
        return iter(order if self.epoch % 2 == 0 else order[::-1])
    def __len__(self): return self.n
def make_dataset(args): return [torch.tensor([i]) for i in range(12)]
def make_sampler(dataset, args): return Reversed(len(dataset))
def collate_fn(items): return torch.cat(items)
def make_step(args):
    seen = open(args["seen"], "w")
    def step(batch):
        seen.write(" ".join(str(int(x)) for x in batch) + "\n")
        seen.flush()
    return step
)");
    const QString seen = m_dir.filePath(QStringLiteral("sampled.txt"));
    RunConfig config = pipelineRun(path, 1, 4);
    config.epochs = 2;
    setConfigField(config, "dataset.args.seen", seen.toStdString());
    PyTorchRun run;
    runToEnd(run, config);
    QVERIFY2(run.state() == RunState::Finished, run.error().c_str());
    std::ifstream in(seen.toStdString());
    std::string all, line;
    while (std::getline(in, line))
        all += line + "|";
    QCOMPARE(all, std::string("11 10 9 8|7 6 5 4|3 2 1 0|0 1 2 3|4 5 6 7|8 9 10 11|"));
}

void TestPyTorchPipeline::anIterableShardedPerWorkerDeliversEachItemOnce_data()
{
    QTest::addColumn<int>("workers");
    QTest::newRow("1 worker") << 1;
    QTest::newRow("2 workers") << 2;
    QTest::newRow("3 workers") << 3;
}

void TestPyTorchPipeline::anIterableShardedPerWorkerDeliversEachItemOnce()
{
    REQUIRE_PYTORCH();
    QFETCH(int, workers);
    const QString path = write("stream.py", R"(
import math
from torch.utils.data import IterableDataset, get_worker_info
class Numbers(IterableDataset):
    def __init__(self, n): self.n = n
    def __iter__(self):
        info = get_worker_info()
        share = range(self.n) if info is None else range(info.id, self.n, info.num_workers)
        for i in share:
            yield i
def make_dataset(args):
    return Numbers(int(args["n"]))
def make_step(args):
    seen = open(args["seen"], "a")
    def step(batch):
        seen.write("".join("%d\n" % int(x) for x in batch))
        seen.flush()
    return step
)");
    const QString seen = m_dir.filePath(QStringLiteral("seen-%1.txt").arg(workers));
    RunConfig config = pipelineRun(path, workers, 5);
    config.epochs = 2;
    setConfigFieldFromText(config, "dataset.args.n", "47");
    setConfigField(config, "dataset.args.seen", seen.toStdString());
    PyTorchRun run;
    runToEnd(run, config);
    QVERIFY2(run.state() == RunState::Finished, run.error().c_str());
    std::map<int, int> counts;
    std::ifstream in(seen.toStdString());
    for (int item = 0; in >> item;)
        ++counts[item];
    QCOMPARE(counts.size(), std::size_t{47});
    for (const auto &[item, count] : counts)
        QVERIFY2(
            count == 2,
            qPrintable(QStringLiteral("item %1 seen %2 times in 2 epochs").arg(item).arg(count)));
    std::int64_t samples = 0;
    for (const TraceRecord &r : run.trace()->records())
        samples += r.samples;
    QCOMPARE(samples, std::int64_t{2 * 47});
    QCOMPARE(run.epochSamples().size(), std::size_t{2});
}

void TestPyTorchPipeline::liveChangesOnAPipeline_data()
{
    QTest::addColumn<bool>("iterable");
    QTest::newRow("map-style") << false;
    QTest::newRow("iterable") << true;
}

// A change of workers and batch size mid-epoch: a map-style dataset gets a new
// DataLoader over the rest of the epoch at the next batch; an IterableDataset at the
// start of the next epoch. Every sample once per epoch either way.
void TestPyTorchPipeline::liveChangesOnAPipeline()
{
    REQUIRE_PYTORCH();
    QFETCH(bool, iterable);
    const QString path = write("live.py", R"(
import time, torch
from torch.utils.data import Dataset, IterableDataset, get_worker_info
class Items(Dataset):
    def __len__(self): return 120
    def __getitem__(self, i):
        time.sleep(0.004)
        return torch.tensor([i])
class Stream(IterableDataset):
    def __iter__(self):
        info = get_worker_info()
        for i in range(120) if info is None else range(info.id, 120, info.num_workers):
            time.sleep(0.004)
            yield torch.tensor([i])
def make_dataset(args):
    return Stream() if args["iterable"] else Items()
)");
    RunConfig config = pipelineRun(path, 1, 4);
    config.epochs = 2;
    setConfigField(config, "dataset.args.iterable", iterable);
    PyTorchRun run;
    run.start(config);
    const int pgid = run.processGroup();
    QTRY_VERIFY_WITH_TIMEOUT(run.trace()->size() >= 3, 60'000);
    LoaderConfig loader = config.loader;
    loader.numWorkers = 2;
    loader.batchSize = 6;
    run.reconfigure(loader, config.consumer);
    QVERIFY(run.wait(120'000));
    QVERIFY(groupGone(pgid));
    QVERIFY2(run.state() == RunState::Finished, run.error().c_str());
    const auto versions = run.trace()->configVersions();
    QCOMPARE(versions.size(), std::size_t{2});
    const auto records = run.trace()->records();
    const std::int64_t first = versions[1].firstBatch;
    QVERIFY(first >= 3);
    if (iterable) // at the second epoch's first batch
        QCOMPARE(records[static_cast<std::size_t>(first)].epoch, 1);
    for (const TraceRecord &r : records) {
        QCOMPARE(r.configVersion, r.index >= first ? 1 : 0);
        QVERIFY(r.samples <= (r.index >= first ? 6 : 4));
    }
    for (const auto &[epoch, seen] : run.epochSamples())
        QCOMPARE(seen.samples, std::int64_t{120});
    if (!iterable)
        QCOMPARE(run.epochSamples().at(0).ids, epochIds(120));
}

void TestPyTorchPipeline::badUserCode_data()
{
    QTest::addColumn<QByteArray>("code");
    QTest::addColumn<QByteArray>("policy");
    QTest::addColumn<int>("state");
    QTest::addColumn<QByteArrayList>("message");

    const auto failed = static_cast<int>(RunState::Failed);
    const auto finished = static_cast<int>(RunState::Finished);
    QTest::newRow("import error") << QByteArray("import no_such_module_here\n")
                                  << QByteArray("skip") << failed
                                  << QByteArrayList{"failed to import", "ModuleNotFoundError",
                                                    "no_such_module_here", "bad.py:1"};
    QTest::newRow("no make_dataset") << QByteArray("x = 1\n") << QByteArray("skip") << failed
                                     << QByteArrayList{"defines no make_dataset(args)"};
    QTest::newRow("hangs at import")
        << QByteArray("import time\nwhile True:\n    time.sleep(0.05)\n") << QByteArray("skip")
        << failed
        << QByteArrayList{"importing bad.py took longer than 2 s", "LOADERLAB_PIPELINE_SECONDS"};
    // A retry loop that swallows the time limit: the limit is a BaseException.
    QTest::newRow("import swallows Exception")
        << QByteArray("import time\nwhile True:\n    try:\n        time.sleep(0.05)\n"
                      "    except Exception:\n        pass\n")
        << QByteArray("skip") << failed
        << QByteArrayList{"importing bad.py took longer than 2 s", "LOADERLAB_PIPELINE_SECONDS"};
    // One that ignores the alarm and catches everything: LoaderLab kills the group.
    QTest::newRow("import ignores the alarm")
        << QByteArray("import signal, time\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                      "signal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True:\n"
                      "    try:\n        time.sleep(0.05)\n    except BaseException:\n"
                      "        pass\n")
        << QByteArray("skip") << failed
        << QByteArrayList{"importing bad.py took longer than 2 s", "did not stop when told"};
    QTest::newRow("every sample raises")
        << QByteArray("import torch\nclass D(torch.utils.data.Dataset):\n"
                      "    def __len__(self): return 16\n"
                      "    def __getitem__(self, i): raise OSError('unreadable %d' % i)\n"
                      "def make_dataset(args): return D()\n")
        << QByteArray("skip") << failed
        << QByteArrayList{"epoch 1 delivered no sample: all 16 samples it loaded were skipped",
                          "OSError: unreadable"};
    QTest::newRow("empty dataset")
        << QByteArray("def make_dataset(args): return []\n") << QByteArray("skip") << failed
        << QByteArrayList{"bad.py: make_dataset(args) returned an empty list", "nothing to load"};
    QTest::newRow("negative length")
        << QByteArray("class D:\n    def __len__(self): return -5\n"
                      "    def __getitem__(self, i): return i\n"
                      "def make_dataset(args): return D()\n")
        << QByteArray("skip") << failed << QByteArrayList{"__len__() returned -5"};
    QTest::newRow("huge length") << QByteArray("class D:\n    def __len__(self): return 10 ** 20\n"
                                               "    def __getitem__(self, i): return i\n"
                                               "def make_dataset(args): return D()\n")
                                 << QByteArray("skip") << failed
                                 << QByteArrayList{"__len__() returned 100000000000000000000",
                                                   "1 to 2^40 samples"};
    QTest::newRow("worker exits") << QByteArray(
        "import os, torch\nclass D(torch.utils.data.Dataset):\n"
        "    def __len__(self): return 16\n"
        "    def __getitem__(self, i):\n        if i == 9: os._exit(3)\n"
        "        return torch.zeros(2)\n"
        "def make_dataset(args): return D()\n")
                                  << QByteArray("skip") << failed
                                  << QByteArrayList{"(pid ",
                                                    "exited with code 3 while loading from bad.py"};
    // What a library may do with the low descriptors LoaderLab's channels once had.
    QTest::newRow("writes to fd 3, closes fd 4")
        << QByteArray("import os, torch\n"
                      "def make_dataset(args):\n"
                      "    for fd in (3, 4):\n"
                      "        try:\n            os.write(fd, b'\\x00garbage\\n')\n"
                      "        except OSError:\n            pass\n"
                      "        try:\n            os.close(fd)\n"
                      "        except OSError:\n            pass\n"
                      "    return [torch.zeros(2)] * 16\n")
        << QByteArray("skip") << finished << QByteArrayList{};
    QTest::newRow("make_dataset raises")
        << QByteArray("def make_dataset(args):\n    raise KeyError('root')\n") << QByteArray("skip")
        << failed << QByteArrayList{"make_dataset(args) raised", "KeyError", "bad.py:2"};
    QTest::newRow("getitem raises, fail policy")
        << QByteArray("import torch\nclass D(torch.utils.data.Dataset):\n"
                      "    def __len__(self): return 16\n"
                      "    def __getitem__(self, i):\n"
                      "        if i == 11: raise ValueError('sample %d is broken' % i)\n"
                      "        return torch.zeros(2)\n"
                      "def make_dataset(args): return D()\n")
        << QByteArray("fail") << failed
        << QByteArrayList{"sample 11", "ValueError: sample 11 is broken", "bad.py:5",
                          "in __getitem__", "bad samples: fail"};
    QTest::newRow("step raises") << QByteArray(
        "import torch\ndef make_dataset(args): return [torch.zeros(2)] * 16\n"
        "def make_step(args):\n    def step(b):\n        return 1 / 0\n"
        "    return step\n") << QByteArray("skip")
                                 << failed
                                 << QByteArrayList{"step raised on batch 0", "ZeroDivisionError",
                                                   "bad.py:5", "in step"};
    QTest::newRow("step calls sys.exit")
        << QByteArray("import sys, torch\ndef make_dataset(args): return [torch.zeros(2)] * 16\n"
                      "def make_step(args):\n    return lambda b: sys.exit(4)\n")
        << QByteArray("skip") << failed << QByteArrayList{"called sys.exit(4)", "bad.py:4"};
    QTest::newRow("worker_init_fn raises")
        << QByteArray("import torch\ndef make_dataset(args): return [torch.zeros(2)] * 16\n"
                      "def worker_init_fn(i):\n    raise RuntimeError('no device for %d' % i)\n")
        << QByteArray("skip") << failed
        << QByteArrayList{"the DataLoader failed", "RuntimeError: no device for"};
    QTest::newRow("prints and forks")
        << QByteArray("import os, sys, torch\nprint('{\"type\":\"end\",\"batches\":0}')\n"
                      "sys.stderr.write('noise\\n')\nif os.fork() == 0:\n    pass\n"
                      "def make_dataset(args):\n    print('making')\n"
                      "    return [torch.zeros(2)] * 16\n")
        << QByteArray("skip") << finished << QByteArrayList{};
}

void TestPyTorchPipeline::badUserCode()
{
    REQUIRE_PYTORCH();
    QFETCH(QByteArray, code);
    QFETCH(QByteArray, policy);
    QFETCH(int, state);
    QFETCH(QByteArrayList, message);
    const QString path = write("bad.py", code.constData());
    qputenv("LOADERLAB_PIPELINE_SECONDS", "2");
    RunConfig config = pipelineRun(path, 2, 4);
    config.loader.badSamples = policy == "fail" ? BadSamplePolicy::Fail : BadSamplePolicy::Skip;
    PyTorchRun run;
    runToEnd(run, config, 60'000);
    qunsetenv("LOADERLAB_PIPELINE_SECONDS");
    const QString error = QString::fromStdString(run.error());
    QVERIFY2(static_cast<int>(run.state()) == state, qPrintable(error));
    for (const QByteArray &part : message)
        QVERIFY2(error.toUtf8().contains(part),
                 qPrintable(QStringLiteral("'%1' not in: %2").arg(QString::fromUtf8(part), error)));
    if (state == static_cast<int>(RunState::Finished)) // what was printed is not a record
        QCOMPARE(run.trace()->size(), std::size_t{4});
    // Only a dataset that cannot run at all is a refusal (the command line's exit 2).
    const bool refusal = QByteArray(QTest::currentDataTag()).contains("length")
                         || QByteArray(QTest::currentDataTag()) == "empty dataset";
    QCOMPARE(run.refused(), refusal);
}

void TestPyTorchPipeline::aBadSampleIsSkippedWithItsReason()
{
    REQUIRE_PYTORCH();
    const QString path = write("some_bad.py", R"(
import torch
class D(torch.utils.data.Dataset):
    def __len__(self): return 20
    def __getitem__(self, i):
        if i in (3, 17):
            raise OSError("cannot read record %d" % i)
        return torch.zeros(2)
def make_dataset(args): return D()
)");
    RunConfig config = pipelineRun(path, 2, 4);
    PyTorchRun run;
    runToEnd(run, config);
    QVERIFY2(run.state() == RunState::Finished, run.error().c_str());
    std::int64_t samples = 0, skipped = 0;
    for (const TraceRecord &r : run.trace()->records()) {
        samples += r.samples;
        skipped += r.skipped;
    }
    QCOMPARE(samples, std::int64_t{18});
    QCOMPARE(skipped, std::int64_t{2});
    const auto bad = run.trace()->skipped();
    QCOMPARE(bad.size(), std::size_t{2});
    QCOMPARE(bad[0].sampleIndex, std::int64_t{3});
    QCOMPARE(bad[1].sampleIndex, std::int64_t{17});
    QVERIFY(QString::fromStdString(bad[1].reason)
                .startsWith(QStringLiteral("OSError: cannot read record 17 (some_bad.py:7")));
    // Every place of the epoch's order was used once: the 18 delivered and the 2 skipped.
    QCOMPARE(run.epochSamples().at(0).samples, std::int64_t{18});
}

// The check before a run only looks for torch (importlib's find_spec); a torch that
// is there and cannot be imported is reported by the run, with Python's error.
void TestPyTorchPipeline::aTorchThatCannotBeImportedFailsTheRunWithPythonsError()
{
    REQUIRE_PYTORCH();
    const QString shadow = m_dir.filePath(QStringLiteral("broken-site"));
    QVERIFY(QDir().mkpath(shadow + QStringLiteral("/torch"))
            && QDir().mkpath(shadow + QStringLiteral("/torchvision")));
    std::ofstream((shadow + QStringLiteral("/torch/__init__.py")).toStdString())
        << "raise OSError('libtorch_cpu.so: cannot open shared object file')\n";
    std::ofstream((shadow + QStringLiteral("/torchvision/__init__.py")).toStdString()) << "\n";
    PyTorchRun run;
    {
        const RestoreEnv restore("PYTHONPATH");
        qputenv("PYTHONPATH", QFile::encodeName(shadow));
        runToEnd(run,
                 pipelineRun(write("fine.py", "def make_dataset(args): return [1, 2, 3]\n"), 0, 2));
    }
    QVERIFY(run.state() == RunState::Failed);
    const QString error = QString::fromStdString(run.error());
    QVERIFY2(error.contains(QStringLiteral("the PyTorch engine needs torch and torchvision, and "))
                 && error.contains(QStringLiteral("cannot import them: OSError: libtorch_cpu.so: "
                                                  "cannot open shared object file")),
             qPrintable(error));
}

// An interpreter without torch (Debian's, without its site packages) is refused by the
// check, with what is missing and how to install it.
void TestPyTorchPipeline::aPythonWithoutTorchIsRefusedByTheCheck()
{
    if (!QFile::exists(QStringLiteral("/usr/bin/python3")))
        QSKIP("no /usr/bin/python3 here");
    const QString python = m_dir.filePath(QStringLiteral("python-without-site"));
    std::ofstream(python.toStdString()) << "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n";
    QVERIFY(QFile::setPermissions(python, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    const PythonCheck check = pytorchPythonCheck(python.toStdString());
    QVERIFY(check.result == PythonCheck::Result::CannotImport);
    QCOMPARE(QString::fromStdString(pythonCheckText(check)),
             python
                 + QStringLiteral(" cannot import torch and torchvision (No module named "
                                  "'torch' or 'torchvision'); on Debian: apt-get install "
                                  "python3-torch python3-torchvision"));
}

void TestPyTorchPipeline::loaderlabsEngineRefusesAPipelineFile()
{
    RunConfig config = pipelineRun(QStringLiteral("my_pipeline.py"), 1, 4);
    QVERIFY(engineProblem(config).empty());
    config.engine = EngineKind::LoaderLab;
    const QString why = QString::fromStdString(engineProblem(config));
    QVERIFY2(why.contains(QStringLiteral("engine pytorch")), qPrintable(why));
    QCOMPARE(engineForDataset(DatasetKind::Python, EngineKind::LoaderLab), EngineKind::PyTorch);
    QCOMPARE(engineForDataset(DatasetKind::ImageFolder, EngineKind::LoaderLab),
             EngineKind::LoaderLab);
    config.engine = EngineKind::PyTorch;
    config.dataset.path.clear();
    QVERIFY(QString::fromStdString(engineProblem(config)).contains(QStringLiteral("--path")));
}

LOADERLAB_GUILESS_TEST_MAIN(TestPyTorchPipeline)
#include "test_pytorch_pipeline.moc"
