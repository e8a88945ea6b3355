# loaderlab_options: the one INTERFACE target that carries the language standard,
# warnings and Qt's strict definitions. Every LoaderLab target links it.
add_library(loaderlab_options INTERFACE)
add_library(LoaderLab::options ALIAS loaderlab_options)

target_compile_features(loaderlab_options INTERFACE cxx_std_20)
set(CMAKE_CXX_EXTENSIONS OFF)

if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(loaderlab_options INTERFACE
        -Wall -Wextra -pedantic -Wold-style-cast -Wnon-virtual-dtor)
    # GCC's local-only shadowing warning; clang (the fuzz build) has no equivalent.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
        target_compile_options(loaderlab_options INTERFACE -Wshadow=local)
    endif()
    if(LOADERLAB_WARNINGS_AS_ERRORS)
        target_compile_options(loaderlab_options INTERFACE -Werror)
    endif()
endif()

target_compile_definitions(loaderlab_options INTERFACE
    QT_NO_CAST_FROM_ASCII
    QT_NO_CAST_TO_ASCII
    QT_NO_URL_CAST_FROM_STRING
    QT_NO_CAST_FROM_BYTEARRAY
    QT_NO_CONTEXTLESS_CONNECT
    QT_NO_KEYWORDS
    QT_DISABLE_DEPRECATED_UP_TO=0x060200)

# Includes are rooted at the source tree: #include "core/loader/loader.h".
target_include_directories(loaderlab_options INTERFACE "${PROJECT_SOURCE_DIR}")
