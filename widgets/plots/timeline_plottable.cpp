#include "widgets/plots/timeline_plottable.h"

#include "widgets/plots/plot_units.h"
#include "widgets/plots/timeline_rect_painter.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace loaderlab {

namespace {

constexpr std::size_t kBlock = 32;
using plotunits::kNsPerS;
constexpr double kLaneHalf = 0.4;
// How far (in batches) a worker may run ahead of the consumer; spans of batches
// further from the visible records than this are assumed off-screen.
constexpr std::int64_t kSpanMargin = 64;

// The consumer lane's colours, in the legend as "waiting" and "computing".
const QColor kWait(213, 94, 0);
const QColor kCompute(0, 158, 115);
// Data-parallel steps: Okabe-Ito's orange beside the wait's vermillion (both waits,
// in the lower half) and black beside the step's green (both work, the upper half).
const QColor kSync(230, 159, 0);
const QColor kExchange(0, 0, 0);
constexpr int kConsumerParts = 4;
// The colour of each part, in consumerStream's order.
const std::array<QColor, kConsumerParts> kPartColors = {kWait, kCompute, kSync, kExchange};
// Batches: Okabe-Ito's blues, yellow and purple, a further purple and two greys,
// none of them the consumer's vermillion or green nor near them (CIE76 colour
// difference at least 50), ordered so that consecutive batches (side by side on the
// lanes) and every second one (one lane with 2 workers) differ by at least 40. Seven,
// a prime, so that only a multiple of 7 workers repeats a colour along a lane.
const std::array<QColor, 7> kBatchColors = {
    QColor(0, 114, 178),   QColor(204, 121, 167), QColor(96, 96, 96),   QColor(86, 180, 233),
    QColor(148, 103, 189), QColor(240, 228, 66),  QColor(190, 190, 190)};
const QColor kLoaderMerged(0, 114, 178);

std::int64_t toNs(double seconds)
{
    // Clamped so that zooming out absurdly far cannot overflow the conversion.
    return static_cast<std::int64_t>(std::clamp(seconds * kNsPerS, -9e18, 9e18));
}

// Calls `part(k, start, end)` for each consumer part record `r` took, in
// consumerStream's order: waiting, computing, waiting for the slowest rank, exchanging.
template <typename Part>
void forConsumerParts(const loaderlab::TraceRecord &r, Part part)
{
    if (r.deliveryNs >= r.requestNs)
        part(0, r.requestNs, r.deliveryNs);
    if (r.computeEndNs > r.computeStartNs)
        part(1, r.computeStartNs, r.computeEndNs);
    if (r.syncEndNs > r.syncStartNs)
        part(2, r.syncStartNs, r.syncEndNs);
    if (r.exchangeEndNs > r.syncEndNs && r.syncEndNs > 0)
        part(3, r.syncEndNs, r.exchangeEndNs);
}

} // namespace

TimelinePlottable::TimelinePlottable(QCPAxis *keyAxis, QCPAxis *valueAxis)
    : QCPAbstractPlottable(keyAxis, valueAxis)
{
    setName(tr("worker busy (colour = batch)"));
    setSelectable(QCP::stNone);
    setTrace(nullptr, 0);
}

void TimelinePlottable::setTrace(const loaderlab::TraceLog *log, int numWorkers, int ranks)
{
    m_log = log;
    m_numWorkers = std::max(numWorkers, 0);
    m_ranks = std::max(ranks, 1);
    m_loaderLanes = std::max(m_numWorkers, 1) * m_ranks;
    m_records = 0;
    m_spans = 0;
    m_minNs = 0;
    m_maxNs = 0;
    m_any = false;
    m_streams.assign(static_cast<std::size_t>(m_loaderLanes + kConsumerParts * m_ranks), Stream{});
}

std::size_t TimelinePlottable::consumerStream(std::int32_t rank, int part) const
{
    const int r = std::clamp(rank, 0, m_ranks - 1);
    return static_cast<std::size_t>(m_loaderLanes + kConsumerParts * r + part);
}

int TimelinePlottable::laneOf(std::int32_t worker, std::int32_t rank) const
{
    if (rank < 0 || rank >= m_ranks)
        return -1;
    if (m_numWorkers == 0)
        return worker == loaderlab::kConsumerThread ? rank : -1;
    return worker >= 0 && worker < m_numWorkers ? rank * m_numWorkers + worker : -1;
}

