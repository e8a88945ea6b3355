#include "core/io/trace_csv.h"

#include "core/system/atomic_file.h"
#include "core/system/regular_file.h"

#include <array>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <stdexcept>

namespace loaderlab {
namespace {

constexpr std::array kColumns{
    "index",           "epoch",
    "worker",          "samples",
    "skipped",         "config_version",
    "dispatch_ns",     "load_start_ns",
    "load_end_ns",     "read_ns",
    "decode_ns",       "transform_ns",
    "collate_ns",      "ready_ns",
    "pin_start_ns",    "pin_end_ns",
    "request_ns",      "delivery_ns",
    "wait_ns",         "copy_start_ns",
    "copy_end_ns",     "compute_start_ns",
    "compute_end_ns",  "rank",
    "sync_start_ns",   "sync_end_ns",
    "exchange_end_ns",
};
// Files written before the gradient exchange lack the last three columns (no
// synchronisation recorded); those written before data-parallel runs also lack
// "rank" (rank 0).
constexpr std::size_t kColumnsWithoutSync = kColumns.size() - 3;
constexpr std::size_t kColumnsWithoutRank = kColumnsWithoutSync - 1;

// One row's first `count` fields, in kColumns order; false if a field is not an
// integer or the count is wrong.
bool parseRow(const std::string &line, std::array<std::int64_t, kColumns.size()> &fields,
              std::size_t count)
{
    const char *p = line.data();
    const char *end = p + line.size();
    for (std::size_t i = 0; i < count; ++i) {
        const auto [next, ec] = std::from_chars(p, end, fields[i]);
        if (ec != std::errc())
            return false;
        p = next;
        if (i + 1 < count) {
            if (p == end || *p != ',')
                return false;
            ++p;
        }
    }
    return p == end;
}

std::int32_t narrow(std::int64_t value, bool &ok)
{
    ok = ok && value >= INT32_MIN && value <= INT32_MAX;
    return static_cast<std::int32_t>(value);
}

std::string headerOf(std::size_t columns)
{
    std::string header;
    for (std::size_t i = 0; i < columns; ++i) {
        if (!header.empty())
            header += ',';
        header += kColumns[i];
    }
    return header;
}

} // namespace

std::string traceCsvHeader()
{
    return headerOf(kColumns.size());
}

void writeTraceCsv(std::ostream &out, const std::vector<TraceRecord> &records)
{
    out << traceCsvHeader() << '\n';
    writeTraceCsvRows(out, records);
}

void writeTraceCsvRows(std::ostream &out, const std::vector<TraceRecord> &records)
{
    for (const auto &r : records) {
        out << r.index << ',' << r.epoch << ',' << r.worker << ',' << r.samples << ',' << r.skipped
            << ',' << r.configVersion << ',' << r.dispatchNs << ',' << r.loadStartNs << ','
            << r.loadEndNs << ',' << r.readNs << ',' << r.decodeNs << ',' << r.transformNs << ','
            << r.collateNs << ',' << r.readyNs << ',' << r.pinStartNs << ',' << r.pinEndNs << ','
            << r.requestNs << ',' << r.deliveryNs << ',' << r.waitNs() << ',' << r.copyStartNs
            << ',' << r.copyEndNs << ',' << r.computeStartNs << ',' << r.computeEndNs << ','
            << r.rank << ',' << r.syncStartNs << ',' << r.syncEndNs << ',' << r.exchangeEndNs
            << '\n';
    }
}

void saveTraceCsv(const std::string &path, const std::vector<TraceRecord> &records)
{
    writeFileAtomically(path, [&](std::ostream &out) { writeTraceCsv(out, records); });
}

namespace {

// Reads one line of at most kMaxTraceCsvLineBytes (without the '\n'); false at the
// end. Throws when a line is longer: a file that is no CSV must not be read whole
// into one string.
bool readLine(std::istream &in, std::string &line, const std::string &source, std::int64_t number)
{
    std::array<char, kMaxTraceCsvLineBytes + 2> buffer{};
    in.getline(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto count = static_cast<std::size_t>(in.gcount());
    if (in.bad())
        throw std::runtime_error(source + ": line " + std::to_string(number) + ": read error");
    if (in.fail() && !in.eof())
        throw std::runtime_error(source + ": line " + std::to_string(number) + ": longer than "
                                 + std::to_string(kMaxTraceCsvLineBytes)
                                 + " bytes (not a row of the per-batch CSV)");
    if (count == 0 && in.eof())
        return false;
    // Without the '\n' getline took (there is none at the end of the file).
    line.assign(buffer.data(), in.eof() ? count : count - 1);
    return true;
}

// Why the row's values cannot be a batch LoaderLab measured; empty when they can.
std::string rowProblem(const TraceRecord &r, std::int64_t previousIndex)
{
    if (r.index < 0)
        return "index " + std::to_string(r.index) + " is negative";
    if (r.index <= previousIndex)
        return "index " + std::to_string(r.index) + " does not follow "
               + std::to_string(previousIndex) + " (rows are in batch order)";
    if (r.epoch < 0 || r.samples < 0 || r.skipped < 0 || r.configVersion < 0)
        return "epoch, samples, skipped and config_version must not be negative";
    if (r.worker < kAllWorkers)
        return "worker " + std::to_string(r.worker) + " is not a worker";
    if (r.rank < 0 || r.rank >= kMaxTraceCsvRanks)
        return "rank " + std::to_string(r.rank) + " is not in 0.."
               + std::to_string(kMaxTraceCsvRanks - 1);
    const std::int64_t times[] = {r.dispatchNs,  r.loadStartNs, r.loadEndNs,      r.readNs,
                                  r.decodeNs,    r.transformNs, r.collateNs,      r.readyNs,
                                  r.pinStartNs,  r.pinEndNs,    r.requestNs,      r.deliveryNs,
                                  r.copyStartNs, r.copyEndNs,   r.computeStartNs, r.computeEndNs,
                                  r.syncStartNs, r.syncEndNs,   r.exchangeEndNs};
    for (const std::int64_t t : times) {
        if (t < 0 || t > kMaxTraceTimeNs)
            return "time " + std::to_string(t) + " ns is not in 0.."
                   + std::to_string(kMaxTraceTimeNs) + " (a year)";
    }
    if (r.deliveryNs < r.requestNs)
        return "delivery_ns is before request_ns";
    if ((r.syncEndNs > 0 && r.syncEndNs < r.syncStartNs)
        || (r.exchangeEndNs > 0 && r.exchangeEndNs < r.syncEndNs))
        return "sync_start_ns, sync_end_ns and exchange_end_ns are not in order";
    return {};
}

} // namespace

std::size_t traceCsvColumns(const std::string &header)
{
    if (header == traceCsvHeader())
        return kColumns.size();
    if (header == headerOf(kColumnsWithoutSync))
        return kColumnsWithoutSync;
    if (header == headerOf(kColumnsWithoutRank))
        return kColumnsWithoutRank;
    return 0;
}

TraceRecord parseTraceCsvRow(const std::string &line, std::size_t columns,
                             std::int64_t previousIndex, const std::string &source,
                             std::int64_t lineNumber)
{
    std::array<std::int64_t, kColumns.size()> f{};
    bool ok = columns <= kColumns.size() && parseRow(line, f, columns);
    TraceRecord r;
    r.index = f[0];
    r.epoch = narrow(f[1], ok);
    r.worker = narrow(f[2], ok);
    r.samples = narrow(f[3], ok);
    r.skipped = narrow(f[4], ok);
    r.configVersion = narrow(f[5], ok);
    std::int64_t *times[] = {&r.dispatchNs, &r.loadStartNs, &r.loadEndNs, &r.readNs,
                             &r.decodeNs,   &r.transformNs, &r.collateNs, &r.readyNs,
                             &r.pinStartNs, &r.pinEndNs,    &r.requestNs, &r.deliveryNs};
    for (std::size_t i = 0; i < std::size(times); ++i)
        *times[i] = f[6 + i];
    r.copyStartNs = f[19];
    r.copyEndNs = f[20];
    r.computeStartNs = f[21];
    r.computeEndNs = f[22];
    r.rank = narrow(f[23], ok);
    r.syncStartNs = f[24];
    r.syncEndNs = f[25];
    r.exchangeEndNs = f[26];
    // Checked before wait_ns = delivery_ns - request_ns, which could overflow.
    const std::string problem = ok ? rowProblem(r, previousIndex) : std::string();
    if (!ok || !problem.empty() || f[18] != r.waitNs())
        throw std::runtime_error(
            source + ": line " + std::to_string(lineNumber) + ": "
            + (!problem.empty() ? problem
                                : "not a row of " + std::to_string(columns)
                                      + " integers with wait_ns = delivery_ns - request_ns"));
    return r;
}

std::vector<TraceRecord> readTraceCsv(std::istream &in, const std::string &source)
{
    std::string line;
    if (!readLine(in, line, source, 1))
        throw std::runtime_error(source + ": not a LoaderLab per-batch CSV (header differs)");
    const std::size_t columns = traceCsvColumns(line);
    if (columns == 0)
        throw std::runtime_error(source + ": not a LoaderLab per-batch CSV (header differs)");
    std::vector<TraceRecord> records;
    std::int64_t previousIndex = -1;
    for (std::int64_t number = 2; readLine(in, line, source, number); ++number) {
        if (number - 1 > kMaxTraceCsvRows)
            throw std::runtime_error(source + ": more than " + std::to_string(kMaxTraceCsvRows)
                                     + " rows, the most a per-batch CSV may have to be read "
                                       "back (the file is not read)");
        if (line.empty())
            continue;
        records.push_back(parseTraceCsvRow(line, columns, previousIndex, source, number));
        previousIndex = records.back().index;
    }
    return records;
}

std::vector<TraceRecord> loadTraceCsv(const std::string &path)
{
    if (const std::string problem = regularFileProblem(path); !problem.empty())
        throw std::runtime_error(path + ": cannot read: " + problem);
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path + ": cannot open");
    return readTraceCsv(in, path);
}

} // namespace loaderlab
