#!/usr/bin/env bash
# `sweep --predict-first` against the full sweep: the grid of predict_vs_measured.sh
# (workers {0..4} x batch {16, 64} x step {0, 20 ms}, a 10 ms step in the base) on a
# JPEG folder and on the same images as a tensor file, each sweep into a fresh folder,
# the two alternating which goes first, ROUNDS times. Prints per round the wall time
# of each, the ratio predict-first / full, the cells predict-first ran, and whether
# its recommendations (the best cell of each step) are those of the full sweep; then
# min / median / max of the times and the ratio.
#
#   tests/bench/predict_first_benchmark.sh BUILD_DIR [FOLDER] [SAMPLES_PER_CELL] [ROUNDS]
#
# FOLDER: an image folder (default: the window's default dataset, generated if need
# be); SAMPLES_PER_CELL 2048, ROUNDS 2. The goal: the same recommendations in 40 % of
# the full sweep's time or less. Run it on an idle machine: every cell is timed.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [FOLDER] [SAMPLES_PER_CELL] [ROUNDS]}
folder=${2:-}
samples=${3:-2048}
rounds=${4:-2}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$build" && pwd)/app/loaderlab
# shellcheck source=tests/bench/bench_header.sh
source "$here/bench_header.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

folder=$(bench_folder "$bin" "$folder" "$work")
bench_header "$folder"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
bench_tensor "$bin" "$folder" "$work/images.tensor"
echo "grid:    workers 0-4 x batch 16, 64 x step 0, 20 ms; $samples samples a cell; $rounds rounds"

axes=(--axis loader.num_workers=0,1,2,3,4 --axis loader.batch_size=16,64
      --axis consumer.sleep_per_batch_ms=0,20)

# sweep KIND PATH NAME [OPTIONS...]: one sweep into $work/NAME; prints its wall seconds.
sweep() {
    local kind=$1 path=$2 name=$3
    shift 3
    local start end
    start=$(date +%s.%N)
    "$bin" sweep --dataset "$kind" --path "$path" --sleep-batch-ms 10 "${axes[@]}" \
        --budget-samples "$samples" --out "$work/$name" "$@" \
        > "$work/$name.out" 2> "$work/$name.err"
    end=$(date +%s.%N)
    echo "$start $end" | awk '{ printf "%.1f", $2 - $1 }'
}

# compare FULL_DIR FIRST_DIR: per step, the best cell (shortest end-to-end time, as
# the recommendation picks it) of each sweep, and how much slower the predict-first
# pick ran in the full sweep; last line "same" or "different", then the largest of
# those losses in percent (cells tied within the noise differ at +0.x %).
compare() {
    python3 - "$1/cells.jsonl" "$2/cells.jsonl" <<'PY'
import json, sys
def cells(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        if r.get("state") == "finished":
            out[tuple(r["values"])] = r["summary"]["wall_seconds"]
    return out
full, first = cells(sys.argv[1]), cells(sys.argv[2])
same, worst = True, 0.0
for step in sorted({k[2] for k in full}):
    best = lambda d: min((k for k in d if k[2] == step), key=d.get)
    f, p = best(full), best(first)
    same = same and f == p
    loss = 100 * (full[p] / full[f] - 1)
    worst = max(worst, loss)
    print(f"  step {step:g} ms: full {f[0]} workers, batch {f[1]} ({full[f]:.3f} s); "
          f"predict-first {p[0]} workers, batch {p[1]}, {loss:+.1f} % in the full sweep")
print(("same" if same else "different"), f"{worst:.1f}")
PY
}

for kind in folder tensor; do
    path=$folder
    [ "$kind" = tensor ] && path=$work/images.tensor
    echo "== $kind: $path"
    : > "$work/$kind.values"
    for round in $(seq 1 "$rounds"); do
        if [ $((round % 2)) -eq 1 ]; then
            full=$(sweep "$kind" "$path" "$kind-full-$round")
            first=$(sweep "$kind" "$path" "$kind-first-$round" --predict-first)
        else
            first=$(sweep "$kind" "$path" "$kind-first-$round" --predict-first)
            full=$(sweep "$kind" "$path" "$kind-full-$round")
        fi
        ran=$(sed -n 's/.*: ran \([0-9]*\) cells.*skipped \([0-9]*\),.*/\1 run, \2 skipped/p' \
            "$work/$kind-first-$round.err")
        compare "$work/$kind-full-$round" "$work/$kind-first-$round" > "$work/compare"
        read -r same loss < <(tail -1 "$work/compare")
        echo "$full $first $same $loss" >> "$work/$kind.values"
        echo "round $round (load $(cut -d' ' -f1-3 /proc/loadavg)): full $full s," \
            "predict-first $first s ($ran), ratio" \
            "$(echo "$first $full" | awk '{ printf "%.3f", $1 / $2 }'), recommendation: $same" \
            "(its pick at most +$loss % in the full sweep)"
        sed '$d' "$work/compare"
        if [ "$same" != same ]; then
            sed -n '/^skipped, predicted/,/^done:/p' "$work/$kind-first-$round.err" | head -25
        fi
    done
    awk '{ f[NR] = $1; p[NR] = $2; r[NR] = $2 / $1; same += ($3 == "same"); l[NR] = $4 }
        END { printf "over %d rounds (min / median / max):\n  full sweep s %s\n  predict-first s %s\n  ratio predict-first/full %s\n  same recommendation in %d of %d rounds; the loss of its pick in the full sweep %s %%\n",
                  NR, mmm(f, NR, "%.1f"), mmm(p, NR, "%.1f"), mmm(r, NR, "%.3f"), same, NR,
                  mmm(l, NR, "%+.1f") }
        function mmm(a, n, f,    i, j, t, m) {
            for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            m = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
            return sprintf(f " / " f " / " f, a[1], m, a[n]) }' "$work/$kind.values"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
