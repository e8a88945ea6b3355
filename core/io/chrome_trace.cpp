#include "core/io/chrome_trace.h"

#include "core/config/marker_text.h"
#include "core/system/atomic_file.h"
#include "core/system/safe_json.h"

#include <algorithm>
#include <map>
#include <set>

namespace loaderlab {
namespace {

using json = nlohmann::json;
using Tracks = ChromeTraceTracks;

double micros(std::int64_t ns)
{
    return static_cast<double>(ns) / 1000.0;
}

struct Event
{
    std::int64_t startNs = 0;
    std::int64_t durationNs = -1; // -1: not a slice (instant, counter)
    int depth = 0;                // a parent's children come after it at the same time
    json body;
};

class Builder
{
public:
    // `pid`: a process per data-parallel rank, 1 + rank.
    void slice(int pid, int tid, const std::string &name, std::int64_t startNs, std::int64_t endNs,
               int depth, json args = json::object())
    {
        if (endNs < startNs || startNs < 0)
            return;
        json e = {{"ph", "X"},
                  {"pid", pid},
                  {"tid", tid},
                  {"name", name},
                  {"ts", micros(startNs)},
                  {"dur", micros(endNs - startNs)}};
        if (!args.empty())
            e["args"] = std::move(args);
        m_events.push_back({startNs, endNs - startNs, depth, std::move(e)});
        m_tracks.insert({pid, tid});
    }

    void instant(const std::string &name, std::int64_t timeNs, json args)
    {
        m_events.push_back({timeNs,
                            -1,
                            0,
                            {{"ph", "i"},
                             {"s", "g"},
                             {"pid", 1},
                             {"tid", Tracks::kConsumer},
                             {"name", name},
                             {"ts", micros(timeNs)},
                             {"args", std::move(args)}}});
    }

    void counter(const std::string &name, std::int64_t timeNs, json args)
    {
        m_events.push_back({timeNs,
                            -1,
                            0,
                            {{"ph", "C"},
                             {"pid", 1},
                             {"name", name},
                             {"ts", micros(timeNs)},
                             {"args", std::move(args)}}});
    }

    const std::set<std::pair<int, int>> &tracks() const { return m_tracks; }

