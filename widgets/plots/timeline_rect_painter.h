#pragma once

// TimelineRectPainter: TimelinePlottable's drawing helper. It turns boxes in
// nanoseconds into pixel rects, one stream (a lane, or half of the consumer lane)
// at a time. Each stream keeps one pending rect: sub-pixel boxes grow it until it
// is a pixel wide, and its opacity shows how much of it was busy, so a zoomed-out
// view still shows where the time went. Rects are snapped to whole pixel columns
// that continue where the stream's previous rect ended, so a busy lane has neither
// hairline gaps nor double-opacity overlaps. Header-only: used by one file.

#include "widgets/plots/qcustomplot_include.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace loaderlab {

class TimelineRectPainter
{
public:
    // Boxes narrower than this are merged with their neighbours into per-pixel rects.
    static constexpr double kMinBoxPx = 2.0;

    TimelineRectPainter(QCPPainter *painter, std::int64_t originNs, double originPx, double pxPerNs,
                        double clipLeft, double clipRight, std::size_t streams)
        : m_painter(painter)
        , m_originNs(originNs)
        , m_originPx(originPx)
        , m_pxPerNs(pxPerNs)
        , m_clipLeft(clipLeft)
        , m_clipRight(clipRight)
        , m_rows(streams)
        , m_pending(streams)
        , m_lastRight(streams, std::numeric_limits<long>::min())
        , m_lastRawRight(streams, std::numeric_limits<double>::lowest())
    {
    }

    void setRow(std::size_t stream, double y1, double y2, const QColor &merged)
    {
        m_rows[stream] = {std::min(y1, y2), std::abs(y2 - y1), merged};
    }

    // One box in its own colour; `label` >= 0 is written inside when it fits.
    void box(std::size_t stream, std::int64_t startNs, std::int64_t endNs, const QColor &color,
             std::int64_t label)
    {
        const double x0 = toPx(startNs);
        const double x1 = toPx(endNs);
        if (x1 < m_clipLeft || x0 > m_clipRight)
            return;
        if (x1 - x0 < kMinBoxPx) {
            merge(stream, x0, x1, x1 - x0, color);
            return;
        }
        flush(stream);
        const Row &row = m_rows[stream];
        const QRectF rect(QPointF(std::max(x0, m_clipLeft), row.top),
                          QPointF(std::min(x1, m_clipRight), row.top + row.height));
        m_painter->fillRect(rect, color);
        m_lastRight[stream] = std::lround(rect.right());
        m_lastRawRight[stream] = rect.right();
        if (label >= 0 && rect.width() >= 12.0) {
            const QString text = QString::number(label);
            if (m_painter->fontMetrics().horizontalAdvance(text) + 4 <= rect.width()) {
                m_painter->setPen(isDark(color) ? Qt::white : Qt::black);
                m_painter->drawText(rect, Qt::AlignCenter, text);
            }
        }
    }

    // A block of boxes summarised as its extent and busy time.
    void block(std::size_t stream, std::int64_t startNs, std::int64_t endNs, std::int64_t busyNs)
    {
        const double x0 = toPx(startNs);
        const double x1 = toPx(endNs);
        if (x1 < m_clipLeft || x0 > m_clipRight)
            return;
        merge(stream, x0, x1, static_cast<double>(busyNs) * m_pxPerNs, m_rows[stream].merged);
    }

    void flushAll()
    {
        for (std::size_t s = 0; s < m_pending.size(); ++s)
            flush(s);
    }

private:
    static bool isDark(const QColor &c)
    {
        return 0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue() < 140.0;
    }

    struct Row
    {
        double top = 0.0;
        double height = 0.0;
        QColor merged;
    };
    struct Pending
    {
        bool open = false;
        double x0 = 0.0;
        double x1 = 0.0;
        double busyPx = 0.0;
        int count = 0;
        QColor color;
    };

    double toPx(std::int64_t ns) const
    {
        return m_originPx + static_cast<double>(ns - m_originNs) * m_pxPerNs;
    }

    void merge(std::size_t stream, double x0, double x1, double busyPx, const QColor &color)
    {
        Pending &p = m_pending[stream];
        if (p.open && x0 <= p.x1 + 1.0 && p.x1 - p.x0 < 1.0) {
            p.x1 = std::max(p.x1, x1);
            p.busyPx += busyPx;
            ++p.count;
            return;
        }
        flush(stream);
        p = {true, x0, x1, busyPx, 1, color};
    }

    void flush(std::size_t stream)
    {
        Pending &p = m_pending[stream];
        if (!p.open)
            return;
        p.open = false;
        const Row &row = m_rows[stream];
        // Whole pixel columns, starting where the previous rect ended, so adjacent
        // rects neither leave hairline gaps nor overlap and double their opacity.
        long left = std::lround(std::max(p.x0, m_clipLeft));
        if (p.x0 <= m_lastRawRight[stream] + 1.0)
            left = m_lastRight[stream];
        const long right = std::max(std::lround(std::min(p.x1, m_clipRight)), left + 1);
        m_lastRight[stream] = right;
        m_lastRawRight[stream] = p.x1;
        const double coverage = std::clamp(p.busyPx / std::max(p.x1 - p.x0, 1.0), 0.0, 1.0);
        QColor color = p.count == 1 ? p.color : row.merged;
        color.setAlpha(static_cast<int>(60.0 + 195.0 * coverage));
        m_painter->fillRect(QRectF(static_cast<double>(left), row.top,
                                   static_cast<double>(right - left), row.height),
                            color);
    }

    QCPPainter *m_painter;
    std::int64_t m_originNs;
    double m_originPx;
    double m_pxPerNs;
    double m_clipLeft;
    double m_clipRight;
    std::vector<Row> m_rows;
    std::vector<Pending> m_pending;
    // Right edge of the stream's last rect: drawn (whole pixels) and exact.
    std::vector<long> m_lastRight;
    std::vector<double> m_lastRawRight;
};

} // namespace loaderlab
