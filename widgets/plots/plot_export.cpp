#include "widgets/plots/plot_export.h"

#include "widgets/plots/qcustomplot_include.h"

#include <QBuffer>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSettings>
#include <QSpinBox>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

namespace loaderlab {

namespace {

QString cannotWrite(const QString &path, const QString &reason)
{
    return QCoreApplication::translate("PlotExport", "cannot write %1: %2").arg(path, reason);
}

constexpr double kTitleMargin = 4.0; // around the title's text, in screen pixels
constexpr int kMinPixelWidth = 200;
constexpr int kMaxPixelWidth = 20'000;

// The title line as drawn above the plot: each line of `text` wrapped to the plot's
// width, the first bold, in the plot's font. Measured on the device it is drawn on (an
// SVG or PDF has 72 dpi, the screen and a PNG more), as the text then comes out.
class TitleBlock
{
public:
    TitleBlock(const QCustomPlot *plot, const QString &text, int width, const QPaintDevice *device)
        : m_width(width)
    {
        if (text.isEmpty())
            return;
        QFont bold = plot->font();
        bold.setBold(true);
        QFont normal = plot->font();
        normal.setPointSizeF(normal.pointSizeF() * 0.9);
        m_height = kTitleMargin;
        const QStringList lines = text.split(QLatin1Char('\n'));
        for (qsizetype i = 0; i < lines.size(); ++i) {
            const QFont &font = i == 0 ? bold : normal;
            const QFontMetricsF metrics(font, device);
            const QString line = breakAtSeparators(lines[i], metrics);
            const double lineHeight =
                metrics.boundingRect(textRect(0.0, 1e6), kFlags, line).height();
            m_lines.push_back({line, font, m_height, lineHeight});
            m_height += lineHeight;
        }
        m_height = std::ceil(m_height + kTitleMargin);
    }

    int height() const { return static_cast<int>(m_height); }

    void draw(QCPPainter *painter) const
    {
        painter->save();
        painter->setPen(QColor(30, 30, 30));
        for (const Line &line : m_lines) {
            painter->setFont(line.font);
            painter->drawText(textRect(line.top, line.height), kFlags, line.text);
        }
        painter->restore();
    }

private:
    static constexpr int kFlags = Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap;

    struct Line
    {
        QString text;
        QFont font;
        double top;
        double height;
    };

    // Where a line is wider than the plot, breaks it after a ", ", "; " or " · " rather
    // than inside "batch 32" (a phrase too wide alone is still wrapped at its spaces).
    QString breakAtSeparators(const QString &line, const QFontMetricsF &metrics) const
    {
        static const QRegularExpression separator(QStringLiteral("(?<=, |; | · )"));
        const double room = textRect(0.0, 0.0).width();
        QStringList broken{QString()};
        for (const QString &phrase : line.split(separator)) {
            QString &last = broken.back();
            if (last.isEmpty() || metrics.horizontalAdvance((last + phrase).trimmed()) <= room)
                last += phrase;
            else
                broken << phrase;
        }
        for (QString &part : broken)
            part = part.trimmed();
        return broken.join(QLatin1Char('\n'));
    }

    QRectF textRect(double top, double height) const
    {
        return {kTitleMargin, top, std::max(1.0, m_width - 2 * kTitleMargin), height};
    }

