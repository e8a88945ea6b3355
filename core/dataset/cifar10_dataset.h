#pragma once

// Cifar10Dataset: CIFAR-10 in its binary version (data_batch_N.bin, test_batch.bin).
// The records are read into memory when the dataset is opened (150 MB for the
// training set, like torchvision's CIFAR10), so load() only converts bytes to floats.

#include "core/dataset/dataset.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loaderlab {

class Cifar10Dataset final : public Dataset
{
public:
    static constexpr int kSide = 32;
    static constexpr std::size_t kImageBytes = 3 * kSide * kSide;
    static constexpr std::size_t kRecordBytes = 1 + kImageBytes; // label, R, G, B planes
    static constexpr int kClasses = 10;

    // `path` is a .bin file or a directory: data_batch_1.bin .. data_batch_5.bin, those
    // that exist, in order; if there are none, test_batch.bin. A directory holding
    // only "cifar-10-batches-bin" (the extracted archive) is looked into. Throws
    // DatasetError naming the file when there is no batch file, a file size is not a
    // multiple of 3073, or a label is not 0-9.
    explicit Cifar10Dataset(const std::string &path);

    std::string description() const override;
    std::int64_t size() const override { return m_count; }
    SampleShape sampleShape() const override { return {3, kSide, kSide}; }
    DType dtype() const override { return DType::Float32; }

    // Writes 3x32x32 float32 RGB in [0, 1] (byte / 255). The file already stores
    // planes in CHW order, so this is a straight conversion, reported as transformNs.
    std::int64_t load(std::int64_t index, std::span<std::byte> out,
                      SampleContext &context) const override;

    const std::vector<std::string> &files() const { return m_files; }

private:
    void readBatch(const std::string &file);

    std::string m_path;
    std::vector<std::string> m_files;
    std::int64_t m_count = 0;
    std::vector<std::uint8_t> m_records; // m_count records of kRecordBytes, as on disk
};

} // namespace loaderlab
