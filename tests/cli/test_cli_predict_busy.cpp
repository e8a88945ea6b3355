// `loaderlab predict` on a run recorded while other programs kept the machine busy:
// the run's JSON records the machine's load (`run --json`); from a run with known
// costs and a known load (tests/support/known_cost_run.h) predict says what other
// programs took, predicts the machine as it was (other sessions' share held, programs
// of LoaderLab's own session sharing the cores thread by thread) and, with --cores,
// an idle machine, with the figures the model must give; a load under a tenth of a
// core changes nothing.

#include "cli_process.h"
#include "core/io/run_reader.h"
#include "core/io/trace_csv.h"
#include "core/system/cpu_load.h"
#include "tests/support/known_cost_run.h"
#include "tests/support/test_main.h"

#include <QRegularExpression>
#include <QtTest>

#include <cmath>

using clitest::Result;
using clitest::runLoaderlab;

class TestCliPredictBusy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void aRunRecordsTheMachinesLoad();
    void predictsTheMachineAsItWas_data();
    void predictsTheMachineAsItWas();
    void coresPredictsAnIdleMachine();
    void anIdleMachineGetsNoNote();

private:
    QString recordedRun(const QString &name, double others, double group);

    QTemporaryDir m_dir;
};

namespace {

// The samples/s column of the table row whose first column is `workers`.
QString rateOf(const QString &out, int workers)
{
    const QRegularExpression row(
        QStringLiteral("^%1\\s+([0-9]+)\\s+([0-9.]+)\\s+(-|[0-9.]+ %)\\s+([0-9.]+)").arg(workers),
        QRegularExpression::MultilineOption);
    const auto match = row.match(out);
    return match.hasMatch() ? match.captured(4) : QString();
}

QStringList predictArgs(const QString &json)
{
    return {QStringLiteral("predict"), QStringLiteral("--from"), json, QStringLiteral("--axis"),
            QStringLiteral("loader.num_workers=1,2,4")};
}

} // namespace

void TestCliPredictBusy::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

// 1 worker on 2 cores, 40 batches of 8, each loaded in 0.1 s of wall time (80
// samples/s), while other programs took `others` of the 2 cores, `group` of them in
// LoaderLab's own session.
QString TestCliPredictBusy::recordedRun(const QString &name, double others, double group)
{
    KnownCostRun run = knownCostRun(1, 2, 8, 40, 0.100, 4);
    loaderlab::MachineLoad &load = run.report.machineLoad;
    load.cores = 2;
    load.seconds = 4.0;
    load.otherBusyCores = others;
    load.groupBusyCores = group;
    load.availableCores = 2.0 - others;
    load.ownBusyCores = std::min(1.0, load.availableCores);
    const QString json = m_dir.filePath(name + QStringLiteral(".json"));
    loaderlab::saveTraceCsv(m_dir.filePath(name + QStringLiteral(".csv")).toStdString(),
                            run.records);
    loaderlab::saveRunReport(json.toStdString(), run.report);
    return json;
}