    double m_width;
    double m_height = 0.0;
    std::vector<Line> m_lines;
};

// QCustomPlot has no getter for its background brush; the plots of this app keep its
// default, white.
const QColor kBackground(Qt::white);

// Draws the title, then the plot below it, laid out at width x height.
void drawPlot(QCPPainter *painter, QCustomPlot *plot, const TitleBlock &title, int width,
              int height)
{
    if (title.height() > 0) {
        painter->fillRect(QRectF(0, 0, width, title.height()), kBackground);
        title.draw(painter);
        painter->translate(0, title.height());
    }
    plot->toPainter(painter, width, height);
}

// Renders into memory first: QCustomPlot's own savePng/savePdf only take file names,
// and going through a buffer lets QSaveFile do the atomic replace for all formats.
bool renderPng(QCustomPlot *plot, int width, int height, const QString &titleText, double scale,
               QByteArray *out)
{
    const TitleBlock title(plot, titleText, width, plot); // a pixmap has the screen's dpi
    QPixmap pixmap(static_cast<int>(std::lround(width * scale)),
                   static_cast<int>(std::lround((height + title.height()) * scale)));
    if (pixmap.isNull())
        return false;
    pixmap.fill(kBackground);
    QCPPainter painter;
    if (!painter.begin(&pixmap))
        return false;
    // As QCustomPlot::toPixmap draws a scaled plot: line widths scale with the rest.
    if (scale > 1.0)
        painter.setMode(QCPPainter::pmNonCosmetic);
    painter.scale(scale, scale);
    drawPlot(&painter, plot, title, width, height);
    painter.end();
    QBuffer buffer(out);
    buffer.open(QIODevice::WriteOnly);
    return pixmap.save(&buffer, "PNG");
}

// At least this wide, and between these shares of the width tall: the window's plots
// are laid out for the screen (the wait pattern 250 px wide, the timeline a strip
// 930 x 240 at 1280 x 800), which as a figure gives a title of many lines or an odd
// shape.
constexpr int kMinFigureWidth = 520;
constexpr double kMinFigureAspect = 0.45;
constexpr double kMaxFigureAspect = 0.8;

// The file's own title (a PDF's Title, an SVG's <title>): the title line's first line,
// what the plot shows, whether or not the line is drawn.
QString documentTitle(const QCustomPlot *plot, const QString &title)
{
    const QString first = title.section(QLatin1Char('\n'), 0, 0).trimmed();
    return first.isEmpty() ? plot->windowTitle() : first;
}

bool renderSvg(QCustomPlot *plot, int width, int height, const QString &titleText,
               const QString &documentName, QByteArray *out)
{
    QBuffer buffer(out);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    // The screen's resolution, as for a PDF (below): text the size the plot's layout
    // made room for, and the drawing width x height CSS pixels.
    generator.setResolution(plot->logicalDpiX() > 0 ? plot->logicalDpiX() : 96);
    const TitleBlock title(plot, titleText, width, &generator);
    generator.setOutputDevice(&buffer);
    const int fullHeight = height + title.height();
    generator.setSize(QSize(width, fullHeight));
    generator.setViewBox(QRect(0, 0, width, fullHeight));
    generator.setTitle(documentName);
    QCPPainter painter;
    if (!painter.begin(&generator))
        return false;
    painter.setMode(QCPPainter::pmVectorized);
    drawPlot(&painter, plot, title, width, height);
    return painter.end();
}

bool renderPdf(QCustomPlot *plot, int width, int height, const QString &titleText,
               const QString &documentName, QByteArray *out)
{
    QBuffer buffer(out);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    // One device pixel per screen pixel: the plot lays its legend and labels out with
    // the screen's font metrics, and at 72 dpi (QCustomPlot::savePdf's choice) its
    // 8 pt text came out smaller than the room it was given, off its swatches.
    const int dpi = plot->logicalDpiX() > 0 ? plot->logicalDpiX() : 96;
    writer.setResolution(dpi);
    const TitleBlock title(plot, titleText, width, &writer);
    writer.setCreator(QCoreApplication::applicationName());
    writer.setTitle(documentName);
    const double pointsPerPixel = 72.0 / dpi;
    writer.setPageLayout(QPageLayout(
        QPageSize(QSizeF(width * pointsPerPixel, (height + title.height()) * pointsPerPixel),
                  QPageSize::Point, QString(), QPageSize::ExactMatch),
        QPageLayout::Portrait, QMarginsF(0, 0, 0, 0), QPageLayout::Point));
    QCPPainter painter;
    if (!painter.begin(&writer))
        return false;
    painter.setMode(QCPPainter::pmVectorized);
    drawPlot(&painter, plot, title, width, height);
    return painter.end();
}

// Writes `bytes` to `path` atomically.
bool writeAtomically(const QString &path, const QByteArray &bytes, QString *reason)
{
    // QSaveFile writes a temporary file in the same directory and renames it over
    // `path` only on commit(); on any failure the old file stays as it was. Unbuffered:
    // a buffered write that the disk cuts short (full, or over the file size limit)
    // is flushed by commit(), which then reports success for the truncated file; a
    // direct write returns the short count, which is caught below.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Unbuffered)) {
        *reason = file.errorString();
        return false;
    }
    if (const qint64 written = file.write(bytes); written != bytes.size()) {
        *reason = written < 0 ? file.errorString()
                              : QCoreApplication::translate(
                                    "PlotExport", "only %1 of %2 bytes written (disk full?)")
                                    .arg(written)
                                    .arg(bytes.size());
        file.cancelWriting();
        return false;
    }
    if (!file.commit()) {
        *reason = file.errorString();
        return false;
    }
    return true;
}

} // namespace

