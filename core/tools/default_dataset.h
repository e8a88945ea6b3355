#pragma once

// The dataset a new user starts with: an Imagenette-like JPEG folder (10 classes x
// 100 images) generated once into the user's cache directory.

#include "core/system/cache_directory.h"
#include "core/tools/imagenette_generator.h"

#include <string>

namespace loaderlab {

// Where the default image folder lives (whether or not it exists yet).
std::string defaultImageFolderPath();

// Path of the default image folder; generated (with progress) if it does not exist.
// Throws std::runtime_error when it cannot be written.
std::string ensureDefaultImageFolder(const ProgressCallback &progress = {});

// The folder `dir` as `spec` makes it, generated once: callers that ask at the same
// time (threads or processes) wait for the first one's folder under an exclusive
// lock on "<dir>.lock" instead of writing it too. What ensureDefaultImageFolder()
// does for the default folder.
std::string ensureImageFolder(const std::string &dir, const ImageFolderSpec &spec,
                              const ProgressCallback &progress = {});

} // namespace loaderlab
