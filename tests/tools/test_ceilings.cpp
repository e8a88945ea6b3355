// The ceilings of a run's pipeline (core/limits/ceilings.h) measured on a small folder
// of real JPEGs with a broken one and odd names: every stage measured or said why not,
// the binding ceiling the lowest, the step really replayed, the preprocessed sample
// kept only under a new name; PyTorch's DataLoader's decode and hand-over, and a
// pipeline file's; a thread's rate from its median slice; the binding sentence and the
// loader model's predicted lifts on hand-made reports.

#include "core/dataset/tensor_file_dataset.h"
#include "core/engine/pytorch/pytorch_run.h"
#include "core/limits/ceiling_lifts.h"
#include "core/limits/ceiling_probes.h"
#include "core/limits/ceilings.h"
#include "core/limits/roofline.h"
#include "tests/support/image_folder.h"
#include "tests/support/test_main.h"

#include <QFile>
#include <QtTest>

#include <cmath>
#include <stdexcept>

using namespace loaderlab;

namespace {

// A simulated step of 10 ms a batch of 8 on the folder, each stage measured 0.2 s.
RunConfig ceilingConfig(const QString &folder)
{
    RunConfig config;
    config.dataset.kind = DatasetKind::ImageFolder;
    config.dataset.path = folder.toStdString();
    config.loader.batchSize = 8;
    config.loader.numWorkers = 1;
    config.consumer.kind = ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 10.0;
    config.consumer.sleepPerSampleMs = 0.0;
    return config;
}

CeilingOptions shortProbes()
{
    CeilingOptions options;
    options.secondsEach = 0.2;
    return options;
}

Ceiling made(CeilingKind kind, double rate)
{
    Ceiling c;
    c.kind = kind;
    c.samplesPerSecond = rate;
    return c;
}

} // namespace

class TestCeilings : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void measuresEveryStageOfAFolder();
    void keepsTheTensorFileOnlyUnderANewName();
    void saysWhyAStageWasNotMeasured();
    void refusesWhatItCannotMeasure();
    void measuresPyTorchsDataLoader();
    void measuresAPipelineFile();
    void aThreadsRateIsItsMedianSlice();
    void theLoaderModelPredictsEachLift();
    void aDecodeBoundJobGainsFromACoreNotAWorker();
    void bindingSentenceNamesTheLowestAndTheRunsShare();
    void aStepSlowerThanTheLoaderBindsTheJob();
    void theRooflineRisesWithTheCoresAndPlacesTheRuns();

private:
    QTemporaryDir m_dir;
    QString m_folder;
};

void TestCeilings::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_folder = writeImageFolder(m_dir.filePath(QStringLiteral("my photos")), 2, 9, 150, 320);
    QFile broken(m_folder + QStringLiteral("/n01440764/kaputt #1.jpg"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("not a jpeg");
}

void TestCeilings::measuresEveryStageOfAFolder()
{
    int progressCalls = 0;
    CeilingOptions options = shortProbes();
    options.progress = [&](CeilingKind, int done, int total) {
        QCOMPARE(done, progressCalls++);
        QCOMPARE(total, 5);
    };
    const CeilingReport report = measureCeilings(ceilingConfig(m_folder), options);
    QCOMPARE(progressCalls, 5);
    QCOMPARE(report.ceilings.size(), std::size_t{5});
    const CeilingKind order[] = {CeilingKind::Storage, CeilingKind::Decode, CeilingKind::Handover,
                                 CeilingKind::Step, CeilingKind::Preprocessed};
    for (std::size_t i = 0; i < 5; ++i) {
        QCOMPARE(report.ceilings[i].kind, order[i]);
        QVERIFY2(report.ceilings[i].measured(), report.ceilings[i].basis.c_str());
    }
    QVERIFY(report.cores >= 1);
    QVERIFY(report.freeCores > 0.0 && report.freeCores <= report.cores);
    QVERIFY(report.find(CeilingKind::Storage)->bytesPerSecond > 0.0);
    // The step sleeps 10 ms a batch of 8: replayed, it cannot give more than 800 a second.
    const Ceiling *step = report.find(CeilingKind::Step);
    QVERIFY(step->samplesPerSecond <= 800.0);
    QVERIFY(QString::fromStdString(step->basis).contains(QStringLiteral("replay")));
    // 18 images and the broken one: the preprocessed sample holds the 18 that decode.
    QVERIFY2(QString::fromStdString(report.find(CeilingKind::Preprocessed)->basis)
                 .contains(QStringLiteral("the first 18 images")),
             report.find(CeilingKind::Preprocessed)->basis.c_str());
    // The loader's ceiling is the lowest of its stages; the job's the lower of it and
    // the step.
    const Ceiling *loader = report.loaderBinding();
    QVERIFY(loader);
    for (CeilingKind kind : {CeilingKind::Storage, CeilingKind::Decode, CeilingKind::Handover})
        QVERIFY(loader->samplesPerSecond <= report.find(kind)->samplesPerSecond);
    QCOMPARE(report.jobBinding(),
             step->samplesPerSecond < loader->samplesPerSecond ? step : loader);
}

void TestCeilings::keepsTheTensorFileOnlyUnderANewName()
{
    const QString taken = m_dir.filePath(QStringLiteral("precious.bin"));
    {
        QFile file(taken);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("the user's own file");
    }
    CeilingOptions options = shortProbes();
    options.keepTensorFile = taken.toStdString();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             measureCeilings(ceilingConfig(m_folder), options));
    QFile file(taken);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray("the user's own file"));

    const QString kept = m_dir.filePath(QStringLiteral("kept sample.bin"));
    options.keepTensorFile = kept.toStdString();
    const CeilingReport report = measureCeilings(ceilingConfig(m_folder), options);
    QVERIFY(report.find(CeilingKind::Preprocessed)->measured());
    const TensorFileDataset tensors(kept.toStdString());
    QCOMPARE(tensors.size(), std::int64_t{18});
    QCOMPARE(tensors.sampleShape().elements(), std::int64_t{3 * 224 * 224});
    // Nothing else of the probe's is left beside it.
    QCOMPARE(QDir(m_dir.path())
                 .entryList({QStringLiteral("loaderlab-ceiling-*")}, QDir::AllEntries)
                 .size(),
             0);
}

