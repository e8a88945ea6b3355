#!/usr/bin/env bash
# The loader model against measurement: for a JPEG folder and the same images as a
# tensor file, one calibration run at 1 worker (batch 32, 10 ms simulated step), then
# `loaderlab predict` and a measured `loaderlab sweep` over workers {0..4} x batch
# {16, 64} x step {0, 20 ms}, REPEATS times in alternating rounds. Prints every cell's
# samples/s measured (the median of its repeats, and their spread) and predicted, the
# median absolute error, and whether the predicted best cell is within the repeats'
# spread of the measured best (its median at least the best cell's slowest repeat).
#
#   tests/bench/predict_vs_measured.sh BUILD_DIR [FOLDER] [SAMPLES_PER_CELL] [REPEATS]
#
# FOLDER: an image folder (default: the window's default dataset, generated if need
# be). REPEATS: 3 by default. ENGINE=pytorch runs the calibration and the sweep on
# PyTorch's DataLoader instead of LoaderLab's loader (the folder only: it reads no
# tensor file): how close the model predicts PyTorch's runs and what a second worker
# measures, which tests/predict/test_calibration_pytorch.cpp leaves to a benchmark.
# WORKERS, BATCHES and STEPS_MS (comma lists) replace the sweep's axes, CALIBRATION_STEP_MS
# the calibration run's step (10), KINDS the data ("folder tensor"): issue 34's
# target is WORKERS=0,1,2,3 BATCHES=16,32 STEPS_MS=40 CALIBRATION_STEP_MS=40 KINDS=folder
# on 600-900 px photos.
# Run it on an idle machine: the measured cells and the calibration run are timed;
# the load is printed before and after each dataset. BUSY=1 starts a CPU-bound busy
# loop pinned to the last core before the calibration run and keeps it through the
# sweep: the model then calibrates for the machine as it was (machine_load in the
# run's JSON) and predicts for it.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [FOLDER] [SAMPLES_PER_CELL]}
folder=${2:-}
samples=${3:-2048}
repeats=${4:-3}
engine=${ENGINE:-loaderlab}
read -r -a kinds <<< "${KINDS:-folder tensor}"
[ "$engine" = pytorch ] && kinds=(folder)
calibration_step=${CALIBRATION_STEP_MS:-10}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$build" && pwd)/app/loaderlab
# shellcheck source=tests/bench/bench_header.sh
source "$here/bench_header.sh"
bench_scratch

folder=$(bench_folder "$bin" "$folder" "$work")
bench_header "$folder"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
if [ "$engine" != pytorch ] && [[ " ${kinds[*]} " == *" tensor "* ]]; then
    bench_tensor "$bin" "$folder" "$work/images.tensor"
fi
echo "engine:  $engine"
if [ "${BUSY:-0}" = 1 ]; then
    bench_busy_loop
    echo "busy:    a CPU-bound loop, pid $busy, on core $(($(nproc) - 1)) of $(nproc)"
fi

axes=(--axis "loader.num_workers=${WORKERS:-0,1,2,3,4}"
      --axis "loader.batch_size=${BATCHES:-16,64}"
      --axis "consumer.sleep_per_batch_ms=${STEPS_MS:-0,20}")
echo "axes:    ${axes[*]}; calibration: 1 worker, batch 32, a ${calibration_step} ms step"
for kind in "${kinds[@]}"; do
    path=$folder
    [ "$kind" = tensor ] && path=$work/images.tensor
    echo "== $kind: $path"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    # The sweep's cells read the dataset from the page cache: so does the calibration
    # run. (A file idle for a minute can have left it: the project's VM pages cold
    # memory out, DAMON's pageout.)
    find "$path" -type f -exec cat {} + > /dev/null
    "$bin" run --engine "$engine" --dataset "$kind" --path "$path" --workers 1 --batch-size 32 \
        --sleep-batch-ms "$calibration_step" --epochs 1 --csv "$work/$kind.csv" --json "$work/$kind.json" \
        --quiet > /dev/null
    start=$SECONDS
    "$bin" predict --from "$work/$kind.json" "${axes[@]}" > "$work/$kind.predicted.txt"
    predict_seconds=$((SECONDS - start))
    start=$SECONDS
    "$bin" sweep --engine "$engine" --dataset "$kind" --path "$path" --sleep-batch-ms 10 "${axes[@]}" \
        --budget-samples "$samples" --repeats "$repeats" \
        --out "$work/$kind-sweep" --quiet > "$work/$kind.measured.txt"
    sweep_seconds=$((SECONDS - start))
    grep '^  assumed: this machine' "$work/$kind.predicted.txt" || true
    echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
    python3 - "$work/$kind.predicted.txt" "$work/$kind-sweep/cells.jsonl" \
        "$predict_seconds" "$sweep_seconds" <<'PY'
import json, re, statistics, sys
predicted_txt, cells, predict_s, sweep_s = sys.argv[1:5]
# The predicted table: a header line naming the columns, then one row per cell.
lines = open(predicted_txt).read().splitlines()
head = next(i for i, l in enumerate(lines) if l.startswith("loader.num_workers"))
# Columns are separated by two spaces or more ("end-to-end s", "12 %" have one).
split = lambda line: re.split(r"\s{2,}", line.strip())
names = split(lines[head])
predicted = {}
for line in lines[head + 1:]:
    if not line.strip():
        break
    row = dict(zip(names, split(line)))
    key = (int(row["loader.num_workers"]), int(row["loader.batch_size"]),
           float(row["consumer.sleep_per_batch_ms"]))
    predicted[key] = float(row["samples/s"])
runs = {}
for line in open(cells):
    r = json.loads(line)
    if r.get("state") != "finished":
        continue
    w, b, s = r["values"]
    runs.setdefault((int(w), int(b), float(s)), []).append(r["summary"]["samples_per_sec_mean"])
measured = {key: statistics.median(v) for key, v in runs.items()}
errors = []
print(f"{'workers':>7} {'batch':>5} {'step ms':>7} {'measured':>9} {'spread':>15} "
      f"{'predicted':>9} {'error':>7}")
for key in sorted(measured):
    m, p = measured[key], predicted.get(key)
    if p is None:
        continue
    errors.append(abs(p / m - 1))
    spread = f"{min(runs[key]):.0f}-{max(runs[key]):.0f}"
    print(f"{key[0]:>7} {key[1]:>5} {key[2]:>7g} {m:>9.1f} {spread:>15} {p:>9.1f} "
          f"{100 * (p / m - 1):>+6.1f}%")
best_m = max(measured, key=measured.get)
best_p = max(predicted, key=predicted.get)
at_p = measured.get(best_p, float("nan"))
within = at_p >= min(runs[best_m])
print(f"median |error| {100 * statistics.median(errors):.1f} % "
      f"(min {100 * min(errors):.1f}, max {100 * max(errors):.1f}) over {len(errors)} cells, "
      f"{len(runs[best_m])} repeats each")
print(f"best measured: {best_m} {measured[best_m]:.1f} (repeats {min(runs[best_m]):.1f}-"
      f"{max(runs[best_m]):.1f}); best predicted: {best_p} (measured there: {at_p:.1f}, "
      f"{100 * (at_p / measured[best_m] - 1):+.1f} % of the best: "
      f"{'within' if within else 'outside'} the best's spread)")
print(f"time: predict {predict_s} s, sweep {sweep_s} s")
PY
done
