// `loaderlab report`: the one-file HTML report of runs the real binary recorded (a
// folder of real JPEGs with a broken one and an odd name, and a second run of other
// settings): the figures of each run as its JSON has them, three plots as SVG that
// are well-formed and hold both runs in their colours, the
// events (epochs unnumbered), the skipped file named, nothing else needed to open it;
// and its refusals, which name the file and write nothing. The SVG is checked as XML
// here; test_window_report draws the window's report with a real SVG renderer.

#include "cli_process.h"

#include "core/io/html_report.h"
#include "tests/support/image_folder.h"
#include "tests/support/test_main.h"

#include <QFile>
#include <QRegularExpression>
#include <QXmlStreamReader>
#include <QtTest>

#include <cstdio>

using namespace clitest;

namespace {

QString reportFileText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

} // namespace

class TestCliReport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void reportOfTwoRecordedRuns();
    void refusalsNameTheFileAndWriteNothing();

private:
    QString record(const QString &name, const QStringList &settings);
    QTemporaryDir m_dir;
};

void TestCliReport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // 3 classes of 7 photos, 120-260 px, and one file that is no JPEG.
    writeImageFolder(m_dir.filePath(QStringLiteral("photos")), 3, 7, 120, 260);
    // (the generator names its class folders as Imagenette's: n01440764 first)
    QFile broken(m_dir.filePath(QStringLiteral("photos/n01440764/kaputt & <b>.jpg")));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("not a jpeg");
}

QString TestCliReport::record(const QString &name, const QStringList &settings)
{
    const QString base = m_dir.filePath(name);
    const Result r = runLoaderlab(
        QStringList{QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("folder"),
                    QStringLiteral("--path"), m_dir.filePath(QStringLiteral("photos")),
                    QStringLiteral("--epochs"), QStringLiteral("3"), QStringLiteral("--csv"),
                    base + QStringLiteral(".csv"), QStringLiteral("--json"),
                    base + QStringLiteral(".json"), QStringLiteral("--quiet")}
        + settings);
    if (r.exitCode != 0)
        qWarning("%s", qPrintable(r.err));
    return r.exitCode == 0 ? base + QStringLiteral(".json") : QString();
}

