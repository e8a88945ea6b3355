# Build speed, in one place (CONTRIBUTING.md, "Build time"): ccache, the linker,
# precompiled headers and unity builds. Targets opt in with one call:
#
#   loaderlab_speed_up(TARGET [PCH core|qt|widgets] [UNITY [BATCH n]])
#
# PCH   force-includes one of the shared precompiled headers below (REUSE_FROM a
#       target made here), so the heavy third-party headers are parsed once per
#       build instead of once per translation unit:
#         core     the standard library, nlohmann/json and spdlog (no Qt);
#         qt       core's, plus QtCore (the non-GUI tests);
#         widgets  core's, plus QtWidgets and QCustomPlot (widgets, app, GUI tests).
#       The headers are third-party only, so moving LoaderLab's own files never
#       touches this list. Each consumer must use the same Qt modules and code
#       model as the PCH's owner, or GCC ignores it with a -Winvalid-pch warning.
#       Code that compiles with LibTorch's flags (-D_GLIBCXX_USE_CXX11_ABI) uses none:
#       core/torch, core/system/torch_info.cpp, tests/torch.
# UNITY compiles the target's sources in batches of n (default 8) per translation
#       unit. Sources that cannot share a unit (clashing file-local names) are
#       fixed or marked SKIP_UNITY_BUILD_INCLUSION where they are listed.
#
# LOADERLAB_PRECOMPILE_HEADERS=OFF and LOADERLAB_UNITY_BUILD=OFF turn both off, e.g.
# to check that every file includes what it uses.
include_guard(GLOBAL)
include(CheckCXXSourceCompiles)

# Line tables only (-g1) in RelWithDebInfo: backtraces, perf and sanitizer reports
# keep file:line, and a compile is about a fifth shorter (a widgets file 14.0 -> 11.5
# s) than with full debug information. For a debugger's view of variables, build
# Debug or pass -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g -DNDEBUG" (or
# -DLOADERLAB_LINE_TABLES_ONLY=OFF). Applied when a build folder is first configured
# (CMakeLists.txt sets LOADERLAB_NEW_BUILD_FOLDER), and only to CMake's own default
# flags: flags the user gave, and folders configured before, keep theirs.
option(LOADERLAB_LINE_TABLES_ONLY "New build folders: RelWithDebInfo with -g1 instead of -g" ON)
if(LOADERLAB_NEW_BUILD_FOLDER AND LOADERLAB_LINE_TABLES_ONLY
   AND CMAKE_CXX_FLAGS_RELWITHDEBINFO STREQUAL "-O2 -g -DNDEBUG")
    set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O2 -g1 -DNDEBUG"
        CACHE STRING "Flags used by the CXX compiler during RELWITHDEBINFO builds." FORCE)
endif()
option(LOADERLAB_PRECOMPILE_HEADERS "Precompile the heavy third-party headers" ON)
option(LOADERLAB_UNITY_BUILD "Unity-build the libraries that benefit" ON)
set(LOADERLAB_LINKER "auto" CACHE STRING "Linker: auto (lld, else gold, else the default), lld, gold or default")
set_property(CACHE LOADERLAB_LINKER PROPERTY STRINGS auto lld gold default)
add_feature_info(PCH LOADERLAB_PRECOMPILE_HEADERS "precompiled headers")
add_feature_info(Unity LOADERLAB_UNITY_BUILD "unity builds")

