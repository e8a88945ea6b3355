#pragma once

// TensorFileDataset: reads the preprocessed tensor file (tensor_file_format.h), or
// the shards a manifest lists as one dataset (tensor_shards.h), one pread per sample
// straight into the batch slot. This is the "decode once, read many" baseline: the
// cost of a sample is the read and nothing else.

#include "core/dataset/dataset.h"
#include "core/dataset/tensor_file_format.h"
#include "core/dataset/tensor_shards.h"

#include <string>
#include <vector>

namespace loaderlab {

class TensorFileDataset final : public Dataset
{
public:
    // Validates the header and the file size (of every shard) and keeps the files
    // open. Throws DatasetError naming the file for anything wrong, including a
    // dataset with no records.
    explicit TensorFileDataset(std::string path);
    ~TensorFileDataset() override;

    TensorFileDataset(const TensorFileDataset &) = delete;
    TensorFileDataset &operator=(const TensorFileDataset &) = delete;

    std::string description() const override;
    std::int64_t size() const override { return static_cast<std::int64_t>(m_header.count); }
    SampleShape sampleShape() const override { return m_header.shape; }
    DType dtype() const override { return m_header.dtype; }

    // Thread-safe without locks: positional reads share no file offset. The whole
    // read (label and sample) counts as readNs. A short read (the file shrank after
    // it was opened) throws SampleError naming the shard.
    std::int64_t load(std::int64_t index, std::span<std::byte> out,
                      SampleContext &context) const override;

    const std::string &path() const { return m_path; }

private:
    struct OpenPart
    {
        std::string path;
        std::uint64_t first = 0; // its first record's index in the dataset
        std::uint64_t count = 0;
        int fd = -1;
    };

    std::string m_path;
    TensorFileHeader m_header; // all parts' records
    std::size_t m_sampleBytes = 0;
    std::vector<OpenPart> m_parts;
};

} // namespace loaderlab
