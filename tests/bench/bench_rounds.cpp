#include "bench_rounds.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace benchmachine {
namespace {

double median(const std::vector<double> &sorted)
{
    const std::size_t n = sorted.size();
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

std::string format(double x)
{
    char text[32];
    std::snprintf(text, sizeof text, std::abs(x) >= 100 ? "%.1f" : "%.3f", x);
    return text;
}

} // namespace

void Rounds::add(const std::string &name, double value)
{
    if (!m_values.contains(name))
        m_order.push_back(name);
    m_values[name].push_back(value);
}

void Rounds::print() const
{
    std::printf("\n%-50s %10s %10s %10s  %s\n", "measurement (over rounds)", "min", "median", "max",
                "per round");
    for (const std::string &name : m_order) {
        std::vector<double> v = m_values.at(name);
        std::string each;
        for (double x : v)
            each += (each.empty() ? "" : " ") + format(x);
        std::sort(v.begin(), v.end());
        std::printf("%-50s %10s %10s %10s  %s\n", name.c_str(), format(v.front()).c_str(),
                    format(median(v)).c_str(), format(v.back()).c_str(), each.c_str());
    }
}

nlohmann::json Rounds::toJson() const
{
    nlohmann::json out = nlohmann::json::object();
    for (const auto &[name, v] : m_values) {
        std::vector<double> sorted = v;
        std::sort(sorted.begin(), sorted.end());
        out[name] = {{"rounds", v},
                     {"min", sorted.front()},
                     {"median", median(sorted)},
                     {"max", sorted.back()}};
    }
    return out;
}

} // namespace benchmachine
