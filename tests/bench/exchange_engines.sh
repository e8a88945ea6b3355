#!/bin/bash
# The same data-parallel run on both engines (docs/data-parallel.md, "On PyTorch's
# DataLoader"): N ranks all-reduce an MB-sized gradient after every STEP_MS simulated
# step, on synthetic samples (1 worker a rank, batch 8). LoaderLab's ranks are threads
# of one process meeting through LibTorch's c10d ProcessGroupGloo; the PyTorch
# engine's are processes meeting through torch.distributed's gloo backend. Each round
# runs both engines for every N, the order of the engines swapped every other round,
# and prints each run's exchange and wait for the slowest rank per step (the ranks'
# mean) and samples/s; then, per N, min / median / max over the rounds of the PyTorch
# engine's exchange over LoaderLab's. Needs a build with LibTorch and Python with torch.
#
#   tests/bench/exchange_engines.sh BUILD_DIR [ROUNDS] [MB] [STEP_MS] [STEPS] [RANKS...]
set -eu

if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [ROUNDS] [MB] [STEP_MS] [STEPS] [RANKS...]" >&2
    exit 2
fi
build_dir=$1
rounds=${2:-3}
mb=${3:-102.2}
step_ms=${4:-100}
steps=${5:-20}
shift $(($# < 5 ? $# : 5))
ranks=${*:-2 4}
loaderlab="$build_dir/app/loaderlab"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py=${LOADERLAB_PYTHON:-/usr/bin/python3}

echo "commit:  $(git -C "$(dirname "$0")" describe --always --dirty --abbrev=12)"
echo "machine: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg)"
echo "runs:    synthetic 3x64x64, 1 worker a rank, batch 8, ${step_ms} ms step, ${mb} MB gradient, ${steps} steps a rank"

run() { # ENGINE RANKS -> prints "exchange-ms slowest-ms samples/s"
    local json="$work/$1-$2.json"
    "$loaderlab" run --engine "$1" --dataset synthetic --shape 3x64x64 --devices "$2" \
        --gradient-mb "$mb" --workers 1 --batch-size 8 --sleep-batch-ms "$step_ms" \
        --batches $(($2 * steps)) --epochs 0 --warmup 2 --quiet --json "$json" > /dev/null 2>&1
    "$py" -c 'import json, sys
s = json.load(open(sys.argv[1]))["summary"]
r = s["ranks"]
print("%.2f %.2f %.1f" % (sum(x["exchange_mean_ms"] for x in r) / len(r),
                          sum(x["sync_wait_mean_ms"] for x in r) / len(r),
                          s["samples_per_sec_mean"]))' "$json"
}

for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then engines="loaderlab pytorch"; else engines="pytorch loaderlab"; fi
    echo "round $round (load $(cut -d' ' -f1-3 /proc/loadavg)):"
    for n in $ranks; do
        for engine in $engines; do
            read -r ex slow rate < <(run "$engine" "$n")
            printf "  %d ranks  %-9s  exchange %8.2f ms  slowest %6.2f ms  %7.1f samples/s\n" \
                "$n" "$engine" "$ex" "$slow" "$rate"
            echo "$n $engine $ex" >> "$work/figures"
        done
    done
done
echo "PyTorch engine's exchange over LoaderLab's (min / median / max over $rounds rounds):"
"$py" - "$work/figures" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
by = {}
for n, engine, ex in rows:
    by.setdefault(int(n), {}).setdefault(engine, []).append(float(ex))
for n in sorted(by):
    ratios = [p / l for p, l in zip(by[n]["pytorch"], by[n]["loaderlab"]) if l > 0]
    print("  %d ranks: %.3f / %.3f / %.3f" % (n, min(ratios), statistics.median(ratios), max(ratios)))
EOF
