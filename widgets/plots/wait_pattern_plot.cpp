#include "widgets/plots/wait_pattern_plot.h"

#include "widgets/plots/integer_axis_ticker.h"
#include "widgets/plots/plot_hint.h"
#include "widgets/plots/plot_units.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace loaderlab {

namespace {

// A position's dots spread over this share of its slot, oldest left, newest right.
constexpr double kSpread = 0.6;

// As on the wait plot: the waits blue, their summary vermillion (Okabe-Ito).
const QColor kDotColor(0, 114, 178, 70);
using plotunits::kMedianColor;

QVector<QCPGraphData> mediansOf(const WaitFold &fold, bool p90)
{
    QVector<QCPGraphData> out;
    const auto &positions = fold.positions();
    for (std::size_t p = 0; p < positions.size(); ++p) {
        if (positions[p].count > 0)
            out.append(QCPGraphData(static_cast<double>(p),
                                    p90 ? positions[p].p90Ms : positions[p].medianMs));
    }
    return out;
}

// The tallest median or p90 of `fold`.
double tallestOf(const WaitFold &fold)
{
    double top = 0.0;
    for (const WaitFold::Position &p : fold.positions())
        top = std::max({top, p.medianMs, p.p90Ms});
    return top;
}

} // namespace

WaitPatternPlot::WaitPatternPlot(QWidget *parent)
    : LivePlot(parent)
{
    xAxis->setTicker(QSharedPointer<IntegerAxisTicker>::create());
    yAxis->setLabel(tr("wait (ms)"));
    xAxis->grid()->setVisible(false);

    m_dots = addGraph();
    m_dots->setObjectName(QStringLiteral("patternDots"));
    m_dots->setName(tr("waits"));
    m_dots->setLineStyle(QCPGraph::lsNone);
    m_dots->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kDotColor, 4));
    m_dots->setPen(QPen(kDotColor));

    m_median = addGraph();
    m_median->setObjectName(QStringLiteral("patternMedian"));
    m_median->setName(tr("median"));
    m_median->setPen(QPen(kMedianColor, 3));
    m_median->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kMedianColor, 8));

    m_p90 = addGraph();
    m_p90->setObjectName(QStringLiteral("patternP90"));
    m_p90->setName(tr("p90"));
    m_p90->setPen(QPen(kMedianColor, 1, Qt::DashLine));
    m_p90->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, kMedianColor, 5));

    legend->setVisible(true);
    legend->setFont(QFont(font().family(), 8));
    // Small swatches: the plot is narrow beside the wait plot, and three entries must fit.
    legend->setIconSize(16, 10);
    legend->setIconTextPadding(3);
    placeLegendAbove(3);

    m_hint = new QCPItemText(this);
    m_hint->setObjectName(QStringLiteral("patternHint"));
    m_hint->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_hint->position->setCoords(0.5, 0.5);
    m_hint->setColor(QColor(90, 90, 90));
    m_hint->setFont(QFont(font().family(), 8));
    // One paragraph, wrapped to the plot's width (the translation's breaks are the
    // English text's, not its own).
    plothint::setWrappedText(m_hint, tr("Each batch's wait by\nits place in the round\nof W "
                                        "batches: a spike\nevery W batches stands\nas one tall "
                                        "column.")
                                         .replace(QLatin1Char('\n'), QLatin1Char(' ')));

    xAxis->setRange(-0.5, 0.5);
    updateLabels();
}

void WaitPatternPlot::appendData(const loaderlab::TraceLog &log, std::size_t from, std::size_t)
{
    const std::size_t to = log.size();
    if (from >= to)
        return;
    // Each version's round from the log: a live change of the workers changes it.
    m_live.setRounds(log.workersByVersion(), log.ranks(), numWorkers());
    for (std::size_t i = from; i < to; ++i)
        m_live.add(log[i]);
    m_live.summarise();
    showLiveFold();
}

void WaitPatternPlot::showLiveFold()
{
    QVector<QCPGraphData> dots;
    const auto kept = static_cast<std::size_t>(std::max(m_live.roundsKept(), 1));
    for (int p = 0; p < m_live.round(); ++p) {
        const std::vector<double> &waits = m_live.waitsAt(p);
        // A slot per kept round, the newest rightmost; the oldest slots stay empty
        // until as many rounds have come. (Epochs cut short rounds, so a position may
        // hold a few more waits than rounds.)
        const std::size_t slots = std::max(kept, waits.size());
        const std::size_t firstSlot = slots - waits.size();
        for (std::size_t k = 0; k < waits.size(); ++k) {
            const double share = (static_cast<double>(firstSlot + k) + 0.5)
                                 / static_cast<double>(slots);
            dots.append(QCPGraphData(p + kSpread * (share - 0.5), waits[k]));
        }
    }
    m_dots->data()->set(dots, true);
    m_median->data()->set(mediansOf(m_live, false), true);
    m_p90->data()->set(mediansOf(m_live, true), true);
    updateLabels();
}

