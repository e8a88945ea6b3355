# loaderlab_bench_plots: ingest and replot cost of the four live plots on a
# million-batch trace (docs/benchmarks.md). Included from tests/bench/CMakeLists.txt.
# Not run by ctest.
set(CMAKE_AUTOMOC ON)
add_executable(loaderlab_bench_plots ${CMAKE_CURRENT_LIST_DIR}/plot_benchmark.cpp)
target_link_libraries(loaderlab_bench_plots PRIVATE loaderlab_widgets loaderlab_core
    loaderlab_options)
loaderlab_speed_up(loaderlab_bench_plots PCH widgets)
