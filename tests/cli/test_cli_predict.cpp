// `loaderlab predict` on a run the real binary recorded: the run predicted back, the
// sweep table over an axis with the wait period and the recommendation, more workers
// predicted faster for an input-bound run with cores to spare, and clear refusals
// (no --from, a file that is not a run, a JSON without its CSV, an axis the model
// cannot predict).

#include "cli_process.h"

#include <QRegularExpression>
#include <QtTest>

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
    void refusesWhatItCannotPredict();
    void repeatsGiveTheModelsOwnSpread();

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
    // Input-bound, cores to spare: each worker added loads in parallel.
    const double one = predictedRate(r.out, 1);
    const double two = predictedRate(r.out, 2);
    const double four = predictedRate(r.out, 4);
    QVERIFY2(one > 0 && two > 1.3 * one && four > 1.3 * two,
             qPrintable(QStringLiteral("%1 %2 %3").arg(one).arg(two).arg(four)));
    // The same workers on one core gain nothing: the core is the limit.
    const Result oneCore = runLoaderlab(
        {QStringLiteral("predict"), QStringLiteral("--from"), m_json, QStringLiteral("--axis"),
         QStringLiteral("loader.num_workers=1,4"), QStringLiteral("--cores"), QStringLiteral("1")});
    QVERIFY2(oneCore.exitCode == 0, qPrintable(oneCore.err));
    const double shared = predictedRate(oneCore.out, 4);
    QVERIFY2(shared > 0 && shared < 1.2 * predictedRate(oneCore.out, 1), qPrintable(oneCore.out));
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

QTEST_GUILESS_MAIN(TestCliPredict)
#include "test_cli_predict.moc"
