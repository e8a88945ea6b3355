// `loaderlab predict` on a run the real binary recorded: the run predicted back, the
// sweep table over an axis with the wait period and the recommendation; on a run whose
// costs are known (tests/support/known_cost_run.h), the figures the model must give for
// more workers, with cores to spare and on one core; and clear refusals
// (no --from, a file that is not a run, a JSON without its CSV, an axis the model
// cannot predict, a CSV without times); settings `loaderlab run` would refuse marked
// "cannot run" and never recommended; a step of an hour predicted.

#include "cli_process.h"
#include "core/io/trace_csv.h"
#include "tests/support/known_cost_run.h"
#include "tests/support/test_main.h"

#include <QRegularExpression>
#include <QtTest>

#include <functional>

using clitest::Result;
using clitest::runLoaderlab;

namespace {

// The table row whose first column is `workers`: runs, end-to-end s, spread, samples/s.
QRegularExpressionMatch tableRow(const QString &out, int workers)
{
    const QRegularExpression row(
        QStringLiteral("^%1\\s+([0-9]+)\\s+([0-9.]+)\\s+(-|[0-9.]+ %)\\s+([0-9.]+)").arg(workers),
        QRegularExpression::MultilineOption);
    return row.match(out);
}

// Copies the run `json` and the CSV beside it to `name`.json and `name`.csv in `dir`,
// `editCsvRow` changing each data row of the CSV (its fields) and `editJson` the JSON's
// text. Returns the new JSON's path.
QString copyRun(const QTemporaryDir &dir, const QString &json, const QString &name,
                const std::function<void(QStringList &)> &editCsvRow,
                const std::function<void(QString &)> &editJson)
{
    QString csvPath = json;
    csvPath.replace(QRegularExpression(QStringLiteral("\\.json$")), QStringLiteral(".csv"));
    QFile csv(csvPath);
    if (!csv.open(QIODevice::ReadOnly))
        return {};
    QStringList lines = QString::fromUtf8(csv.readAll()).split(QLatin1Char('\n'));
    for (qsizetype k = 1; k < lines.size(); ++k) {
        if (lines[k].isEmpty())
            continue;
        QStringList fields = lines[k].split(QLatin1Char(','));
        if (editCsvRow)
            editCsvRow(fields);
        lines[k] = fields.join(QLatin1Char(','));
    }
    QFile outCsv(dir.filePath(name + QStringLiteral(".csv")));
    if (!outCsv.open(QIODevice::WriteOnly))
        return {};
    outCsv.write(lines.join(QLatin1Char('\n')).toUtf8());
    QFile in(json);
    if (!in.open(QIODevice::ReadOnly))
        return {};
    QString text = QString::fromUtf8(in.readAll());
    if (editJson)
        editJson(text);
    const QString outPath = dir.filePath(name + QStringLiteral(".json"));
    QFile out(outPath);
    if (!out.open(QIODevice::WriteOnly))
        return {};
    out.write(text.toUtf8());
    return outPath;
}

// The samples/s column of the table row whose first column is `workers`.
double predictedRate(const QString &out, int workers)
{
    const auto match = tableRow(out, workers);
    return match.hasMatch() ? match.captured(4).toDouble() : -1.0;
}

} // namespace

class TestCliPredict : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void predictsATableFromARun();
    void predictsTheSettingsOfARunWithKnownCosts();
    void refusesWhatItCannotPredict();
    void repeatsGiveTheModelsOwnSpread();
    void marksWhatCannotRun();
    void marksWhatThePyTorchEngineCannotRun();
    void namesTheStragglersOfSeveralRanks();
    void refusesARunWithoutTimes();
    void predictsAStepOfAnHour();

private:
    QTemporaryDir m_dir;
    QString m_json;
};

