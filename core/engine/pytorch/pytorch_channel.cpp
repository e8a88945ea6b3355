#include "core/engine/pytorch/pytorch_channel.h"

#include "core/system/safe_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace loaderlab {
namespace {

using json = nlohmann::json;

// Records are flat objects; a little nesting is parsed (and refused by the type
// checks), deep nesting is refused while parsing.
constexpr int kMaxDepth = 4;

[[noreturn]] void refuse(const std::string &why)
{
    throw ChannelError(why);
}

const json &field(const json &j, const char *key)
{
    const auto it = j.find(key);
    if (it == j.end())
        refuse(std::string("no \"") + key + "\"");
    return *it;
}

std::int64_t integer(const json &j, const char *key, std::int64_t low, std::int64_t high)
{
    const json &v = field(j, key);
    if (!v.is_number_integer())
        refuse(std::string("\"") + key + "\" is not an integer");
    if (v.is_number_unsigned()
        && v.get<std::uint64_t>()
               > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        refuse(std::string("\"") + key + "\" is out of range");
    const std::int64_t value = v.is_number_unsigned()
                                   ? static_cast<std::int64_t>(v.get<std::uint64_t>())
                                   : v.get<std::int64_t>();
    if (value < low || value > high)
        refuse(std::string("\"") + key + "\" is " + std::to_string(value) + ", not in ["
               + std::to_string(low) + ", " + std::to_string(high) + "]");
    return value;
}

std::string text(const json &j, const char *key, std::size_t maxBytes)
{
    const json &v = field(j, key);
    if (!v.is_string())
        refuse(std::string("\"") + key + "\" is not a string");
    std::string s = v.get<std::string>();
    if (s.size() > maxBytes)
        s = s.substr(0, maxBytes) + "...";
    return s;
}

void ordered(std::int64_t a, const char *aKey, std::int64_t b, const char *bKey)
{
    if (a > b)
        refuse(std::string("\"") + aKey + "\" is after \"" + bKey + "\"");
}

// "rank", optional (0), within the run's ranks.
std::int32_t rankOf(const json &j, const ChannelContext &c)
{
    return j.contains("rank") ? static_cast<std::int32_t>(integer(j, "rank", 0, c.ranks - 1)) : 0;
}

ChannelRankProgress progressOf(const ChannelContext &c, std::int32_t rank)
{
    if (rank == 0)
        return {c.batches, c.epoch, c.epochSamples};
    const auto other = static_cast<std::size_t>(rank - 1);
    return other < c.otherRanks.size() ? c.otherRanks[other] : ChannelRankProgress{};
}

ChannelBatch parseBatch(const json &j, const ChannelContext &c)
{
    if (!c.started)
        refuse("a batch before the start record");
    ChannelBatch b;
    b.rank = rankOf(j, c);
    const ChannelRankProgress at = progressOf(c, b.rank);
    b.index = integer(j, "index", at.batches, at.batches);
    if (c.maxBatches > 0 && b.index >= c.maxBatches)
        refuse("more batches than the run's " + std::to_string(c.maxBatches));
    b.epoch = static_cast<std::int32_t>(
        integer(j, "epoch", at.epoch, c.epochs > 0 ? c.epochs - 1 : std::int64_t{INT32_MAX}));
    b.replayed = c.replaying;
    b.worker = static_cast<std::int32_t>(b.replayed ? integer(j, "worker", -1, -1)
                                                    : integer(j, "worker", c.workers > 0 ? 0 : -1,
                                                              c.workers > 0 ? c.workers - 1 : -1));
    // Rank 0 relays the other ranks' batches of a step before it pauses or changes the
    // run at the next (loaderlab_ranks.py): every rank's batch is under the version
    // in force.
    if (c.paused)
        refuse("a batch while paused");
    b.version = integer(j, "version", c.version, c.version);
    // A new epoch starts at the beginning of its order; an epoch goes on where it was.
    const std::int64_t first = b.epoch == at.epoch ? at.epochSamples : 0;
    b.first = integer(j, "first", first, first);
    const std::int64_t places = b.replayed
                                    ? c.batchSize
                                    : std::min<std::int64_t>(c.batchSize, c.orderSamples - b.first);
    b.skipped = j.contains("skipped") ? static_cast<std::int32_t>(integer(j, "skipped", 0, places))
                                      : 0;
    b.samples = static_cast<std::int32_t>(
        integer(j, "samples", b.skipped > 0 ? 0 : 1, places - b.skipped));
    b.ids = integer(j, "ids", 0, static_cast<std::int64_t>(kEngineIdsModulus) - 1);
    const auto time = [&](const char *key) { return integer(j, key, c.earliestNs, c.latestNs); };
    b.loadStartNs = time("load_start");
    b.collateStartNs = time("collate_start");
    b.loadEndNs = time("load_end");
    b.requestNs = time("request");
    b.deliveryNs = time("delivery");
    b.computeStartNs = time("compute_start");
    b.computeEndNs = time("compute_end");
    ordered(b.loadStartNs, "load_start", b.collateStartNs, "collate_start");
    ordered(b.collateStartNs, "collate_start", b.loadEndNs, "load_end");
    ordered(b.requestNs, "request", b.deliveryNs, "delivery");
    ordered(b.deliveryNs, "delivery", b.computeStartNs, "compute_start");
    ordered(b.computeStartNs, "compute_start", b.computeEndNs, "compute_end");
    if (j.contains("sync_start") || j.contains("sync_end")) {
        b.syncStartNs = time("sync_start");
        b.syncEndNs = time("sync_end");
        ordered(b.computeEndNs, "compute_end", b.syncStartNs, "sync_start");
        ordered(b.syncStartNs, "sync_start", b.syncEndNs, "sync_end");
        if (j.contains("exchange_end")) {
            b.exchangeEndNs = time("exchange_end");
            ordered(b.syncEndNs, "sync_end", b.exchangeEndNs, "exchange_end");
        }
    } else if (j.contains("exchange_end")) {
        refuse("\"exchange_end\" without \"sync_end\"");
    }
    // The samples are built one after another inside the load: their read, decode
    // and transform times together fit in it (checked without overflow).
    std::int64_t left = b.loadEndNs - b.loadStartNs;
    for (auto [key, value] : {std::pair{"read", &b.readNs}, std::pair{"decode", &b.decodeNs},
                              std::pair{"transform", &b.transformNs}}) {
        *value = integer(j, key, 0, std::numeric_limits<std::int64_t>::max());
        if (*value > left)
            refuse("read + decode + transform is longer than the load");
        left -= *value;
    }
    if (const auto skips = j.find("skips"); skips != j.end()) {
        if (!skips->is_array() || skips->size() > std::min<std::size_t>(b.skipped, kMaxEngineSkips))
            refuse("\"skips\" is not an array of at most \"skipped\" entries");
        for (const json &skip : *skips) {
            if (!skip.is_array() || skip.size() != 2 || !skip[0].is_number_integer()
                || !skip[1].is_string())
                refuse("a \"skips\" entry is not [index, reason]");
            const std::int64_t index = skip[0].get<std::int64_t>();
            if (index < -1 || (c.datasetSamples > 0 && index >= c.datasetSamples))
                refuse("a \"skips\" index is not a sample of the dataset");
            std::string reason = skip[1].get<std::string>();
            if (reason.size() > 1000)
                reason = reason.substr(0, 1000) + "...";
            b.skips.push_back({index, std::move(reason)});
        }
    }
    if (const auto spans = j.find("spans"); spans != j.end()) {
        if (!spans->is_array() || spans->size() > kMaxEngineSpans
            || spans->size() > static_cast<std::size_t>(b.samples) + b.skipped)
            refuse("\"spans\" is not an array of at most one span per sample");
        std::int64_t previousEnd = b.loadStartNs;
        for (const json &span : *spans) {
            if (!span.is_array() || span.size() != 2 || !span[0].is_number_integer()
                || !span[1].is_number_integer())
                refuse("a \"spans\" entry is not [start, end]");
            const std::int64_t start = span[0].get<std::int64_t>();
            const std::int64_t end = span[1].get<std::int64_t>();
            // One after another inside the load, as the samples are built.
            if (start < previousEnd || end < start || end > b.collateStartNs)
                refuse("a sample's span is not inside the load, after the one before");
            b.spans.emplace_back(start, end);
            previousEnd = end;
        }
    }
    return b;
}

} // namespace

EngineRecord parseEngineRecord(std::string_view line, const ChannelContext &context)
{
    if (line.size() > kMaxEngineLineBytes)
        refuse("longer than " + std::to_string(kMaxEngineLineBytes) + " bytes");
    json j;
    try {
        j = json::parse(line, [](int depth, json::parse_event_t, json &) {
            if (depth > kMaxDepth)
                refuse("nested too deeply");
            return true;
        });
    } catch (const json::exception &) {
        // parse_error, and out_of_range for a number too large for a double (1e400)
        refuse("not JSON");
    }
    if (!j.is_object())
        refuse(std::string("not a JSON object but ") + j.type_name());
    if (context.ended)
        refuse("a record after the end record");
    const json &typeField = field(j, "type");
    if (!typeField.is_string())
        refuse("\"type\" is not a string");
    const std::string type = typeField.get<std::string>();
    if (type == "batch")
        return parseBatch(j, context);
    if (type == "start") {
        if (context.started)
            refuse("a second start record");
        ChannelStart s;
        s.torch = text(j, "torch", 64);
        s.samples = integer(j, "samples", 0, std::numeric_limits<std::int64_t>::max());
        s.t0Ns = integer(j, "t0", context.earliestNs, context.latestNs);
        if (j.contains("ranks"))
            integer(j, "ranks", context.ranks, context.ranks);
        if (j.contains("dataset"))
            s.dataset = text(j, "dataset", 500);
        return s;
    }
    if (type == "error") {
        ChannelFailure failure{text(j, "message", 2000)};
        failure.rank = rankOf(j, context);
        if (const auto refused = j.find("refused"); refused != j.end()) {
            if (!refused->is_boolean())
                refuse("\"refused\" is not true or false");
            failure.refused = refused->get<bool>();
        }
        return failure;
    }
    if (type == "phase") {
        if (context.started)
            refuse("a phase record after the start record");
        ChannelPhase phase;
        phase.what = text(j, "what", 500);
        const json &seconds = field(j, "seconds");
        if (!seconds.is_number() || !(seconds.get<double>() > 0.0)
            || seconds.get<double>() > kMaxEnginePhaseSeconds)
            refuse("\"seconds\" is not a number in (0, 86400]");
        phase.seconds = seconds.get<double>();
        phase.tNs = integer(j, "t", context.earliestNs, context.latestNs);
        return phase;
    }
    if (type == "end") {
        if (context.paused)
            refuse("the end record while paused");
        ChannelEnd e;
        e.batches = integer(j, "batches", context.batches, context.batches);
        return e;
    }
    if (!context.started)
        refuse("a " + type + " record before the start record");
    const auto now = [&](const char *key) {
        return integer(j, key, context.earliestNs, context.latestNs);
    };
    if (type == "reconfigured") {
        if (context.paused)
            refuse("a reconfiguration while paused");
        ChannelReconfigured r;
        r.version = integer(j, "version", context.answeredVersion + 1, context.requestedVersion);
        r.index = integer(j, "index", context.batches, context.batches);
        r.tNs = now("t");
        r.batchSize = static_cast<std::int32_t>(integer(j, "batch_size", 1, kMaxEngineBatchSize));
        r.workers = static_cast<std::int32_t>(integer(j, "workers", 0, kMaxEngineWorkers));
        return r;
    }
    if (type == "refused") {
        ChannelRefused r;
        r.version = integer(j, "version", context.answeredVersion + 1, context.requestedVersion);
        r.message = text(j, "message", 2000);
        return r;
    }
    if (type == "replay") {
        if (context.paused || context.replaying || context.ranks > 1)
            refuse(context.ranks > 1 ? "a replay of several ranks"
                   : context.paused  ? "a replay while paused"
                                     : "a second replay");
        ChannelReplay r;
        r.index = integer(j, "index", context.batches, context.batches);
        r.tNs = now("t");
        r.batches = integer(j, "batches", 1, std::max<std::int64_t>(context.batches, 1));
        return r;
    }
    if (type == "paused" || type == "resumed") {
        if (context.paused != (type == "resumed"))
            refuse(context.paused ? "paused twice" : "resumed without a pause");
        const std::int64_t index = integer(j, "index", context.batches, context.batches);
        const std::int64_t t = now("t");
        if (type == "paused")
            return ChannelPaused{index, t};
        ordered(context.pausedNs, "paused", t, "t");
        return ChannelResumed{index, t};
    }
    refuse("unknown type \"" + quoteEngineLine(type, 40) + "\"");
}

void acceptEngineRecord(ChannelContext &context, const EngineRecord &record)
{
    if (const auto *s = std::get_if<ChannelStart>(&record)) {
        context.started = true;
        // 0: a stream of unknown length, which any number of places fits.
        context.datasetSamples = s->samples > 0 ? s->samples
                                                : std::numeric_limits<std::int64_t>::max();
        const int ranks = std::clamp(context.ranks, 1, kMaxEngineRanks);
        context.orderSamples = s->samples > 0 ? (s->samples + ranks - 1) / ranks
                                              : context.datasetSamples;
        context.otherRanks.assign(static_cast<std::size_t>(ranks - 1), {});
        context.earliestNs = s->t0Ns;
    } else if (const auto *b = std::get_if<ChannelBatch>(&record)) {
        const ChannelRankProgress next{b->index + 1, b->epoch, b->first + b->samples + b->skipped};
        if (b->rank == 0) {
            context.batches = next.batches;
            context.epoch = next.epoch;
            context.epochSamples = next.epochSamples;
        } else if (static_cast<std::size_t>(b->rank) <= context.otherRanks.size()) {
            context.otherRanks[static_cast<std::size_t>(b->rank) - 1] = next;
        }
    } else if (std::holds_alternative<ChannelEnd>(record)) {
        context.ended = true;
    } else if (const auto *r = std::get_if<ChannelReconfigured>(&record)) {
        context.answeredVersion = context.version = r->version;
        context.batchSize = r->batchSize;
        context.workers = r->workers;
    } else if (const auto *f = std::get_if<ChannelRefused>(&record)) {
        context.answeredVersion = f->version;
    } else if (std::holds_alternative<ChannelReplay>(record)) {
        context.replaying = true;
    } else if (const auto *p = std::get_if<ChannelPaused>(&record)) {
        context.paused = true;
        context.pausedNs = p->tNs;
    } else if (std::holds_alternative<ChannelResumed>(record)) {
        context.paused = false;
    }
}

std::uint64_t engineSampleId(std::int64_t index)
{
    std::uint64_t z = static_cast<std::uint64_t>(index) + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

std::string quoteEngineLine(std::string_view line, std::size_t maxBytes)
{
    if (line.size() <= maxBytes)
        return escapeForTerminal(line);
    return escapeForTerminal(line.substr(0, maxBytes)) + "... (" + std::to_string(line.size())
           + " bytes)";
}

void ChannelLineSplitter::feed(std::string_view bytes,
                               const std::function<void(std::string_view)> &onLine)
{
    while (!bytes.empty()) {
        const auto eol = bytes.find('\n');
        const std::string_view piece = bytes.substr(0, eol);
        if (m_pending.size() + piece.size() > m_maxLine)
            throw ChannelError("a line longer than " + std::to_string(m_maxLine) + " bytes");
        if (eol == std::string_view::npos) {
            m_pending.append(piece);
            return;
        }
        if (m_pending.empty()) {
            onLine(piece);
        } else {
            m_pending.append(piece);
            const std::string line = std::move(m_pending);
            m_pending.clear();
            onLine(line);
        }
        bytes.remove_prefix(eol + 1);
    }
}

} // namespace loaderlab