void WaitPatternPlot::updateLabels()
{
    if (m_live.empty())
        xAxis->setLabel(tr("position in the round"));
    else
        xAxis->setLabel(tr("position in the round of %1").arg(m_live.round()));
    m_hint->setVisible(m_live.empty() && m_overlayGraphs.empty());
}

void WaitPatternPlot::clearData()
{
    m_live.clear();
    for (QCPGraph *graph : {m_dots, m_median, m_p90})
        graph->data()->clear();
    updateLabels();
}

void WaitPatternPlot::setOverlayData(const std::vector<PlotOverlay> &overlays)
{
    for (QCPGraph *graph : m_overlayGraphs)
        removeGraph(graph);
    m_overlayGraphs.clear();
    m_overlayFolds.clear();
    for (const PlotOverlay &overlay : overlays) {
        WaitFold fold;
        fold.foldTail(*overlay.trace, overlay.workers);
        QCPGraph *graph = addGraph();
        graph->setName(tr("median: %1").arg(overlay.name));
        graph->setPen(QPen(overlay.colour, 2));
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, overlay.colour, 9));
        graph->data()->set(mediansOf(fold, false), true);
        // Behind the live run's series, above the grid.
        graph->setLayer(QStringLiteral("grid"));
        m_overlayGraphs.push_back(graph);
        m_overlayFolds.push_back(std::move(fold));
    }
    updateLabels();
}

void WaitPatternPlot::showLiveSeries(bool visible)
{
    for (QCPGraph *graph : {m_dots, m_median, m_p90})
        graph->setVisible(visible);
}

double WaitPatternPlot::markerKey(const loaderlab::TraceMarker &) const
{
    // Off every axis: LivePlot hides a marker line and label outside the axis rect.
    return std::numeric_limits<double>::quiet_NaN();
}

int WaitPatternPlot::shownRound() const
{
    int round = liveVisible() ? m_live.round() : 0;
    for (std::size_t i = 0; i < m_overlayFolds.size(); ++i) {
        if (m_overlayGraphs[i]->visible())
            round = std::max(round, m_overlayFolds[i].round());
    }
    return std::max(round, 1);
}

QCPRange WaitPatternPlot::followRange(double) const
{
    return {-0.5, static_cast<double>(shownRound()) - 0.5};
}

double WaitPatternPlot::newestKey() const
{
    return static_cast<double>(shownRound() - 1);
}

void WaitPatternPlot::fitValueAxis()
{
    double top = 0.0;
    double dotsTop = 0.0;
    if (liveVisible()) {
        top = tallestOf(m_live);
        bool found = false;
        const QCPRange dots = m_dots->getValueRange(found);
        dotsTop = found ? dots.upper : 0.0;
    }
    for (std::size_t i = 0; i < m_overlayFolds.size(); ++i) {
        if (m_overlayGraphs[i]->visible())
            top = std::max(top, tallestOf(m_overlayFolds[i]));
    }
    // Every dot while none is more than twice the tallest line.
    const double upper = std::max(top * 1.25, std::min(dotsTop, 2.0 * top));
    yAxis->setRange(0.0, std::max(upper * 1.05, 1e-3));
}

QString WaitPatternPlot::hoverText(const QPointF &pos) const
{
    if (!axisRect()->rect().contains(pos.toPoint()))
        return {};
    const long p = std::lround(xAxis->pixelToCoord(pos.x()));
    if (p < 0)
        return {};
    const auto describe = [p](const WaitFold &fold) -> QString {
        if (p >= fold.round())
            return {};
        const WaitFold::Position &at = fold.positions()[static_cast<std::size_t>(p)];
        if (at.count == 0)
            return {};
        const QString who = at.lastWorker == loaderlab::kAllWorkers ? tr("all workers")
                                                                    : workerName(at.lastWorker);
        const QString rounds = at.count == 1 ? tr("its first round")
                                             : tr("the last %1 rounds").arg(at.count);
        return tr("position %1 of %2: median %3 ms, p90 %4 ms over %5; its newest batch from "
                  "%6, config version %7")
            .arg(p)
            .arg(fold.round())
            .arg(at.medianMs, 0, 'f', 2)
            .arg(at.p90Ms, 0, 'f', 2)
            .arg(rounds, who)
            .arg(fold.version());
    };
    QStringList lines;
    if (liveVisible()) {
        if (const QString text = describe(m_live); !text.isEmpty())
            lines << text;
    }
    for (std::size_t i = 0; i < m_overlayFolds.size(); ++i) {
        const QString text = describe(m_overlayFolds[i]);
        if (!text.isEmpty() && m_overlayGraphs[i]->visible())
            lines << overlays()[i].name + QStringLiteral(": ") + text;
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace loaderlab
