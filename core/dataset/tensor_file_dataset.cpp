// TensorFileDataset: label and sample of one record in a single preadv() call.

#include "core/dataset/tensor_file_dataset.h"

#include "core/system/clock.h"
#include "core/system/regular_file.h"

#include <algorithm>
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
{
    const std::vector<TensorFilePart> parts = tensorDatasetParts(m_path);
    m_header = parts.front().header;
    m_header.count = 0;
    m_sampleBytes = static_cast<std::size_t>(m_header.recordBytes() - sizeof(std::int64_t));
    for (const TensorFilePart &part : parts) {
        if (part.header.count == 0)
            continue; // a shard whose images were all unreadable
        std::string problem;
        const int fd = openRegularFile(part.path, problem);
        if (fd < 0) {
            for (const OpenPart &open : m_parts)
                ::close(open.fd);
            throw DatasetError(part.path + ": " + problem);
        }
        m_parts.push_back({part.path, m_header.count, part.header.count, fd});
        m_header.count += part.header.count;
    }
    if (m_header.count == 0)
        throw DatasetError(m_path + ": the tensor file contains no records");
}

TensorFileDataset::~TensorFileDataset()
{
    for (const OpenPart &part : m_parts)
        ::close(part.fd);
}

std::string TensorFileDataset::description() const
{
    const std::string shards = m_parts.size() > 1
                                   ? " in " + std::to_string(m_parts.size()) + " shards"
                                   : "";
    return "tensor " + m_path + " (" + std::to_string(m_header.count) + shards + ", "
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

    // The part that holds it: the last whose first record is at or before it.
    const auto at = static_cast<std::uint64_t>(index);
    const auto after = std::upper_bound(
        m_parts.begin(), m_parts.end(), at,
        [](std::uint64_t i, const OpenPart &p) { return i < p.first; });
    const OpenPart &part = *(after - 1);
    const std::uint64_t recordBytes = m_header.recordBytes();
    const std::uint64_t recordOffset = kTensorFileHeaderBytes + (at - part.first) * recordBytes;

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
        const ssize_t got = ::preadv(part.fd, parts, partCount,
                                     static_cast<off_t>(recordOffset + done));
        if (got < 0) {
            if (errno == EINTR)
                continue;
            throw SampleError(part.path, "read error at record " + std::to_string(at - part.first)
                                             + ": " + std::strerror(errno));
        }
        if (got == 0) {
            throw SampleError(part.path, "short read at record " + std::to_string(at - part.first)
                                             + ": got " + std::to_string(done) + " of "
                                             + std::to_string(recordBytes)
                                             + " bytes (file truncated after it was opened?)");
        }
        done += static_cast<std::uint64_t>(got);
    }
    context.timing.readNs += steadyNowNs() - start;
    return label;
}

} // namespace loaderlab
