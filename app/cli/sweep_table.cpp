#include "app/cli/sweep_table.h"

#include "core/config/config_fields.h"
#include "core/sweep/sweep_figures.h"
#include "core/system/safe_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace loaderlab::cli {
namespace {

using Row = std::vector<std::string>;

std::string format(const char *pattern, double value)
{
    char text[48];
    std::snprintf(text, sizeof text, pattern, value);
    return text;
}

// Text from the results folder (axis values can be any text, a record's error too)
// goes to a terminal: control characters are escaped as on stderr, line by line.
std::string escapeLines(const std::string &text)
{
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = std::min(text.find('\n', start), text.size());
        out += loaderlab::escapeForTerminal(std::string_view(text).substr(start, end - start));
        if (end < text.size())
            out += '\n';
        start = end + 1;
    }
    return out;
}

std::string scalingLines(const std::vector<loaderlab::ScalingLine> &lines, const std::string &key)
{
    std::string text = "\nspeedup along " + key + " (samples/s over that at "
                       + loaderlab::sweepValueText(key, lines.front().baseValue)
                       + "; efficiency = speedup / the value's ratio):\n";
    for (const auto &line : lines) {
        text += "  " + (line.label.empty() ? std::string("all") : line.label) + ":";
        for (std::size_t k = 0; k < line.points.size(); ++k) {
            const auto &p = line.points[k];
            text += (k ? ", " : " ") + loaderlab::sweepValueText(key, p.value) + " "
                    + format("%.2fx", p.speedup);
            if (!std::isnan(p.efficiency))
                text += format(" (%.0f %%)", p.efficiency * 100);
        }
        text += '\n';
    }
    return text;
}

// The engines side by side: each engine's samples/s over the first engine's at the
// same other settings (scalingAlong's speedup along `engine`).
std::string engineComparison(const loaderlab::SweepAnalysis &analysis)
{
    if (std::find(analysis.keys.begin(), analysis.keys.end(), "engine") == analysis.keys.end())
        return {};
    const auto lines = loaderlab::scalingAlong(analysis, "engine");
    if (lines.empty() || lines.front().points.size() < 2)
        return {};
    std::string text = "\nengines side by side (samples/s over "
                       + loaderlab::sweepValueText("engine", lines.front().baseValue)
                       + "'s at the same settings):\n";
    for (const auto &line : lines) {
        text += "  " + (line.label.empty() ? std::string("all") : line.label) + ":";
        for (std::size_t k = 0; k < line.points.size(); ++k) {
            const auto &p = line.points[k];
            text += (k ? ", " : " ") + loaderlab::sweepValueText("engine", p.value) + " "
                    + format("%.2fx", p.speedup) + format(" (%.0f samples/s)", p.throughput);
        }
        text += '\n';
    }
    return escapeLines(text);
}

} // namespace

std::string sweepCellText(const loaderlab::SweepDefinition &d, const loaderlab::SweepCell &cell)
{
    std::string text;
    for (std::size_t a = 0; a < d.axes.size(); ++a)
        text += (a ? ", " : "") + loaderlab::sweepValueText(d.axes[a].key, cell.values[a]);
    if (d.repeats > 1)
        text += " (repeat " + std::to_string(cell.repeat + 1) + ")";
    return text;
}

std::string scalingText(const loaderlab::SweepAnalysis &analysis, const std::string &key)
{
    const auto lines = loaderlab::scalingAlong(analysis, key);
    if (lines.empty() || lines.front().points.size() < 2)
        return {};
    return escapeLines(scalingLines(lines, key));
}

