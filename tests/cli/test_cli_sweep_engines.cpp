// A sweep with the engine as an axis, run by the real binary on a real photo folder:
// each cell's batches are built where its settings say (0 workers: the main process;
// 2 workers: batch i of each epoch by worker i mod 2, on either engine), each engine
// gets its own recommendation and the table puts the engines side by side (skipped,
// with the reason, where Python cannot import torch and torchvision). How fast the
// PyTorch engine is against a plain DataLoader loop is a benchmark's question
// (tests/bench/pytorch_engine_overhead.sh). What an engine cannot
// do is refused with the reason (exit 2), never run on the other engine.

#include "tests/support/require_pytorch.h"

#include "cli_process.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>

class TestCliSweepEngines : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void whatAnEngineLacksIsRefusedWithTheReason();
    void eachCellLoadsOnTheWorkersItWasGiven();
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
          QStringLiteral("--devices"), QStringLiteral("2"),
          QStringLiteral("--independent-devices")},
         "independent devices are LoaderLab's engine only"},
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

void TestCliSweepEngines::eachCellLoadsOnTheWorkersItWasGiven()
{
    REQUIRE_PYTORCH();
    QTemporaryDir dir;
    const QString photos = dir.filePath(QStringLiteral("photos"));
    // 48 photos with short sides of 300..500 px: 3 batches of 16 an epoch, and a
    // budget of two epochs.
    const clitest::Result made = clitest::runLoaderlab(
        {QStringLiteral("make-dataset"), photos, QStringLiteral("--classes"), QStringLiteral("2"),
         QStringLiteral("--images-per-class"), QStringLiteral("24"), QStringLiteral("--min-side"),
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
         QStringLiteral("10"),
         QStringLiteral("--budget-samples"),
         QStringLiteral("96"),
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

    // Each cell's per-batch trace: who built batch i of each epoch.
    std::ifstream cells((out + QStringLiteral("/cells.jsonl")).toStdString());
    int checked = 0;
    for (std::string line; std::getline(cells, line);) {
        const auto record = nlohmann::json::parse(line);
        QCOMPARE(record.at("state").get<std::string>(), std::string("finished"));
        const std::string engine = record.at("values")[0].get<std::string>();
        const int workers = record.at("values")[1].get<int>();
        QCOMPARE(record.at("summary").at("samples").get<int>(), 96);
        const QString trace = QStringLiteral("%1/traces/cell-%2.csv")
                                  .arg(out)
                                  .arg(record.at("order").get<int>(), 6, 10, QLatin1Char('0'));
        QFile file(trace);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(trace));
        const QList<QByteArray> header = file.readLine().trimmed().split(',');
        QCOMPARE(header.mid(0, 3), (QList<QByteArray>{"index", "epoch", "worker"}));
        int batches = 0;
        int lastEpoch = -1;
        int inEpoch = 0;
        while (!file.atEnd()) {
            const QList<QByteArray> row = file.readLine().trimmed().split(',');
            const int epoch = row[1].toInt();
            inEpoch = epoch == lastEpoch ? inEpoch + 1 : 0;
            lastEpoch = epoch;
            const int expected = workers == 0 ? -1 : inEpoch % workers;
            QVERIFY2(row[2].toInt() == expected,
                     qPrintable(QStringLiteral("%1, %2 workers: batch %3 of epoch %4 built by %5")
                                    .arg(QString::fromStdString(engine))
                                    .arg(workers)
                                    .arg(inEpoch)
                                    .arg(epoch)
                                    .arg(QString::fromLatin1(row[2]))));
            ++batches;
        }
        QCOMPARE(batches, 6);
        QCOMPARE(lastEpoch, 1);
        ++checked;
    }
    QCOMPARE(checked, 4);
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliSweepEngines)
#include "test_cli_sweep_engines.moc"
