// The PyTorch engine changed during a run (PyTorchRun::reconfigure, pause, resume)
// and kept clean of what Python prints: a fake engine (fake_python.h) that answers
// the commands checks LoaderLab's side without torch; with PyTorch's real DataLoader
// (Debian's python3-torch, skipped with the reason where Python cannot import it),
// 20 live changes and a pause deliver every sample exactly once per epoch with a
// marker and a config version per change, and a dataset that prints record-like
// lines on stdout in every process does not disturb the run.

#include "core/config/config_diff.h"
#include "core/engine/pytorch/pytorch_run.h"
#include "core/tools/default_dataset.h"
#include "tests/support/fake_python.h"

#include "tests/support/engine_checks.h"
#include "tests/support/require_pytorch.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <algorithm>
#include <cerrno>

#include <csignal>

using namespace loaderlab;
using loaderlab::test::epochIds;
using loaderlab::test::groupGone;
using namespace faketest;

namespace {

RunConfig liveSyntheticRun(int samples)
{
    RunConfig c;
    c.dataset.kind = DatasetKind::Synthetic;
    c.dataset.syntheticSamples = samples;
    c.dataset.syntheticShape = {1, 4, 4};
    c.loader.numWorkers = 0;
    c.loader.batchSize = 4;
    c.consumer.kind = ConsumerKind::None;
    c.epochs = 0;
    c.maxBatches = 0;
    return c;
}

} // namespace

class TestPyTorchLive : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void liveChangesAndPauseReachTheEngine();
    void twentyChangesKeepEverySampleOncePerEpoch();
    void printingDatasetDoesNotDisturbTheRecords();

private:
    QTemporaryDir m_dir;
};

void TestPyTorchLive::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