void TestCliReport::reportOfTwoRecordedRuns()
{
    const QString first = record(QStringLiteral("two workers"),
                                 {QStringLiteral("--workers"), QStringLiteral("2"),
                                  QStringLiteral("--batch-size"), QStringLiteral("4"),
                                  QStringLiteral("--sleep-batch-ms"), QStringLiteral("2")});
    const QString second = record(QStringLiteral("none"),
                                  {QStringLiteral("--workers"), QStringLiteral("0"),
                                   QStringLiteral("--batch-size"), QStringLiteral("8")});
    QVERIFY(!first.isEmpty() && !second.isEmpty());
    const QString out = m_dir.filePath(QStringLiteral("report é.html"));
    // The second run by its CSV: the JSON beside it is found.
    QString secondCsv = second;
    secondCsv.replace(QStringLiteral(".json"), QStringLiteral(".csv"));
    const Result r = runLoaderlab({QStringLiteral("report"), first, secondCsv,
                                   QStringLiteral("--out"), out, QStringLiteral("--title"),
                                   QStringLiteral("Workers & batch")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(r.out.contains(QStringLiteral("2 runs")));
    QVERIFY(!QFile::exists(out + QStringLiteral(".part")));
    const QString html = reportFileText(out);
    QVERIFY(html.startsWith(QStringLiteral("<!DOCTYPE html>")));
    QVERIFY(html.contains(QStringLiteral("<title>Workers &amp; batch</title>")));
    // Self-contained: nothing loaded from elsewhere.
    for (const char *external : {"src=", "href=", "<script", "@import", "url(http"})
        QVERIFY2(!html.contains(QLatin1String(external)), external);

    // The machine as the first run's JSON names it, its memory included.
    const auto machine = readJson(first)["machine"];
    char memory[32];
    std::snprintf(memory, sizeof memory, "%.1f GiB",
                  static_cast<double>(machine["memory_bytes"].get<qint64>()) / (1 << 30));
    QVERIFY2(html.contains(QLatin1String(memory)) && !html.contains(QStringLiteral(" 0.0 GiB")),
             memory);

    // The compare table: each run's figures as its JSON has them.
    for (const QString &json : {first, second}) {
        const auto summary = readJson(json)["summary"];
        char mean[32];
        std::snprintf(mean, sizeof mean, "%.1f", summary["samples_per_sec_mean"].get<double>());
        QVERIFY2(html.contains(QStringLiteral("<td class=\"n\">%1</td>").arg(QLatin1String(mean))),
                 mean);
        QVERIFY(html.contains(
            QStringLiteral("<td class=\"n\">%1</td>").arg(summary["batches"].get<qint64>())));
    }
    QVERIFY(html.contains(QStringLiteral("two workers: 2 workers, batch 4")));
    QVERIFY(html.contains(QStringLiteral("none: 0 workers, batch 8")));

    // Events: epochs 0..2 in rows of their own style, without a number.
    QVERIFY(html.contains(QStringLiteral("<tr class=\"epoch\"><td class=\"n\"></td>")));
    QVERIFY(html.contains(QStringLiteral("<td>epoch 2</td>")));
    // The broken photo, named (escaped) with the reason, in each run's skipped samples.
    QCOMPARE(html.count(QStringLiteral("kaputt &amp; &lt;b&gt;.jpg")), 2);

    // Three plots, each well-formed SVG with both runs in their colours.
    static const QRegularExpression svgs(QStringLiteral("<svg .*?</svg>"),
                                         QRegularExpression::DotMatchesEverythingOption);
    QStringList plots;
    for (const auto &m : svgs.globalMatch(html))
        plots << m.captured(0);
    QCOMPARE(plots.size(), 3);
    for (const QString &svg : plots) {
        QXmlStreamReader xml(svg);
        while (!xml.atEnd())
            xml.readNext();
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        for (std::size_t run : {0u, 1u}) {
            const QString colour = QString::fromStdString(loaderlab::reportColour(run));
            QVERIFY2(svg.count(colour) >= 2, qPrintable(colour)); // legend and data
        }
        QVERIFY(!svg.contains(QStringLiteral("no data")));
    }
    // Throughput in bins of four batches on average: a few dozen batches are a line of
    // a few points, not one spike a batch.
    static const QRegularExpression path(QStringLiteral("<path d=\"M([^\"]*)\""));
    const auto firstBatches = readJson(first)["summary"]["batches"].get<qint64>();
    const QString throughputLine = path.match(plots[1]).captured(1);
    QVERIFY2(throughputLine.count(QLatin1Char('L')) + 1 <= firstBatches / 4 + 1,
             qPrintable(QStringLiteral("%1 points for %2 batches")
                            .arg(throughputLine.count(QLatin1Char('L')) + 1)
                            .arg(firstBatches)));
}

void TestCliReport::refusalsNameTheFileAndWriteNothing()
{
    const QString json = record(QStringLiteral("one"),
                                {QStringLiteral("--workers"), QStringLiteral("1")});
    QVERIFY(!json.isEmpty());
    const QString before = reportFileText(json);
    const QString out = m_dir.filePath(QStringLiteral("refused.html"));

    Result r = runLoaderlab({QStringLiteral("report"), json});
    QCOMPARE(r.exitCode, 2); // no --out
    QVERIFY(r.err.contains(QStringLiteral("--out")));

    const QString missing = m_dir.filePath(QStringLiteral("missing.json"));
    r = runLoaderlab({QStringLiteral("report"), json, missing, QStringLiteral("--out"), out});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("missing")), qPrintable(r.err));
    QVERIFY(!QFile::exists(out));

    // The run's own JSON as --out: refused, the JSON left as it was.
    r = runLoaderlab({QStringLiteral("report"), json, QStringLiteral("--out"), json});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("own file")), qPrintable(r.err));
    QCOMPARE(reportFileText(json), before);

    // A folder that cannot be written: exit 1 naming the file; nothing left.
    const QString nowhere = QStringLiteral("/proc/loaderlab-report/r.html");
    r = runLoaderlab({QStringLiteral("report"), json, QStringLiteral("--out"), nowhere});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(nowhere), qPrintable(r.err));

    r = runLoaderlab({QStringLiteral("report"), json, QStringLiteral("--out"), out,
                      QStringLiteral("--plot-width"), QStringLiteral("20")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains(QStringLiteral("--plot-width")));
    QVERIFY(!QFile::exists(out));

    // A PDF is the window's: refused with where to get one, nothing written.
    const QString pdf = m_dir.filePath(QStringLiteral("refused.pdf"));
    r = runLoaderlab({QStringLiteral("report"), json, QStringLiteral("--out"), pdf});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("Export report")), qPrintable(r.err));
    QVERIFY(!QFile::exists(pdf));
}

LOADERLAB_TEST_MAIN(TestCliReport)
#include "test_cli_report.moc"
