#pragma once

// TimelinePlottable: draws a run's worker and consumer activity as boxes on lanes,
// straight from the TraceLog. One QCPItem per box would make a million-batch run
// unusable, so this plottable keeps no boxes at all: draw() binary-searches the
// visible part of the log and draws only that, and when boxes get narrower than a
// pixel it draws per-pixel rects whose opacity is the share of the pixel that was
// busy. For that zoomed-out case it keeps a small index of blocks of 32 boxes per
// stream, updated incrementally by sync(), so it never reads the whole log per frame.
//
// Lanes (value axis): 0..L-1 loader lanes (worker w, or the consumer's own loading
// when W = 0), then a consumer lane per rank from value L: its lower half waiting
// (for data; then, with synchronised ranks, for the slowest rank), its upper half
// working (the step; then the gradient exchange). A data-parallel run of R ranks has
// R x max(W, 1) loader lanes, rank-major (rank r's worker w on lane r x W + w), and R
// consumer lanes (rank r's at L + r).
// The key axis is time in seconds and must be horizontal.

#include "core/trace/trace_log.h"

#include "widgets/plots/qcustomplot_include.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace loaderlab {

class TimelineRectPainter;

// What one point of a timeline shows (TimelinePlottable::hitAt): a batch's box on a
// loader lane (the worker's span for it) or on the consumer lane (its lower half the
// wait, its upper half the step). found is false where no box is.
struct TimelineHit
{
    bool found = false;
    bool consumer = false;
    bool computing = false;     // the upper half: the step, or the exchange
    bool synchronising = false; // the wait for the slowest rank, or the exchange after it
    std::int64_t batch = 0;
    std::int32_t worker = 0;
    std::int32_t rank = 0;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    // The batch's record, when it is in the log near the box (its stages, epoch).
    std::optional<loaderlab::TraceRecord> record;
};

class TimelinePlottable : public QCPAbstractPlottable
{
    Q_OBJECT

public:
    TimelinePlottable(QCPAxis *keyAxis, QCPAxis *valueAxis);

    // Forgets the index; `log` must outlive this plottable or the next setTrace.
    void setTrace(const loaderlab::TraceLog *log, int numWorkers, int ranks = 1);
    // Indexes records and spans appended since the last sync. On a log that frees its
    // oldest batches, the caller holds it (TraceLog::hold()); draw() and hitAt() take
    // their own hold.
    void sync();
    // Draws the lanes from `offset` up on the value axis (runs stacked for comparison).
    void setLaneOffset(double offset) { m_offset = offset; }
    double laneOffset() const { return m_offset; }
    // An overlaid run's loader boxes in its own colour (two tones, alternating by
    // batch) instead of the batch palette; an invalid colour: the palette.
    void setTint(const QColor &tint) { m_tint = tint; }
    QColor tint() const { return m_tint; }

    int loaderLanes() const { return m_loaderLanes; }
    int consumerLane(int rank = 0) const { return m_loaderLanes + rank; }
    int topLane() const { return m_loaderLanes + m_ranks - 1; } // the last rank's consumer
    int workerLanes() const { return m_numWorkers; }            // per rank
    int ranks() const { return m_ranks; }
    // Lane of a span's worker of `rank`, or -1 when it belongs on no lane.
    int laneOf(std::int32_t worker, std::int32_t rank = 0) const;
    std::size_t syncedRecords() const { return m_records; }
    std::size_t syncedSpans() const { return m_spans; }
    // Newest time seen (seconds), 0 when empty.
    double newestSeconds() const;
    // The box at `seconds` on the key axis and `value` on the value axis (lanes from
    // laneOffset()), for the hover readout.
    TimelineHit hitAt(double seconds, double value) const;

    double selectTest(const QPointF &pos, bool onlySelectable,
                      QVariant *details = nullptr) const override;
    QCPRange getKeyRange(bool &foundRange,
                         QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool &foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth,
                           const QCPRange &inKeyRange = QCPRange()) const override;

    static QColor batchColor(std::int64_t batch);
    static QColor waitColor();
    static QColor computeColor();
    static QColor syncColor();     // waiting for the slowest rank
    static QColor exchangeColor(); // the gradient exchange

protected:
    void draw(QCPPainter *painter) override;
    void drawLegendIcon(QCPPainter *painter, const QRectF &rect) const override;

private:
    struct Block
    {
        std::int64_t startNs = 0;
        std::int64_t endNs = 0;
        std::int64_t busyNs = 0;
    };
    struct Stream
    {
        std::vector<Block> blocks;
        int openCount = 0; // boxes in blocks.back()
    };
    // Blocks a stream keeps at most: 24 bytes each, so under 1.6 MB a stream.
    static constexpr std::size_t kMaxBlocks = 65536;
    void addToIndex(std::size_t stream, std::int64_t startNs, std::int64_t endNs);
    static void coarsen(Stream &stream);
    void drawDetail(TimelineRectPainter &out, std::int64_t fromNs, std::int64_t toNs,
                    std::size_t first, std::size_t last);
    void drawBlocks(TimelineRectPainter &out, std::int64_t fromNs, std::int64_t toNs);
    std::size_t firstRecordAfter(std::int64_t ns, bool inclusive) const;
    QColor boxColor(std::int64_t batch) const;

    const loaderlab::TraceLog *m_log = nullptr;
    int m_numWorkers = 0;
    int m_ranks = 1;
    int m_loaderLanes = 1;
    double m_offset = 0.0;
    QColor m_tint;
    std::size_t m_records = 0;
    std::size_t m_spans = 0;
    std::int64_t m_minNs = 0;
    std::int64_t m_maxNs = 0;
    bool m_any = false;
    // The stream of rank r's consumer `part` (0 waiting, 1 computing, 2 waiting for
    // the slowest rank, 3 exchanging).
    std::size_t consumerStream(std::int32_t rank, int part) const;
    // Streams 0..L-1: loader lanes; then each rank's four consumer streams.
    std::vector<Stream> m_streams;
};

} // namespace loaderlab
