// `loaderlab limits` as a user runs it: on a folder of real JPEGs (odd names, a broken
// file) with a simulated step, and from a run the binary recorded: the table, the
// binding sentence, the JSON; a --keep-tensor that names an existing file refused with
// the file untouched.

#include "cli_process.h"

#include "tests/support/image_folder.h"
#include "tests/support/test_main.h"

#include <QFile>
#include <QtTest>

using namespace clitest;

class TestCliLimits : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void ceilingsOfAFolderAsTableAndJson();
    void fromARecordedRun();
    void anExistingKeepFileIsRefusedAndKept();

private:
    QTemporaryDir m_dir;
    QString m_folder;
};

void TestCliLimits::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_folder = writeImageFolder(m_dir.filePath(QStringLiteral("fotos ü")), 2, 8, 150, 300);
    QFile broken(m_folder + QStringLiteral("/n01440764/defekt (2).jpg"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("not a jpeg");
}

void TestCliLimits::ceilingsOfAFolderAsTableAndJson()
{
    const QString json = m_dir.filePath(QStringLiteral("limits.json"));
    const Result r = runLoaderlab({QStringLiteral("limits"), QStringLiteral("--path"), m_folder,
                                   QStringLiteral("--batch-size"), QStringLiteral("4"),
                                   QStringLiteral("--sleep-batch-ms"), QStringLiteral("5"),
                                   QStringLiteral("--seconds-each"), QStringLiteral("0.2"),
                                   QStringLiteral("--json"), json});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("limits: [5/5] preprocessed")), qPrintable(r.err));
    for (const char *stage : {"storage", "decode", "hand-over", "step", "preprocessed"})
        QVERIFY2(r.out.contains(
                     QRegularExpression(QStringLiteral("\\n%1 +\\d+ ").arg(QLatin1String(stage)))),
                 qPrintable(r.out));
    QVERIFY(r.out.contains(QStringLiteral("binds the loader at")));
    const nlohmann::json report = readJson(json);
    QCOMPARE(report.at("format"), "loaderlab-ceilings-1");
    QCOMPARE(report.at("ceilings").size(), std::size_t{5});
    double lowest = 1e300;
    for (const auto &c : report.at("ceilings")) {
        QVERIFY(c.at("samples_per_sec").is_number());
        const std::string stage = c.at("stage");
        if (stage == "storage" || stage == "decode" || stage == "hand-over")
            lowest = std::min(lowest, c.at("samples_per_sec").get<double>());
    }
    for (const auto &c : report.at("ceilings"))
        if (c.at("stage") == report.at("loader_binding"))
            QCOMPARE(c.at("samples_per_sec").get<double>(), lowest);
    QVERIFY(!report.at("summary").get<std::string>().empty());
}

void TestCliLimits::fromARecordedRun()
{
    const QString run = m_dir.filePath(QStringLiteral("run.json"));
    const Result recorded = runLoaderlab(
        {QStringLiteral("run"), QStringLiteral("--path"), m_folder, QStringLiteral("--batch-size"),
         QStringLiteral("4"), QStringLiteral("--sleep-batch-ms"), QStringLiteral("5"),
         QStringLiteral("--epochs"), QStringLiteral("2"), QStringLiteral("--json"), run,
         QStringLiteral("--quiet")});
    QVERIFY2(recorded.exitCode == 0, qPrintable(recorded.err));
    const double rate = readJson(run).at("summary").at("samples_per_sec_mean");
    const QString plot = m_dir.filePath(QStringLiteral("roofline.svg"));
    const Result r = runLoaderlab({QStringLiteral("limits"), QStringLiteral("--from"), run,
                                   QStringLiteral("--seconds-each"), QStringLiteral("0.2"),
                                   QStringLiteral("--plot"), plot, QStringLiteral("--place"), run});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    // The run's settings: its folder and its step; its rate placed against the ceiling.
    QVERIFY2(r.out.contains(QStringLiteral("fotos ü")), qPrintable(r.out));
    QVERIFY(r.out.contains(QStringLiteral("sleep 5 ms/batch")));
    QVERIFY2(r.out.contains(QRegularExpression(
                 QStringLiteral("your run +%1 ").arg(QString::number(rate, 'f', 0)))),
             qPrintable(r.out));
    QVERIFY(r.out.contains(QStringLiteral("you run at")));
    // The roofline: every ceiling, and the run (from --from and --place) as points.
    QFile svg(plot);
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const QString drawn = QString::fromUtf8(svg.readAll());
    QVERIFY2(drawn.startsWith(QStringLiteral("<svg xmlns=")), qPrintable(drawn.left(80)));
    for (const char *name : {"storage ", "decode ", "hand-over ", "step ", "runs"})
        QVERIFY2(drawn.contains(QLatin1String(name)), name);
    QVERIFY(drawn.contains(QStringLiteral("cores loading (workers)")));
}

void TestCliLimits::anExistingKeepFileIsRefusedAndKept()
{
    const QString keep = m_dir.filePath(QStringLiteral("mine.bin"));
    {
        QFile file(keep);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("weights I trained for a week");
    }
    const Result r = runLoaderlab({QStringLiteral("limits"), QStringLiteral("--path"), m_folder,
                                   QStringLiteral("--keep-tensor"), keep,
                                   QStringLiteral("--seconds-each"), QStringLiteral("0.2")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("mine.bin: exists")), qPrintable(r.err));
    QFile file(keep);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray("weights I trained for a week"));
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliLimits)
#include "test_cli_limits.moc"
