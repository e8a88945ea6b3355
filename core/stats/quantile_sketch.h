#pragma once

// QuantileSketch: percentiles of a stream of non-negative values in bounded memory.
// The first `exactLimit` values are kept as they are, so percentiles are exact (the
// same linear interpolation as percentile()); past that, the values move into a
// histogram with logarithmic buckets 0.5 % wide, so a percentile is within 0.5 % of
// the exact one (relative), whatever the run's length. Memory: 8 bytes per value up
// to the limit, then 16 bytes per occupied bucket (about 7,000 buckets cover
// 1e-6 to 1e9). The mean, minimum and maximum are tracked exactly throughout.

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace loaderlab {

class QuantileSketch
{
public:
    static constexpr double kRelativeError = 0.005;

    explicit QuantileSketch(std::size_t exactLimit = 1u << 20)
        : m_exactLimit(exactLimit)
    {
    }

    void add(double value);
    void merge(const QuantileSketch &other);

    std::int64_t count() const { return m_count; }
    bool exact() const { return m_histogram.empty(); }
    double max() const { return m_max; }
    double sum() const { return m_sum; }
    // q in 0..100; 0 when empty.
    double quantile(double q) const;

private:
    void spill();
    static int bucketOf(double value);
    static double valueOf(int bucket);
    double valueAtRank(std::int64_t rank) const;

    std::size_t m_exactLimit;
    std::vector<double> m_values;            // while exact
    std::map<int, std::int64_t> m_histogram; // bucket -> count, once spilled
    std::int64_t m_count = 0;
    double m_sum = 0.0;
    double m_max = 0.0;
};

} // namespace loaderlab
