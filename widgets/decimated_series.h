#pragma once

// DecimatedSeries: one graph's data at several levels of detail, so a graph of a
// million batches replots in about a millisecond when zoomed out. QCPGraph's
// adaptive sampling still looks at every visible point on every replot; here level k
// keeps, for each bucket of 4^k consecutive points, only its minimum and maximum (in
// key order), so spikes survive. Levels are built incrementally as points arrive;
// the newest, still-open bucket is shown too and replaced as it fills. A plot picks
// the container for its current view before each replot (forView) and hands it to
// the graph with QCPGraph::setData(container), which shares it without copying.
// Header-only: it is small and used by two plots.

#include "widgets/qcustomplot_include.h"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

namespace loaderlab {

class DecimatedSeries
{
public:
    static constexpr int kFactor = 4;
    static constexpr int kLevels = 9; // buckets of 4 .. 4^9 = 262144 points
    // Points per pixel that still draw fast; more and a coarser level is used.
    static constexpr double kPointsPerPixel = 4.0;

    DecimatedSeries()
    {
        m_full = QSharedPointer<QCPGraphDataContainer>::create();
        int size = 1;
        for (Level &level : m_levels) {
            size *= kFactor;
            level.bucket = size;
            level.data = QSharedPointer<QCPGraphDataContainer>::create();
        }
    }

    QSharedPointer<QCPGraphDataContainer> full() const { return m_full; }
    int levelCount() const { return kLevels; }
    QSharedPointer<QCPGraphDataContainer> level(int k) const
    {
        return k == 0 ? m_full : m_levels[static_cast<std::size_t>(k - 1)].data;
    }

    // `points` are sorted and come after every point already added.
    void append(const QVector<QCPGraphData> &points)
    {
        if (points.isEmpty())
            return;
        m_full->add(points, true);
        // Each level is fed the buckets the level below closed, so a point costs
        // about 4/3 bucket updates in all, not one per level.
        QVector<Bucket> input = feed(m_levels.front(), points, [](const QCPGraphData &p) {
            return Bucket{p, p};
        });
        for (std::size_t k = 1; k < m_levels.size(); ++k)
            input = feed(m_levels[k], input, [](const Bucket &b) { return b; });
        // A level's newest, open bucket also covers the open buckets below it.
        bool any = false;
        Bucket open;
        for (Level &level : m_levels) {
            if (level.children > 0) {
                open = any ? merged(level.open, open) : level.open;
                any = true;
            }
            level.openShown = any;
            if (any) {
                QVector<QCPGraphData> out;
                pushBucket(open, &out);
                level.data->add(out, true);
            }
        }
    }

    void clear()
    {
        m_full->clear();
        for (Level &level : m_levels) {
            level.data->clear();
            level.children = 0;
            level.openShown = false;
            level.lastClosedKey = std::numeric_limits<double>::lowest();
        }
    }

    // Points of the full series with keys in `range`.
    double visibleCount(const QCPRange &range) const
    {
        return static_cast<double>(m_full->findEnd(range.upper, false)
                                   - m_full->findBegin(range.lower, false));
    }

    // The finest level with at most kPointsPerPixel points per pixel in `range`.
    QSharedPointer<QCPGraphDataContainer> forView(const QCPRange &range, double pixels) const
    {
        const double visible = visibleCount(range);
        const double budget = kPointsPerPixel * std::max(pixels, 1.0);
        if (visible <= budget)
            return m_full;
        for (const Level &level : m_levels) {
            if (2.0 * visible / level.bucket <= budget)
                return level.data;
        }
        return m_levels.back().data;
    }

private:
    struct Bucket
    {
        QCPGraphData min;
        QCPGraphData max;
    };
    struct Level
    {
        int bucket = 1;   // points per bucket
        int children = 0; // buckets of the level below in the open bucket
        Bucket open;
        bool openShown = false; // the open bucket's points end `data`
        double lastClosedKey = std::numeric_limits<double>::lowest();
        QSharedPointer<QCPGraphDataContainer> data;
    };

    // Adds `items` (points or buckets of the level below) to `level`; returns the
    // buckets it closed, for the level above.
    template <typename Items, typename ToBucket>
    static QVector<Bucket> feed(Level &level, const Items &items, ToBucket toBucket)
    {
        QVector<Bucket> closed;
        for (const auto &item : items) {
            const Bucket b = toBucket(item);
            level.open = level.children == 0 ? b : merged(level.open, b);
            if (++level.children == kFactor) {
                closed.push_back(level.open);
                level.children = 0;
            }
        }
        QVector<QCPGraphData> out;
        out.reserve(2 * closed.size());
        for (const Bucket &b : closed)
            pushBucket(b, &out);
        // The open bucket's points are always the last ones: drop, then redo them.
        if (level.openShown)
            level.data->removeAfter(level.lastClosedKey);
        level.openShown = false;
        level.data->add(out, true);
        if (!out.isEmpty())
            level.lastClosedKey = out.constLast().key;
        return closed;
    }

    static Bucket merged(const Bucket &a, const Bucket &b)
    {
        return {b.min.value < a.min.value ? b.min : a.min,
                b.max.value > a.max.value ? b.max : a.max};
    }

    static void pushBucket(const Bucket &b, QVector<QCPGraphData> *out)
    {
        const bool minFirst = b.min.key <= b.max.key;
        const QCPGraphData &first = minFirst ? b.min : b.max;
        const QCPGraphData &second = minFirst ? b.max : b.min;
        out->push_back(first);
        if (second.key != first.key)
            out->push_back(second);
    }

    QSharedPointer<QCPGraphDataContainer> m_full;
    std::array<Level, kLevels> m_levels;
};

} // namespace loaderlab
