#include "widgets/plot_export.h"

#include "widgets/qcustomplot_include.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace loaderlab {

namespace {

QString cannotWrite(const QString &path, const QString &reason)
{
    return QCoreApplication::translate("PlotExport", "cannot write %1: %2").arg(path, reason);
}

// Renders into memory first: QCustomPlot's own savePng/savePdf only take file names,
// and going through a buffer lets QSaveFile do the atomic replace for all formats.
bool renderPng(QCustomPlot *plot, int width, int height, QByteArray *out)
{
    const QPixmap pixmap = plot->toPixmap(width, height);
    QBuffer buffer(out);
    buffer.open(QIODevice::WriteOnly);
    return !pixmap.isNull() && pixmap.save(&buffer, "PNG");
}

bool renderSvg(QCustomPlot *plot, int width, int height, QByteArray *out)
{
    QBuffer buffer(out);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(QSize(width, height));
    generator.setViewBox(QRect(0, 0, width, height));
    generator.setTitle(plot->windowTitle());
    QCPPainter painter;
    if (!painter.begin(&generator))
        return false;
    painter.setMode(QCPPainter::pmVectorized);
    plot->toPainter(&painter, width, height);
    return painter.end();
}

bool renderPdf(QCustomPlot *plot, int width, int height, QByteArray *out)
{
    QBuffer buffer(out);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    // One device pixel per point, so the page is exactly width x height points, as
    // QCustomPlot::savePdf does it.
    writer.setResolution(72);
    writer.setCreator(QCoreApplication::applicationName());
    writer.setPageLayout(QPageLayout(
        QPageSize(QSizeF(width, height), QPageSize::Point, QString(), QPageSize::ExactMatch),
        QPageLayout::Portrait, QMarginsF(0, 0, 0, 0), QPageLayout::Point));
    QCPPainter painter;
    if (!painter.begin(&writer))
        return false;
    painter.setMode(QCPPainter::pmVectorized);
    plot->toPainter(&painter, width, height);
    return painter.end();
}

} // namespace

bool exportPlot(QCustomPlot *plot, const QString &path, int width, int height, QString *error)
{
    auto fail = [&](const QString &reason) {
        if (error)
            *error = cannotWrite(path, reason);
        return false;
    };
    if (!plot)
        return fail(QCoreApplication::translate("PlotExport", "no plot"));
    if (width <= 0 || height <= 0) {
        width = plot->width();
        height = plot->height();
    }
    if (width <= 0 || height <= 0)
        return fail(QCoreApplication::translate("PlotExport", "the plot has no size"));

    const QString suffix = QFileInfo(path).suffix().toLower();
    QByteArray bytes;
    bool rendered = false;
    if (suffix == QLatin1String("png"))
        rendered = renderPng(plot, width, height, &bytes);
    else if (suffix == QLatin1String("svg"))
        rendered = renderSvg(plot, width, height, &bytes);
    else if (suffix == QLatin1String("pdf"))
        rendered = renderPdf(plot, width, height, &bytes);
    else
        return fail(QCoreApplication::translate("PlotExport",
                                                "unknown format \"%1\" (use .png, .svg or .pdf)")
                        .arg(suffix));
    if (!rendered || bytes.isEmpty())
        return fail(QCoreApplication::translate("PlotExport", "rendering failed"));

    // QSaveFile writes a temporary file in the same directory and renames it over
    // `path` only on commit(); on any failure the old file stays as it was. Unbuffered:
    // a buffered write that the disk cuts short (full, or over the file size limit)
    // is flushed by commit(), which then reports success for the truncated file; a
    // direct write returns the short count, which is caught below.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Unbuffered))
        return fail(file.errorString());
    if (const qint64 written = file.write(bytes); written != bytes.size()) {
        const QString reason = written < 0
                                   ? file.errorString()
                                   : QCoreApplication::translate(
                                         "PlotExport", "only %1 of %2 bytes written (disk full?)")
                                         .arg(written)
                                         .arg(bytes.size());
        file.cancelWriting();
        return fail(reason);
    }
    if (!file.commit())
        return fail(file.errorString());
    return true;
}

QString exportPlotsWithDialog(QWidget *parent, const QString &startDir,
                              const PlotsExporter &exportPlots)
{
    const QString dir = QFileDialog::getExistingDirectory(
        parent, QCoreApplication::translate("PlotExport", "Export plots into folder"), startDir);
    if (dir.isEmpty())
        return {};
    QString error;
    for (const QString &format :
         {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}) {
        if (!exportPlots(dir, format, &error)) {
            QMessageBox::warning(parent, QCoreApplication::translate("PlotExport", "Export plots"),
                                 error);
            return {};
        }
    }
    return QCoreApplication::translate("PlotExport", "Wrote the plots as PNG, SVG and PDF to %1")
        .arg(QDir::toNativeSeparators(dir));
}

} // namespace loaderlab