void TestCliPredictBusy::aRunRecordsTheMachinesLoad()
{
    const auto stat = loaderlab::sampleCpu().machine;
    if (!stat)
        QSKIP("no /proc/stat here: the run's load is unknown");
    const QString json = m_dir.filePath(QStringLiteral("real.json"));
    const Result r = runLoaderlab(
        {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("synthetic"),
         QStringLiteral("--workers"), QStringLiteral("1"), QStringLiteral("--batch-size"),
         QStringLiteral("8"), QStringLiteral("--shape"), QStringLiteral("3x32x32"),
         QStringLiteral("--batches"), QStringLiteral("30"), QStringLiteral("--sleep-batch-ms"),
         QStringLiteral("5"), QStringLiteral("--csv"), m_dir.filePath(QStringLiteral("real.csv")),
         QStringLiteral("--json"), json, QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const loaderlab::MachineLoad load = loaderlab::loadRunReport(json.toStdString()).machineLoad;
    QVERIFY(load.known());
    QCOMPARE(load.cores, stat->cores);
    QVERIFY(load.seconds > 0.0);
    QVERIFY(load.ownBusyCores > 0.0); // it ran a loader
    // What was available is what other programs and the hypervisor left.
    QVERIFY(std::abs(load.availableCores + load.otherBusyCores + load.stealCores - load.cores)
            < 1e-9);
}

void TestCliPredictBusy::predictsTheMachineAsItWas_data()
{
    QTest::addColumn<double>("others");
    QTest::addColumn<double>("group");
    QTest::addColumn<QString>("note");
    QTest::addColumn<QString>("two");  // samples/s at 2 workers
    QTest::addColumn<QString>("four"); // at 4
    const QString idle = QStringLiteral(" --cores 2 predicts for an idle machine.");
    // A busy loop in LoaderLab's own session: B = 1 thread; the worker had its core
    // (0.1 s of work a batch). 2 workers have halfway between the core the loop leaves
    // free and even sharing (core_sharing.h): (1 + 4/3) / 2 = 7/6 cores, 16 samples per
    // 0.1 / (7/12) s. 4 workers: halfway between 1.5 cores (3 on the free core, 1 with
    // the loop) and 1.6 (5 threads at 2/5): 1.55, 32 per 0.1 / 0.3875 s.
    QTest::newRow("a busy loop in its session")
        << 1.0 << 1.0
        << QStringLiteral("During the calibration run other programs used 1.0 of 2 cores (1.0 of "
                          "them in LoaderLab's own session); predicted for the machine as it "
                          "was: the 2.0 cores other sessions left, shared with the programs of "
                          "LoaderLab's session thread by thread.")
               + idle
        << QStringLiteral("93.3") << QStringLiteral("124.0");
    // The loop in another session holds its core: 2 or 4 workers share the other.
    QTest::newRow("a busy loop in another session")
        << 1.0 << 0.0
        << QStringLiteral("During the calibration run other programs used 1.0 of 2 cores; "
                          "predicted for the 1.0 cores that were free.")
               + idle
        << QStringLiteral("80.0") << QStringLiteral("80.0");
    // A build in LoaderLab's session left the worker 0.4 of a core: B = 3.6 threads
    // (test_busy_machine), 0.04 s of work a batch. 2 workers beside 3 others: placed
    // with the 1 (2/3 of a core), evenly 5 threads at 2/5 (0.8), halfway 0.7333; beside
    // 4 (2 and 2 on the cores) each joins a pair: 2/3. At B = 3.6, 0.6 of the way:
    // 0.69333 cores, 16 per 0.04 / 0.34667 s. 4 workers beside 3: placed 3/4 + 1/3,
    // evenly 8/7, halfway 1.11310; beside 4: 1 both ways. At B = 3.6: 1.04524 cores,
    // 32 per 0.04 / 0.26131 s.
    QTest::newRow("a build in its session")
        << 1.6 << 1.6
        << QStringLiteral("During the calibration run other programs used 1.6 of 2 cores (1.6 of "
                          "them in LoaderLab's own session); predicted for the machine as it "
                          "was: the 2.0 cores other sessions left, shared with the programs of "
                          "LoaderLab's session thread by thread.")
               + idle
        << QStringLiteral("138.7") << QStringLiteral("209.0");
    // A build in another session leaves 0.4 of a core however many workers share it.
    QTest::newRow("a build in another session")
        << 1.6 << 0.0
        << QStringLiteral("During the calibration run other programs used 1.6 of 2 cores; "
                          "predicted for the 0.4 cores that were free.")
               + idle
        << QStringLiteral("80.0") << QStringLiteral("80.0");
}

void TestCliPredictBusy::predictsTheMachineAsItWas()
{
    QFETCH(double, others);
    QFETCH(double, group);
    QFETCH(QString, note);
    QFETCH(QString, two);
    QFETCH(QString, four);
    const QString json = recordedRun(
        QString::fromUtf8(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('_')),
        others, group);
    const Result r = runLoaderlab(predictArgs(json));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY2(r.out.contains(QLatin1Char('\n') + note + QLatin1Char('\n')), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("  assumed: other programs used ")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("the run itself: measured 80.0 samples/s, predicted "
                                           "80.0 (+0.0 %)")),
             qPrintable(r.out));
    QCOMPARE(rateOf(r.out, 1), QStringLiteral("80.0"));
    QCOMPARE(rateOf(r.out, 2), two);
    QCOMPARE(rateOf(r.out, 4), four);
}

void TestCliPredictBusy::coresPredictsAnIdleMachine()
{
    // The build's run: 0.04 s of work a batch, so on 2 idle cores 1 worker gives 200
    // samples/s and 2 or 4 give 400.
    const QString json = recordedRun(QStringLiteral("build_idle"), 1.6, 0.0);
    const Result r = runLoaderlab(predictArgs(json)
                                  << QStringLiteral("--cores") << QStringLiteral("2"));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY2(r.out.contains(QStringLiteral(
                 "\nDuring the calibration run other programs used 1.6 of 2 cores; the costs "
                 "count only the 0.4 cores that were free; predicted for an idle machine of 2 "
                 "cores.\n")),
             qPrintable(r.out));
    // The run itself is still the machine it ran on.
    QVERIFY2(r.out.contains(QStringLiteral("the run itself: measured 80.0 samples/s, predicted "
                                           "80.0 (+0.0 %)")),
             qPrintable(r.out));
    QCOMPARE(rateOf(r.out, 1), QStringLiteral("200.0"));
    QCOMPARE(rateOf(r.out, 2), QStringLiteral("400.0"));
    QCOMPARE(rateOf(r.out, 4), QStringLiteral("400.0"));
}

void TestCliPredictBusy::anIdleMachineGetsNoNote()
{
    // Other programs took 0.05 of a core: taken as idle, the run's 0.1 s a batch as
    // the worker's own work: 2 workers 160 samples/s, as without any load recorded.
    const QString json = recordedRun(QStringLiteral("quiet"), 0.05, 0.0);
    const Result r = runLoaderlab(predictArgs(json));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY2(!r.out.contains(QStringLiteral("During the calibration run")), qPrintable(r.out));
    QVERIFY2(!r.out.contains(QStringLiteral("other programs used")), qPrintable(r.out));
    QCOMPARE(rateOf(r.out, 1), QStringLiteral("80.0"));
    QCOMPARE(rateOf(r.out, 2), QStringLiteral("160.0"));
    QCOMPARE(rateOf(r.out, 4), QStringLiteral("160.0"));
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliPredictBusy)
#include "test_cli_predict_busy.moc"
