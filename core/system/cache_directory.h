#pragma once

// Where LoaderLab keeps what it makes once and reuses: the default dataset, lesson
// files, the Python probe module.

#include <string>

namespace loaderlab {

// $LOADERLAB_CACHE_DIR, else $XDG_CACHE_HOME/loaderlab, else ~/.cache/loaderlab.
std::string cacheDirectory();

} // namespace loaderlab
