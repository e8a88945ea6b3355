#!/usr/bin/env bash
# "Predict, then watch" on an idle machine and beside a busy loop: the lesson
# (`loaderlab lesson predict-then-watch`) ROUNDS times each way, alternating, on a
# folder of real photographs (default: 432 photos, short side 600-900 px, made by
# make_photo_folder.py). The busy rounds start a CPU-bound loop pinned to the last
# core before the lesson and stop it after. Prints each round's prediction made
# before phase 2, the re-prediction for the load measured while phase 2 ran, the
# measured samples/s, the error the verdict judged and whether it held, then min /
# median / max of the judged |error| for each way.
#
#   tests/bench/predict_then_watch.sh BUILD_DIR [FOLDER] [ROUNDS]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [FOLDER] [ROUNDS]}
folder=${2:-}
rounds=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$build" && pwd)/app/loaderlab
# shellcheck source=tests/bench/bench_header.sh
source "$here/bench_header.sh"
bench_scratch

if [ -z "$folder" ]; then
    folder=$work/photos
    /usr/bin/python3 "$here/make_photo_folder.py" "$folder" --classes 9 --per-class 48 \
        --min-short 600 --max-short 900 > /dev/null
fi
bench_header "$folder"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"

lesson() { # WAY ROUND
    local json=$work/$1-$2.json
    find "$folder" -type f -exec cat {} + > /dev/null
    if [ "$1" = busy ]; then
        bench_busy_loop
    fi
    "$bin" lesson predict-then-watch --path "$folder" --json "$json" > /dev/null 2>&1 || true
    if [ -n "$busy" ]; then
        kill "$busy"
        wait "$busy" 2>/dev/null || true
        busy=
    fi
    /usr/bin/python3 - "$json" "$1" "$2" >> "$work/rows" <<'PY'
import json, sys
path, way, round_ = sys.argv[1:4]
try:
    f = json.load(open(path))["figures"]
    re = f.get("repredicted_samples_per_sec")
    print(way, round_, f["predicted_samples_per_sec"], re if re is not None else "nan",
          f["measured_samples_per_sec"], f["error_percent"], f.get("judged_against", "prediction"),
          "held" if f["held"] else "missed", f.get("other_cores_phase1", 0.0),
          f.get("other_cores_phase2") or 0.0)
except (OSError, KeyError, ValueError) as e:
    print(way, round_, "nan nan nan nan none failed 0 0", file=sys.stdout)
PY
    tail -1 "$work/rows" | awk '{ printf "round %s %-4s predicted %7.1f  re-predicted %7.1f  measured %7.1f  error %+6.1f %% (against the %s) %s; other programs %.2f / %.2f cores in phase 1 / 2\n", $2, $1, $3, $4, $5, $6, $7, $8, $9, $10 }'
}

for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then order="idle busy"; else order="busy idle"; fi
    for way in $order; do lesson "$way" "$round"; done
done
for way in idle busy; do
    grep "^$way " "$work/rows" | awk '{ e = $6 < 0 ? -$6 : $6; print e, $8 }' | sort -n | awk -v way="$way" '
        { e[NR] = $1; if ($2 == "held") held++ }
        END { if (NR == 0) exit
              m = NR % 2 ? e[(NR + 1) / 2] : (e[NR / 2] + e[NR / 2 + 1]) / 2
              printf "%s: |error| min %.1f / median %.1f / max %.1f %%, held %d of %d\n", way, e[1], m, e[NR], held, NR }'
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
