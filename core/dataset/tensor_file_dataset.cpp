// TensorFileDataset: label and sample of one record in a single preadv() call.

#include "core/dataset/tensor_file_dataset.h"

#include "core/system/clock.h"
#include "core/system/regular_file.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

namespace loaderlab {

TensorFileDataset::TensorFileDataset(std::string path)
    : m_path(std::move(path))
    , m_header(readTensorFileHeader(m_path))
{
    if (m_header.count == 0)
        throw DatasetError(m_path + ": the tensor file contains no records");
    m_sampleBytes = static_cast<std::size_t>(m_header.recordBytes() - sizeof(std::int64_t));
    std::string problem;
    m_fd = openRegularFile(m_path, problem);
    if (m_fd < 0)
        throw DatasetError(m_path + ": " + problem);
}

TensorFileDataset::~TensorFileDataset()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

std::string TensorFileDataset::description() const
{
    return "tensor " + m_path + " (" + std::to_string(m_header.count) + ", "
           + shapeToString(m_header.shape) + " " + dtypeName(m_header.dtype) + ")";
}

std::int64_t TensorFileDataset::load(std::int64_t index, std::span<std::byte> out,
                                     SampleContext &context) const
{
    if (index < 0 || index >= size()) {
        throw std::out_of_range(m_path + ": index " + std::to_string(index) + " out of range");
    }
    if (out.size() != m_sampleBytes)
        throw std::invalid_argument(m_path + ": output buffer has the wrong size");

    const std::uint64_t recordBytes = m_header.recordBytes();
    const std::uint64_t recordOffset = kTensorFileHeaderBytes
                                       + static_cast<std::uint64_t>(index) * recordBytes;

    std::int64_t label = 0;
    auto *labelBytes = reinterpret_cast<std::byte *>(&label);
    const std::int64_t start = steadyNowNs();
    std::uint64_t done = 0;
    // Large records may come back in pieces; carry on until the record is complete.
    while (done < recordBytes) {
        iovec parts[2];
        int partCount = 0;
        if (done < sizeof(label)) {
            parts[partCount++] = {labelBytes + done, sizeof(label) - done};
            parts[partCount++] = {out.data(), m_sampleBytes};
        } else {
            const std::size_t sampleDone = static_cast<std::size_t>(done - sizeof(label));
            parts[partCount++] = {out.data() + sampleDone, m_sampleBytes - sampleDone};
        }
        const ssize_t got = ::preadv(m_fd, parts, partCount,
                                     static_cast<off_t>(recordOffset + done));
        if (got < 0) {
            if (errno == EINTR)
                continue;
            throw SampleError(m_path, "read error at record " + std::to_string(index) + ": "
                                          + std::strerror(errno));
        }
        if (got == 0) {
            throw SampleError(m_path, "short read at record " + std::to_string(index) + ": got "
                                          + std::to_string(done) + " of "
                                          + std::to_string(recordBytes)
                                          + " bytes (file truncated after it was opened?)");
        }
        done += static_cast<std::uint64_t>(got);
    }
    context.timing.readNs += steadyNowNs() - start;
    return label;
}

} // namespace loaderlab