void TimelinePlottable::addToIndex(std::size_t stream, std::int64_t startNs, std::int64_t endNs)
{
    Stream &s = m_streams[stream];
    if (s.blocks.empty() || s.openCount == static_cast<int>(kBlock)) {
        s.blocks.push_back({startNs, endNs, 0});
        s.openCount = 0;
    }
    if (s.blocks.size() > kMaxBlocks)
        coarsen(s);
    Block &b = s.blocks.back();
    b.startNs = std::min(b.startNs, startNs);
    b.endNs = std::max(b.endNs, endNs);
    b.busyNs += endNs - startNs;
    ++s.openCount;
    m_minNs = m_any ? std::min(m_minNs, startNs) : startNs;
    m_maxNs = m_any ? std::max(m_maxNs, endNs) : endNs;
    m_any = true;
}

void TimelinePlottable::sync()
{
    if (!m_log)
        return;
    const std::size_t records = m_log->size();
    const std::size_t spans = m_log->spanCount();
    // Batches the run freed before they were indexed (its log keeps the last N).
    m_records = std::max(m_records, m_log->firstKept());
    m_spans = std::max(m_spans, m_log->firstSpanKept());
    for (; m_records < records; ++m_records) {
        const loaderlab::TraceRecord &r = (*m_log)[m_records];
        forConsumerParts(r, [&](int part, std::int64_t start, std::int64_t end) {
            addToIndex(consumerStream(r.rank, part), start, end);
        });
    }
    for (; m_spans < spans; ++m_spans) {
        const loaderlab::WorkerSpan &span = m_log->span(m_spans);
        const int lane = laneOf(span.worker, span.rank);
        if (lane >= 0 && span.endNs >= span.startNs)
            addToIndex(static_cast<std::size_t>(lane), span.startNs, span.endNs);
    }
}

void TimelinePlottable::coarsen(Stream &stream)
{
    // Pairs of closed blocks become one (the open one stays last): the index of a
    // run of any length stays within kMaxBlocks a stream, its oldest part coarser.
    std::vector<Block> &blocks = stream.blocks;
    const std::size_t closed = blocks.size() - 1;
    std::size_t out = 0;
    for (std::size_t i = 0; i < closed; i += 2) {
        Block merged = blocks[i];
        if (i + 1 < closed) {
            merged.startNs = std::min(merged.startNs, blocks[i + 1].startNs);
            merged.endNs = std::max(merged.endNs, blocks[i + 1].endNs);
            merged.busyNs += blocks[i + 1].busyNs;
        }
        blocks[out++] = merged;
    }
    blocks[out++] = blocks.back();
    blocks.resize(out);
}

double TimelinePlottable::newestSeconds() const
{
    return m_any ? static_cast<double>(m_maxNs) / kNsPerS : 0.0;
}

double TimelinePlottable::selectTest(const QPointF &, bool, QVariant *) const
{
    return -1.0;
}

QCPRange TimelinePlottable::getKeyRange(bool &foundRange, QCP::SignDomain inSignDomain) const
{
    const QCPRange range(static_cast<double>(m_minNs) / kNsPerS,
                         static_cast<double>(m_maxNs) / kNsPerS);
    foundRange = m_any && !(inSignDomain == QCP::sdNegative && range.lower >= 0.0);
    return range;
}

QCPRange TimelinePlottable::getValueRange(bool &foundRange, QCP::SignDomain, const QCPRange &) const
{
    foundRange = true;
    return {m_offset - 0.5, m_offset + static_cast<double>(topLane()) + 0.5};
}

QColor TimelinePlottable::batchColor(std::int64_t batch)
{
    const auto n = static_cast<std::int64_t>(kBatchColors.size());
    return kBatchColors[static_cast<std::size_t>(((batch % n) + n) % n)];
}

QColor TimelinePlottable::boxColor(std::int64_t batch) const
{
    if (!m_tint.isValid())
        return batchColor(batch);
    return batch % 2 == 0 ? m_tint : m_tint.lighter(135);
}

QColor TimelinePlottable::waitColor()
{
    return kWait;
}

QColor TimelinePlottable::computeColor()
{
    return kCompute;
}

QColor TimelinePlottable::syncColor()
{
    return kSync;
}

QColor TimelinePlottable::exchangeColor()
{
    return kExchange;
}

