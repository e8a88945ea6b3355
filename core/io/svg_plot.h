#pragma once

// SVG plots for reports: a titled plot of a few series (dots, lines or steps) with
// ticked axes, a legend and labelled vertical markers, as one <svg> element to inline
// in HTML. Dense series are thinned to the pixels they cover (the lowest and highest
// value of each pixel column), so a run of a million batches draws as fast as one of
// a thousand and looks the same. No display, no Qt: it runs on a headless server.

#include <string>
#include <utility>
#include <vector>

namespace loaderlab {

struct SvgSeries
{
    enum class Style { Dots, Line, Steps };
    std::string name;
    std::string colour; // CSS colour, e.g. "#0072B2"
    Style style = Style::Line;
    bool dashed = false;
    std::vector<std::pair<double, double>> points; // x rising for Line and Steps
};

struct SvgMarker
{
    double x = 0.0;
    std::string label;  // short: "#4", "e12"
    bool faint = false; // epochs: light and dotted
};

struct SvgPlotSpec
{
    std::string id = "plot"; // unique within the page (its clip path's name)
    std::string title;
    std::string xLabel;
    std::string yLabel;
    int width = 900;
    int height = 300;
    bool logX = false; // x > 0 only; ticks at powers of ten
    std::vector<SvgSeries> series;
    std::vector<SvgMarker> markers;
    double yMax = 0.0; // the top of the y axis (what is above is cut); 0: above the highest point
};

// The plot as "<svg ...>...</svg>". A plot without any point says so in its middle.
std::string svgPlot(const SvgPlotSpec &spec);

// Text for XML and HTML: & < > " ' as entities, bytes that are not UTF-8 as \xHH.
std::string xmlEscape(const std::string &text);

// Tick positions for [low, high]: about `count` round values (1, 2 or 5 times a power
// of ten apart), all within the range.
std::vector<double> niceTicks(double low, double high, int count);

} // namespace loaderlab
