#include "core/io/svg_plot.h"

#include "core/system/safe_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

namespace loaderlab {

namespace {

constexpr int kLeft = 64; // room for the value axis' numbers and label
constexpr int kRight = 16;
constexpr int kBottom = 44;        // the key axis' numbers and label
constexpr double kCharWidth = 7.2; // a 12 px sans-serif character, about

std::string number(double value)
{
    char text[32];
    const double magnitude = std::abs(value);
    if (magnitude != 0.0 && (magnitude >= 1e6 || magnitude < 1e-3))
        std::snprintf(text, sizeof text, "%.0e", value);
    else
        std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

std::string fixed(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", value);
    return text;
}

// Points thinned to the lowest and highest value of each pixel column, in x order.
std::vector<std::pair<double, double>> thinned(const std::vector<std::pair<double, double>> &points,
                                               double x0, double xScale, int columns)
{
    if (points.size() <= static_cast<std::size_t>(4 * columns))
        return points;
    std::map<long, std::pair<std::pair<double, double>, std::pair<double, double>>> byColumn;
    for (const auto &p : points) {
        const long column = std::lround((p.first - x0) * xScale);
        auto [it, fresh] = byColumn.try_emplace(column, p, p);
        if (!fresh) {
            if (p.second < it->second.first.second)
                it->second.first = p;
            if (p.second > it->second.second.second)
                it->second.second = p;
        }
    }
    std::vector<std::pair<double, double>> out;
    out.reserve(byColumn.size() * 2);
    for (const auto &[column, lowHigh] : byColumn) {
        const auto &[low, high] = lowHigh;
        if (low.first <= high.first) {
            out.push_back(low);
            if (high != low)
                out.push_back(high);
        } else {
            out.push_back(high);
            out.push_back(low);
        }
    }
    return out;
}

} // namespace

std::string xmlEscape(const std::string &text)
{
    std::string out;
    for (const char c : escapeInvalidUtf8(text)) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::vector<double> niceTicks(double low, double high, int count)
{
    std::vector<double> ticks;
    if (!(high > low) || count < 1)
        return {low};
    const double raw = (high - low) / count;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    double step = power;
    for (const double factor : {1.0, 2.0, 5.0, 10.0}) {
        step = factor * power;
        if (step >= raw)
            break;
    }
    for (double t = std::ceil(low / step) * step; t <= high + step * 1e-9; t += step)
        ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
    return ticks;
}

std::string svgPlot(const SvgPlotSpec &spec)
{
    // The legend's rows under the title: as many entries side by side as fit.
    std::vector<std::vector<const SvgSeries *>> legendRows(1);
    double rowWidth = 0.0;
    const double legendWidth = spec.width - kLeft - kRight;
    for (const SvgSeries &s : spec.series) {
        const double entry = 26.0 + kCharWidth * static_cast<double>(s.name.size());
        if (rowWidth > 0.0 && rowWidth + entry > legendWidth) {
            legendRows.emplace_back();
            rowWidth = 0.0;
        }
        legendRows.back().push_back(&s);
        rowWidth += entry;
    }
    if (spec.series.empty())
        legendRows.clear();
    const int top = 28 + 16 * static_cast<int>(legendRows.size()) + 6;
    const int plotW = std::max(spec.width - kLeft - kRight, 40);
    const int plotH = std::max(spec.height - top - kBottom, 40);

    double xLow = std::numeric_limits<double>::infinity();
    double xHigh = -xLow;
    double yHigh = 0.0;
    std::size_t points = 0;
    for (const SvgSeries &s : spec.series) {
        for (const auto &[x, y] : s.points) {
            if (!std::isfinite(x) || !std::isfinite(y) || (spec.logX && x <= 0.0))
                continue;
            xLow = std::min(xLow, x);
            xHigh = std::max(xHigh, x);
            yHigh = std::max(yHigh, y);
            ++points;
        }
    }
    const auto kx = [&spec](double x) { return spec.logX ? std::log10(x) : x; };
    if (points == 0) {
        xLow = spec.logX ? 1.0 : 0.0;
        xHigh = spec.logX ? 10.0 : 1.0;
    }
    double k0 = kx(xLow);
    double k1 = kx(xHigh);
    if (spec.logX) {
        k0 = std::floor(k0);
        k1 = std::max(std::ceil(k1), k0 + 1.0);
    } else if (k1 <= k0) {
        k1 = k0 + 1.0;
    }
    const double yTop = spec.yMax > 0.0 ? spec.yMax : yHigh > 0.0 ? yHigh * 1.08 : 1.0;
    const double xScale = plotW / (k1 - k0);
    const auto px = [&](double x) { return kLeft + (kx(x) - k0) * xScale; };
    const auto py = [&](double y) { return top + plotH - y / yTop * plotH; };

    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\""
                      + std::to_string(spec.width) + "\" height=\"" + std::to_string(spec.height)
                      + "\" viewBox=\"0 0 " + std::to_string(spec.width) + " "
                      + std::to_string(spec.height)
                      + "\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\">";
    svg += "<title>" + xmlEscape(spec.title) + "</title>";
    svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>";
    svg += "<text x=\"" + std::to_string(kLeft)
           + "\" y=\"18\" font-size=\"14\" font-weight=\"bold\">" + xmlEscape(spec.title)
           + "</text>";
    for (std::size_t row = 0; row < legendRows.size(); ++row) {
        double x = kLeft;
        const int y = 28 + 16 * static_cast<int>(row) + 8;
        for (const SvgSeries *s : legendRows[row]) {
            svg += "<rect x=\"" + fixed(x) + "\" y=\"" + std::to_string(y - 8)
                   + "\" width=\"16\" height=\"8\" fill=\"" + xmlEscape(s->colour) + "\"/>";
            svg += "<text x=\"" + fixed(x + 20) + "\" y=\"" + std::to_string(y) + "\">"
                   + xmlEscape(s->name) + "</text>";
            x += 26.0 + kCharWidth * static_cast<double>(s->name.size());
        }
    }
    // Grid and ticks.
    svg += "<g stroke=\"#dddddd\">";
    std::string tickText;
    for (const double t : niceTicks(0.0, yTop, 5)) {
        svg += "<line x1=\"" + std::to_string(kLeft) + "\" x2=\"" + std::to_string(kLeft + plotW)
               + "\" y1=\"" + fixed(py(t)) + "\" y2=\"" + fixed(py(t)) + "\"/>";
        tickText += "<text x=\"" + std::to_string(kLeft - 4) + "\" y=\"" + fixed(py(t) + 4)
                    + "\" text-anchor=\"end\">" + number(t) + "</text>";
    }
    std::vector<double> xTicks;
    if (spec.logX) {
        for (double e = k0; e <= k1 + 1e-9; e += 1.0)
            xTicks.push_back(std::pow(10.0, e));
    } else {
        xTicks = niceTicks(k0, k1, std::max(2, plotW / 90));
    }
    for (const double t : xTicks) {
        svg += "<line y1=\"" + std::to_string(top) + "\" y2=\"" + std::to_string(top + plotH)
               + "\" x1=\"" + fixed(px(t)) + "\" x2=\"" + fixed(px(t)) + "\"/>";
        tickText += "<text x=\"" + fixed(px(t)) + "\" y=\"" + std::to_string(top + plotH + 16)
                    + "\" text-anchor=\"middle\">" + number(t) + "</text>";
    }
    svg += "</g>" + tickText;
    svg += "<rect x=\"" + std::to_string(kLeft) + "\" y=\"" + std::to_string(top) + "\" width=\""
           + std::to_string(plotW) + "\" height=\"" + std::to_string(plotH)
           + "\" fill=\"none\" stroke=\"#444444\"/>";
    svg += "<text x=\"" + std::to_string(kLeft + plotW / 2) + "\" y=\""
           + std::to_string(spec.height - 8) + "\" text-anchor=\"middle\">" + xmlEscape(spec.xLabel)
           + "</text>";
    svg += "<text transform=\"translate(14 " + std::to_string(top + plotH / 2)
           + ") rotate(-90)\" text-anchor=\"middle\">" + xmlEscape(spec.yLabel) + "</text>";

    // Markers: a line each; labels only where the one before has ended.
    double labelsEnd = -1e300;
    for (const SvgMarker &m : spec.markers) {
        if (!std::isfinite(m.x) || kx(m.x) < k0 || kx(m.x) > k1)
            continue;
        const double x = px(m.x);
        svg += "<line x1=\"" + fixed(x) + "\" x2=\"" + fixed(x) + "\" y1=\"" + std::to_string(top)
               + "\" y2=\"" + std::to_string(top + plotH) + "\" stroke=\""
               + (m.faint ? "#bbbbbb\" stroke-dasharray=\"1 3\""
                          : "#666666\" stroke-dasharray=\"4 3\"")
               + "/>";
        const double width = kCharWidth * static_cast<double>(m.label.size()) + 4.0;
        if (!m.label.empty() && x >= labelsEnd && x + width <= kLeft + plotW) {
            svg += "<text x=\"" + fixed(x + 2) + "\" y=\"" + std::to_string(top + 12)
                   + "\" font-size=\"10\" fill=\"" + (m.faint ? "#888888" : "#333333") + "\""
                   + (m.faint ? " font-style=\"italic\"" : "") + ">" + xmlEscape(m.label)
                   + "</text>";
            labelsEnd = x + width;
        }
    }

    // The series, clipped to the axes. The clip is a definition: renderers that draw
    // no clip paths (Qt's SVG Tiny) then skip it instead of filling its rectangle.
    const std::string clip = xmlEscape(spec.id) + "-clip";
    svg += "<defs><clipPath id=\"" + clip + "\"><rect x=\"" + std::to_string(kLeft) + "\" y=\""
           + std::to_string(top) + "\" width=\"" + std::to_string(plotW) + "\" height=\""
           + std::to_string(plotH) + "\"/></clipPath></defs><g clip-path=\"url(#" + clip + ")\">";
    for (const SvgSeries &s : spec.series) {
        std::vector<std::pair<double, double>> finite;
        for (const auto &p : s.points)
            if (std::isfinite(p.first) && std::isfinite(p.second) && !(spec.logX && p.first <= 0.0))
                finite.push_back(p);
        if (s.style != SvgSeries::Style::Dots)
            std::stable_sort(finite.begin(), finite.end(),
                             [](const auto &a, const auto &b) { return a.first < b.first; });
        const auto shown = thinned(finite, k0, xScale, plotW);
        if (s.style == SvgSeries::Style::Dots) {
            svg += "<g fill=\"" + xmlEscape(s.colour) + "\">";
            for (const auto &[x, y] : shown)
                svg += "<circle cx=\"" + fixed(px(x)) + "\" cy=\"" + fixed(py(y))
                       + "\" r=\"1.5\"/>";
            svg += "</g>";
            continue;
        }
        std::string path;
        for (std::size_t i = 0; i < shown.size(); ++i) {
            const auto &[x, y] = shown[i];
            if (i == 0)
                path += "M" + fixed(px(x)) + " " + fixed(py(y));
            else if (s.style == SvgSeries::Style::Steps)
                path += "H" + fixed(px(x)) + "V" + fixed(py(y));
            else
                path += "L" + fixed(px(x)) + " " + fixed(py(y));
        }
        if (!path.empty())
            svg += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + xmlEscape(s.colour)
                   + "\" stroke-width=\"1.5\"" + (s.dashed ? " stroke-dasharray=\"6 3\"" : "")
                   + "/>";
    }
    svg += "</g>";
    if (points == 0)
        svg += "<text x=\"" + std::to_string(kLeft + plotW / 2) + "\" y=\""
               + std::to_string(top + plotH / 2) + "\" text-anchor=\"middle\" fill=\"#888888\">"
               + "no data</text>";
    svg += "</svg>";
    return svg;
}

} // namespace loaderlab
