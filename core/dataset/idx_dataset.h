#pragma once

// IdxDataset: MNIST / Fashion-MNIST in their original IDX format, raw or gzipped.
// The whole set (tens of megabytes) is read into memory when it is opened, so
// load() costs one byte-to-float conversion and nothing else.

#include "core/dataset/dataset.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loaderlab {

class IdxDataset final : public Dataset
{
public:
    // `path` is either a directory holding train-images-idx3-ubyte[.gz] and
    // train-labels-idx1-ubyte[.gz], or an images file whose labels file has the same
    // name with "images-idx3" replaced by "labels-idx1". Throws DatasetError naming
    // the file for a missing file, a bad magic number, mismatched counts or
    // truncated data.
    explicit IdxDataset(const std::string &path);

    std::string description() const override;
    std::int64_t size() const override { return m_count; }
    SampleShape sampleShape() const override { return {1, m_rows, m_cols}; }
    DType dtype() const override { return DType::Float32; }

    // Writes 1xHxW float32 pixels scaled to [0, 1] (pixel / 255). There is no I/O
    // here, so the conversion is reported as transformNs and readNs stays 0.
    std::int64_t load(std::int64_t index, std::span<std::byte> out,
                      SampleContext &context) const override;

    const std::string &imagesPath() const { return m_imagesPath; }
    const std::string &labelsPath() const { return m_labelsPath; }

private:
    std::string m_imagesPath;
    std::string m_labelsPath;
    std::int64_t m_count = 0;
    int m_rows = 0;
    int m_cols = 0;
    std::vector<std::uint8_t> m_pixels; // m_count images, row-major, back to back
    std::vector<std::uint8_t> m_labels;
};

} // namespace loaderlab
