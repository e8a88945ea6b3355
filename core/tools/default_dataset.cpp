#include "core/tools/default_dataset.h"

#include <cstdlib>
#include <filesystem>

namespace loaderlab {

std::string cacheDirectory()
{
    if (const char *dir = std::getenv("LOADERLAB_CACHE_DIR"); dir && *dir)
        return dir;
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return std::string(xdg) + "/loaderlab";
    if (const char *home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.cache/loaderlab";
    return std::filesystem::temp_directory_path().string() + "/loaderlab";
}

std::string defaultImageFolderPath()
{
    return cacheDirectory() + "/imagenette-synth-10x100";
}

std::string ensureDefaultImageFolder(const ProgressCallback &progress)
{
    namespace fs = std::filesystem;
    const std::string dir = defaultImageFolderPath();
    if (fs::is_directory(dir) && !fs::is_empty(dir))
        return dir;
    fs::create_directories(cacheDirectory());
    generateImageFolder(dir, ImageFolderSpec{}, progress);
    return dir;
}

} // namespace loaderlab
