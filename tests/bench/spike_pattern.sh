#!/bin/sh
# The spike every W batches, and sample-parallel loading (docs/benchmarks.md): the
# same JPEG folder loaded by W workers, batch 32, a simulated model step, with
# PyTorch's per-worker strategy and with sample-parallel loading. ROUNDS rounds,
# the order reversed every other round; prints each run's waits of its first
# batches (ms, from the CSV's wait_ns column), and min / median / max of the first
# batch's wait, the mean wait of the later batches and samples/s, with the commit,
# the CPU and the load.
#
#   tests/bench/spike_pattern.sh BUILD_DIR FOLDER [ROUNDS] [WORKERS] [STEP_MS] [BATCHES]
set -eu

if [ $# -lt 2 ]; then
    echo "usage: $0 BUILD_DIR FOLDER [ROUNDS] [WORKERS] [STEP_MS] [BATCHES]" >&2
    exit 2
fi
build_dir=$1
folder=$2
rounds=${3:-5}
workers=${4:-4}
step_ms=${5:-20}
batches=${6:-20}
loaderlab="$build_dir/app/loaderlab"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$(dirname "$0")/bench_header.sh"
bench_header "$folder"
echo "workers $workers, batch 32, step $step_ms ms, $batches batches"

run() { # STRATEGY -> "first later_mean samples_per_s | waits..."
    "$loaderlab" run --dataset folder --path "$folder" --workers "$workers" --batch-size 32 \
        --sleep-batch-ms "$step_ms" --batches "$batches" --strategy "$1" --quiet \
        --csv "$work/run.csv" --json "$work/run.json" > /dev/null 2>&1
    /usr/bin/python3 - "$work/run.csv" "$work/run.json" <<'EOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
rows.sort(key=lambda r: int(r["index"]))
waits = [int(r["wait_ns"]) / 1e6 for r in rows]
summary = json.load(open(sys.argv[2]))["summary"]
later = waits[1:]
print("%.1f %.1f %.1f | %s" % (waits[0], sum(later) / len(later),
                               summary["samples"] / summary["wall_seconds"],
                               " ".join("%.0f" % w for w in waits)))
EOF
}

for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then order="per-worker sample-parallel"; else order="sample-parallel per-worker"; fi
    for strategy in $order; do
        result=$(run "$strategy")
        echo "$strategy ${result%% |*}" >> "$work/values"
        echo "round $round $strategy: waits ${result#*| } ms; load $(cut -d' ' -f1 /proc/loadavg)"
    done
done
for strategy in per-worker sample-parallel; do
    for column in 2 3 4; do
        case $column in 2) what="first wait ms" ;; 3) what="later waits, mean ms" ;; 4) what="samples/s" ;; esac
        grep "^$strategy " "$work/values" | cut -d' ' -f"$column" | sort -n | awk \
            -v label="$strategy, $what" '
            { v[NR] = $1 }
            END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                  printf "%-40s min %7.1f  median %7.1f  max %7.1f\n", label, v[1], m, v[NR] }'
    done
done
