// A sweep with the engine as an axis, run by the real binary on a real photo folder:
// its PyTorch cells rank as PyTorch's DataLoader does when a plain Python loop,
// without LoaderLab, times the same settings; each engine gets its own
// recommendation and the table puts the engines side by side (skipped, with the
// reason, where Python cannot import torch and torchvision). What an engine cannot
// do is refused with the reason (exit 2), never run on the other engine.

#include "tests/support/require_pytorch.h"

#include "cli_process.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>

namespace {

// PyTorch's DataLoader over torchvision's ImageFolder with LoaderLab's eval transform,
// a simulated step per batch, nothing of LoaderLab's: prints the seconds from the
// loader's first request to the last step's end, for `samples` samples.
constexpr const char *kPlainLoop = R"(
import json, sys, time
import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms
path, workers, batch, samples, step_ms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
torch.set_num_threads(1)
transform = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(),
                                transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
options = {"worker_init_fn": lambda _: torch.set_num_threads(1), "persistent_workers": True} if workers > 0 else {}
loader = DataLoader(datasets.ImageFolder(path, transform), batch_size=batch, num_workers=workers, **options)
start = time.monotonic()
seen = 0
while seen < samples:  # epochs until the budget, as a sweep's cell
    for images, _labels in loader:
        time.sleep(step_ms / 1000.0)
        seen += images.shape[0]
        if seen >= samples:
            break
print(json.dumps({"seconds": time.monotonic() - start, "samples": seen}))
)";

} // namespace

class TestCliSweepEngines : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void whatAnEngineLacksIsRefusedWithTheReason();
    void pytorchCellsRankAsAPlainDataLoaderLoop();
};

void TestCliSweepEngines::whatAnEngineLacksIsRefusedWithTheReason()
{
    const struct
    {
        QStringList arguments;
        const char *reason;
    } cases[] = {
        {{QStringLiteral("max-batch"), QStringLiteral("--engine"), QStringLiteral("pytorch")},
         "max-batch measures a LibTorch model's step"},
        {{QStringLiteral("run"), QStringLiteral("--engine"), QStringLiteral("pytorch"),
          QStringLiteral("--devices"), QStringLiteral("2")},
         "the PyTorch engine runs one device"},
        {{QStringLiteral("run"), QStringLiteral("--set"), QStringLiteral("engine=pytorch"),
          QStringLiteral("--strategy"), QStringLiteral("sample-parallel")},
         "builds each batch in one worker"},
        {{QStringLiteral("run"), QStringLiteral("--engine"), QStringLiteral("pytorch"),
          QStringLiteral("--dataset"), QStringLiteral("idx"), QStringLiteral("--path"),
          QStringLiteral("/nonexistent")},
         "not idx datasets"},
        {{QStringLiteral("run"), QStringLiteral("--engine"), QStringLiteral("tensorflow")},
         "--engine: engine: unknown value \"tensorflow\" (loaderlab, pytorch)"},
    };
    for (const auto &c : cases) {
        const clitest::Result r = clitest::runLoaderlab(c.arguments);
        QVERIFY2(r.exitCode == 2, qPrintable(c.arguments.join(QLatin1Char(' ')) + r.err));
        // A build without LibTorch refuses max-batch before it looks at the engine.
        const bool noLibTorch = c.arguments.first() == QLatin1String("max-batch")
                                && r.err.contains(QLatin1String("this build has no LibTorch"));
        QVERIFY2(noLibTorch || r.err.contains(QLatin1String(c.reason)), qPrintable(r.err));
    }
}

