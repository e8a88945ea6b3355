#!/bin/sh
# Runs the loader benchmark from an existing build directory and keeps a copy of
# its output. Builds nothing: build the loaderlab_bench_loader target first.
#
#   tests/bench/run_loader_benchmark.sh BUILD_DIR [benchmark options...]
#
# Output goes to the terminal and to BUILD_DIR/loader_benchmark.txt (override with
# LOADERLAB_BENCH_LOG); extra options (--workers, --json ...) are passed through.
set -eu

if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [loaderlab_bench_loader options...]" >&2
    exit 2
fi
build_dir=$1
shift

bench="$build_dir/tests/bench/loaderlab_bench_loader"
if [ ! -x "$bench" ]; then
    echo "$0: $bench not found; build it with:" >&2
    echo "  cmake --build $build_dir --target loaderlab_bench_loader -j2" >&2
    exit 1
fi

log=${LOADERLAB_BENCH_LOG:-$build_dir/loader_benchmark.txt}
# Keep the benchmark's exit status through the pipe into tee.
status_file=$(mktemp)
trap 'rm -f "$status_file"' EXIT
{ "$bench" "$@" 2>&1; echo $? > "$status_file"; } | tee "$log"
status=$(cat "$status_file")
echo "log: $log"
exit "$status"
