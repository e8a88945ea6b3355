#pragma once

// ImageFolderDataset: torchvision's ImageFolder layout (root/<class>/<image>),
// JPEG and PNG decoded with OpenCV, then the ImageNet eval or train transform.
// Output is RGB, CHW, float32, normalised with the ImageNet mean and std.

#include "core/config/dataset_config.h"
#include "core/dataset/dataset.h"

#include <string>
#include <vector>

namespace loaderlab {

struct ImageEntry
{
    std::string path;
    std::int64_t label = 0;
};

class ImageFolderDataset final : public Dataset
{
public:
    // Scans `config.path` (sorted class folders, sorted files with extensions
    // .jpg .jpeg .png, case-insensitive). Throws DatasetError when the path is
    // missing, not a directory, or holds no images.
    explicit ImageFolderDataset(const DatasetConfig &config);

    std::string description() const override;
    std::int64_t size() const override;
    SampleShape sampleShape() const override;
    DType dtype() const override { return DType::Float32; }
    std::int64_t load(std::int64_t index, std::span<std::byte> out,
                      SampleContext &context) const override;

    const std::vector<std::string> &classes() const { return m_classes; }
    const std::vector<ImageEntry> &entries() const { return m_entries; }
    const DatasetConfig &config() const { return m_config; }

private:
    DatasetConfig m_config;
    std::vector<std::string> m_classes;
    std::vector<ImageEntry> m_entries;
};

} // namespace loaderlab