void TestPyTorchLive::liveChangesAndPauseReachTheEngine()
{
    // The fake engine answers each command as pytorch_engine.py does: a change with
    // "reconfigured" and one batch of the new size (workers 7: "refused"), a pause
    // with "paused", a resume with "resumed".
    const QString python = writeFakePython(
        m_dir.path(), QStringLiteral("commands"),
        QStringLiteral(
            "pending, i, pos = b'', 3, 12\n"
            "while True:\n"
            "    data = os.read(COMMANDS, 65536)\n"
            "    if not data:\n"
            "        break\n"
            "    *lines, pending = (pending + data).split(b'\\n')\n"
            "    for c in map(json.loads, lines):\n"
            "        t = time.monotonic_ns()\n"
            "        if c['cmd'] in ('pause', 'resume'):\n"
            "            emit({'type': c['cmd'] + 'd', 'index': i, 't': t})\n"
            "        elif c['workers'] == 7:\n"
            "            emit({'type': 'refused', 'version': c['version'], 'message': 'no'})\n"
            "        else:\n"
            "            emit({'type': 'reconfigured', 'version': c['version'], 'index': i,\n"
            "                  't': t, 'batch_size': c['batch_size'], 'workers': c['workers']})\n"
            "            b = batch(i)\n"
            "            b.update(version=c['version'], first=pos, samples=c['batch_size'],\n"
            "                     worker=0 if c['workers'] else -1)\n"
            "            emit(b)\n"
            "            i, pos = i + 1, pos + c['batch_size']\n"));
    PyTorchRun run(python.toStdString());
    const RunConfig config = liveSyntheticRun(100);
    run.start(config);
    QTRY_COMPARE_WITH_TIMEOUT(run.trace()->size(), std::size_t{3}, 10'000);
    LoaderConfig loader = config.loader;
    loader.batchSize = 8;
    loader.numWorkers = 1;
    run.reconfigure(loader, config.consumer, MarkerKind::Autotune, "faster");
    QTRY_COMPARE_WITH_TIMEOUT(run.trace()->size(), std::size_t{4}, 10'000);
    QCOMPARE(run.config().loader.batchSize, 8);
    const TraceRecord last = run.trace()->records().back();
    QCOMPARE(last.samples, 8);
    QCOMPARE(last.configVersion, 1);
    const auto versions = run.trace()->configVersions();
    QCOMPARE(versions.size(), std::size_t{2});
    QCOMPARE(versions[1].firstBatch, std::int64_t{3});
    QCOMPARE(versions[1].config.loader.numWorkers, 1);
    auto markers = run.trace()->markers();
    QCOMPARE(markers.size(), std::size_t{1});
    QCOMPARE(markers[0].kind, MarkerKind::Autotune);
    QCOMPARE(markers[0].batch, std::int64_t{3});
    QCOMPARE(markers[0].detail, std::string("faster"));
    QVERIFY(std::find(markers[0].changes.begin(), markers[0].changes.end(),
                      FieldChange{"loader.batch_size", "4", "8"})
            != markers[0].changes.end());
    // Settings the engine cannot take are refused here; one it refuses is reported.
    LoaderConfig fixed = loader;
    fixed.seed = 5;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, run.reconfigure(fixed, config.consumer));
    fixed = loader;
    fixed.batchSize = 0;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, run.reconfigure(fixed, config.consumer));
    ConsumerConfig model = config.consumer;
    model.kind = ConsumerKind::Model;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, run.reconfigure(loader, model));
    fixed = loader;
    fixed.numWorkers = 7;
    run.reconfigure(fixed, config.consumer);
    std::string why;
    // (QTRY evaluates its condition once more after it holds: gather, do not replace.)
    QTRY_VERIFY2_WITH_TIMEOUT(!(why += run.takeReconfigureError()).empty(), run.error().c_str(),
                              10'000);
    QVERIFY2(why.find("refused the change: no") != std::string::npos, why.c_str());
    QCOMPARE(run.config().loader.numWorkers, 1);
    // Pause and resume: the state at once, the markers when the engine answers.
    run.pause();
    QCOMPARE(run.state(), RunState::Paused);
    QVERIFY(!run.wait(100));
    QTRY_COMPARE_WITH_TIMEOUT(run.trace()->markers().size(), std::size_t{2}, 10'000);
    run.resume();
    QCOMPARE(run.state(), RunState::Running);
    QTRY_COMPARE_WITH_TIMEOUT(run.trace()->markers().size(), std::size_t{3}, 10'000);
    markers = run.trace()->markers();
    QCOMPARE(markers[1].kind, MarkerKind::Pause);
    QCOMPARE(markers[2].kind, MarkerKind::Resume);
    QCOMPARE(markers[2].batch, std::int64_t{4});
    QCOMPARE(markers[2].configVersion, 1);
    RunState ended = RunState::Idle;
    run.setOnEnded([&ended](RunState state) { ended = state; });
    run.stop();
    QVERIFY(run.wait(10'000));
    QCOMPARE(run.state(), RunState::Stopped);
    QCOMPARE(ended, RunState::Stopped);
    QCOMPARE(run.trace()->size(), std::size_t{4});
}

void TestPyTorchLive::twentyChangesKeepEverySampleOncePerEpoch()
{
    REQUIRE_PYTORCH();
    RunConfig config = liveSyntheticRun(600);
    config.loader.numWorkers = 1;
    config.loader.batchSize = 16;
    config.loader.prefetchFactor = 1;
    config.loader.shuffle = true;
    config.loader.seed = 7;
    config.consumer.kind = ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 5.0;
    PyTorchRun run;
    run.start(config);
    QTRY_VERIFY_WITH_TIMEOUT(run.trace()->size() >= 2, 120'000);
    std::vector<RunConfig> expected{config}; // per config version
    for (int change = 1; change <= 20; ++change) {
        RunConfig next = expected.back();
        next.loader.numWorkers = change % 2 ? 3 : 1;
        next.loader.batchSize = change % 2 ? 48 : 16;
        next.loader.prefetchFactor = (change / 2) % 2 ? 4 : 1;
        next.loader.persistentWorkers = change % 5 == 0;
        if (change == 10)
            next.loader.shuffle = false; // from the next epoch
        next.consumer.sleepPerBatchMs = change % 3 ? 5.0 : 2.0;
        if (change == 12) {
            run.pause();
            QCOMPARE(run.state(), RunState::Paused);
            QTRY_VERIFY_WITH_TIMEOUT(run.trace()->markers().size() > 0
                                         && run.trace()->markers().back().kind == MarkerKind::Pause,
                                     30'000);
            const std::size_t paused = run.trace()->size();
            QTest::qWait(300);
            QCOMPARE(run.trace()->size(), paused); // no batch while paused
            QCOMPARE(run.trace()->markers().back().batch, static_cast<std::int64_t>(paused));
            // A change made while paused applies after the resume.
            run.reconfigure(next.loader, next.consumer, MarkerKind::Autotune, "while paused");
            run.resume();
        } else {
            run.reconfigure(next.loader, next.consumer);
        }
        expected.push_back(next);
        QTRY_VERIFY_WITH_TIMEOUT(
            run.trace()->configVersions().size() == static_cast<std::size_t>(change + 1), 60'000);
        QCOMPARE(run.config().loader.batchSize, next.loader.batchSize);
        const std::int64_t first = run.trace()->configVersions().back().firstBatch;
        QTRY_VERIFY_WITH_TIMEOUT(run.trace()->size() >= static_cast<std::size_t>(first + 2),
                                 60'000);
        QVERIFY2(run.state() == RunState::Running, run.error().c_str());
    }
    // Two whole epochs after the changes, then stop.
    QTRY_VERIFY_WITH_TIMEOUT(run.epochSamples().size() >= 4 || run.state() != RunState::Running,
                             120'000);
    // Stopped while paused: the engine waits on its commands, SIGTERM still ends it.
    const int pgid = run.processGroup();
    run.pause();
    QTRY_VERIFY_WITH_TIMEOUT(run.trace()->markers().back().kind == MarkerKind::Pause, 30'000);
    run.stop();
    QVERIFY(run.wait(20'000));
    QVERIFY2(run.state() == RunState::Stopped, run.error().c_str());
    QVERIFY(groupGone(pgid));

    // Every sample once per whole epoch (all but the last, which the stop cut).
    const auto epochs = run.epochSamples();
    QVERIFY(epochs.size() >= 4);
    const std::uint64_t all = epochIds(600);
    for (const auto &[epoch, samples] : epochs) {
        if (epoch == epochs.rbegin()->first)
            break;
        QCOMPARE(samples.samples, std::int64_t{600});
        QCOMPARE(samples.ids, all);
    }
    // A config version and a marker per change, at the batch it applies from.
    const auto versions = run.trace()->configVersions();
    QCOMPARE(versions.size(), std::size_t{21});
    std::vector<TraceMarker> changes, pauses;
    for (const TraceMarker &m : run.trace()->markers()) {
        if (m.kind == MarkerKind::Reconfigure || m.kind == MarkerKind::Autotune)
            changes.push_back(m);
        else if (m.kind == MarkerKind::Pause || m.kind == MarkerKind::Resume)
            pauses.push_back(m);
    }
    QCOMPARE(changes.size(), std::size_t{20});
    QCOMPARE(pauses.size(), std::size_t{3}); // pause, resume, and the pause before the stop
    QCOMPARE(pauses[0].batch, pauses[1].batch);
    QCOMPARE(pauses[2].kind, MarkerKind::Pause);
    for (int v = 1; v <= 20; ++v) {
        const TraceMarker &m = changes[static_cast<std::size_t>(v - 1)];
        QCOMPARE(m.configVersion, v);
        QCOMPARE(m.kind, v == 12 ? MarkerKind::Autotune : MarkerKind::Reconfigure);
        QCOMPARE(versions[static_cast<std::size_t>(v)].version, v);
        QCOMPARE(m.batch, versions[static_cast<std::size_t>(v)].firstBatch);
        QVERIFY(versions[static_cast<std::size_t>(v)].config.loader
                == expected[static_cast<std::size_t>(v)].loader);
        QVERIFY(m.changes
                == liveChanges(expected[static_cast<std::size_t>(v - 1)],
                               expected[static_cast<std::size_t>(v)]));
    }
    QVERIFY(pauses[1].batch <= changes[11].batch);
    // Each batch under its version's settings: full batches but at an epoch's end,
    // a worker the version has, versions in order from their first batch.
    const auto records = run.trace()->records();
    for (std::size_t i = 0; i < records.size(); ++i) {
        const TraceRecord &r = records[i];
        const ConfigVersion &v = versions[static_cast<std::size_t>(r.configVersion)];
        QVERIFY(r.index >= v.firstBatch);
        if (r.configVersion + 1 < static_cast<int>(versions.size()))
            QVERIFY(r.index < versions[static_cast<std::size_t>(r.configVersion + 1)].firstBatch);
        const bool epochEnd = i + 1 < records.size() && records[i + 1].epoch != r.epoch;
        if (epochEnd)
            QVERIFY(r.samples <= v.config.loader.batchSize);
        else if (i + 1 < records.size())
            QCOMPARE(r.samples, v.config.loader.batchSize);
        QVERIFY(r.worker < std::max(1, v.config.loader.numWorkers));
    }
}

void TestPyTorchLive::printingDatasetDoesNotDisturbTheRecords()
{
    REQUIRE_PYTORCH();
    // Every open() prints a line that looks like the end record, and noise, on stdout
    // (and stderr), in the engine and in its workers.
    QFile site(m_dir.filePath(QStringLiteral("sitecustomize.py")));
    QVERIFY(site.open(QIODevice::WriteOnly));
    site.write("import builtins, sys\n"
               "_open = builtins.open\n"
               "def noisy(*args, **kwargs):\n"
               "    print('{\"type\":\"end\",\"batches\":0}', flush=True)\n"
               "    print('opening', args[0] if args else '', flush=True)\n"
               "    sys.stderr.write('{\"type\":\"error\",\"message\":\"x\"}\\n')\n"
               "    return _open(*args, **kwargs)\n"
               "builtins.open = noisy\n");
    site.close();
    const QByteArray path = qgetenv("PYTHONPATH");
    qputenv("PYTHONPATH", m_dir.path().toUtf8());
    RunConfig config;
    config.dataset.kind = DatasetKind::ImageFolder;
    config.dataset.path = ensureDefaultImageFolder();
    config.loader.numWorkers = 2;
    config.loader.batchSize = 32;
    config.consumer.kind = ConsumerKind::None;
    config.epochs = 1;
    PyTorchRun run;
    run.start(config);
    const bool ended = run.wait(300'000);
    if (path.isNull())
        qunsetenv("PYTHONPATH");
    else
        qputenv("PYTHONPATH", path);
    QVERIFY(ended);
    QVERIFY2(run.state() == RunState::Finished, run.error().c_str());
    QCOMPARE(run.trace()->size(), std::size_t{32}); // 1,000 images: 31 x 32 + 8
    QCOMPARE(run.report().summary.samples, std::int64_t{1000});
    QCOMPARE(run.epochSamples().at(0).ids, epochIds(1000));
}

LOADERLAB_GUILESS_TEST_MAIN(TestPyTorchLive)
#include "test_pytorch_live.moc"
