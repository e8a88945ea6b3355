#include "core/io/trace_csv.h"

#include "core/io/atomic_file.h"

#include <array>

namespace loaderlab {
namespace {

constexpr std::array kColumns{
    "index",          "epoch",
    "worker",         "samples",
    "skipped",        "config_version",
    "dispatch_ns",    "load_start_ns",
    "load_end_ns",    "read_ns",
    "decode_ns",      "transform_ns",
    "collate_ns",     "ready_ns",
    "pin_start_ns",   "pin_end_ns",
    "request_ns",     "delivery_ns",
    "wait_ns",        "copy_start_ns",
    "copy_end_ns",    "compute_start_ns",
    "compute_end_ns",
};

} // namespace

std::string traceCsvHeader()
{
    std::string header;
    for (const char *column : kColumns) {
        if (!header.empty())
            header += ',';
        header += column;
    }
    return header;
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
            << ',' << r.copyEndNs << ',' << r.computeStartNs << ',' << r.computeEndNs << '\n';
    }
}

void saveTraceCsv(const std::string &path, const std::vector<TraceRecord> &records)
{
    writeFileAtomically(path, [&](std::ostream &out) { writeTraceCsv(out, records); });
}

} // namespace loaderlab