void TestCeilings::saysWhyAStageWasNotMeasured()
{
    RunConfig config;
    config.dataset.kind = DatasetKind::Synthetic;
    config.dataset.syntheticSamples = 64;
    config.dataset.syntheticShape = {3, 32, 32};
    config.consumer.kind = ConsumerKind::None;
    const CeilingReport report = measureCeilings(config, shortProbes());
    QVERIFY(!report.find(CeilingKind::Storage)->measured());
    QVERIFY(report.find(CeilingKind::Storage)->basis.find("generated") != std::string::npos);
    QVERIFY(!report.find(CeilingKind::Step)->measured());
    QVERIFY(report.find(CeilingKind::Step)->basis.find("no step") != std::string::npos);
    QVERIFY(!report.find(CeilingKind::Preprocessed)->measured());
    QVERIFY(report.find(CeilingKind::Decode)->measured());
    QCOMPARE(report.jobBinding(), report.loaderBinding());
}

void TestCeilings::refusesWhatItCannotMeasure()
{
    // What the config's engine refuses: PyTorch's runs no LibTorch model.
    RunConfig pytorch = ceilingConfig(m_folder);
    pytorch.engine = EngineKind::PyTorch;
    pytorch.consumer.kind = ConsumerKind::Model;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, measureCeilings(pytorch, shortProbes()));
    RunConfig keepSynthetic;
    CeilingOptions options = shortProbes();
    options.keepTensorFile = m_dir.filePath(QStringLiteral("never.bin")).toStdString();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, measureCeilings(keepSynthetic, options));
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("never.bin"))));
}

void TestCeilings::measuresPyTorchsDataLoader()
{
    if (const std::string problem = pytorchEngineProblem(); !problem.empty())
        QSKIP(problem.c_str());
    RunConfig config = ceilingConfig(m_folder);
    config.engine = EngineKind::PyTorch;
    config.loader.numWorkers = 2;
    const CeilingReport report = measureCeilings(config, shortProbes());
    const Ceiling *decode = report.find(CeilingKind::Decode);
    const Ceiling *handover = report.find(CeilingKind::Handover);
    QVERIFY(decode && handover);
    QVERIFY2(decode->measured(), decode->basis.c_str());
    QVERIFY2(decode->basis.find("PyTorch's DataLoader, 1 worker process") != std::string::npos,
             decode->basis.c_str());
    QVERIFY2(decode->basis.find("LoaderLab's decode of the same") != std::string::npos,
             decode->basis.c_str());
    QVERIFY2(handover->measured(), handover->basis.c_str());
    QVERIFY2(handover->basis.find("a batch of 8 over") != std::string::npos,
             handover->basis.c_str());
    QVERIFY2(handover->basis.find("PyTorch's DataLoader") != std::string::npos,
             handover->basis.c_str());
    QVERIFY(report.find(CeilingKind::Step)->measured());
}

