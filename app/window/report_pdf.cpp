#include "app/window/report_pdf.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QFont>
#include <QGuiApplication>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QScreen>
#include <QSvgRenderer>
#include <QTextDocument>
#include <QUrl>

#include <algorithm>
#include <vector>

namespace loaderlab {

namespace {

constexpr int kImageScale = 3; // image pixels per SVG pixel: sharp when printed
constexpr int kDpi = 300;

QString cannotWrite(const QString &path, const QString &reason)
{
    return QCoreApplication::translate("ReportPdf", "cannot write %1: %2").arg(path, reason);
}

QString plotName(std::size_t i)
{
    return QStringLiteral("loaderlab-plot-%1").arg(i);
}

} // namespace

std::string htmlWithPlotImages(const std::string &html, std::vector<std::string> *svgs)
{
    std::string out;
    std::size_t from = 0;
    while (true) {
        const std::size_t start = html.find("<svg", from);
        const std::size_t end = start == std::string::npos ? start : html.find("</svg>", start);
        if (end == std::string::npos) {
            out += html.substr(from);
            return out;
        }
        const std::size_t stop = end + 6;
        out += html.substr(from, start - from);
        out += "<img src=\"" + plotName(svgs->size()).toStdString() + "\">";
        svgs->push_back(html.substr(start, stop - start));
        from = stop;
    }
}

bool saveReportPdf(const std::string &html, const QString &title, const QString &path,
                   QString *error)
{
    std::vector<std::string> svgs;
    const std::string text = htmlWithPlotImages(html, &svgs);
    std::vector<double> widths; // each plot's on the page

    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    writer.setResolution(kDpi);
    writer.setTitle(title);
    writer.setCreator(QCoreApplication::applicationName());
    // No margins here: QTextDocument::print lays the report out on the page with 2 cm
    // margins of its own and numbers the pages.
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait,
                                     QMarginsF(0, 0, 0, 0), QPageLayout::Millimeter));

    QTextDocument document;
    QFont font = document.defaultFont();
    font.setPointSizeF(9.0);
    document.setDefaultFont(font);
    // The text's width on the page in the document's pixels (the screen's logical dpi,
    // as print() scales them): the plots are drawn at most that wide.
    const QScreen *screen = QGuiApplication::primaryScreen();
    const double dpi = screen ? screen->logicalDotsPerInchX() : 96.0;
    const double textWidth = (210.0 - 2 * 20.0) / 25.4 * dpi;
    for (std::size_t i = 0; i < svgs.size(); ++i) {
        QSvgRenderer renderer(QByteArray::fromStdString(svgs[i]));
        if (!renderer.isValid()) {
            *error = cannotWrite(path, QCoreApplication::translate(
                                           "ReportPdf", "plot %1 of the report is not valid SVG")
                                           .arg(i + 1));
            return false;
        }
        const QSize size = renderer.defaultSize();
        QImage image(size * kImageScale, QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        renderer.render(&painter);
        painter.end();
        document.addResource(QTextDocument::ImageResource, QUrl(plotName(i)), image);
        widths.push_back(std::min(static_cast<double>(size.width()), textWidth));
    }
    QString laidOut = QString::fromStdString(text);
    // Qt's rich text knows no <figure>: as a block, each plot stands on its own.
    laidOut.replace(QStringLiteral("<figure>"), QStringLiteral("<div>"));
    laidOut.replace(QStringLiteral("</figure>"), QStringLiteral("</div>"));
    for (std::size_t i = 0; i < widths.size(); ++i)
        laidOut.replace(QStringLiteral("<img src=\"%1\">").arg(plotName(i)),
                        QStringLiteral("<img src=\"%1\" width=\"%2\">")
                            .arg(plotName(i))
                            .arg(static_cast<int>(widths[i])));
    document.setHtml(laidOut);
    document.print(&writer);
    buffer.close();
    if (bytes.isEmpty()) {
        *error = cannotWrite(path, QCoreApplication::translate("ReportPdf", "rendering failed"));
        return false;
    }

    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Unbuffered)
        || file.write(bytes) != bytes.size() || !file.commit()) {
        *error = cannotWrite(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace loaderlab