std::string sweepTable(const loaderlab::SweepAnalysis &analysis, const std::string &scalingKey,
                       const std::vector<SweepTableColumn> &extraColumns)
{
    std::vector<Row> rows;
    Row header;
    for (const std::string &key : analysis.keys)
        header.push_back(loaderlab::escapeForTerminal(key));
    // The figures of the table, each its own column; the spread over the repeats
    // follows the end-to-end time it is the spread of.
    header.emplace_back("runs");
    for (const loaderlab::SweepFigure &f : loaderlab::sweepFigures()) {
        header.emplace_back(f.column);
        if (f.id == loaderlab::SweepFigureId::EndToEnd)
            header.emplace_back("spread");
    }
    const std::size_t figureColumns = header.size() - analysis.keys.size() - 1;
    for (const SweepTableColumn &column : extraColumns)
        header.push_back(loaderlab::escapeForTerminal(column.heading));
    rows.push_back(header);
    std::vector<std::string> failures;
    // The measured cells and the skipped ones (true), in grid order.
    std::vector<std::pair<const loaderlab::SweepCellStats *, bool>> cells;
    for (const auto &c : analysis.cells)
        cells.emplace_back(&c, false);
    for (const auto &c : analysis.skipped)
        cells.emplace_back(&c, true);
    std::stable_sort(cells.begin(), cells.end(),
                     [](const auto &a, const auto &b) { return a.first->grid < b.first->grid; });
    for (const auto &[cell, skipped] : cells) {
        const auto &c = *cell;
        Row row;
        for (std::size_t a = 0; a < analysis.keys.size(); ++a) {
            const auto *field = loaderlab::findConfigField(analysis.keys[a]);
            row.push_back(loaderlab::escapeForTerminal(
                field
                    ? loaderlab::configValueText(*field, c.values[a])
                    : c.values[a].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
        }
        if (c.runs == 0 && !skipped) {
            row.push_back("0" + (c.failures ? " +" + std::to_string(c.failures) + " failed" : ""));
            row.insert(row.end(), figureColumns, "-");
            failures.push_back("cell " + std::to_string(c.grid) + ": "
                               + loaderlab::escapeForTerminal(c.error));
        } else {
            // A skipped cell's figures are predicted: in parentheses, with no spread.
            const std::string failed = c.failures ? " +" + std::to_string(c.failures) + " failed"
                                                  : "";
            row.push_back(skipped ? std::string("skipped") : std::to_string(c.runs) + failed);
            for (const loaderlab::SweepFigure &f : loaderlab::sweepFigures()) {
                const std::string text = loaderlab::sweepFigureText(f, c.figure(f.id));
                row.push_back(skipped ? "(" + text + ")" : text);
                if (f.id == loaderlab::SweepFigureId::EndToEnd)
                    row.push_back(!skipped && c.runs > 1 ? format("%.1f %%", c.spread() * 100)
                                                         : "-");
            }
        }
        for (const SweepTableColumn &column : extraColumns) {
            const auto text = column.byGrid.find(c.grid);
            row.push_back(text == column.byGrid.end() ? std::string("-")
                                                      : loaderlab::escapeForTerminal(text->second));
        }
        rows.push_back(std::move(row));
    }
    std::vector<std::size_t> widths(header.size(), 0);
    for (const Row &row : rows) {
        for (std::size_t k = 0; k < row.size(); ++k)
            widths[k] = std::max(widths[k], row[k].size());
    }
    std::string text;
    for (const Row &row : rows) {
        for (std::size_t k = 0; k < row.size(); ++k) {
            text += (k ? "  " : "") + row[k];
            if (k + 1 < row.size())
                text += std::string(widths[k] - row[k].size(), ' ');
        }
        text += '\n';
    }
    for (const std::string &f : failures)
        text += "failed: " + f + '\n';
    if (!analysis.skipped.empty())
        text += "skipped: " + std::to_string(analysis.skipped.size())
                + " cells not run (sweep --predict-first); their figures in ( ) are the loader "
                  "model's predictions\n";
    for (const auto &rec : analysis.recommendations)
        text += "\nrecommended: " + escapeLines(rec.sentence) + '\n';
    std::string key = scalingKey;
    if (key.empty()
        && std::find(analysis.keys.begin(), analysis.keys.end(), "loader.num_workers")
               != analysis.keys.end())
        key = "loader.num_workers";
    if (!key.empty())
        text += scalingText(analysis, key);
    text += engineComparison(analysis);
    return text;
}

} // namespace loaderlab::cli