    json take()
    {
        // By time; at one time the longer slice (the parent) first, then by depth.
        std::stable_sort(m_events.begin(), m_events.end(), [](const Event &a, const Event &b) {
            if (a.startNs != b.startNs)
                return a.startNs < b.startNs;
            if (a.durationNs != b.durationNs)
                return a.durationNs > b.durationNs;
            return a.depth < b.depth;
        });
        json out = json::array();
        for (Event &e : m_events)
            out.push_back(std::move(e.body));
        return out;
    }

private:
    std::vector<Event> m_events;
    std::set<std::pair<int, int>> m_tracks; // (pid, tid)
};

// The stages of a batch, back to back from `startNs`, each cut at `endNs`.
void stageSlices(Builder &b, int pid, int tid, const TraceRecord &r, std::int64_t startNs,
                 std::int64_t endNs)
{
    const std::pair<const char *, std::int64_t> stages[] = {{"read", r.readNs},
                                                            {"decode", r.decodeNs},
                                                            {"transform", r.transformNs},
                                                            {"collate", r.collateNs}};
    std::int64_t at = startNs;
    for (const auto &[name, ns] : stages) {
        if (ns <= 0 || at >= endNs)
            continue;
        const std::int64_t end = std::min(endNs, at + ns);
        b.slice(pid, tid, name, at, end, 1,
                {{"sum_over_samples_ms", static_cast<double>(ns) / 1e6}, {"samples", r.samples}});
        at = end;
    }
}

std::string trackName(int tid)
{
    switch (tid) {
    case Tracks::kConsumer:
        return "consumer";
    case Tracks::kConsumerLoading:
        return "consumer (loading, 0 workers)";
    case Tracks::kPin:
        return "pin";
    default:
        return "worker " + std::to_string(tid - Tracks::kFirstWorker);
    }
}

} // namespace

json chromeTrace(const RunReport &report, const std::vector<TraceRecord> &records,
                 const std::vector<WorkerSpan> &spans)
{
    Builder b;
    std::map<std::int64_t, const TraceRecord *> byBatch;
    for (const TraceRecord &r : records)
        byBatch[r.index] = &r;

    // Worker tracks, from the spans: a worker's stretch on a batch. Stage slices go
    // inside where one worker built the whole batch.
    for (const WorkerSpan &s : spans) {
        if (s.worker < 0)
            continue;
        const int tid = Tracks::kFirstWorker + s.worker;
        const int pid = 1 + s.rank;
        const auto found = byBatch.find(s.batch);
        const TraceRecord *r = found == byBatch.end() ? nullptr : found->second;
        json args = {{"batch", s.batch}};
        if (r)
            args["samples"] = r->samples;
        b.slice(pid, tid, "batch " + std::to_string(s.batch), s.startNs, s.endNs, 0,
                std::move(args));
        if (r && r->worker == s.worker && r->rank == s.rank)
            stageSlices(b, pid, tid, *r, s.startNs, s.endNs);
    }

    constexpr std::size_t kRateWindow = 8;
    std::vector<const TraceRecord *> delivered;
    for (const TraceRecord &r : records) {
        const json batch = {{"batch", r.index}, {"samples", r.samples}, {"epoch", r.epoch}};
        const int pid = 1 + r.rank;
        if (r.worker == kConsumerThread && r.loadEndNs > r.loadStartNs) {
            b.slice(pid, Tracks::kConsumerLoading, "batch " + std::to_string(r.index),
                    r.loadStartNs, r.loadEndNs, 0, batch);
            stageSlices(b, pid, Tracks::kConsumerLoading, r, r.loadStartNs, r.loadEndNs);
        }
        if (r.pinEndNs > r.pinStartNs && r.pinStartNs > 0)
            b.slice(pid, Tracks::kPin, "pin " + std::to_string(r.index), r.pinStartNs, r.pinEndNs,
                    0, batch);
        if (r.deliveryNs > r.requestNs)
            b.slice(pid, Tracks::kConsumer, "wait", r.requestNs, r.deliveryNs, 0, batch);
        if (r.copyEndNs > r.copyStartNs && r.copyStartNs > 0)
            b.slice(pid, Tracks::kConsumer, "copy", r.copyStartNs, r.copyEndNs, 0, batch);
        if (r.computeEndNs > r.computeStartNs)
            b.slice(pid, Tracks::kConsumer, "step", r.computeStartNs, r.computeEndNs, 0, batch);
        // Samples/s over the last few deliveries.
        delivered.push_back(&r);
        if (delivered.size() > kRateWindow) {
            const TraceRecord *first = delivered[delivered.size() - 1 - kRateWindow];
            std::int64_t samples = 0;
            for (std::size_t k = delivered.size() - kRateWindow; k < delivered.size(); ++k)
                samples += delivered[k]->samples;
            const std::int64_t ns = r.deliveryNs - first->deliveryNs;
            if (ns > 0)
                b.counter(
                    "throughput", r.deliveryNs,
                    {{"samples/s", static_cast<double>(samples) * 1e9 / static_cast<double>(ns)}});
        }
    }
    for (const TraceMarker &m : report.markers)
        b.instant(markerText(m), m.timeNs, {{"batch", m.batch}, {"kind", markerKindName(m.kind)}});

    json events = json::array();
    std::set<int> pids{1};
    for (const auto &track : b.tracks())
        pids.insert(track.first);
    for (const int pid : pids) {
        // One process per data-parallel rank; a one-device run is one process.
        const std::string rank = pids.size() > 1 ? " rank " + std::to_string(pid - 1) : "";
        events.push_back({{"ph", "M"},
                          {"pid", pid},
                          {"name", "process_name"},
                          {"args", {{"name", "LoaderLab" + rank + ": " + report.dataset}}}});
        events.push_back({{"ph", "M"},
                          {"pid", pid},
                          {"name", "process_sort_index"},
                          {"args", {{"sort_index", pid}}}});
    }
    for (const auto &[pid, tid] : b.tracks()) {
        events.push_back({{"ph", "M"},
                          {"pid", pid},
                          {"tid", tid},
                          {"name", "thread_name"},
                          {"args", {{"name", trackName(tid)}}}});
        events.push_back({{"ph", "M"},
                          {"pid", pid},
                          {"tid", tid},
                          {"name", "thread_sort_index"},
                          {"args", {{"sort_index", tid}}}});
    }
    for (json &e : b.take())
        events.push_back(std::move(e));
    json other = {{"generator", "LoaderLab"},
                  {"dataset", report.dataset},
                  {"state", report.state},
                  {"batches_in_run", report.summary.batches},
                  {"batches_in_file", records.size()}};
    if (!records.empty())
        other["first_batch_in_file"] = records.front().index;
    return {{"traceEvents", std::move(events)},
            {"displayTimeUnit", "ms"},
            {"otherData", std::move(other)}};
}

void saveChromeTrace(const std::string &path, const RunReport &report,
                     const std::vector<TraceRecord> &records, const std::vector<WorkerSpan> &spans)
{
    const json trace = toSafeJson(chromeTrace(report, records, spans));
    writeFileAtomically(path, [&](std::ostream &out) { out << trace.dump() << '\n'; });
}

} // namespace loaderlab
