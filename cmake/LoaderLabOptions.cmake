# Every LoaderLab option, in one place, with one prefix.
include(FeatureSummary)

option(LOADERLAB_BUILD_TESTS "Build the Qt Test executables" ON)
option(LOADERLAB_BUILD_BENCHMARKS "Build the benchmark programs" ON)
option(LOADERLAB_WITH_TORCH "Link LibTorch (models, CUDA detection)" ON)
# OFF: the command line only, without Qt Widgets and QCustomPlot (a server build;
# CI's ThreadSanitizer stage, whose tests never open the window).
option(LOADERLAB_WITH_WINDOW "Build the window (loaderlab without a command)" ON)
option(LOADERLAB_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" OFF)
option(LOADERLAB_BUILD_FUZZERS "Build the libFuzzer targets in tests/fuzz (clang only)" OFF)
set(LOADERLAB_SANITIZER "" CACHE STRING "Sanitizer to build with: address, thread or empty")
set_property(CACHE LOADERLAB_SANITIZER PROPERTY STRINGS "" address thread)

add_feature_info(Tests LOADERLAB_BUILD_TESTS "Qt Test executables run by ctest")
add_feature_info(Benchmarks LOADERLAB_BUILD_BENCHMARKS "loader benchmark programs")
add_feature_info(LibTorch LOADERLAB_WITH_TORCH "LibTorch models and CUDA detection")
add_feature_info(Window LOADERLAB_WITH_WINDOW "the window (Qt Widgets, QCustomPlot)")
add_feature_info(Fuzzers LOADERLAB_BUILD_FUZZERS "libFuzzer targets for the parsers")
add_feature_info(Werror LOADERLAB_WARNINGS_AS_ERRORS "warnings are errors")