QSize figureLayout(QSize screen)
{
    const int width = std::max(screen.width(), kMinFigureWidth);
    const int height = std::clamp(screen.height(),
                                  static_cast<int>(std::lround(width * kMinFigureAspect)),
                                  static_cast<int>(std::lround(width * kMaxFigureAspect)));
    return {width, height};
}

PlotExportOptions PlotExportOptions::stored()
{
    const QSettings settings;
    PlotExportOptions options;
    const double scale =
        settings.value(QStringLiteral("export/pngScale"), options.scale).toDouble();
    if (scale >= 1.0 && scale <= 4.0)
        options.scale = scale;
    const int pixelWidth = settings.value(QStringLiteral("export/pngWidth"), 0).toInt();
    if (pixelWidth >= kMinPixelWidth && pixelWidth <= kMaxPixelWidth)
        options.pixelWidth = pixelWidth;
    options.titleLine = settings.value(QStringLiteral("export/titleLine"), true).toBool();
    return options;
}

void PlotExportOptions::store() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("export/pngScale"), scale);
    settings.setValue(QStringLiteral("export/pngWidth"), pixelWidth);
    settings.setValue(QStringLiteral("export/titleLine"), titleLine);
}

bool exportPlot(QCustomPlot *plot, const QString &path, const PlotExportOptions &options,
                const QString &title, QSize layoutSize, QString *error)
{
    auto fail = [&](const QString &reason) {
        if (error)
            *error = cannotWrite(path, reason);
        return false;
    };
    if (!plot)
        return fail(QCoreApplication::translate("PlotExport", "no plot"));
    if (layoutSize.isEmpty())
        layoutSize = figureLayout(plot->size());
    const int width = layoutSize.width();
    const int height = layoutSize.height();
    if (width <= 0 || height <= 0)
        return fail(QCoreApplication::translate("PlotExport", "the plot has no size"));

    const QString titleText = options.titleLine ? title : QString();
    const QString suffix = QFileInfo(path).suffix().toLower();
    QByteArray bytes;
    bool rendered = false;
    if (suffix == QLatin1String("png")) {
        const double scale = options.pixelWidth > 0 ? double(options.pixelWidth) / width
                                                    : std::max(options.scale, 0.1);
        rendered = renderPng(plot, width, height, titleText, scale, &bytes);
    } else if (suffix == QLatin1String("svg")) {
        rendered = renderSvg(plot, width, height, titleText, documentTitle(plot, title), &bytes);
    } else if (suffix == QLatin1String("pdf")) {
        rendered = renderPdf(plot, width, height, titleText, documentTitle(plot, title), &bytes);
    } else {
        return fail(QCoreApplication::translate("PlotExport",
                                                "unknown format \"%1\" (use .png, .svg or .pdf)")
                        .arg(suffix));
    }
    // Rendering laid the plot out at the export's size; on screen it is laid out at
    // its own again (axis rects, marker labels, what the mouse hits).
    if (layoutSize != plot->size())
        plot->replot();
    if (!rendered || bytes.isEmpty())
        return fail(QCoreApplication::translate("PlotExport", "rendering failed"));
    QString reason;
    if (!writeAtomically(path, bytes, &reason))
        return fail(reason);
    return true;
}

bool exportPlot(QCustomPlot *plot, const QString &path, int width, int height, QString *error)
{
    PlotExportOptions options;
    options.scale = 1.0;
    options.titleLine = false;
    // 0 x 0: the widget's own size, as it is (not a figure's layout).
    const QSize size = width > 0 && height > 0 ? QSize(width, height)
                       : plot                  ? plot->size()
                                               : QSize();
    return exportPlot(plot, path, options, QString(), size, error);
}