# ccache, where installed, makes rebuilds and fresh clones cheap; LOADERLAB_USE_CCACHE=OFF
# or an explicit launcher turns it off. Precompiled headers need the pch_defines and
# time_macros sloppiness (ccache's manual, "Precompiled headers"); it is set here for
# LoaderLab's compiles only, not in the user's ccache.conf.
option(LOADERLAB_USE_CCACHE "Compile through ccache when it is installed" ON)
if(LOADERLAB_USE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
    find_program(LOADERLAB_CCACHE_PROGRAM ccache)
    if(LOADERLAB_CCACHE_PROGRAM)
        set(CMAKE_CXX_COMPILER_LAUNCHER "${CMAKE_COMMAND}" -E env
            "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
            "${LOADERLAB_CCACHE_PROGRAM}")
    endif()
endif()
add_feature_info(ccache LOADERLAB_CCACHE_PROGRAM "compiler cache")

# The linker: lld (Debian's lld) or gold (binutils) link the test executables, each
# with core's debug info, several times faster than ld.bfd.
function(_loaderlab_pick_linker out)
    set(candidates ${LOADERLAB_LINKER})
    if(LOADERLAB_LINKER STREQUAL "auto")
        set(candidates lld gold)
    elseif(LOADERLAB_LINKER STREQUAL "default")
        set(candidates "")
    endif()
    foreach(linker IN LISTS candidates)
        set(CMAKE_REQUIRED_LINK_OPTIONS "-fuse-ld=${linker}")
        set(CMAKE_REQUIRED_QUIET ON)
        check_cxx_source_compiles("int main() { return 0; }" LOADERLAB_HAVE_LD_${linker})
        if(LOADERLAB_HAVE_LD_${linker})
            set(${out} "${linker}" PARENT_SCOPE)
            return()
        endif()
        if(NOT LOADERLAB_LINKER STREQUAL "auto")
            message(FATAL_ERROR "LOADERLAB_LINKER=${LOADERLAB_LINKER}: the compiler cannot link with it")
        endif()
    endforeach()
    set(${out} "" PARENT_SCOPE)
endfunction()
_loaderlab_pick_linker(LOADERLAB_LINKER_USED)
if(LOADERLAB_LINKER_USED)
    target_link_options(loaderlab_options INTERFACE "-fuse-ld=${LOADERLAB_LINKER_USED}")
    message(STATUS "LoaderLab links with ${LOADERLAB_LINKER_USED}")
endif()

set(LOADERLAB_PCH_CORE_HEADERS
    <algorithm> <array> <atomic> <chrono> <condition_variable> <cstddef> <cstdint>
    <cstdio> <cstring> <deque> <filesystem> <fstream> <functional> <map> <memory> <mutex>
    <optional> <set> <sstream> <stdexcept> <stop_token> <string> <string_view> <thread>
    <unordered_map> <utility> <variant> <vector>
    <nlohmann/json.hpp> <spdlog/spdlog.h>)

# The headers of each kind, and what a target needs to compile them.
function(_loaderlab_pch_kind kind out_headers out_libs)
    set(headers ${LOADERLAB_PCH_CORE_HEADERS})
    set(libs loaderlab_options spdlog::spdlog nlohmann_json::nlohmann_json)
    if(kind STREQUAL "qt")
        list(APPEND headers <QtCore/QtCore>)
        list(APPEND libs Qt6::Core)
    elseif(kind STREQUAL "widgets")
        list(APPEND headers <QtWidgets/QtWidgets> "${PROJECT_SOURCE_DIR}/widgets/plots/qcustomplot_include.h")
        list(APPEND libs Qt6::Widgets Qt6::PrintSupport Qt6::Svg QCustomPlotQt6::QCustomPlotQt6)
    elseif(NOT kind STREQUAL "core")
        message(FATAL_ERROR "loaderlab_speed_up: unknown PCH kind '${kind}'")
    endif()
    set(${out_headers} ${headers} PARENT_SCOPE)
    set(${out_libs} ${libs} PARENT_SCOPE)
endfunction()

# The owners of the shared precompiled headers: empty object libraries with the same
# usage requirements as their consumers. Not Qt6::Test: it defines QT_TESTCASE_BUILDDIR
# as the test's own folder, and GCC refuses a PCH made with another value.
function(_loaderlab_pch_owner kind)
    set(owner loaderlab_pch_${kind})
    if(TARGET ${owner})
        return()
    endif()
    set(dir "${CMAKE_BINARY_DIR}/loaderlab_pch")
    file(MAKE_DIRECTORY "${dir}")
    if(NOT EXISTS "${dir}/${kind}.cpp")
        file(WRITE "${dir}/${kind}.cpp" "// The owner of the ${kind} precompiled header; no code.\n")
    endif()
    add_library(${owner} OBJECT "${dir}/${kind}.cpp")
    set_target_properties(${owner} PROPERTIES AUTOMOC OFF AUTOUIC OFF AUTORCC OFF)
    _loaderlab_pch_kind(${kind} headers libs)
    target_link_libraries(${owner} PRIVATE ${libs})
    target_precompile_headers(${owner} PRIVATE ${headers})
endfunction()

# Sources compiled with their own instruction-set flags (-mavx2 ...) cannot use a
# header precompiled without them (GCC: "created and used with differing settings").
# Run at the end of configuration, when every target_sources() call has been made.
function(_loaderlab_skip_pch_for_isa_sources target)
    get_target_property(sources ${target} SOURCES)
    foreach(source IN LISTS sources)
        get_source_file_property(options "${source}" TARGET_DIRECTORY ${target} COMPILE_OPTIONS)
        if(options MATCHES "(^|;)-m")
            set_source_files_properties("${source}" TARGET_DIRECTORY ${target}
                PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
        endif()
    endforeach()
endfunction()

function(loaderlab_speed_up target)
    cmake_parse_arguments(ARG "UNITY" "PCH;BATCH" "" ${ARGN})
    if(ARG_PCH AND LOADERLAB_PRECOMPILE_HEADERS)
        _loaderlab_pch_owner(${ARG_PCH})
        target_precompile_headers(${target} REUSE_FROM loaderlab_pch_${ARG_PCH})
        # (EVAL: a deferred call's arguments are otherwise expanded only when it runs.)
        cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]]
            CALL _loaderlab_skip_pch_for_isa_sources [[${target}]])")
    endif()
    if(ARG_UNITY AND LOADERLAB_UNITY_BUILD)
        if(NOT ARG_BATCH)
            set(ARG_BATCH 8)
        endif()
        set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${ARG_BATCH})
        # A class defined in a .cpp with a member of an anonymous-namespace type (a
        # pimpl's Impl) is local to that file; in a unity batch the .cpp is included,
        # and GCC's -Wsubobject-linkage, meant for headers, reports it. The non-unity
        # build (LOADERLAB_UNITY_BUILD=OFF) still checks real headers.
        if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
            target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
        endif()
    endif()
endfunction()

# loaderlab_speed_up_test(TARGET KIND): a test executable's shared precompiled header
# by the kind of Qt it is built with (tests/CMakeLists.txt): `widgets` (QtWidgets +
# QCustomPlot) for the GUI tests, `qt` (QtCore) for the others, none for `torch`:
# LibTorch adds -D_GLIBCXX_USE_CXX11_ABI, and GCC refuses a precompiled header made
# without it.
# The tests' own code compiles at -O1 where the build optimizes: a test batch compiles
# a fifth faster (14.6 -> 11.9 s for tests/cli's first), and what the tests drive,
# LoaderLab's libraries, keeps the build's -O2. (-O1 keeps __OPTIMIZE__, so GCC still
# uses the precompiled header made at -O2; -O0 would not.)
function(loaderlab_speed_up_test target kind)
    if(NOT kind STREQUAL "torch")
        loaderlab_speed_up(${target} PCH ${kind} UNITY BATCH 4)
    endif()
    target_compile_options(${target} PRIVATE $<$<CONFIG:Release,RelWithDebInfo>:-O1>)
endfunction()
