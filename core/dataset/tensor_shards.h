#pragma once

// A tensor dataset in shards: the manifest that `preprocess --shards` writes lists
// tensor files (in the manifest's folder) whose records, read one file after the
// other, are the dataset (core/tools/preprocess_shards.h). A tensor dataset's path
// names a tensor file, such a manifest.json, or the folder that holds it.

#include "core/dataset/tensor_file_format.h"

#include <string>
#include <vector>

namespace loaderlab {

struct TensorFilePart
{
    std::string path;
    TensorFileHeader header;
};

// The files of the tensor dataset at `path`, in order: the file itself, or the
// manifest's shards (each checked: its header, its record count against the
// manifest's, one dtype and shape for all). Throws DatasetError naming the file and
// the reason.
std::vector<TensorFilePart> tensorDatasetParts(const std::string &path);

// Their header as one: the dtype and shape, and every record.
TensorFileHeader tensorDatasetHeader(const std::string &path);

} // namespace loaderlab
