// The shard manifest read into its tensor files.

#include "core/dataset/tensor_shards.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace loaderlab {

namespace {

namespace fs = std::filesystem;

constexpr const char *kManifestFormat = "loaderlab-tensor-shards";

std::vector<TensorFilePart> partsOfManifest(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        throw DatasetError(path + ": cannot read the shard manifest");
    nlohmann::json manifest;
    try {
        manifest = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception &e) {
        throw DatasetError(path + ": not a shard manifest (" + e.what() + ")");
    }
    if (!manifest.is_object() || manifest.value("format", "") != kManifestFormat)
        throw DatasetError(path + ": not a shard manifest (expected \"format\": \""
                           + kManifestFormat + "\", as preprocess --shards writes)");
    const fs::path folder = fs::path(path).parent_path();
    std::vector<TensorFilePart> parts;
    try {
        for (const nlohmann::json &shard : manifest.at("shards")) {
            const std::string name = shard.at("file").get<std::string>();
            if (name.empty() || fs::path(name).filename() != name)
                throw DatasetError(path + ": shard file \"" + name
                                   + "\" is not a file name in the manifest's folder");
            TensorFilePart part{(folder / name).string(), {}};
            part.header = readTensorFileHeader(part.path);
            const auto records = shard.at("records").get<std::uint64_t>();
            if (part.header.count != records)
                throw DatasetError(part.path + ": holds " + std::to_string(part.header.count)
                                   + " records, the manifest " + path + " lists "
                                   + std::to_string(records));
            if (!parts.empty()
                && (part.header.dtype != parts.front().header.dtype
                    || shapeToString(part.header.shape)
                           != shapeToString(parts.front().header.shape)))
                throw DatasetError(part.path + ": " + shapeToString(part.header.shape) + " "
                                   + dtypeName(part.header.dtype) + ", unlike the first shard's "
                                   + shapeToString(parts.front().header.shape) + " "
                                   + dtypeName(parts.front().header.dtype));
            parts.push_back(std::move(part));
        }
    } catch (const nlohmann::json::exception &e) {
        throw DatasetError(path + ": a shard manifest without its shards' files and records ("
                           + e.what() + ")");
    }
    if (parts.empty())
        throw DatasetError(path + ": the shard manifest lists no shard");
    return parts;
}

} // namespace

std::vector<TensorFilePart> tensorDatasetParts(const std::string &path)
{
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        const std::string manifest = (fs::path(path) / "manifest.json").string();
        if (!fs::exists(manifest, ec))
            throw DatasetError(path
                               + ": a folder without manifest.json (a tensor dataset in "
                                 "shards has one when every shard is done; run the "
                                 "missing shards with preprocess --shards)");
        return partsOfManifest(manifest);
    }
    if (fs::path(path).extension() == ".json")
        return partsOfManifest(path);
    return {{path, readTensorFileHeader(path)}};
}

TensorFileHeader tensorDatasetHeader(const std::string &path)
{
    const std::vector<TensorFilePart> parts = tensorDatasetParts(path);
    TensorFileHeader header = parts.front().header;
    header.count = 0;
    for (const TensorFilePart &part : parts)
        header.count += part.header.count;
    return header;
}

} // namespace loaderlab