void TestCliPredict::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const QString images = m_dir.filePath(QStringLiteral("images"));
    // Photos large enough that decoding them outweighs the hand-over of a batch.
    const Result made = runLoaderlab(
        {QStringLiteral("make-dataset"), images, QStringLiteral("--classes"), QStringLiteral("2"),
         QStringLiteral("--images-per-class"), QStringLiteral("40"), QStringLiteral("--min-side"),
         QStringLiteral("300"), QStringLiteral("--max-side"), QStringLiteral("400")});
    QVERIFY2(made.exitCode == 0, qPrintable(made.err));
    // One worker, no step: the loading is all the run waits for.
    m_json = m_dir.filePath(QStringLiteral("run.json"));
    const Result r = runLoaderlab(
        {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("folder"),
         QStringLiteral("--path"), images, QStringLiteral("--workers"), QStringLiteral("1"),
         QStringLiteral("--batch-size"), QStringLiteral("8"), QStringLiteral("--epochs"),
         QStringLiteral("3"), QStringLiteral("--csv"), m_dir.filePath(QStringLiteral("run.csv")),
         QStringLiteral("--json"), m_json, QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
}

void TestCliPredict::predictsATableFromARun()
{
    const Result r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), m_json,
                                   QStringLiteral("--axis"),
                                   QStringLiteral("loader.num_workers=1,2,4"),
                                   QStringLiteral("--cores"), QStringLiteral("8")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    std::printf("%s", qPrintable(r.out));
    QVERIFY(r.out.contains(QStringLiteral("loaderlab engine, 1 workers, batch 8")));
    QVERIFY(r.out.contains(QStringLiteral("the run itself: measured ")));
    QVERIFY(r.out.contains(QStringLiteral("wait period")));
    QVERIFY(r.out.contains(QStringLiteral("\nrecommended: ")));
    QVERIFY(r.out.contains(QStringLiteral("speedup along loader.num_workers")));
    QVERIFY(r.out.contains(QStringLiteral("docs/what-if.md")));
    // A row for each setting of the axis, with a figure. (How much faster more workers
    // load this run depends on what the machine measured: see the run of known costs.)
    for (const int workers : {1, 2, 4})
        QVERIFY2(predictedRate(r.out, workers) > 0, qPrintable(r.out));
}

void TestCliPredict::predictsTheSettingsOfARunWithKnownCosts()
{
    // 1 worker on 2 cores, 40 batches of 8 each taking 40 ms of a core to load, no
    // step, a warm-up of 4 batches: 1.6 s, 200 samples/s. With cores to spare each
    // worker added loads in parallel: 2 workers 0.8 s and 400 samples/s, 4 workers
    // 0.4 s and 800. On one core the core is the limit: 4 workers take as long as 1.
    const KnownCostRun known = knownCostRun(1, 2, 8, 40, 0.040, 4);
    const QString json = m_dir.filePath(QStringLiteral("known.json"));
    loaderlab::saveTraceCsv(m_dir.filePath(QStringLiteral("known.csv")).toStdString(),
                            known.records);
    loaderlab::saveRunReport(json.toStdString(), known.report);
    const auto expectRow = [](const QString &out, int workers, const char *seconds,
                              const char *rate) {
        const auto row = tableRow(out, workers);
        QVERIFY2(row.hasMatch(), qPrintable(out));
        QCOMPARE(row.captured(2), QLatin1String(seconds));
        QCOMPARE(row.captured(4), QLatin1String(rate));
    };

    const Result r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), json,
                                   QStringLiteral("--axis"),
                                   QStringLiteral("loader.num_workers=1,2,4"),
                                   QStringLiteral("--cores"), QStringLiteral("8")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY2(r.out.contains(QStringLiteral("the run itself: measured 200.0 samples/s, predicted "
                                           "200.0 (+0.0 %)")),
             qPrintable(r.out));
    expectRow(r.out, 1, "1.600", "200.0");
    expectRow(r.out, 2, "0.800", "400.0");
    expectRow(r.out, 4, "0.400", "800.0");
    QVERIFY2(r.out.contains(QStringLiteral("\nrecommended: 4 workers (")), qPrintable(r.out));

    const Result oneCore = runLoaderlab(
        {QStringLiteral("predict"), QStringLiteral("--from"), json, QStringLiteral("--axis"),
         QStringLiteral("loader.num_workers=1,4"), QStringLiteral("--cores"), QStringLiteral("1")});
    QVERIFY2(oneCore.exitCode == 0, qPrintable(oneCore.err + oneCore.out));
    expectRow(oneCore.out, 1, "1.600", "200.0");
    expectRow(oneCore.out, 4, "1.600", "200.0");
}

void TestCliPredict::refusesWhatItCannotPredict()
{
    Result r = runLoaderlab({QStringLiteral("predict")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("--from RUN.json")), qPrintable(r.err));

    const QString notARun = m_dir.filePath(QStringLiteral("other.json"));
    QFile file(notARun);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"format\": \"something else\"}");
    file.close();
    QFile::copy(m_dir.filePath(QStringLiteral("run.csv")),
                m_dir.filePath(QStringLiteral("other.csv")));
    r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), notARun});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("other.json"))
                 && r.err.contains(QStringLiteral("not a LoaderLab run summary")),
             qPrintable(r.err));

    const QString lone = m_dir.filePath(QStringLiteral("lone.json"));
    QVERIFY(QFile::copy(m_json, lone));
    r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), lone});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("no per-batch CSV")), qPrintable(r.err));

    r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"),
                      m_dir.filePath(QStringLiteral("missing.json"))});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("missing")), qPrintable(r.err));

    r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), m_json,
                      QStringLiteral("--axis"), QStringLiteral("dataset.transform=eval,train")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("cannot predict dataset.transform")), qPrintable(r.err));
}

