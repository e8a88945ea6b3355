#pragma once

// DecimatedSeries: one graph's data at several levels of detail, so a graph of a
// million batches replots in about a millisecond when zoomed out. QCPGraph's
// adaptive sampling still looks at every visible point on every replot; here level k
// keeps, for each bucket of 4^k consecutive points, only its minimum and maximum (in
// key order), so spikes survive. Levels are built incrementally as points arrive;
// the newest, still-open bucket is shown too and replaced as it fills. A plot picks
// the container for its current view before each replot (forView) and hands it to
// the graph with QCPGraph::setData(container), which shares it without copying.
//
// Memory is bounded however long the run: the full series keeps the newest
// kFullPoints points, level k the newest max(kFullPoints / 2^k, kMinLevelPoints), so
// each coarser level reaches further back (level 8 over 2^26 points); the coarsest
// level keeps the whole run, merging pairs of its buckets whenever it would pass
// kTopBuckets. About 10 MB a series in all. A view picks the finest level that
// still reaches back to the view's start.
// Header-only: it is small and used by two plots.

#include "widgets/plots/qcustomplot_include.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

namespace loaderlab {

class DecimatedSeries
{
public:
    static constexpr int kFactor = 4;
    static constexpr int kLevels = 9; // buckets of 4 .. 4^9 = 262144 points
    // Points per pixel that still draw fast; more and a coarser level is used.
    static constexpr double kPointsPerPixel = 4.0;
    static constexpr int kFullPoints = 1 << 18;
    static constexpr int kMinLevelPoints = 1 << 13;
    static constexpr std::size_t kTopBuckets = 1 << 14;

    // The bounds: points of the full series, fewest points of a level, buckets of the
    // coarsest level; levels of buckets of 4, 16, ... 4^levels points.
    struct Bounds
    {
        int fullPoints = kFullPoints;
        int minLevelPoints = kMinLevelPoints;
        std::size_t topBuckets = kTopBuckets;
        int levels = kLevels;
    };

    DecimatedSeries()
        : DecimatedSeries(Bounds{})
    {
    }
    explicit DecimatedSeries(const Bounds &bounds)
        : m_bounds(bounds)
        , m_levels(static_cast<std::size_t>(std::max(bounds.levels, 1)))
    {
        m_full = QSharedPointer<QCPGraphDataContainer>::create();
        int size = 1;
        int keep = m_bounds.fullPoints;
        for (Level &level : m_levels) {
            size *= kFactor;
            keep = std::max(keep / 2, m_bounds.minLevelPoints);
            level.bucket = size;
            level.keep = keep;
            level.data = QSharedPointer<QCPGraphDataContainer>::create();
        }
    }

    QSharedPointer<QCPGraphDataContainer> full() const { return m_full; }
    int levelCount() const { return static_cast<int>(m_levels.size()); }
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
        m_fullTrimmed = trim(*m_full, m_bounds.fullPoints) || m_fullTrimmed;
        // Each level is fed the buckets the level below closed, so a point costs
        // about 4/3 bucket updates in all, not one per level.
        QVector<Bucket> input = feed(m_levels.front(), points, [](const QCPGraphData &p) {
            return Bucket{p, p};
        });
        for (std::size_t k = 1; k < m_levels.size(); ++k)
            input = feed(m_levels[k], input, [](const Bucket &b) { return b; });
        keepTop(input);
        for (std::size_t k = 0; k + 1 < m_levels.size(); ++k)
            m_levels[k].trimmed = trim(*m_levels[k].data, m_levels[k].keep) || m_levels[k].trimmed;
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
        m_fullTrimmed = false;
        m_top.clear();
        for (Level &level : m_levels) {
            level.data->clear();
            level.children = 0;
            level.factor = kFactor;
            level.openShown = false;
            level.trimmed = false;
            level.lastClosedKey = std::numeric_limits<double>::lowest();
        }
    }

    // Points held in all levels together (what the series costs: 16 bytes each).
    qsizetype heldPoints() const
    {
        qsizetype n = m_full->size();
        for (const Level &level : m_levels)
            n += level.data->size();
        return n;
    }

    // Points of the full series with keys in `range`.
    double visibleCount(const QCPRange &range) const
    {
        return static_cast<double>(m_full->findEnd(range.upper, false)
                                   - m_full->findBegin(range.lower, false));
    }

    // The finest level that reaches back to the start of `range` with at most
    // kPointsPerPixel points per pixel in it; the coarsest when none does.
    QSharedPointer<QCPGraphDataContainer> forView(const QCPRange &range, double pixels) const
    {
        const double budget = kPointsPerPixel * std::max(pixels, 1.0);
        const auto fits = [&range, budget](const QCPGraphDataContainer &data, bool trimmed) {
            if (trimmed && (data.isEmpty() || data.constBegin()->key > range.lower))
                return false;
            return static_cast<double>(data.findEnd(range.upper, false)
                                       - data.findBegin(range.lower, false))
                   <= budget;
        };
        if (fits(*m_full, m_fullTrimmed))
            return m_full;
        for (const Level &level : m_levels) {
            if (fits(*level.data, level.trimmed))
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
        int bucket = 1;       // points per bucket (before the top level merges)
        int keep = 0;         // points kept (all, for the top level)
        int factor = kFactor; // buckets of the level below per bucket
        bool trimmed = false; // its oldest points are gone
        int children = 0;     // buckets of the level below in the open bucket
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
            if (++level.children >= level.factor) {
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

    // Drops the oldest points of `data` once it holds a quarter more than `keep` (so
    // trimming costs little per point); returns whether it did.
    static bool trim(QCPGraphDataContainer &data, int keep)
    {
        if (data.size() <= keep + keep / 4)
            return false;
        data.removeBefore((data.constEnd() - keep)->key);
        return true;
    }

    // The coarsest level keeps every bucket it closed (`closed`, new ones) so it can
    // merge pairs of them when it holds more than kTopBuckets: then each of its
    // buckets covers twice as many points, and the whole run stays in view.
    void keepTop(const QVector<Bucket> &closed)
    {
        Level &top = m_levels.back();
        m_top.insert(m_top.end(), closed.begin(), closed.end());
        if (m_top.size() <= m_bounds.topBuckets)
            return;
        std::size_t out = 0;
        for (std::size_t i = 0; i < m_top.size(); i += 2)
            m_top[out++] = i + 1 < m_top.size() ? merged(m_top[i], m_top[i + 1]) : m_top[i];
        m_top.resize(out);
        top.factor *= 2;
        QVector<QCPGraphData> points;
        points.reserve(static_cast<qsizetype>(2 * m_top.size()));
        for (const Bucket &b : m_top)
            pushBucket(b, &points);
        // The open bucket's points are added after this, as after every feed.
        top.data->clear();
        top.data->add(points, true);
        top.openShown = false;
        if (!points.isEmpty())
            top.lastClosedKey = points.constLast().key;
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
    bool m_fullTrimmed = false;
    Bounds m_bounds;
    std::vector<Level> m_levels;
    std::vector<Bucket> m_top; // the coarsest level's closed buckets
};

} // namespace loaderlab
