// loaderlab_probe under a real distributed job: a one-node Slurm cluster on
// localhost (slurm_cluster.h) runs `srun -n 2` of a torch.distributed training loop
// (gloo on loopback, a DistributedSampler, an all_reduce in every step) with
// watch() added in one line. Slurm sets no RANK: each rank's run is named from
// SLURM_PROCID and SLURM_NTASKS, and the two runs open as one data-parallel run.
// Skipped, with the reason, where the cluster cannot start or torch is missing.

#include "core/engine/pytorch/python_probe.h"
#include "core/engine/pytorch/pytorch_run.h"
#include "core/io/rank_set.h"
#include "core/io/run_reader.h"

#include "slurm_cluster.h"
#include "tests/support/require_pytorch.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>

using namespace loaderlab;

namespace {

// 96 items, 2 ranks, batch 8: each rank 6 batches an epoch, 2 epochs. Every rank
// prints the all-reduced sum of every item it saw: 2 x (0 + ... + 95) = 9120 when the
// ranks' shards cover the dataset once an epoch.
constexpr const char *kTrain = R"(
import os, sys, time, torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler
import loaderlab_probe

rank, world = int(os.environ["SLURM_PROCID"]), int(os.environ["SLURM_NTASKS"])
assert "RANK" not in os.environ, "srun sets no RANK"
out, port = sys.argv[1], sys.argv[2]
os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", port
dist.init_process_group("gloo", rank=rank, world_size=world)

class Items(Dataset):
    def __len__(self): return 96
    def __getitem__(self, i):
        time.sleep(0.002)
        return torch.full((4,), float(i))

sampler = DistributedSampler(Items(), shuffle=False)
loader = DataLoader(Items(), batch_size=8, sampler=sampler, num_workers=1)
loader = loaderlab_probe.watch(loader, out=out)
total = torch.zeros(1)
for epoch in range(2):
    sampler.set_epoch(epoch)
    for batch in loader:
        seen = batch[:, 0].sum().reshape(1)
        dist.all_reduce(seen)  # the step's exchange between the ranks
        total += seen
loader.close()
print("rank %d of %d: total %d" % (rank, world, int(total.item())), flush=True)
dist.destroy_process_group()
)";

} // namespace

class TestProbeSlurm : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void srunRanksOpenAsOneDataParallelRun();
};

void TestProbeSlurm::srunRanksOpenAsOneDataParallelRun()
{
    REQUIRE_PYTORCH();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString why;
    const auto cluster = clitest::startTestCluster(dir.path(), &why);
    if (!cluster)
        QSKIP(qPrintable(why));

    const QString script = dir.filePath(QStringLiteral("train.py"));
    {
        QFile file(script);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(kTrain);
    }
    const int port = clitest::freeLoopbackPort();
    QVERIFY(port > 0);
    const QString out = dir.filePath(QStringLiteral("runs/train"));
    QDir().mkpath(dir.filePath(QStringLiteral("runs")));
    QString output;
    const int status = cluster->runClient(
        QStringLiteral("srun"),
        {QStringLiteral("-n"), QStringLiteral("2"), QStringLiteral("-N"), QStringLiteral("1"),
         QStringLiteral("--export=ALL,PYTHONPATH=") + QString::fromStdString(loaderlabPythonDir()),
         QString::fromStdString(pytorchEnginePython()), script, out, QString::number(port)},
        300'000, &output);
    cluster->stop();
    QVERIFY2(status == 0, qPrintable(output));
    QVERIFY2(output.contains(QStringLiteral("rank 0 of 2: total 9120"))
                 && output.contains(QStringLiteral("rank 1 of 2: total 9120")),
             qPrintable(output));

    QVERIFY(!QFile::exists(out + QStringLiteral(".csv"))); // no run without a rank
    for (const int rank : {0, 1}) {
        const QString base = out + QStringLiteral(".rank%1").arg(rank);
        std::ifstream in((base + QStringLiteral(".json")).toStdString());
        QVERIFY2(in, qPrintable(base + QStringLiteral(".json missing")));
        const auto json = nlohmann::json::parse(in);
        QCOMPARE(json.at("probe").at("rank").get<int>(), rank);
        QCOMPARE(json.at("probe").at("world_size").get<int>(), 2);
        QCOMPARE(QString::fromStdString(json.at("state").get<std::string>()),
                 QStringLiteral("finished"));
    }

    // Opened from either rank's file: one run of 2 devices, 12 batches each.
    const OpenedRun set = openRankSet((out + QStringLiteral(".rank0.csv")).toStdString());
    QCOMPARE(set.report.config.devices, 2);
    int perRank[2] = {0, 0};
    for (const TraceRecord &r : set.trace->records()) {
        QVERIFY(r.rank == 0 || r.rank == 1);
        ++perRank[r.rank];
    }
    QCOMPARE(perRank[0], 12);
    QCOMPARE(perRank[1], 12);
    QCOMPARE(set.report.summary.samples, std::int64_t{192});
}

LOADERLAB_GUILESS_TEST_MAIN(TestProbeSlurm)
#include "test_probe_slurm.moc"