void TestCeilings::measuresAPipelineFile()
{
    if (const std::string problem = pytorchEngineProblem(); !problem.empty())
        QSKIP(problem.c_str());
    // A dataset whose samples take 2 ms each and a step of 20 ms a batch of 8.
    const QString path = m_dir.filePath(QStringLiteral("my pipeline.py"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"(
import time
import torch
class Slow(torch.utils.data.Dataset):
    def __len__(self):
        return 64
    def __getitem__(self, i):
        time.sleep(0.002)
        return torch.tensor([float(i)])
def make_dataset(args):
    return Slow()
def make_step(args):
    return lambda batch: time.sleep(0.02)
)");
    file.close();
    RunConfig config;
    config.engine = EngineKind::PyTorch;
    config.dataset.kind = DatasetKind::Python;
    config.dataset.path = path.toStdString();
    config.loader.batchSize = 8;
    config.loader.numWorkers = 1;
    CeilingOptions options;
    options.secondsEach = 0.5;
    const CeilingReport report = measureCeilings(config, options);
    QCOMPARE(report.dataset, "pipeline file " + config.dataset.path);
    QCOMPARE(report.ceilings.size(), std::size_t{5});
    QVERIFY(!report.find(CeilingKind::Storage)->measured());
    QVERIFY(!report.find(CeilingKind::Preprocessed)->measured());
    const Ceiling *decode = report.find(CeilingKind::Decode);
    QVERIFY2(decode->basis.starts_with("the pipeline file's DataLoader, 1 worker process"),
             decode->basis.c_str());
    const Ceiling *step = report.find(CeilingKind::Step);
    QVERIFY2(step->measured(), step->basis.c_str());
    // A step that sleeps 20 ms a batch of 8 cannot give more than 400 samples/s.
    QVERIFY2(step->samplesPerSecond <= 400.0, step->basis.c_str());
    QVERIFY2(step->basis.starts_with("replay on the PyTorch engine"), step->basis.c_str());
    QVERIFY(report.find(CeilingKind::Handover)->measured());
}

void TestCeilings::aThreadsRateIsItsMedianSlice()
{
    // One slice where the host took the CPU away does not pull the rate down.
    ThreadLoads odd{500, 5.0, {100.0, 20.0, 110.0, 120.0, 90.0}};
    QCOMPARE(odd.perCpuSecond(), 100.0);
    ThreadLoads even{10, 1.0, {4.0, 1.0, 3.0, 2.0}};
    QCOMPARE(even.perCpuSecond(), 2.5);
    // Under 3 slices: the whole time's rate.
    ThreadLoads few{30, 2.0, {10.0, 20.0}};
    QCOMPARE(few.perCpuSecond(), 15.0);
    QCOMPARE(ThreadLoads{}.perCpuSecond(), 0.0);
}

void TestCeilings::theLoaderModelPredictsEachLift()
{
    // A step of 80 ms a batch of 8 (100 samples/s) far below a decode of 10,000.
    CeilingReport report;
    report.cores = 2;
    report.freeCores = 2.0;
    report.ceilings = {made(CeilingKind::Storage, 1e6), made(CeilingKind::Decode, 1e4),
                       made(CeilingKind::Handover, 1e6), made(CeilingKind::Step, 100.0),
                       made(CeilingKind::Preprocessed, 5e4)};
    RunConfig config = ceilingConfig(m_folder);
    const std::vector<PredictedLift> lifts = predictLifts(report, config);
    QCOMPARE(lifts.size(), std::size_t{5});
    QCOMPARE(liftName(lifts[0]), std::string("as set (1 worker)"));
    QCOMPARE(liftName(lifts[1]), std::string("2 workers"));
    QCOMPARE(liftName(lifts[2]), std::string("a core more, 2 workers"));
    QCOMPARE(liftName(lifts[3]), std::string("preprocessed tensors"));
    QCOMPARE(liftName(lifts[4]), std::string("a step twice as fast"));
    // The step binds: more loading changes nothing, a step twice as fast doubles it.
    for (int i = 0; i < 4; ++i)
        QVERIFY2(std::abs(lifts[static_cast<std::size_t>(i)].samplesPerSecond - 100.0) < 2.0,
                 liftName(lifts[static_cast<std::size_t>(i)]).c_str());
    QVERIFY(std::abs(lifts[4].samplesPerSecond - 200.0) < 4.0);
    QVERIFY(!lifts[0].storageBound);

    // Storage below them all: every prediction is cut to it, and says so.
    report.ceilings[0] = made(CeilingKind::Storage, 50.0);
    for (const PredictedLift &lift : predictLifts(report, config)) {
        QCOMPARE(lift.samplesPerSecond, 50.0);
        QVERIFY(lift.storageBound);
    }
    // Nothing to predict from without a step.
    report.ceilings.erase(report.ceilings.begin() + 3);
    QVERIFY(predictLifts(report, config).empty());
}

void TestCeilings::aDecodeBoundJobGainsFromACoreNotAWorker()
{
    // One free core of two decoding 100 samples/s, a step of 1 ms a batch of 8.
    CeilingReport report;
    report.cores = 2;
    report.freeCores = 1.0;
    report.ceilings = {made(CeilingKind::Decode, 100.0), made(CeilingKind::Handover, 1e6),
                       made(CeilingKind::Step, 8000.0)};
    const std::vector<PredictedLift> lifts = predictLifts(report, ceilingConfig(m_folder));
    QCOMPARE(lifts.size(), std::size_t{4});
    QVERIFY2(std::abs(lifts[0].samplesPerSecond - 100.0) < 5.0, "as set: the one free core");
    QVERIFY2(std::abs(lifts[1].samplesPerSecond - 100.0) < 5.0, "a worker more shares it");
    QVERIFY2(std::abs(lifts[2].samplesPerSecond - 200.0) < 10.0, "a core more doubles it");
    QVERIFY2(std::abs(lifts[3].samplesPerSecond - 100.0) < 5.0, "the step is not the limit");
}

void TestCeilings::bindingSentenceNamesTheLowestAndTheRunsShare()
{
    CeilingReport report;
    report.freeCores = 2.0;
    report.ceilings = {made(CeilingKind::Storage, 2000), made(CeilingKind::Decode, 800),
                       made(CeilingKind::Handover, 100000), made(CeilingKind::Step, 2400),
                       made(CeilingKind::Preprocessed, 5000)};
    QCOMPARE(report.loaderBinding()->kind, CeilingKind::Decode);
    QCOMPARE(bindingSentence(report, 690.0),
             std::string("the decode on 2.0 free cores binds the loader at 800 samples/s; you "
                         "run at 690, 86 % of it; the step alone could take 2,400; lifted, "
                         "reading the data binds next, at 2,000; preprocessed tensors would "
                         "read at 5,000"));
}

void TestCeilings::aStepSlowerThanTheLoaderBindsTheJob()
{
    CeilingReport report;
    report.freeCores = 1.5;
    report.ceilings = {made(CeilingKind::Storage, 12500), made(CeilingKind::Decode, 3000),
                       made(CeilingKind::Handover, 90000), made(CeilingKind::Step, 500)};
    QCOMPARE(report.jobBinding()->kind, CeilingKind::Step);
    QCOMPARE(bindingSentence(report, 450.0),
             std::string("the decode on 1.5 free cores binds the loader at 3,000 samples/s; you "
                         "run at 450, 90 % of the step's 500; the step binds first, at 500: the "
                         "job is not input-bound; lifted, reading the data binds next, at "
                         "12,500"));
}

void TestCeilings::theRooflineRisesWithTheCoresAndPlacesTheRuns()
{
    CeilingReport report;
    report.cores = 4;
    report.freeCores = 2.0;
    report.ceilings = {made(CeilingKind::Storage, 2000), made(CeilingKind::Decode, 800),
                       made(CeilingKind::Handover, 100000), made(CeilingKind::Step, 2400),
                       made(CeilingKind::Preprocessed, 5000)};
    const SvgPlotSpec plot = rooflinePlot(report,
                                          {{"a", 2, 690.0}, {"b", 0, 350.0}, {"c", 6, 900.0}});
    QCOMPARE(plot.series.size(), std::size_t{6});
    // Up to one core past the widest run (6 workers): x 7.
    const auto line = [&](std::size_t i) { return plot.series[i].points; };
    using Points = std::vector<std::pair<double, double>>;
    QCOMPARE(line(0), (Points{{0.0, 2000.0}, {7.0, 2000.0}}));     // storage: flat
    QCOMPARE(line(1), (Points{{0.0, 0.0}, {7.0, 400.0 * 7.0}}));   // decode: 400 a core
    QCOMPARE(line(2), (Points{{0.0, 100000.0}, {7.0, 100000.0}})); // hand-over: flat, ...
    QCOMPARE(line(4), (Points{{0.0, 5000.0}, {7.0, 5000.0}}));     // preprocessed: as measured
    QCOMPARE(plot.series[1].name, std::string("decode 400/core"));
    QCOMPARE(plot.series[2].name, std::string("hand-over 100000 (above)"));
    QCOMPARE(plot.series[3].name, std::string("step 2400"));
    // ... and off the top, which is just above the highest of the rest: 5,000.
    QCOMPARE(plot.yMax, 5000.0 * 1.15);
    // 0 workers: the thread that steps loads, at one core.
    QCOMPARE(line(5), (Points{{1.0, 350.0}, {2.0, 690.0}, {6.0, 900.0}}));
    QCOMPARE(plot.title, std::string("the loader's roofline on 4 cores, 2.0 free to it"));
    QCOMPARE(plot.markers.size(), std::size_t{2});
    QCOMPARE(plot.markers[0].x, 2.0);
    const std::string svg = svgPlot(plot);
    QVERIFY(svg.find("decode 400/core") != std::string::npos);
}

LOADERLAB_GUILESS_TEST_MAIN(TestCeilings)
#include "test_ceilings.moc"
