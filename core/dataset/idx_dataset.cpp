// IdxDataset: finding the image and label files, reading them through zlib (which
// reads uncompressed files as they are) and validating the IDX headers.

#include "core/dataset/idx_dataset.h"

#include "core/dataset/unit_table.h"
#include "core/system/clock.h"
#include "core/system/memory_budget.h"
#include "core/system/regular_file.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <unistd.h>

namespace loaderlab {

namespace {

namespace fs = std::filesystem;

constexpr std::uint32_t kImagesMagic = 0x00000803;
constexpr std::uint32_t kLabelsMagic = 0x00000801;
constexpr std::uint32_t kMaxSide = 1u << 14;
// Memory grows with the data actually read, so a corrupt header claiming terabytes
// fails as "truncated" instead of with a huge allocation.
constexpr std::size_t kReadChunk = std::size_t{8} << 20;

void bytesToUnitFloats(const std::uint8_t *in, std::size_t count, std::byte *out)
{
    // memcpy per value: the batch slot need not be float-aligned, and this compiles
    // to a plain store.
    for (std::size_t i = 0; i < count; ++i)
        std::memcpy(out + i * sizeof(float), &kByteToUnit[in[i]], sizeof(float));
}

std::uint32_t bigEndian32(const std::uint8_t *bytes)
{
    return (std::uint32_t{bytes[0]} << 24) | (std::uint32_t{bytes[1]} << 16)
           | (std::uint32_t{bytes[2]} << 8) | std::uint32_t{bytes[3]};
}

// The first existing one of `name` and `name`.gz inside `dir` (whatever it is: a FIFO
// or a directory under that name is then refused with what it is, not as missing).
std::string findVariant(const fs::path &dir, const std::string &name)
{
    std::error_code error;
    for (const std::string &candidate : {name, name + ".gz"}) {
        if (fs::exists(dir / candidate, error))
            return (dir / candidate).string();
    }
    return (dir / (name + ".gz")).string();
}

// zlib's message without the "<path>: " it puts in front, which DatasetError adds.
std::string gzReason(gzFile file, const std::string &path)
{
    int code = 0;
    std::string reason = gzerror(file, &code);
    if (reason.starts_with(path + ": "))
        reason.erase(0, path.size() + 2);
    return reason;
}

// Reads an IDX file: a header of `headerBytes` (magic and dimensions, checked by
// `payloadBytes`, which returns the exact data size the header promises) and then
// the data. Any mismatch throws DatasetError naming the file.
template <typename PayloadBytes>
std::vector<std::uint8_t> readIdx(const std::string &path, std::size_t headerBytes,
                                  std::array<std::uint32_t, 4> &header,
                                  const PayloadBytes &payloadBytes)
{
    // Opened here rather than by gzopen(), which would block forever on a FIFO.
    std::string problem;
    const int fd = openRegularFile(path, problem);
    if (fd < 0)
        throw DatasetError(path + ": " + problem);
    gzFile file = gzdopen(fd, "rb"); // owns fd from here on, closed by gzclose()
    if (!file) {
        ::close(fd);
        throw DatasetError(path + ": cannot open");
    }
    const auto fail = [&path, &file](const std::string &reason) {
        gzclose(file);
        return DatasetError(path + ": " + reason);
    };
    gzbuffer(file, 1 << 17);

    std::array<std::uint8_t, 16> raw{};
    const int gotHeader = gzread(file, raw.data(), static_cast<unsigned>(headerBytes));
    if (gotHeader < 0)
        throw fail("corrupt data: " + gzReason(file, path));
    if (gotHeader != static_cast<int>(headerBytes)) {
        throw fail("truncated IDX header (" + std::to_string(gotHeader) + " of "
                   + std::to_string(headerBytes) + " bytes)");
    }
    for (std::size_t i = 0; i < headerBytes / 4; ++i)
        header[i] = bigEndian32(raw.data() + 4 * i);
    std::string reason;
    const std::uint64_t expected = payloadBytes(header, reason);
    if (!reason.empty())
        throw fail(reason);

    std::vector<std::uint8_t> data;
    std::uint64_t done = 0;
    while (done < expected) {
        const auto chunk = static_cast<std::size_t>(
            std::min<std::uint64_t>(expected - done, kReadChunk));
        data.resize(static_cast<std::size_t>(done) + chunk);
        const int got = gzread(file, data.data() + done, static_cast<unsigned>(chunk));
        if (got < 0)
            throw fail("corrupt data: " + gzReason(file, path));
        done += static_cast<std::uint64_t>(got);
        if (static_cast<std::size_t>(got) < chunk)
            break;
    }
    if (done != expected) {
        throw fail("truncated data: the header promises " + std::to_string(expected)
                   + " bytes after the header, the file holds " + std::to_string(done));
    }
    std::uint8_t extra = 0;
    const int extraBytes = gzread(file, &extra, 1);
    if (extraBytes > 0) {
        throw fail("unexpected data after the " + std::to_string(expected)
                   + " bytes the header promises");
    }
    if (extraBytes < 0)
        throw fail("corrupt data: " + gzReason(file, path));
    // A truncated gzip stream shows up as an error at close.
    if (gzclose(file) != Z_OK)
        throw DatasetError(path + ": corrupt or truncated gzip stream");
    return data;
}

} // namespace

IdxDataset::IdxDataset(const std::string &path)
{
    std::error_code error;
    if (!fs::exists(path, error))
        throw DatasetError(path + ": " + pathErrorText(path, error ? error.value() : ENOENT));
    if (fs::is_directory(path, error)) {
        m_imagesPath = findVariant(path, "train-images-idx3-ubyte");
        m_labelsPath = findVariant(path, "train-labels-idx1-ubyte");
    } else {
        const fs::path imagesPath(path);
        std::string name = imagesPath.filename().string();
        const auto at = name.find("images-idx3");
        if (at == std::string::npos) {
            throw DatasetError(path
                               + ": cannot find the labels file (the name has no "
                                 "\"images-idx3\" to replace with \"labels-idx1\")");
        }
        name.replace(at, 11, "labels-idx1");
        m_imagesPath = path;
        m_labelsPath = (imagesPath.parent_path() / name).string();
        if (!fs::exists(m_labelsPath, error)) {
            // Accept a labels file compressed differently from the images file.
            const bool gz = name.ends_with(".gz");
            const std::string other = gz ? name.substr(0, name.size() - 3) : name + ".gz";
            const fs::path otherPath = imagesPath.parent_path() / other;
            if (fs::exists(otherPath, error))
                m_labelsPath = otherPath.string();
        }
    }
    for (const std::string &file : {m_imagesPath, m_labelsPath}) {
        const std::string problem = regularFileProblem(file);
        if (!problem.empty())
            throw DatasetError(file + ": " + problem);
    }

    std::array<std::uint32_t, 4> imageHeader{};
    m_pixels = readIdx(
        m_imagesPath, 16, imageHeader,
        [](const std::array<std::uint32_t, 4> &h, std::string &reason) {
            if (h[0] != kImagesMagic) {
                reason = "bad magic number " + std::to_string(h[0])
                         + " for an IDX images file "
                           "(expected "
                         + std::to_string(kImagesMagic) + ")";
                return std::uint64_t{0};
            }
            if (h[1] == 0 || h[2] == 0 || h[3] == 0 || h[2] > kMaxSide || h[3] > kMaxSide) {
                reason = "invalid dimensions " + std::to_string(h[1]) + " x " + std::to_string(h[2])
                         + " x " + std::to_string(h[3]);
                return std::uint64_t{0};
            }
            // Checked from the header, before a small gzip file inflates to gigabytes.
            const std::uint64_t bytes = std::uint64_t{h[1]} * h[2] * h[3];
            if (bytes > static_cast<std::uint64_t>(defaultMemoryBudgetBytes())) {
                reason = "the header declares " + std::to_string(h[1]) + " images of "
                         + std::to_string(h[2]) + "x" + std::to_string(h[3]) + " ("
                         + formatBytes(static_cast<std::int64_t>(bytes))
                         + " in memory), over the "
                           "memory budget of "
                         + formatBytes(defaultMemoryBudgetBytes());
                return std::uint64_t{0};
            }
            return bytes;
        });
    m_count = imageHeader[1];
    m_rows = static_cast<int>(imageHeader[2]);
    m_cols = static_cast<int>(imageHeader[3]);

    std::array<std::uint32_t, 4> labelHeader{};
    const auto imageCount = imageHeader[1];
    m_labels = readIdx(m_labelsPath, 8, labelHeader,
                       [imageCount](const std::array<std::uint32_t, 4> &h, std::string &reason) {
                           if (h[0] != kLabelsMagic) {
                               reason = "bad magic number " + std::to_string(h[0])
                                        + " for an IDX labels file "
                                          "(expected "
                                        + std::to_string(kLabelsMagic) + ")";
                           } else if (h[1] != imageCount) {
                               reason = "holds " + std::to_string(h[1])
                                        + " labels but the images file holds "
                                        + std::to_string(imageCount) + " images";
                           }
                           return std::uint64_t{h[1]};
                       });
}

std::string IdxDataset::description() const
{
    return "idx " + m_imagesPath + " (" + std::to_string(m_count) + ", "
           + shapeToString(sampleShape()) + ")";
}

std::int64_t IdxDataset::load(std::int64_t index, std::span<std::byte> out,
                              SampleContext &context) const
{
    if (index < 0 || index >= m_count) {
        throw std::out_of_range(m_imagesPath + ": index " + std::to_string(index)
                                + " out of range");
    }
    const auto pixels = static_cast<std::size_t>(m_rows) * static_cast<std::size_t>(m_cols);
    if (out.size() != pixels * sizeof(float))
        throw std::invalid_argument(m_imagesPath + ": output buffer has the wrong size");

    const std::int64_t start = steadyNowNs();
    bytesToUnitFloats(m_pixels.data() + static_cast<std::size_t>(index) * pixels, pixels,
                      out.data());
    context.timing.transformNs += steadyNowNs() - start;
    return m_labels[static_cast<std::size_t>(index)];
}

} // namespace loaderlab