TimelineHit TimelinePlottable::hitAt(double seconds, double value) const
{
    TimelineHit hit;
    if (!m_log || (m_records == 0 && m_spans == 0))
        return hit;
    const auto hold = m_log->hold();
    const std::size_t firstRecord = std::min(m_log->firstKept(), m_records);
    const double lane = value - m_offset;
    const long nearest = std::lround(lane);
    if (std::abs(lane - static_cast<double>(nearest)) > kLaneHalf || nearest < 0
        || nearest > topLane())
        return hit;
    const loaderlab::TraceLog &log = *m_log;
    const std::int64_t ns = toNs(seconds);
    const std::size_t after = firstRecordAfter(ns, false); // requests up to `ns` before it
    const std::int64_t margin = std::max<std::int64_t>(kSpanMargin, std::int64_t{8} * m_numWorkers);
    const auto recordOf = [&](std::int64_t batch, std::int32_t rank) {
        const auto reach = static_cast<std::size_t>(2 * margin) * static_cast<std::size_t>(m_ranks);
        const std::size_t from = after > firstRecord + reach ? after - reach : firstRecord;
        for (std::size_t k = from; k < std::min(m_records, after + reach); ++k)
            if (log[k].index == batch && log[k].rank == rank)
                hit.record = log[k];
    };
    if (nearest >= m_loaderLanes) {
        // A rank's consumer lane: that rank's last requests before `ns`.
        const auto rank = static_cast<std::int32_t>(nearest - m_loaderLanes);
        hit.computing = lane > static_cast<double>(nearest);
        const std::size_t look = static_cast<std::size_t>(4 * m_ranks + 4);
        for (std::size_t k = after; k-- > firstRecord && after - k <= look;) {
            const loaderlab::TraceRecord &r = log[k];
            if (std::clamp(r.rank, 0, m_ranks - 1) != rank)
                continue;
            // Lower half: the waits (parts 0 and 2); upper half: the work (1 and 3).
            forConsumerParts(r, [&](int part, std::int64_t start, std::int64_t end) {
                if (hit.found || (part % 2 == 1) != hit.computing || start > ns || ns > end
                    || end <= start)
                    return;
                hit.found = hit.consumer = true;
                hit.synchronising = part >= 2;
                hit.batch = r.index;
                hit.worker = r.worker;
                hit.rank = r.rank;
                hit.startNs = start;
                hit.endNs = end;
                hit.record = r;
            });
            if (hit.found)
                return hit;
        }
        return hit;
    }
    // A loader lane: the spans of the batches near the records around `ns`.
    const std::int64_t low = (after > firstRecord ? log[after - 1].index : 0) - margin;
    const std::int64_t high = (after < m_records
                                   ? log[after].index
                                   : (m_records > firstRecord ? log[m_records - 1].index : 0))
                              + margin;
    const std::size_t spanEnd = std::min(log.firstSpanOfBatch(high + 1), m_spans);
    for (std::size_t s = std::min(log.firstSpanOfBatch(low), m_spans); s < spanEnd; ++s) {
        const loaderlab::WorkerSpan &span = log.span(s);
        if (laneOf(span.worker, span.rank) != nearest || span.startNs > ns || ns > span.endNs)
            continue;
        hit.found = true;
        hit.batch = span.batch;
        hit.worker = span.worker;
        hit.rank = span.rank;
        hit.startNs = span.startNs;
        hit.endNs = span.endNs;
        recordOf(span.batch, span.rank);
        return hit;
    }
    return hit;
}

std::size_t TimelinePlottable::firstRecordAfter(std::int64_t ns, bool inclusive) const
{
    std::size_t low = std::min(m_log->firstKept(), m_records);
    std::size_t high = m_records;
    while (low < high) {
        const std::size_t mid = low + (high - low) / 2;
        const std::int64_t t = (*m_log)[mid].requestNs;
        if (inclusive ? t < ns : t <= ns)
            low = mid + 1;
        else
            high = mid;
    }
    return low;
}