void TestCliPredict::repeatsGiveTheModelsOwnSpread()
{
    // Each repeat draws the run's sample costs in another order: the runs column counts
    // them and the spread column is theirs (a number, where one run has "-").
    const Result r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), m_json,
                                   QStringLiteral("--axis"),
                                   QStringLiteral("loader.num_workers=1,2"),
                                   QStringLiteral("--repeats"), QStringLiteral("4")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    for (const int workers : {1, 2}) {
        const auto row = tableRow(r.out, workers);
        QVERIFY2(row.hasMatch(), qPrintable(r.out));
        QCOMPARE(row.captured(1), QStringLiteral("4"));
        QVERIFY2(row.captured(3) != QStringLiteral("-"), qPrintable(r.out));
    }
    const Result once = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), m_json,
                                      QStringLiteral("--repeats"), QStringLiteral("1")});
    QVERIFY2(once.exitCode == 0, qPrintable(once.err));
    QVERIFY2(once.out.contains(QRegularExpression(QStringLiteral("\\s1\\s+[0-9.]+\\s+-\\s"))),
             qPrintable(once.out));
    const Result none = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), m_json,
                                      QStringLiteral("--repeats"), QStringLiteral("0")});
    QCOMPARE(none.exitCode, 2);
    QVERIFY2(none.err.contains(QStringLiteral("--repeats")), qPrintable(none.err));
}

void TestCliPredict::marksWhatCannotRun()
{
    // A batch of 100,000,000 JPEGs cropped to 224 x 224 (602,112 bytes each) is 56 TiB
    // a batch, over any memory budget: `loaderlab run` refuses it, so predict marks it
    // and recommends batch 8.
    const Result r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), m_json,
                                   QStringLiteral("--axis"),
                                   QStringLiteral("loader.batch_size=8,100000000")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const QRegularExpression marked(
        QStringLiteral("^100000000\\s+cannot run: loader.batch_size 100000000: the run needs "
                       "about [0-9.]+ TiB of host memory, over the memory budget"),
        QRegularExpression::MultilineOption);
    QVERIFY2(marked.match(r.out).hasMatch(), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("\nrecommended: batch 8 (")), qPrintable(r.out));
    QVERIFY2(!r.out.contains(QStringLiteral("failed")), qPrintable(r.out));
    const QString recommendation = r.out.mid(r.out.indexOf(QStringLiteral("recommended:")));
    QVERIFY2(!recommendation.contains(QStringLiteral("100000000")), qPrintable(r.out));

    // Nothing that can run: exit 2, with the reasons.
    const Result none = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), m_json,
                                      QStringLiteral("--devices"), QStringLiteral("100")});
    QCOMPARE(none.exitCode, 2);
    QVERIFY2(none.err.startsWith(
                 QStringLiteral("loaderlab predict: cannot run: devices 100: expected 1 to 64\n")),
             qPrintable(none.err));
    QVERIFY2(none.out.isEmpty(), qPrintable(none.out));
}

void TestCliPredict::namesTheStragglersOfSeveralRanks()
{
    // For one device, no straggler line; for several, the slowest of N ranks' wait from
    // the run's own waits: never below their mean, and growing with N.
    Result r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), m_json});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY2(!r.out.contains(QStringLiteral("stragglers:")), qPrintable(r.out));
    r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), m_json,
                      QStringLiteral("--axis"), QStringLiteral("devices=1,4")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const QRegularExpression line(
        QStringLiteral(
            "^stragglers: a step waits for the slowest rank's data; from this run's [0-9]+ steady "
            "waits \\(mean ([0-9.]+) ms\\), taken as independent draws, the slowest of 2 ranks "
            "waits ([0-9.]+) ms \\(([0-9.]+)x\\), 4 ranks waits ([0-9.]+) ms .*32 ranks waits "
            "([0-9.]+) ms"),
        QRegularExpression::MultilineOption);
    const QRegularExpressionMatch m = line.match(r.out);
    QVERIFY2(m.hasMatch(), qPrintable(r.out));
    const double mean = m.captured(1).toDouble();
    QVERIFY(m.captured(2).toDouble() >= mean);
    QVERIFY(m.captured(3).toDouble() >= 1.0);
    QVERIFY(m.captured(4).toDouble() >= m.captured(2).toDouble());
    QVERIFY(m.captured(5).toDouble() >= m.captured(4).toDouble());
}

