#pragma once

// The one-file report as a PDF: the HTML of core/io/html_report.h laid out by Qt's
// rich-text engine (QTextDocument: headings, paragraphs, tables) on numbered A4 pages,
// each of its inline SVG plots drawn by QSvgRenderer into an image three times its
// size and placed at most the text's width, so the PDF needs no browser. Its Title is the report's
// title. Written next to `path` and renamed into place only when complete: a failure leaves any
// file there as it was.

#include <QString>

#include <string>
#include <vector>

namespace loaderlab {

// False with `error` ("cannot write PATH: REASON") when it cannot be written.
bool saveReportPdf(const std::string &html, const QString &title, const QString &path,
                   QString *error);

// The report's HTML with each <svg>…</svg> replaced by an <img> of the name
// "loaderlab-plot-N" (N from 0), and those SVG documents in order: what the PDF's
// layout draws as images.
std::string htmlWithPlotImages(const std::string &html, std::vector<std::string> *svgs);

} // namespace loaderlab
