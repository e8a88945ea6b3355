#!/bin/bash
# What recording the gradient exchange costs beyond the transfer itself: the exchange
# each engine records a step (exchange_end_ns - sync_end_ns, the ranks' mean of the
# median after warm-up: the all-reduce, the division by N and, on the PyTorch
# engine, the check of one element) against the same averaged gloo all-reduce timed
# alone around dist.all_reduce and the division in bare processes
# (bare_allreduce.py), same size, ranks and step. Each round runs the three
# in turn, the order reversed every other round; then min / median / max over the
# rounds of each engine's exchange over the bare one. Needs a build with LibTorch and
# Python with torch.
#
# WORKERS (default 0: each rank loads its batch itself, so nothing runs beside the
# exchange but the exchange; 1 or more: workers prefetch beside it, sharing the cores).
#
#   tests/bench/exchange_overhead.sh BUILD_DIR [ROUNDS] [MB] [STEP_MS] [STEPS] [RANKS] [WORKERS]
set -eu

if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [ROUNDS] [MB] [STEP_MS] [STEPS] [RANKS] [WORKERS]" >&2
    exit 2
fi
build_dir=$1
rounds=${2:-5}
mb=${3:-102.2}
step_ms=${4:-100}
steps=${5:-20}
ranks=${6:-2}
workers=${7:-0}
warmup=2
here=$(cd "$(dirname "$0")" && pwd)
loaderlab="$build_dir/app/loaderlab"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py=${LOADERLAB_PYTHON:-/usr/bin/python3}

echo "commit:  $(git -C "$here" describe --always --dirty --abbrev=12)"
echo "machine: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg)"
echo "runs:    $ranks ranks, ${mb} MB float32 gradient after a ${step_ms} ms step, ${steps} steps a rank after ${warmup} of warm-up, $workers workers a rank"

median_exchange() { # CSV -> the ranks' mean of each rank's median exchange (ms) after warm-up
    "$py" - "$1" "$warmup" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault(int(r["rank"]), []).append(
        (int(r["exchange_end_ns"]) - int(r["sync_end_ns"])) / 1e6)
medians = [statistics.median(v[int(sys.argv[2]):]) for v in by.values()]
print("%.3f" % (sum(medians) / len(medians)))
PY
}

measure() { # WHAT -> ms
    if [ "$1" = bare ]; then
        "$py" "$here/bare_allreduce.py" "$mb" "$step_ms" "$steps" "$warmup" "$ranks"
        return
    fi
    local csv="$work/$1.csv"
    "$loaderlab" run --engine "$1" --dataset synthetic --shape 3x8x8 --devices "$ranks" \
        --gradient-mb "$mb" --workers "$workers" --batch-size 8 --sleep-batch-ms "$step_ms" \
        --batches $((ranks * (steps + warmup))) --epochs 0 --warmup "$warmup" --quiet \
        --csv "$csv" > /dev/null 2>&1
    median_exchange "$csv"
}

for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then order="bare loaderlab pytorch"; else order="pytorch loaderlab bare"; fi
    echo "round $round (load $(cut -d' ' -f1-3 /proc/loadavg)):"
    for what in $order; do
        ms=$(measure "$what")
        printf "  %-9s  %8.2f ms\n" "$what" "$ms"
        echo "$round $what $ms" >> "$work/figures"
    done
done
echo "recorded exchange over the bare all-reduce (min / median / max over $rounds rounds):"
"$py" - "$work/figures" <<'PY'
import statistics, sys
by = {}
for line in open(sys.argv[1]):
    round_, what, ms = line.split()
    by.setdefault(what, {})[round_] = float(ms)
for engine in ("loaderlab", "pytorch"):
    ratios = [by[engine][r] / by["bare"][r] for r in by["bare"] if by["bare"][r] > 0]
    print("  %-9s %.3f / %.3f / %.3f" % (engine, min(ratios), statistics.median(ratios), max(ratios)))
PY
