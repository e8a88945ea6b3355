#pragma once

// Rounds: a benchmark's figures of every round by name, printed as min / median / max
// over the rounds with each round's value, in the order first recorded.

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace benchmachine {

class Rounds
{
public:
    void add(const std::string &name, double value);
    void print() const;
    nlohmann::json toJson() const;

private:
    std::vector<std::string> m_order;
    std::map<std::string, std::vector<double>> m_values;
};

} // namespace benchmachine
