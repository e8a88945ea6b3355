#include "core/run/engine_channel.h"

#include "core/system/safe_text.h"

#include <nlohmann/json.hpp>

namespace loaderlab {
namespace {

using json = nlohmann::json;

// Records are flat objects; a little nesting is parsed (and refused by the type
// checks), deep nesting is refused while parsing.
constexpr int kMaxDepth = 4;

[[noreturn]] void refuse(const std::string &why)
{
    throw EngineChannelError(why);
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

EngineBatch parseBatch(const json &j, const EngineChannelContext &c)
{
    if (!c.started)
        refuse("a batch before the start record");
    EngineBatch b;
    b.index = integer(j, "index", c.batches, c.batches);
    if (c.maxBatches > 0 && b.index >= c.maxBatches)
        refuse("more batches than the run's " + std::to_string(c.maxBatches));
    b.epoch = static_cast<std::int32_t>(
        integer(j, "epoch", c.epoch, c.epochs > 0 ? c.epochs - 1 : std::int64_t{INT32_MAX}));
    b.worker = static_cast<std::int32_t>(
        integer(j, "worker", c.workers > 0 ? 0 : -1, c.workers > 0 ? c.workers - 1 : -1));
    b.samples = static_cast<std::int32_t>(
        integer(j, "samples", 1, std::min<std::int64_t>(c.batchSize, c.datasetSamples)));
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
    return b;
}

} // namespace

EngineRecord parseEngineRecord(std::string_view line, const EngineChannelContext &context)
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
        EngineStart s;
        s.torch = text(j, "torch", 64);
        s.samples = integer(j, "samples", 1, std::numeric_limits<std::int64_t>::max());
        s.t0Ns = integer(j, "t0", context.earliestNs, context.latestNs);
        return s;
    }
    if (type == "error")
        return EngineFailure{text(j, "message", 2000)};
    if (type == "end") {
        EngineEnd e;
        e.batches = integer(j, "batches", context.batches, context.batches);
        return e;
    }
    refuse("unknown type \"" + quoteEngineLine(type, 40) + "\"");
}

void acceptEngineRecord(EngineChannelContext &context, const EngineRecord &record)
{
    if (const auto *s = std::get_if<EngineStart>(&record)) {
        context.started = true;
        context.datasetSamples = s->samples;
        context.earliestNs = s->t0Ns;
    } else if (const auto *b = std::get_if<EngineBatch>(&record)) {
        context.batches = b->index + 1;
        context.epoch = b->epoch;
    } else if (std::holds_alternative<EngineEnd>(record)) {
        context.ended = true;
    }
}

std::string quoteEngineLine(std::string_view line, std::size_t maxBytes)
{
    if (line.size() <= maxBytes)
        return escapeForTerminal(line);
    return escapeForTerminal(line.substr(0, maxBytes)) + "... (" + std::to_string(line.size())
           + " bytes)";
}

void EngineLineSplitter::feed(std::string_view bytes,
                              const std::function<void(std::string_view)> &onLine)
{
    while (!bytes.empty()) {
        const auto eol = bytes.find('\n');
        const std::string_view piece = bytes.substr(0, eol);
        if (m_pending.size() + piece.size() > m_maxLine)
            throw EngineChannelError("a line longer than " + std::to_string(m_maxLine) + " bytes");
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