namespace {

// The folder dialog with the export choices below the file list (Qt's own dialog: a
// native one cannot take widgets). False when cancelled.
bool askFolderAndOptions(QWidget *parent, const QString &startDir, QString *dir,
                         PlotExportOptions *options)
{
    QFileDialog dialog(
        parent, QCoreApplication::translate("PlotExport", "Export plots into folder"), startDir);
    dialog.setFileMode(QFileDialog::Directory);
    dialog.setOptions(QFileDialog::ShowDirsOnly | QFileDialog::DontUseNativeDialog);

    *options = PlotExportOptions::stored();
    auto *size = new QComboBox;
    size->setObjectName(QStringLiteral("exportScale"));
    size->setToolTip(QCoreApplication::translate(
        "PlotExport", "PNG: the plots as laid out on screen, drawn this much finer. SVG and "
                      "PDF are vector drawings."));
    size->addItem(QCoreApplication::translate("PlotExport", "1× (screen size)"), 1.0);
    size->addItem(QCoreApplication::translate("PlotExport", "2×"), 2.0);
    size->addItem(QCoreApplication::translate("PlotExport", "3×"), 3.0);
    size->addItem(QCoreApplication::translate("PlotExport", "Width in pixels:"), 0.0);
    auto *pixels = new QSpinBox;
    pixels->setObjectName(QStringLiteral("exportPixelWidth"));
    pixels->setRange(kMinPixelWidth, kMaxPixelWidth);
    pixels->setSingleStep(100);
    pixels->setSuffix(QCoreApplication::translate("PlotExport", " px"));
    pixels->setValue(options->pixelWidth > 0 ? options->pixelWidth : 1600);
    const int chosen = options->pixelWidth > 0 ? size->count() - 1
                                               : size->findData(std::round(options->scale));
    size->setCurrentIndex(chosen >= 0 ? chosen : 1);
    pixels->setEnabled(options->pixelWidth > 0);
    QObject::connect(size, &QComboBox::currentIndexChanged, pixels,
                     [size, pixels] { pixels->setEnabled(size->currentData().toDouble() == 0.0); });
    auto *title = new QCheckBox(QCoreApplication::translate(
        "PlotExport", "Title line above each plot (the run, its settings, the date)"));
    title->setObjectName(QStringLiteral("exportTitleLine"));
    title->setChecked(options->titleLine);

    if (auto *grid = qobject_cast<QGridLayout *>(dialog.layout())) {
        const int row = grid->rowCount();
        const int span = std::max(1, grid->columnCount() - 1);
        auto *sizeRow = new QHBoxLayout;
        sizeRow->addWidget(size);
        sizeRow->addWidget(pixels);
        sizeRow->addStretch();
        grid->addWidget(new QLabel(QCoreApplication::translate("PlotExport", "PNG size:")), row, 0);
        grid->addLayout(sizeRow, row, 1, 1, span);
        grid->addWidget(title, row + 1, 1, 1, span);
    }
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty())
        return false;
    *dir = dialog.selectedFiles().constFirst();
    const double scale = size->currentData().toDouble();
    options->scale = scale > 0.0 ? scale : 2.0;
    options->pixelWidth = scale > 0.0 ? 0 : pixels->value();
    options->titleLine = title->isChecked();
    options->store();
    return !dir->isEmpty();
}

} // namespace

QString exportPlotsWithDialog(QWidget *parent, const QString &startDir,
                              const PlotsExporterWithOptions &exportPlots)
{
    QString dir;
    PlotExportOptions options;
    if (!askFolderAndOptions(parent, startDir, &dir, &options))
        return {};
    QString error;
    for (const QString &format :
         {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}) {
        if (!exportPlots(dir, format, options, &error)) {
            QMessageBox::warning(parent, QCoreApplication::translate("PlotExport", "Export plots"),
                                 error);
            return {};
        }
    }
    return QCoreApplication::translate("PlotExport", "Wrote the plots as PNG, SVG and PDF to %1")
        .arg(QDir::toNativeSeparators(dir));
}

} // namespace loaderlab
