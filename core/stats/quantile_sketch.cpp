#include "core/stats/quantile_sketch.h"

#include "core/stats/run_summary.h"

#include <algorithm>
#include <cmath>

namespace loaderlab {
namespace {

// Bucket k >= 1 holds values in [kMin * g^(k-1), kMin * g^k), g = 1 + 2e; bucket 0
// holds everything below kMin (0 included). Its representative, the geometric middle,
// is within e of any value in it.
constexpr double kMin = 1e-6;
const double kGrowth = 1.0 + 2.0 * QuantileSketch::kRelativeError;
const double kLogGrowth = std::log(kGrowth);

} // namespace

int QuantileSketch::bucketOf(double value)
{
    if (!(value >= kMin))
        return 0;
    return 1 + static_cast<int>(std::floor(std::log(value / kMin) / kLogGrowth));
}

double QuantileSketch::valueOf(int bucket)
{
    if (bucket == 0)
        return 0.0;
    return kMin * std::pow(kGrowth, bucket - 1) * std::sqrt(kGrowth);
}

void QuantileSketch::add(double value)
{
    value = std::max(value, 0.0);
    if (m_count == 0 || value > m_max)
        m_max = value;
    ++m_count;
    m_sum += value;
    if (m_histogram.empty()) {
        m_values.push_back(value);
        if (m_values.size() > m_exactLimit)
            spill();
    } else {
        ++m_histogram[bucketOf(value)];
    }
}

void QuantileSketch::merge(const QuantileSketch &other)
{
    if (other.m_count == 0)
        return;
    if (m_count == 0 || other.m_max > m_max)
        m_max = other.m_max;
    m_count += other.m_count;
    m_sum += other.m_sum;
    if (m_histogram.empty() && other.m_histogram.empty()) {
        m_values.insert(m_values.end(), other.m_values.begin(), other.m_values.end());
        if (m_values.size() > m_exactLimit)
            spill();
        return;
    }
    spill();
    for (double v : other.m_values)
        ++m_histogram[bucketOf(v)];
    for (const auto &[bucket, n] : other.m_histogram)
        m_histogram[bucket] += n;
}

void QuantileSketch::spill()
{
    for (double v : m_values)
        ++m_histogram[bucketOf(v)];
    // A histogram that is empty would read as "still exact".
    if (m_histogram.empty())
        m_histogram[0] = 0;
    std::vector<double>().swap(m_values);
}

double QuantileSketch::valueAtRank(std::int64_t rank) const
{
    std::int64_t seen = 0;
    for (const auto &[bucket, n] : m_histogram) {
        seen += n;
        if (rank < seen)
            return std::min(valueOf(bucket), m_max);
    }
    return m_max;
}

double QuantileSketch::quantile(double q) const
{
    if (m_count == 0)
        return 0.0;
    if (m_histogram.empty())
        return percentile(m_values, q);
    // The same interpolation between neighbouring ranks as percentile().
    const double rank = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(m_count - 1);
    const auto low = static_cast<std::int64_t>(std::floor(rank));
    const auto high = std::min(low + 1, m_count - 1);
    const double a = valueAtRank(low);
    const double b = valueAtRank(high);
    return a + (b - a) * (rank - static_cast<double>(low));
}

} // namespace loaderlab
