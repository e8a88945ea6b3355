// Tensor file header parsing and the atomic writer. The on-disk layout is in
// tensor_file_format.h; every integer is little endian.

#include "core/dataset/tensor_file_format.h"

#include "core/system/atomic_file.h"
#include "core/system/regular_file.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include <fcntl.h>
#include <unistd.h>

namespace loaderlab {

// The header and labels are written with memcpy from host integers.
static_assert(std::endian::native == std::endian::little,
              "tensor files are little endian; add byte swapping for this host");

namespace {

constexpr std::array<char, 8> kMagic{'L', 'L', 'T', 'E', 'N', 'S', 'O', 'R'};
constexpr std::uint32_t kVersion = 1;
// Far above any real image; keeps C*H*W*4 well inside 64 bits.
constexpr std::uint32_t kMaxDim = 1u << 16;

template <typename T>
T readField(const std::array<unsigned char, kTensorFileHeaderBytes> &raw, std::size_t offset)
{
    T value{};
    std::memcpy(&value, raw.data() + offset, sizeof(T));
    return value;
}

template <typename T>
void writeField(std::array<unsigned char, kTensorFileHeaderBytes> &raw, std::size_t offset, T value)
{
    std::memcpy(raw.data() + offset, &value, sizeof(T));
}

std::array<unsigned char, kTensorFileHeaderBytes> encodeHeader(const TensorFileHeader &header)
{
    std::array<unsigned char, kTensorFileHeaderBytes> raw{};
    std::memcpy(raw.data(), kMagic.data(), kMagic.size());
    writeField<std::uint32_t>(raw, 8, kVersion);
    writeField<std::uint32_t>(raw, 12, header.dtype == DType::Float32 ? 0u : 1u);
    writeField<std::uint32_t>(raw, 16, static_cast<std::uint32_t>(header.shape.channels));
    writeField<std::uint32_t>(raw, 20, static_cast<std::uint32_t>(header.shape.height));
    writeField<std::uint32_t>(raw, 24, static_cast<std::uint32_t>(header.shape.width));
    writeField<std::uint64_t>(raw, 32, header.count);
    writeField<std::uint64_t>(raw, 40, header.recordBytes());
    return raw;
}

std::string errnoText()
{
    return std::strerror(errno);
}

} // namespace

std::uint64_t TensorFileHeader::recordBytes() const
{
    return sizeof(std::int64_t) + static_cast<std::uint64_t>(shape.elements()) * dtypeSize(dtype);
}

std::uint64_t TensorFileHeader::fileBytes() const
{
    return kTensorFileHeaderBytes + count * recordBytes();
}

TensorFileHeader readTensorFileHeader(const std::string &path)
{
    const auto fail = [&path](const std::string &reason) {
        return DatasetError(path + ": " + reason);
    };

    std::string problem;
    std::int64_t size = 0;
    const int fd = openRegularFile(path, problem, &size);
    if (fd < 0)
        throw fail(problem);
    const FdCloser closer(fd);
    const auto actualBytes = static_cast<std::uint64_t>(size);
    if (actualBytes < kTensorFileHeaderBytes) {
        throw fail("file too small for a tensor file header (" + std::to_string(actualBytes)
                   + " bytes, the header alone is " + std::to_string(kTensorFileHeaderBytes) + ")");
    }

    std::array<unsigned char, kTensorFileHeaderBytes> raw{};
    const ssize_t got = ::pread(fd, raw.data(), raw.size(), 0);
    const int readErrno = errno;
    if (got != static_cast<ssize_t>(raw.size())) {
        throw fail("cannot read the header: "
                   + (got < 0 ? std::string(std::strerror(readErrno)) : "short read"));
    }

    if (std::memcmp(raw.data(), kMagic.data(), kMagic.size()) != 0)
        throw fail("not a tensor file (bad magic, expected \"LLTENSOR\")");
    const auto version = readField<std::uint32_t>(raw, 8);
    if (version != kVersion) {
        throw fail("unsupported format version " + std::to_string(version) + " (expected "
                   + std::to_string(kVersion) + ")");
    }

    TensorFileHeader header;
    const auto dtype = readField<std::uint32_t>(raw, 12);
    if (dtype > 1)
        throw fail("unknown dtype code " + std::to_string(dtype) + " (expected 0 or 1)");
    header.dtype = dtype == 0 ? DType::Float32 : DType::UInt8;

    const auto channels = readField<std::uint32_t>(raw, 16);
    const auto height = readField<std::uint32_t>(raw, 20);
    const auto width = readField<std::uint32_t>(raw, 24);
    for (const std::uint32_t dim : {channels, height, width}) {
        if (dim == 0 || dim > kMaxDim) {
            throw fail("invalid sample shape " + std::to_string(channels) + "x"
                       + std::to_string(height) + "x" + std::to_string(width)
                       + " (each dimension must be 1.." + std::to_string(kMaxDim) + ")");
        }
    }
    header.shape = {static_cast<int>(channels), static_cast<int>(height), static_cast<int>(width)};
    header.count = readField<std::uint64_t>(raw, 32);

    const auto recordBytes = readField<std::uint64_t>(raw, 40);
    if (recordBytes != header.recordBytes()) {
        throw fail("record size " + std::to_string(recordBytes) + " does not match the shape "
                   + shapeToString(header.shape) + " " + dtypeName(header.dtype) + " (expected "
                   + std::to_string(header.recordBytes()) + ")");
    }
    // Compared by division so a corrupt, huge count cannot overflow the product.
    const std::uint64_t payload = actualBytes - kTensorFileHeaderBytes;
    if (payload % recordBytes != 0 || payload / recordBytes != header.count) {
        const std::string expected = header.count <= payload / recordBytes + 1
                                         ? std::to_string(header.fileBytes())
                                         : "more than " + std::to_string(actualBytes);
        throw fail("file size is " + std::to_string(actualBytes) + " bytes but the header's "
                   + std::to_string(header.count) + " records of " + std::to_string(recordBytes)
                   + " bytes need " + expected + " (truncated or corrupt file)");
    }
    return header;
}

TensorFileWriter::TensorFileWriter(std::string path, DType dtype, SampleShape shape)
    : m_path(std::move(path))
    , m_partPath(m_path + ".part")
{
    if (shape.channels <= 0 || shape.height <= 0 || shape.width <= 0
        || std::max({shape.channels, shape.height, shape.width}) > static_cast<int>(kMaxDim)) {
        throw std::invalid_argument(m_path + ": invalid sample shape " + shapeToString(shape)
                                    + " (each side 1.." + std::to_string(kMaxDim) + ")");
    }
    m_header.dtype = dtype;
    m_header.shape = shape;

    // A new file, never written through a symlink or hard link planted under the
    // ".part" name, nor over an input (core/system/atomic_file.h).
    std::string refusal;
    const int fd = createPartFile(m_path, {}, refusal);
    if (fd < 0)
        throw std::runtime_error(m_path + ": cannot write: " + refusal);
    m_file = ::fdopen(fd, "wb");
    if (!m_file) {
        const std::string why = errnoText();
        ::close(fd);
        std::remove(m_partPath.c_str());
        throw std::runtime_error(m_partPath + ": cannot create: " + why);
    }
    // The count is still 0 here; finish() rewrites the header with the real one.
    const auto raw = encodeHeader(m_header);
    if (std::fwrite(raw.data(), 1, raw.size(), m_file) != raw.size()) {
        const std::string reason = errnoText();
        std::fclose(m_file);
        m_file = nullptr;
        std::remove(m_partPath.c_str());
        throw std::runtime_error(m_partPath + ": cannot write the header: " + reason);
    }
}

TensorFileWriter::~TensorFileWriter()
{
    if (m_file)
        std::fclose(m_file);
    if (!m_finished)
        std::remove(m_partPath.c_str());
}

void TensorFileWriter::append(std::int64_t label, std::span<const std::byte> sample)
{
    if (m_finished || !m_file)
        throw std::runtime_error(m_partPath + ": append after finish or after a failed write");
    const std::uint64_t sampleBytes = m_header.recordBytes() - sizeof(std::int64_t);
    if (sample.size() != sampleBytes) {
        throw std::runtime_error(m_partPath + ": sample has " + std::to_string(sample.size())
                                 + " bytes, expected " + std::to_string(sampleBytes));
    }
    if (std::fwrite(&label, sizeof(label), 1, m_file) != 1
        || std::fwrite(sample.data(), 1, sample.size(), m_file) != sample.size()) {
        const std::string reason = errnoText();
        std::fclose(m_file);
        m_file = nullptr;
        throw std::runtime_error(m_partPath + ": write failed: " + reason);
    }
    ++m_count;
}

void TensorFileWriter::finish()
{
    if (m_finished)
        return;
    if (!m_file)
        throw std::runtime_error(m_partPath + ": cannot finish after a failed write");

    m_header.count = m_count;
    const auto raw = encodeHeader(m_header);
    std::FILE *file = m_file;
    m_file = nullptr;
    const bool written = std::fseek(file, 0, SEEK_SET) == 0
                         && std::fwrite(raw.data(), 1, raw.size(), file) == raw.size()
                         && std::fflush(file) == 0 && ::fsync(::fileno(file)) == 0;
    const std::string reason = written ? std::string() : errnoText();
    const bool closed = std::fclose(file) == 0;
    if (!written || !closed)
        throw std::runtime_error(
            m_partPath + ": cannot complete the file: " + (written ? errnoText() : reason));
    if (std::rename(m_partPath.c_str(), m_path.c_str()) != 0)
        throw std::runtime_error(m_path + ": cannot rename " + m_partPath + ": " + errnoText());
    m_finished = true;

    // Make the rename itself durable; a failure here leaves a complete file anyway.
    const std::string dir = std::filesystem::path(m_path).parent_path().string();
    const int dirFd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
}

} // namespace loaderlab
