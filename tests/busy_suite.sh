#!/usr/bin/env bash
# Runs the whole test suite ROUNDS times (default 3) with a CPU-bound busy loop pinned
# to one core beside it, as on a machine that is doing other work: functional tests
# check known answers, so none may fail for the load (CONTRIBUTING.md, "Tests").
#   tests/busy_suite.sh [BUILD_DIR] [ROUNDS] [ctest arguments...]
set -euo pipefail
build=${1:-build}
rounds=${2:-3}
shift $(($# < 2 ? $# : 2))
busy_core=$(($(nproc) - 1))
taskset -c "$busy_core" sh -c 'while :; do :; done' &
busy=$!
trap 'kill "$busy" 2>/dev/null || true' EXIT
echo "busy loop: pid $busy on core $busy_core of $(nproc)"
status=0
for round in $(seq 1 "$rounds"); do
    echo "==== round $round of $rounds ($(date -u +%H:%M:%S))"
    ctest --test-dir "$build" --output-on-failure -j"$(nproc)" "$@" || status=1
done
exit "$status"
