// The storage ceiling: the samples' bytes read as the loader reads them, bypassing the
// page cache with O_DIRECT where the file system allows it (the bytes then come from
// the disk, as in a first epoch over data larger than memory), else from it.

#include "core/dataset/tensor_file_dataset.h"
#include "core/image/image_folder_dataset.h"
#include "core/limits/ceiling_probes.h"
#include "core/system/clock.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace loaderlab {
namespace {

constexpr std::size_t kAlign = 4096;
constexpr std::size_t kChunk = 1u << 20;

struct AlignedFree
{
    void operator()(std::byte *p) const { std::free(p); }
};

// Reads `path` whole, `direct` with O_DIRECT; the bytes read, or -1 when O_DIRECT is
// refused (EINVAL: the file system does not do it). Throws for any other error.
std::int64_t readWhole(const std::string &path, bool direct, std::byte *buffer)
{
    const int fd = ::open(path.c_str(),
                          O_RDONLY | O_CLOEXEC | O_NONBLOCK | (direct ? O_DIRECT : 0));
    if (fd < 0) {
        if (direct && errno == EINVAL)
            return -1;
        throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
    }
    std::int64_t total = 0;
    while (true) {
        const ssize_t got = ::read(fd, buffer, kChunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            const int error = errno;
            ::close(fd);
            if (direct && error == EINVAL)
                return -1;
            throw std::runtime_error(path + ": cannot read: " + std::strerror(error));
        }
        if (got == 0)
            break;
        total += got;
    }
    ::close(fd);
    return total;
}

// The files the samples live in, and how many samples a byte read is worth.
struct StorageSource
{
    std::vector<std::string> files;
    double samplesPerByte = 0.0; // tensor files: 1 / record; 0: one sample per file
};

std::optional<StorageSource> sourceOf(const Dataset &dataset)
{
    if (const auto *images = dynamic_cast<const ImageFolderDataset *>(&dataset)) {
        StorageSource source;
        const auto &entries = images->entries();
        // Spread over the folder, not its first class only.
        const std::size_t step = std::max<std::size_t>(1, entries.size() / 4096);
        for (std::size_t i = 0; i < entries.size(); i += step)
            source.files.push_back(entries[i].path);
        return source;
    }
    if (const auto *tensors = dynamic_cast<const TensorFileDataset *>(&dataset)) {
        struct stat info
        {
        };
        if (::stat(tensors->path().c_str(), &info) != 0 || info.st_size <= 0)
            return std::nullopt;
        const double recordBytes = static_cast<double>(info.st_size)
                                   / static_cast<double>(std::max<std::int64_t>(1, dataset.size()));
        if (recordBytes < static_cast<double>(dataset.sampleBytes()))
            return std::nullopt; // a manifest of shards: not one file of records
        return StorageSource{{tensors->path()}, 1.0 / recordBytes};
    }
    return std::nullopt;
}

} // namespace

Ceiling probeStorage(const Dataset &dataset, double seconds, std::stop_token stop)
{
    Ceiling ceiling{CeilingKind::Storage,
                    0.0,
                    {},
                    "faster storage, fewer bytes a sample, or data that fits in the page cache"};
    const auto source = sourceOf(dataset);
    if (!source) {
        ceiling.basis = "not measured: the dataset is generated or read into memory when it "
                        "opens (or a manifest of tensor-file shards)";
        return ceiling;
    }
    const std::unique_ptr<std::byte, AlignedFree> buffer(
        static_cast<std::byte *>(std::aligned_alloc(kAlign, kChunk)));
    bool direct = true;
    std::int64_t bytes = 0;
    std::int64_t files = 0;
    const std::int64_t start = steadyNowNs();
    const auto limitNs = static_cast<std::int64_t>(seconds * 1e9);
    // Passes over the files until the time is up: a small folder is read more than once
    // (with O_DIRECT every pass comes from the disk again).
    int passes = 0;
    bool timeUp = false;
    while (!timeUp && !stop.stop_requested()) {
        for (const std::string &file : source->files) {
            if (stop.stop_requested() || steadyNowNs() - start > limitNs) {
                timeUp = true;
                break;
            }
            std::int64_t got = readWhole(file, direct, buffer.get());
            if (got < 0) { // the file system refuses O_DIRECT: the page cache it is
                direct = false;
                got = readWhole(file, false, buffer.get());
            }
            bytes += got;
            ++files;
        }
        ++passes;
    }
    const double elapsed = static_cast<double>(steadyNowNs() - start) / 1e9;
    if (files == 0 || elapsed <= 0.0) {
        ceiling.basis = "not measured: stopped";
        return ceiling;
    }
    const double samples = source->samplesPerByte > 0.0
                               ? static_cast<double>(bytes) * source->samplesPerByte
                               : static_cast<double>(files);
    ceiling.samplesPerSecond = samples / elapsed;
    ceiling.bytesPerSecond = static_cast<double>(bytes) / elapsed;
    char basis[200];
    std::snprintf(basis, sizeof basis,
                  "%s, %.1f MB in %lld file reads (%d pass%s) in %.2f s (%.0f MB/s)",
                  direct ? "cold (O_DIRECT, past the page cache)"
                         : "warm (the page cache: the file system refuses O_DIRECT)",
                  static_cast<double>(bytes) / 1e6, static_cast<long long>(files), passes,
                  passes == 1 ? "" : "es", elapsed, static_cast<double>(bytes) / 1e6 / elapsed);
    ceiling.basis = basis;
    return ceiling;
}

} // namespace loaderlab
