#pragma once

// sweepArgs(out, sweep): the command line of a small `loaderlab sweep` of synthetic
// 1x8x8 samples with a simulated step, 0 and 1 workers against `sweep.batchSizes`,
// each cell as long as its budget, the results written into the folder `out`.

#include <QLatin1String>
#include <QString>
#include <QStringList>

struct SmallSweep
{
    int sleepBatchMs = 0;          // --sleep-batch-ms
    const char *batchSizes = "";   // the loader.batch_size axis: "4,8,16"
    const char *budgetOption = ""; // "--budget-batches" or "--budget-samples"
    int budget = 0;                // its value
};

inline QStringList sweepArgs(const QString &out, const SmallSweep &sweep)
{
    return QStringList{QStringLiteral("sweep"),
                       QStringLiteral("--dataset"),
                       QStringLiteral("synthetic"),
                       QStringLiteral("--shape"),
                       QStringLiteral("1x8x8"),
                       QStringLiteral("--sleep-batch-ms"),
                       QString::number(sweep.sleepBatchMs),
                       QStringLiteral("--axis"),
                       QStringLiteral("loader.num_workers=0,1"),
                       QStringLiteral("--axis"),
                       QStringLiteral("loader.batch_size=") + QLatin1String(sweep.batchSizes),
                       QLatin1String(sweep.budgetOption),
                       QString::number(sweep.budget),
                       QStringLiteral("--out"),
                       out};
}
