// preprocessShards: the plan, one shard at a time under its lock, and the manifest.

#include "core/tools/preprocess_shards.h"

#include "core/config/dataset_config.h"
#include "core/dataset/tensor_file_format.h"
#include "core/image/image_folder_dataset.h"
#include "core/system/atomic_file.h"
#include "core/system/folder_lock.h"
#include "core/system/json_integer.h"
#include "core/system/own_output.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <thread>

namespace loaderlab {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char *kPlanName = "preprocess.json";
constexpr const char *kPlanFormat = "loaderlab-preprocess-plan";
constexpr const char *kShardFormat = "loaderlab-preprocess-shard";
constexpr const char *kManifestFormat = "loaderlab-tensor-shards";

const FolderLockNames &shardLockNames()
{
    static const FolderLockNames names{"preprocess.lock", "shard-", "shard folder", "preprocess",
                                       false};
    return names;
}

const FolderLockNames &manifestLockNames()
{
    static const FolderLockNames names{"manifest.lock", "manifest-", "shard folder", "preprocess"};
    return names;
}

std::string paddedOf(int index, int count)
{
    char text[64];
    std::snprintf(text, sizeof text, "shard-%05d-of-%05d", index, count);
    return text;
}

std::string recordFileName(int index, int count)
{
    return paddedOf(index, count) + ".json";
}

// The folder's listing as the shards cut it: every image's path under the folder,
// label and size, so a listing that changed between two tasks is caught.
std::string listingFingerprint(const ImageFolderDataset &dataset, const std::string &root)
{
    std::uint64_t hash = 1469598103934665603ULL; // FNV-1a, 64 bits
    const auto mix = [&hash](const std::string &text) {
        for (const char c : text) {
            hash ^= static_cast<unsigned char>(c);
            hash *= 1099511628211ULL;
        }
        hash ^= 0xff;
        hash *= 1099511628211ULL;
    };
    for (const ImageEntry &entry : dataset.entries()) {
        std::error_code ec;
        mix(fs::relative(entry.path, root, ec).string());
        mix(std::to_string(entry.label));
        mix(std::to_string(fs::file_size(entry.path, ec)));
    }
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
    return text;
}

json readJsonFile(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        return nullptr;
    try {
        return json::parse(in);
    } catch (const json::exception &) {
        return nullptr;
    }
}

void writeJson(const std::string &path, const json &value)
{
    writeFileAtomically(path, [&value](std::ostream &out) { out << value.dump(2) << '\n'; });
}

// Refuses to go on where `path` is there and is not LoaderLab's.
void checkOwn(const std::string &path)
{
    if (const std::string foreign = foreignFileProblem(path); !foreign.empty())
        throw std::invalid_argument(path + ": " + foreign);
}

json planFor(const std::string &inputDir, const ImageFolderDataset &dataset,
             const PreprocessOptions &options, int shards)
{
    std::error_code ec;
    const std::string root = fs::weakly_canonical(fs::absolute(inputDir, ec), ec).string();
    const SampleShape shape = dataset.sampleShape();
    return {{"format", kPlanFormat},
            {"version", 1},
            {"source", root},
            {"images", dataset.size()},
            {"listing", listingFingerprint(dataset, root)},
            {"dtype", dtypeName(options.dtype)},
            {"resize", options.resizeSize},
            {"crop", options.cropSize},
            {"shape", {shape.channels, shape.height, shape.width}},
            {"shards", shards}};
}

const FolderLockNames &planLockNames()
{
    static const FolderLockNames names{"plan.lock", "plan-", "shard folder", "preprocess"};
    return names;
}

// Writes the plan, or checks that the folder's plan is this one. The tasks of an
// array start together: one writes the plan while the others wait for its lock
// (a few milliseconds), then read it.
void agreeOnPlan(const std::string &outDir, const json &plan)
{
    const std::string path = (fs::path(outDir) / kPlanName).string();
    checkOwn(path);
    std::optional<FolderLock> lock;
    for (int attempt = 0; !lock; ++attempt) {
        try {
            lock.emplace(outDir, planLockNames());
        } catch (const std::invalid_argument &) {
            if (attempt >= 200)
                throw;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
    const json there = readJsonFile(path);
    if (there.is_null()) {
        writeJson(path, plan);
        return;
    }
    for (const char *key :
         {"format", "source", "images", "listing", "dtype", "resize", "crop", "shards"}) {
        if (there.value(key, json()) != plan.at(key))
            throw std::invalid_argument(
                outDir + ": the folder holds shards of another preprocess (" + key + ": "
                + there.value(key, json()).dump() + " there, " + plan.at(key).dump()
                + " now); give another folder, or the same options and images");
    }
}

// Shard `index`'s record when the shard is done (its tensor file and its record
// agree); null otherwise.
json doneRecord(const std::string &outDir, const json &plan, int index, int count)
{
    json record = readJsonFile((fs::path(outDir) / recordFileName(index, count)).string());
    if (record.is_null() || record.value("format", "") != kShardFormat
        || record.value("listing", "") != plan.at("listing").get<std::string>()
        || record.value("shard", -1) != index || record.value("shards", -1) != count)
        return nullptr;
    try {
        const TensorFileHeader header = readTensorFileHeader(
            (fs::path(outDir) / shardFileName(index, count)).string());
        if (header.count == record.value("records", std::uint64_t{0})
            && dtypeName(header.dtype) == plan.at("dtype").get<std::string>())
            return record;
    } catch (const std::exception &) {
    }
    return nullptr;
}

bool shardDone(const std::string &outDir, const json &plan, int index, int count)
{
    return !doneRecord(outDir, plan, index, count).is_null();
}

void writeShard(const ImageFolderDataset &dataset, const std::string &outDir, const json &plan,
                PreprocessOptions options, int index, int count, ShardedPreprocessResult &result,
                const ProgressCallback &progress)
{
    const std::string tensorPath = (fs::path(outDir) / shardFileName(index, count)).string();
    const std::string recordPath = (fs::path(outDir) / recordFileName(index, count)).string();
    checkOwn(tensorPath);
    checkOwn(recordPath);
    const auto [first, end] = shardRange(jsonInteger(plan.at("images"), "images", 0), index, count);
    options.first = first;
    options.end = end;
    options.allowEmpty = true;
    const PreprocessResult done = preprocessImageFolder(dataset, tensorPath, options, progress);
    json skipped = json::array();
    for (const SkippedSample &s : done.skipped)
        skipped.push_back({{"index", s.sampleIndex}, {"source", s.source}, {"reason", s.reason}});
    writeJson(recordPath, {{"format", kShardFormat},
                           {"version", 1},
                           {"listing", plan.at("listing")},
                           {"shard", index},
                           {"shards", count},
                           {"file", shardFileName(index, count)},
                           {"first_image", first},
                           {"end_image", end},
                           {"records", done.written},
                           {"skipped", skipped}});
    result.written.push_back(index);
    result.records += done.written;
    result.skipped.insert(result.skipped.end(), done.skipped.begin(), done.skipped.end());
}

// The manifest, once every shard is done; written by one task at a time.
void writeManifestIfComplete(const std::string &outDir, const json &plan, int count,
                             ShardedPreprocessResult &result)
{
    json shards = json::array();
    std::uint64_t records = 0;
    for (int i = 0; i < count; ++i) {
        const json r = doneRecord(outDir, plan, i, count);
        if (r.is_null())
            continue;
        ++result.shardsDone;
        shards.push_back({{"file", shardFileName(i, count)},
                          {"first_image", r.at("first_image")},
                          {"end_image", r.at("end_image")},
                          {"records", r.at("records")},
                          {"skipped", r.at("skipped").size()}});
        records += r.at("records").get<std::uint64_t>();
    }
    if (result.shardsDone < count)
        return;
    if (records == 0)
        throw std::runtime_error(outDir + ": no image of " + plan.at("source").get<std::string>()
                                 + " could be decoded; the shards hold no record");
    const std::string path = (fs::path(outDir) / kShardManifestName).string();
    checkOwn(path);
    try {
        const FolderLock lock(outDir, manifestLockNames());
        writeJson(path, {{"format", kManifestFormat},
                         {"version", 1},
                         {"source", plan.at("source")},
                         {"images", plan.at("images")},
                         {"dtype", plan.at("dtype")},
                         {"shape", plan.at("shape")},
                         {"records", records},
                         {"shards", shards}});
    } catch (const std::invalid_argument &) {
        // Another task holds it: it writes the same manifest.
    }
    result.manifestPath = path;
}

} // namespace

void prepareShardFolder(const std::string &inputDir, const std::string &outDir)
{
    std::error_code ec;
    const fs::path out = fs::absolute(outDir, ec);
    if (fs::exists(out, ec) && !fs::is_directory(out, ec))
        throw std::invalid_argument(outDir
                                    + ": not a folder (with --shards, OUT is a folder "
                                      "for the shards and their manifest)");
    const fs::path in = fs::weakly_canonical(fs::absolute(inputDir, ec), ec);
    const fs::path outCanon = fs::weakly_canonical(out, ec);
    const auto inside = [](const fs::path &child, const fs::path &parent) {
        const auto rel = child.lexically_relative(parent);
        return !rel.empty() && *rel.begin() != "..";
    };
    if (inside(outCanon, in))
        throw std::invalid_argument(outDir + ": the shard folder lies inside the image folder "
                                    + inputDir + "; give a folder outside it");
    if (!fs::exists(out, ec) && !fs::create_directory(out, ec))
        throw std::invalid_argument(outDir + ": cannot make the folder ("
                                    + (ec ? ec.message() : std::string("its parent is missing"))
                                    + ")");
}

std::string shardFileName(int index, int count)
{
    return paddedOf(index, count) + ".lltensor";
}

std::pair<std::int64_t, std::int64_t> shardRange(std::int64_t images, int index, int count)
{
    const auto at = [&](std::int64_t k) { return images * k / count; };
    return {at(index), at(index + 1)};
}

ShardedPreprocessResult preprocessShards(const std::string &inputDir, const std::string &outDir,
                                         const PreprocessOptions &options, int shards, int shard,
                                         const ProgressCallback &progress)
{
    if (shards < 1 || shard >= shards)
        throw std::invalid_argument("--shard " + std::to_string(shard) + " of --shards "
                                    + std::to_string(shards)
                                    + ": expected a shard from 0 to shards - 1");
    // Throws DatasetError for a bad folder.
    const ImageFolderDataset dataset(preprocessDatasetConfig(inputDir, options));
    if (dataset.size() < shards)
        throw std::invalid_argument(inputDir + ": " + std::to_string(dataset.size())
                                    + " images cannot make " + std::to_string(shards)
                                    + " shards; give at most as many shards as images");
    prepareShardFolder(inputDir, outDir);
    const json plan = planFor(inputDir, dataset, options, shards);
    agreeOnPlan(outDir, plan);

    ShardedPreprocessResult result;
    for (int i = 0; i < shards; ++i) {
        if (shard >= 0 && i != shard)
            continue;
        if (shardDone(outDir, plan, i, shards)) {
            result.kept.push_back(i);
            continue;
        }
        // Each shard under its own lock: processes that run the same command (the
        // tasks of an array) each take the shards no other has taken.
        std::optional<FolderLock> lock;
        try {
            lock.emplace(outDir, shardLockNames(), i, shards);
        } catch (const std::invalid_argument &e) {
            // Held by another process: only a lock file that cannot be made is an error.
            if (shard >= 0 || std::string(e.what()).find("another loaderlab") == std::string::npos)
                throw;
            result.busy.push_back(i);
            continue;
        }
        if (shardDone(outDir, plan, i, shards)) { // finished while this one waited
            result.kept.push_back(i);
            continue;
        }
        writeShard(dataset, outDir, plan, options, i, shards, result, progress);
    }
    writeManifestIfComplete(outDir, plan, shards, result);
    return result;
}

} // namespace loaderlab