void TestCliPredict::marksWhatThePyTorchEngineCannotRun()
{
    // The same run as if PyTorch's DataLoader had recorded it.
    const QString pytorch = copyRun(m_dir, m_json, QStringLiteral("pytorch"), {}, [](QString &t) {
        t.replace(QRegularExpression(QStringLiteral("\"engine\":\\s*\"loaderlab\"")),
                  QStringLiteral("\"engine\": \"pytorch\""));
    });
    QVERIFY(!pytorch.isEmpty());
    Result r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), pytorch,
                             QStringLiteral("--axis"),
                             QStringLiteral("loader.strategy=per-worker,sample-parallel")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY2(r.out.contains(QStringLiteral("pytorch engine, 1 workers")), qPrintable(r.out));
    const QRegularExpression marked(
        QStringLiteral("^sample-parallel\\s+cannot run: PyTorch's DataLoader builds each batch "
                       "in one worker: no sample-parallel$"),
        QRegularExpression::MultilineOption);
    QVERIFY2(marked.match(r.out).hasMatch(), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("\nrecommended: loader.strategy per-worker (")),
             qPrintable(r.out));

    // Its ranks synchronise every step: independent devices are marked.
    r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), pytorch,
                      QStringLiteral("--devices"), QStringLiteral("4"), QStringLiteral("--axis"),
                      QStringLiteral("sync_devices=true,false")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const QRegularExpression independent(
        QStringLiteral("^false\\s+cannot run: the PyTorch engine's ranks synchronise every step"),
        QRegularExpression::MultilineOption);
    QVERIFY2(independent.match(r.out).hasMatch(), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("\nrecommended: sync_devices true (")),
             qPrintable(r.out));

    // Every cell of an axis: each named with its reason.
    r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), pytorch,
                      QStringLiteral("--axis"), QStringLiteral("loader.strategy=sample-parallel"),
                      QStringLiteral("--axis"), QStringLiteral("loader.num_workers=1,2")});
    QCOMPARE(r.exitCode, 2);
    for (const char *workers : {"1 worker", "2 workers"})
        QVERIFY2(
            r.err.contains(QStringLiteral("loaderlab predict: loader.strategy sample-parallel, "
                                          "%1: cannot run: PyTorch's DataLoader builds each "
                                          "batch in one worker: no sample-parallel\n")
                               .arg(QLatin1String(workers))),
            qPrintable(r.err));
    QVERIFY2(r.out.isEmpty(), qPrintable(r.out));
}

void TestCliPredict::refusesARunWithoutTimes()
{
    // The run's CSV with every time 0: nothing to calibrate from, whichever file is named.
    const QString zeros = copyRun(m_dir, m_json, QStringLiteral("zeros"),
                                  [](QStringList &fields) {
                                      for (qsizetype k = 6; k < fields.size() - 1;
                                           ++k) // times: after config_version, before rank
                                          fields[k] = QStringLiteral("0");
                                  },
                                  {});
    QVERIFY(!zeros.isEmpty());
    const QString csv = m_dir.filePath(QStringLiteral("zeros.csv"));
    for (const QString &from : {zeros, csv}) {
        const Result r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), from});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(csv
                                + QStringLiteral(": no batch has a measured time (all 0): "
                                                 "nothing to calibrate from")),
                 qPrintable(r.err));
        QVERIFY2(!r.out.contains(QStringLiteral("recommended")), qPrintable(r.out));
    }
}

void TestCliPredict::predictsAStepOfAnHour()
{
    // The run's 30 batches (3 epochs of 10), each stepped for an hour: 30 hours and a
    // few seconds of loading, where the model once stalled at 36,000 s.
    const Result r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), m_json,
                                   QStringLiteral("--axis"),
                                   QStringLiteral("consumer.sleep_per_batch_ms=3600000")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const QRegularExpression row(QStringLiteral("^3600000\\s+3\\s+([0-9.]+)\\s"),
                                 QRegularExpression::MultilineOption);
    const auto match = row.match(r.out);
    QVERIFY2(match.hasMatch(), qPrintable(r.out));
    const double seconds = match.captured(1).toDouble();
    QVERIFY2(seconds >= 30 * 3600.0 && seconds < 30 * 3600.0 + 60.0, qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("\nrecommended: ")), qPrintable(r.out));
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliPredict)
#include "test_cli_predict.moc"
