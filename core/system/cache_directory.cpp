#include "core/system/cache_directory.h"

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

} // namespace loaderlab
