// Plot exports: a PNG at the default options is twice the plot's screen size and a
// chosen width is honoured; every export carries a title line naming what it shows,
// the run's settings and the date (the window's plots, the sweep's, the selected
// cell's); the plot on screen keeps no title; the dialog's choices reach the exporter
// and are remembered; the selected cell's wait plot is mostly data, not legend.

#include "app/window/main_window.h"

#include "core/io/trace_csv.h"
#include "widgets/experiments/experiments_view.h"
#include "widgets/experiments/sweep_axes_editor.h"
#include "widgets/experiments/sweep_cell_detail.h"
#include "widgets/experiments/sweep_heatmap.h"
#include "widgets/plots/plot_export.h"
#include "widgets/plots/qcustomplot_include.h"
#include "widgets/plots/wait_time_plot.h"
#include "widgets/plots/worker_timeline_plot.h"
#include "widgets/session/run_session.h"

#include "tests/support/modal_answer.h"
#include "tests/support/test_main.h"
#include "tests/support/trace_time.h"
#include "tests/support/widget_child.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDate>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFontMetrics>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <functional>

using namespace loaderlab;

namespace {

using loaderlab::test::kMs;

// Batches of a sequential consumer with `workers` workers: worker i % W builds batch i,
// which waits 1..4 ms and computes 2 ms.
std::vector<TraceRecord> batches(int count, int workers)
{
    std::vector<TraceRecord> records;
    std::int64_t request = 10 * kMs;
    for (int i = 0; i < count; ++i) {
        TraceRecord r;
        r.index = i;
        r.worker = i % workers;
        r.samples = 16;
        r.requestNs = request;
        r.deliveryNs = request + (1 + i % 4) * kMs;
        r.loadStartNs = r.deliveryNs - 5 * kMs;
        r.loadEndNs = r.deliveryNs;
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = r.deliveryNs + 2 * kMs;
        records.push_back(r);
        request = r.computeEndNs;
    }
    return records;
}

std::shared_ptr<TraceLog> logOf(const std::vector<TraceRecord> &records)
{
    auto log = std::make_shared<TraceLog>();
    for (const TraceRecord &r : records) {
        log->append(r);
        log->appendSpan({r.index, r.worker, 0, r.loadStartNs, r.loadEndNs});
    }
    return log;
}

QByteArray exportContents(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Synthetic 3x32x32 samples and a 1 ms simulated step: runs take well under a second.
RunConfig smallConfig()
{
    RunConfig config;
    config.dataset.kind = DatasetKind::Synthetic;
    config.dataset.syntheticShape = {3, 32, 32};
    config.dataset.syntheticSamples = 512;
    config.loader.numWorkers = 3;
    config.loader.batchSize = 8;
    config.loader.prefetchFactor = 3;
    config.consumer.kind = ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 1.0;
    return config;
}

} // namespace

class TestPlotExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void pngIsTwiceTheFigureOrTheChosenWidth();
    void titleLineIsInTheExportOnly();
    void windowPlotsNameTheRunAndItsSettings();
    void sweepAndCellPlotsNameTheSweepAndTheCell();
    void dialogChoicesReachTheExporterAndAreRemembered();
    void cellWaitPlotIsMostlyData();

private:
    QTemporaryDir m_dir;
};

void TestPlotExport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QStandardPaths::setTestModeEnabled(true); // QSettings of the dialog, results folders
    QSettings().remove(QStringLiteral("export"));
}

