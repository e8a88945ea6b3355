// Calibrating the loader model from a run of the PyTorch engine (PyTorch's real
// DataLoader: worker processes, no dispatch times, batches allocated anew), written
// as `loaderlab run --engine pytorch --csv --json` writes it: the files calibrate, the
// figures the calibration recomputes from the trace are the run's own, PyTorch's
// batches get no first fill, the run's setting is predicted back batch for batch, and
// for this input-bound run a second worker on cores to spare is predicted to help.
// How close the prediction comes to a measurement is a benchmark's question
// (ENGINE=pytorch tests/bench/predict_vs_measured.sh). Skipped, with the reason, where
// Python cannot import torch and torchvision (tests/support/require_pytorch.h).

#include "core/predict/calibration.h"
#include "core/tools/imagenette_generator.h"

#include "tests/support/recorded_run.h"
#include "tests/support/require_pytorch.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <cmath>
#include <cstdio>

using namespace loaderlab;

class TestCalibrationPyTorch : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void aPyTorchRunCalibratesTheModel();

private:
    RunConfig folderRun() const;

    QTemporaryDir m_dir;
    std::string m_images;
};

void TestCalibrationPyTorch::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_images = m_dir.filePath(QStringLiteral("images")).toStdString();
    ImageFolderSpec spec;
    spec.classes = 4;
    spec.imagesPerClass = 40;
    spec.minShortSide = 320;
    spec.maxShortSide = 480;
    generateImageFolder(m_images, spec);
}

RunConfig TestCalibrationPyTorch::folderRun() const
{
    // One worker's batch of 8 JPEGs (decode, resize, crop, normalise in Python) takes
    // several times the 5 ms step, and more on a busy machine: input-bound, so a
    // second worker on a core of its own helps.
    RunConfig c;
    c.engine = EngineKind::PyTorch;
    c.dataset.kind = DatasetKind::ImageFolder;
    c.dataset.path = m_images;
    c.loader.numWorkers = 1;
    c.loader.batchSize = 8;
    c.loader.persistentWorkers = true;
    c.consumer.kind = ConsumerKind::Sleep;
    c.consumer.sleepPerBatchMs = 5.0;
    c.epochs = 2; // 2 x 20 batches
    return c;
}

void TestCalibrationPyTorch::aPyTorchRunCalibratesTheModel()
{
    REQUIRE_PYTORCH();
    const std::string csv = m_dir.filePath(QStringLiteral("one.csv")).toStdString();
    const std::string json = m_dir.filePath(QStringLiteral("one.json")).toStdString();
    const RunReport report = writeRun(folderRun(), csv, json);
    QVERIFY2(report.state == "finished", (report.state + " " + report.error).c_str());

    const Calibration cal = calibrateFromFiles(json);
    for (const std::string &note : cal.notes)
        std::printf("    note: %s\n", note.c_str());
    QCOMPARE(cal.config.engine, EngineKind::PyTorch);
    QCOMPARE(cal.config.loader.numWorkers, 1);
    QCOMPARE(cal.config.loader.batchSize, 8);
    // The figures recomputed from the trace are those the run summarised.
    QCOMPARE(cal.measuredSamples, std::int64_t{320});
    QCOMPARE(cal.measured.batches, report.summary.batches);
    QCOMPARE(cal.measured.samplesPerSecMean, report.summary.samplesPerSecMean);
    QCOMPARE(cal.costs.firstFill.perSample, 0.0); // PyTorch allocates every batch anew
    QVERIFY(!cal.costs.sampleSeconds.empty());
    for (const double seconds : cal.costs.sampleSeconds)
        QVERIFY2(seconds > 0.0, qPrintable(QString::number(seconds)));

    // The run's own setting: its 2 epochs of 20 batches, at a rate.
    const Prediction back = predictLoader(cal.costs, cal.setting);
    QCOMPARE(static_cast<std::int64_t>(back.batches.size()), std::int64_t{40});
    QVERIFY2(std::isfinite(back.samplesPerSecond) && back.samplesPerSecond > 0.0,
             qPrintable(QString::number(back.samplesPerSecond)));
    std::printf("  PyTorch, 1 worker: measured %.1f samples/s, predicted back %.1f\n",
                report.summary.samplesPerSecMean, back.samplesPerSecond);

    // On 4 cores, a core for each worker whatever this machine had: the run is
    // input-bound, so a second worker loads in parallel with the first.
    const auto onFourCores = [&](int workers) {
        RunConfig c = cal.config;
        c.loader.numWorkers = workers;
        return predictLoader(costsFor(cal, c), settingFor(cal, c, 4)).samplesPerSecond;
    };
    const double one = onFourCores(1);
    const double two = onFourCores(2);
    std::printf("  on 4 cores: 1 worker %.1f samples/s, 2 workers %.1f\n", one, two);
    QVERIFY2(one > 0.0 && two > 1.2 * one,
             qPrintable(QStringLiteral("predicted 1 worker %1, 2 workers %2").arg(one).arg(two)));
}

LOADERLAB_GUILESS_TEST_MAIN(TestCalibrationPyTorch)
#include "test_calibration_pytorch.moc"
