#!/bin/sh
# Preprocessed tensors vs JPEG (docs/benchmarks.md): the same images loaded as a
# JPEG folder (decode + resize + crop + normalise), as a preprocessed float32
# tensor file, and as synthetic samples in memory; 2 workers, batch 32, no
# consumer, 2 epochs. ROUNDS rounds, the order reversed every other round; prints
# each round and min / median / max of samples/s (samples / wall seconds), with
# the commit, the CPU and the load.
#
#   tests/bench/tensor_vs_jpeg.sh BUILD_DIR FOLDER [ROUNDS]
set -eu

if [ $# -lt 2 ]; then
    echo "usage: $0 BUILD_DIR FOLDER [ROUNDS]" >&2
    exit 2
fi
build_dir=$1
folder=$2
rounds=${3:-5}
loaderlab="$build_dir/app/loaderlab"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$(dirname "$0")/bench_header.sh"
bench_header "$folder"
bench_tensor "$loaderlab" "$folder" "$work/images.tensor"
samples=$(find "$folder" -type f | wc -l)

run() { # KIND -> samples/s
    case $1 in
    folder) set -- --dataset folder --path "$folder" ;;
    tensor) set -- --dataset tensor --path "$work/images.tensor" ;;
    synthetic) set -- --dataset synthetic --samples "$samples" ;;
    esac
    "$loaderlab" run "$@" --workers 2 --batch-size 32 --epochs 2 --quiet 2>/dev/null \
        --json "$work/summary.json" > /dev/null
    /usr/bin/python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print("%.1f" % (s["samples"] / s["wall_seconds"]))' "$work/summary.json"
}

for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then order="folder tensor synthetic"; else order="synthetic tensor folder"; fi
    line="round $round:"
    for kind in $order; do
        value=$(run "$kind")
        echo "$kind $value" >> "$work/values"
        line="$line $kind $value"
    done
    echo "$line samples/s; load $(cut -d' ' -f1-3 /proc/loadavg)"
done
for kind in folder tensor synthetic; do
    grep "^$kind " "$work/values" | cut -d' ' -f2 | sort -n | awk -v kind="$kind" '
        { v[NR] = $1 }
        END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf "%-10s samples/s min %.0f median %.0f max %.0f\n", kind, v[1], m, v[NR] }'
done