void TestCliSweepEngines::pytorchCellsRankAsAPlainDataLoaderLoop()
{
    REQUIRE_PYTORCH();
    const std::string python = loaderlab::pytorchEnginePython();
    QTemporaryDir dir;
    const QString photos = dir.filePath(QStringLiteral("photos"));
    // A known per-sample cost: photos with short sides of 300..500 px, decoded and
    // resized by either engine in milliseconds each; with a 100 ms step, 2 workers
    // hide the loading behind the step and 0 workers cannot (a ranking that holds on
    // a busy machine: the step sleeps, it needs no core). Persistent workers: the
    // workers' start is paid once, not in each of the two epochs.
    const clitest::Result made = clitest::runLoaderlab(
        {QStringLiteral("make-dataset"), photos, QStringLiteral("--classes"), QStringLiteral("2"),
         QStringLiteral("--images-per-class"), QStringLiteral("96"), QStringLiteral("--min-side"),
         QStringLiteral("300"), QStringLiteral("--max-side"), QStringLiteral("500")});
    QVERIFY2(made.exitCode == 0, qPrintable(made.err));

    const QString out = dir.filePath(QStringLiteral("sweep"));
    const clitest::Result sweep = clitest::runLoaderlab(
        {QStringLiteral("sweep"),
         QStringLiteral("--out"),
         out,
         QStringLiteral("--dataset"),
         QStringLiteral("folder"),
         QStringLiteral("--path"),
         photos,
         QStringLiteral("--batch-size"),
         QStringLiteral("16"),
         QStringLiteral("--sleep-batch-ms"),
         QStringLiteral("100"),
         QStringLiteral("--budget-samples"),
         QStringLiteral("384"),
         QStringLiteral("--set"),
         QStringLiteral("loader.persistent_workers=true"),
         QStringLiteral("--axis"),
         QStringLiteral("engine=loaderlab,pytorch"),
         QStringLiteral("--axis"),
         QStringLiteral("loader.num_workers=0,2"),
         QStringLiteral("--quiet")},
        600'000);
    QVERIFY2(sweep.exitCode == 0, qPrintable(sweep.err + sweep.out));
    QVERIFY2(sweep.out.contains(QStringLiteral("recommended: engine loaderlab: ")),
             qPrintable(sweep.out));
    QVERIFY2(sweep.out.contains(QStringLiteral("recommended: engine pytorch: ")),
             qPrintable(sweep.out));
    QVERIFY2(sweep.out.contains(QStringLiteral("engines side by side")), qPrintable(sweep.out));

    // Wall seconds per (engine, workers) from the results folder.
    std::map<std::pair<std::string, int>, double> seconds;
    std::ifstream cells((out + QStringLiteral("/cells.jsonl")).toStdString());
    for (std::string line; std::getline(cells, line);) {
        const auto record = nlohmann::json::parse(line);
        QCOMPARE(record.at("state").get<std::string>(), std::string("finished"));
        const auto &values = record.at("values");
        seconds[{values[0].get<std::string>(), values[1].get<int>()}] =
            record.at("summary").at("wall_seconds").get<double>();
    }
    QCOMPARE(seconds.size(), std::size_t{4});

    // The same settings timed by a plain loop, without LoaderLab.
    std::map<int, double> plain;
    for (const int workers : {0, 2}) {
        QProcess process;
        process.start(QString::fromStdString(python),
                      {QStringLiteral("-c"), QString::fromUtf8(kPlainLoop), photos,
                       QString::number(workers), QStringLiteral("16"), QStringLiteral("384"),
                       QStringLiteral("100")});
        QVERIFY(process.waitForFinished(300'000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        const auto result = nlohmann::json::parse(process.readAllStandardOutput().toStdString());
        QCOMPARE(result.at("samples").get<int>(), 384);
        plain[workers] = result.at("seconds").get<double>();
    }

    // Same order, and a like ratio: an engine that ignored the worker count, or
    // loaded the samples some other way, would give neither.
    const double sweepRatio = seconds[{"pytorch", 0}] / seconds[{"pytorch", 2}];
    const double plainRatio = plain[0] / plain[2];
    const QString figures = QStringLiteral("sweep: 0 workers %1 s, 2 workers %2 s (x%3); plain "
                                           "loop: %4 s, %5 s (x%6)")
                                .arg(seconds[{"pytorch", 0}])
                                .arg(seconds[{"pytorch", 2}])
                                .arg(sweepRatio)
                                .arg(plain[0])
                                .arg(plain[2])
                                .arg(plainRatio);
    QVERIFY2((sweepRatio > 1.0) == (plainRatio > 1.0), qPrintable(figures));
    QVERIFY2(sweepRatio / plainRatio > 0.7 && sweepRatio / plainRatio < 1.0 / 0.7,
             qPrintable(figures));
    qInfo("%s", qPrintable(figures));
}

QTEST_GUILESS_MAIN(TestCliSweepEngines)
#include "test_cli_sweep_engines.moc"