void TimelinePlottable::draw(QCPPainter *painter)
{
    QCPAxis *keys = keyAxis();
    QCPAxis *values = valueAxis();
    if (!m_log || !keys || !values || !m_any)
        return;
    const QCPRange range = keys->range();
    const std::int64_t fromNs = toNs(range.lower);
    const std::int64_t toNsValue = toNs(range.upper);
    if (toNsValue <= fromNs)
        return;
    const auto hold = m_log->hold();
    const double x0 = keys->coordToPixel(range.lower);
    const double x1 = keys->coordToPixel(range.upper);
    const double pxPerNs = (x1 - x0) / static_cast<double>(toNsValue - fromNs);
    const QRect clip = clipRect();
    TimelineRectPainter out(painter, fromNs, x0, pxPerNs, clip.left() - 2.0, clip.right() + 2.0,
                            m_streams.size());
    for (int lane = 0; lane < m_loaderLanes; ++lane)
        out.setRow(static_cast<std::size_t>(lane),
                   values->coordToPixel(m_offset + lane + kLaneHalf),
                   values->coordToPixel(m_offset + lane - kLaneHalf),
                   m_tint.isValid() ? m_tint : kLoaderMerged);
    for (int rank = 0; rank < m_ranks; ++rank) {
        const double consumer = m_offset + static_cast<double>(consumerLane(rank));
        const double lower[2] = {values->coordToPixel(consumer),
                                 values->coordToPixel(consumer - kLaneHalf)};
        const double upper[2] = {values->coordToPixel(consumer + kLaneHalf),
                                 values->coordToPixel(consumer)};
        for (int part = 0; part < kConsumerParts; ++part) {
            // Waits (parts 0 and 2) below the lane's middle, work above it.
            const double *half = part % 2 == 0 ? lower : upper;
            out.setRow(consumerStream(rank, part), half[0], half[1],
                       kPartColors[static_cast<std::size_t>(part)]);
        }
    }

    painter->setFont(QFont(mParentPlot->font().family(), 7));
    const std::size_t first = firstRecordAfter(fromNs, true);
    const std::size_t last = firstRecordAfter(toNsValue, false);
    // Reading every visible record costs 160 bytes each; once a block of 32 is
    // narrower than about two pixels, the block index draws the same picture.
    const double widthPx = std::abs(x1 - x0);
    if (static_cast<double>(last - first) > widthPx * static_cast<double>(kBlock) / 2.0)
        drawBlocks(out, fromNs, toNsValue);
    else
        drawDetail(out, fromNs, toNsValue, first, last);
    out.flushAll();
}

void TimelinePlottable::drawDetail(TimelineRectPainter &out, std::int64_t fromNs, std::int64_t toNs,
                                   std::size_t first, std::size_t last)
{
    const loaderlab::TraceLog &log = *m_log;
    const std::size_t firstRecord = std::min(log.firstKept(), m_records);
    // The record before the first visible request may still be computing.
    const std::size_t begin = first > firstRecord ? first - 1 : first;
    for (std::size_t i = begin; i < last; ++i) {
        const loaderlab::TraceRecord &r = log[i];
        forConsumerParts(r, [&](int part, std::int64_t start, std::int64_t end) {
            out.box(consumerStream(r.rank, part), start, end,
                    kPartColors[static_cast<std::size_t>(part)], -1);
        });
    }

    const std::int64_t margin = std::max<std::int64_t>(kSpanMargin, std::int64_t{8} * m_numWorkers);
    const std::int64_t lowBatch =
        (begin < m_records ? log[begin].index
                           : (m_records > firstRecord ? log[m_records - 1].index + 1 : 0))
        - margin;
    const std::size_t spanBegin = std::min(log.firstSpanOfBatch(lowBatch), m_spans);
    const std::size_t spanEnd = last < m_records ? std::min(
                                    log.firstSpanOfBatch(log[last].index + margin), m_spans)
                                                 : m_spans;
    for (std::size_t s = spanBegin; s < spanEnd; ++s) {
        const loaderlab::WorkerSpan &span = log.span(s);
        const int lane = laneOf(span.worker, span.rank);
        if (lane < 0 || span.endNs < fromNs || span.startNs > toNs || span.endNs < span.startNs)
            continue;
        out.box(static_cast<std::size_t>(lane), span.startNs, span.endNs, boxColor(span.batch),
                span.batch);
    }
}

void TimelinePlottable::drawBlocks(TimelineRectPainter &out, std::int64_t fromNs, std::int64_t toNs)
{
    auto byStart = [](std::int64_t ns, const Block &b) { return ns < b.startNs; };
    for (std::size_t s = 0; s < m_streams.size(); ++s) {
        const std::vector<Block> &blocks = m_streams[s].blocks;
        auto begin = std::upper_bound(blocks.begin(), blocks.end(), fromNs, byStart);
        if (begin != blocks.begin())
            --begin;
        const auto end = std::upper_bound(begin, blocks.end(), toNs, byStart);
        for (auto it = begin; it != end; ++it)
            out.block(s, it->startNs, it->endNs, it->busyNs);
    }
}

void TimelinePlottable::drawLegendIcon(QCPPainter *painter, const QRectF &rect) const
{
    const QRectF left(rect.left(), rect.top(), rect.width() / 2.0, rect.height());
    painter->fillRect(left, boxColor(0));
    painter->fillRect(left.translated(left.width(), 0.0), boxColor(1));
}

} // namespace loaderlab
