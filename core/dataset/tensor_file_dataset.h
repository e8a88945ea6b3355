#pragma once

// TensorFileDataset: reads the preprocessed tensor file (tensor_file_format.h), one
// pread per sample straight into the batch slot. This is the "decode once, read many"
// baseline: the cost of a sample is the read and nothing else.

#include "core/dataset/dataset.h"
#include "core/dataset/tensor_file_format.h"

#include <string>

namespace loaderlab {

class TensorFileDataset final : public Dataset
{
public:
    // Validates the header and the file size and keeps the file open. Throws
    // DatasetError naming the file for anything wrong, including a file with no records.
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
    // it was opened) throws SampleError.
    std::int64_t load(std::int64_t index, std::span<std::byte> out,
                      SampleContext &context) const override;

    const std::string &path() const { return m_path; }

private:
    std::string m_path;
    TensorFileHeader m_header;
    std::size_t m_sampleBytes = 0;
    int m_fd = -1;
};

} // namespace loaderlab