void TestPlotExport::pngIsTwiceTheFigureOrTheChosenWidth()
{
    WaitTimePlot plot;
    plot.setTrace(logOf(batches(50, 2)), 2);
    plot.refresh();
    plot.resize(600, 360);
    QString error;
    const QString png = m_dir.filePath(QStringLiteral("size.png"));

    // The defaults: twice the screen size, a title line above.
    QVERIFY2(exportPlot(&plot, png, PlotExportOptions(), QStringLiteral("Waits\nrun"), {}, &error),
             qPrintable(error));
    const QImage titled(png);
    QCOMPARE(titled.width(), 1200);
    QVERIFY2(titled.height() > 720, qPrintable(QString::number(titled.height())));

    PlotExportOptions options;
    options.titleLine = false;
    QVERIFY2(exportPlot(&plot, png, options, QStringLiteral("Waits"), {}, &error),
             qPrintable(error));
    QCOMPARE(QImage(png).size(), QSize(1200, 720));

    options.scale = 3.0;
    QVERIFY2(exportPlot(&plot, png, options, {}, {}, &error), qPrintable(error));
    QCOMPARE(QImage(png).size(), QSize(1800, 1080));

    // A width in pixels replaces the scale; the height follows.
    options.pixelWidth = 1500;
    QVERIFY2(exportPlot(&plot, png, options, {}, {}, &error), qPrintable(error));
    QCOMPARE(QImage(png).size(), QSize(1500, 900));

    // A plot too narrow or too flat for a figure (the wait pattern's 250 px, the
    // timeline's strip) is laid out wider or taller: 520 px at least, 0.45 to 0.8 of
    // that tall.
    QCOMPARE(figureLayout(QSize(250, 300)), QSize(520, 300));
    QCOMPARE(figureLayout(QSize(930, 240)), QSize(930, 419));
    QCOMPARE(figureLayout(QSize(300, 900)), QSize(520, 416));
    plot.resize(250, 300);
    options = PlotExportOptions();
    options.titleLine = false;
    QVERIFY2(exportPlot(&plot, png, options, {}, {}, &error), qPrintable(error));
    QCOMPARE(QImage(png).size(), QSize(1040, 600));
    // ... and its title takes fewer lines than at the screen's 250 px.
    const QString title = QStringLiteral("Wait pattern\nrun A: 4 workers, batch 64, prefetch 2, "
                                         "pin memory off, step: sleep 5 ms per batch; image "
                                         "folder photos (eval); exported 2026-12-01 14:03");
    QVERIFY2(exportPlot(&plot, png, PlotExportOptions(), title, {}, &error), qPrintable(error));
    QVERIFY2(QImage(png).height() - 600 < 2 * 4 * QFontMetrics(plot.font()).height(),
             qPrintable(QString::number(QImage(png).height())));

    // The Experiments view without dialog: the defaults, at its plots' figure layout.
    ExperimentsView view;
    view.resize(1280, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const auto *heatmap = childNamed<SweepHeatmap>(&view, "sweepHeatmap");
    QVERIFY(heatmap->width() >= 200);
    const QString out = m_dir.filePath(QStringLiteral("view"));
    QVERIFY(QDir().mkpath(out));
    QVERIFY2(view.exportPlots(out, QStringLiteral("png"), &error), qPrintable(error));
    const QImage exported(QDir(out).filePath(QStringLiteral("sweep_heatmap.png")));
    QCOMPARE(exported.width(), 2 * figureLayout(heatmap->size()).width());
    QVERIFY(exported.height() >= 2 * figureLayout(heatmap->size()).height());
}

void TestPlotExport::titleLineIsInTheExportOnly()
{
    WaitTimePlot plot;
    plot.setTrace(logOf(batches(50, 2)), 2);
    plot.resize(500, 300);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.refresh();
    plot.replot();
    const QRect axisRect = plot.axisRect()->rect();
    const int elements = plot.plotLayout()->elementCount();
    const QImage before = plot.grab().toImage();

    // The SVG holds the title's text (its words are searchable there).
    const QString svg = m_dir.filePath(QStringLiteral("title.svg"));
    QString error;
    const QString title = QStringLiteral("Wait time per batch\nrun A: 7 workers, batch 99");
    QVERIFY2(exportPlot(&plot, svg, PlotExportOptions(), title, QSize(800, 400), &error),
             qPrintable(error));
    const QByteArray text = exportContents(svg);
    QVERIFY(text.contains("Wait time per batch"));
    QVERIFY(text.contains("7 workers, batch 99"));
    QVERIFY(text.contains("<title>Wait time per batch</title>"));
    // A PDF names itself by the title's first line (its Title, UTF-16 with a BOM).
    const QString pdf = m_dir.filePath(QStringLiteral("title.pdf"));
    QVERIFY2(exportPlot(&plot, pdf, PlotExportOptions(), title, QSize(800, 400), &error),
             qPrintable(error));
    QByteArray utf16("/Title (\xfe\xff");
    for (const QChar c : QStringLiteral("Wait time per batch"))
        utf16 += QByteArray(1, static_cast<char>(c.unicode() >> 8))
                 + static_cast<char>(c.unicode() & 0xff);
    QVERIFY2(exportContents(pdf).contains(utf16), exportContents(pdf).left(600).constData());
    // Unticked: no title.
    PlotExportOptions untitled;
    untitled.titleLine = false;
    QVERIFY2(exportPlot(&plot, svg, untitled, title, QSize(800, 400), &error), qPrintable(error));
    QVERIFY(!exportContents(svg).contains("7 workers"));

    // On screen: the same layout and pixels as before, no title element.
    QCOMPARE(plot.plotLayout()->elementCount(), elements);
    QCOMPARE(plot.axisRect()->rect(), axisRect);
    QCOMPARE(plot.findChildren<QCPTextElement *>().size(), 0);
    QCOMPARE(plot.grab().toImage(), before);
}

void TestPlotExport::windowPlotsNameTheRunAndItsSettings()
{
    MainWindow window;
    window.applyConfig(smallConfig());
    window.resize(1280, 800);
    window.show();
    QVERIFY(window.startRun());
    QTRY_VERIFY(window.session()->trace()->size() > 20);
    window.session()->stop();
    QTRY_VERIFY(window.session()->finished());

    const QString out = m_dir.filePath(QStringLiteral("window"));
    QVERIFY(QDir().mkpath(out));
    QString error;
    QVERIFY2(window.exportPlots(out, QStringLiteral("svg"), &error), qPrintable(error));
    const QByteArray svg = exportContents(QDir(out).filePath(QStringLiteral("wait_time.svg")));
    const QByteArray today = QDate::currentDate().toString(Qt::ISODate).toUtf8();
    for (const QByteArray &expected :
         {QByteArray("Wait time per batch"), QByteArray("synthetic 512"), QByteArray("LoaderLab"),
          QByteArray("3 workers"), QByteArray("batch 8"), QByteArray("prefetch 3"),
          QByteArray("pin memory off"), QByteArray("sleep 1 ms per batch"), today})
        QVERIFY2(svg.contains(expected), expected.constData());
    QVERIFY(exportContents(QDir(out).filePath(QStringLiteral("throughput.svg")))
                .contains("Throughput"));
}

void TestPlotExport::sweepAndCellPlotsNameTheSweepAndTheCell()
{
    ExperimentsView view;
    view.resize(1280, 800);
    view.show();
    view.setConfigSource([] { return smallConfig(); });
    auto *editor = childNamed<SweepAxesEditor>(&view, "sweepAxesEditor");
    editor->setDefinition({});
    QVERIFY(editor->setAxisValues("loader.num_workers", {1, 2}));
    editor->setBudget({SweepBudget::Kind::Samples, 256});
    editor->setRepeats(1);
    view.setResultsFolder(m_dir.filePath(QStringLiteral("sweep")));
    QString error;
    QVERIFY2(view.start(&error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(!view.running(), 60'000);
    QVERIFY2(view.showCell(1, &error), qPrintable(error));

    const QString out = m_dir.filePath(QStringLiteral("sweep-exports"));
    QVERIFY(QDir().mkpath(out));
    QVERIFY2(view.exportPlots(out, QStringLiteral("svg"), &error), qPrintable(error));
    const QByteArray today = QDate::currentDate().toString(Qt::ISODate).toUtf8();
    // The sweep: its axis and values, the base settings without the swept workers.
    for (const char *name : {"sweep_heatmap", "sweep_end_to_end", "sweep_scaling"}) {
        const QByteArray svg = exportContents(
            QDir(out).filePath(QLatin1String(name) + QStringLiteral(".svg")));
        for (const QByteArray &expected :
             {QByteArray("Sweep over Workers (1, 2)"), QByteArray("256 samples per cell"),
              QByteArray("batch 8"), QByteArray("prefetch 3"), QByteArray("sleep 1 ms per batch"),
              today})
            QVERIFY2(svg.contains(expected), (QByteArray(name) + ": " + expected).constData());
        QVERIFY2(!svg.contains("3 workers"), name);
    }
    // The selected cell: its values and its whole settings.
    for (const char *name : {"cell_wait_time", "cell_worker_timeline"}) {
        const QByteArray svg = exportContents(
            QDir(out).filePath(QLatin1String(name) + QStringLiteral(".svg")));
        for (const QByteArray &expected :
             {QByteArray("Selected cell"), QByteArray("Cell: Workers 2"), QByteArray("2 workers"),
              QByteArray("batch 8"), QByteArray("prefetch 3"), QByteArray("pin memory off"), today})
            QVERIFY2(svg.contains(expected), (QByteArray(name) + ": " + expected).constData());
    }
}

void TestPlotExport::dialogChoicesReachTheExporterAndAreRemembered()
{
    QSettings().remove(QStringLiteral("export"));
    std::vector<PlotExportOptions> received;
    const PlotsExporterWithOptions exporter = [&](const QString &, const QString &,
                                                  const PlotExportOptions &options, QString *) {
        received.push_back(options);
        return true;
    };
    // Defaults offered: 2x, the title line ticked. Chosen: 3x, no title.
    QString offeredScale;
    bool offeredTitle = false;
    answerModal([&](QDialog *dialog) {
        QVERIFY(qobject_cast<QFileDialog *>(dialog));
        auto *scale = childNamed<QComboBox>(dialog, "exportScale");
        auto *title = childNamed<QCheckBox>(dialog, "exportTitleLine");
        offeredScale = scale->currentText();
        offeredTitle = title->isChecked();
        scale->setCurrentIndex(scale->findData(3.0));
        title->setChecked(false);
        dialog->findChild<QLineEdit *>(QStringLiteral("fileNameEdit"))->setText(m_dir.path());
        dialog->accept();
    });
    QVERIFY(!exportPlotsWithDialog(nullptr, QString(), exporter).isEmpty());
    QCOMPARE(offeredScale, QStringLiteral("2×"));
    QVERIFY(offeredTitle);
    QCOMPARE(received.size(), std::size_t(3)); // PNG, SVG, PDF
    QCOMPARE(received[0].scale, 3.0);
    QCOMPARE(received[0].pixelWidth, 0);
    QVERIFY(!received[0].titleLine);

    // The next dialog offers the last choices; a width in pixels this time.
    received.clear();
    answerModal([&](QDialog *dialog) {
        auto *scale = childNamed<QComboBox>(dialog, "exportScale");
        offeredScale = scale->currentText();
        offeredTitle = childNamed<QCheckBox>(dialog, "exportTitleLine")->isChecked();
        scale->setCurrentIndex(scale->findData(0.0));
        childNamed<QSpinBox>(dialog, "exportPixelWidth")->setValue(2400);
        dialog->findChild<QLineEdit *>(QStringLiteral("fileNameEdit"))->setText(m_dir.path());
        dialog->accept();
    });
    QVERIFY(!exportPlotsWithDialog(nullptr, QString(), exporter).isEmpty());
    QCOMPARE(offeredScale, QStringLiteral("3×"));
    QVERIFY(!offeredTitle);
    QCOMPARE(received.size(), std::size_t(3));
    QCOMPARE(received[0].pixelWidth, 2400);
    QCOMPARE(PlotExportOptions::stored().pixelWidth, 2400);
}

void TestPlotExport::cellWaitPlotIsMostlyData()
{
    // The selected cell's plots as the Experiments view shows them at 1280x800: the
    // lower half of the results side, the two plots side by side.
    const QString csv = m_dir.filePath(QStringLiteral("cell.csv"));
    saveTraceCsv(csv.toStdString(), batches(200, 4));
    SweepCellDetail detail;
    detail.resize(550, 240);
    detail.show();
    QVERIFY(QTest::qWaitForWindowExposed(&detail));
    QString error;
    QVERIFY2(detail.showCell(QStringLiteral("4, 16"), csv, 4, &error), qPrintable(error));
    const auto area = [](const QRect &r) { return r.width() * r.height(); };
    for (QCustomPlot *plot : {static_cast<QCustomPlot *>(detail.waitPlot()),
                              static_cast<QCustomPlot *>(detail.timelinePlot())}) {
        plot->replot();
        const QRect axes = plot->axisRect()->rect();
        const QRect legend = plot->legend->outerRect();
        const QString sizes = QStringLiteral("%1: plot %2x%3, axes %4x%5, legend %6x%7 (needs %8)")
                                  .arg(plot->objectName())
                                  .arg(plot->width())
                                  .arg(plot->height())
                                  .arg(axes.width())
                                  .arg(axes.height())
                                  .arg(legend.width())
                                  .arg(legend.height())
                                  .arg(plot->legend->minimumOuterSizeHint().width());
        // Each plot about half the width: neither legend squeezes the other plot.
        QVERIFY2(5 * plot->width() >= 2 * detail.width(), qPrintable(sizes));
        // The legend's entries fit it whole.
        QVERIFY2(plot->legend->minimumOuterSizeHint().width() <= legend.width(), qPrintable(sizes));
        // It sits outside the data or covers a third of it at most, and the data keeps
        // most of the plot's height.
        QVERIFY2(!legend.intersects(axes) || 3 * area(legend.intersected(axes)) < area(axes),
                 qPrintable(sizes));
        QVERIFY2(2 * axes.height() >= plot->height(), qPrintable(sizes));
    }

    // Exported at twice its figure layout (at least 520 px wide).
    const QString png = m_dir.filePath(QStringLiteral("cell_wait.png"));
    QVERIFY2(
        exportPlot(detail.waitPlot(), png, PlotExportOptions(), QStringLiteral("cell"), {}, &error),
        qPrintable(error));
    QCOMPARE(QImage(png).width(), 2 * figureLayout(detail.waitPlot()->size()).width());
}

LOADERLAB_TEST_MAIN(TestPlotExport)
#include "test_plot_export.moc"
