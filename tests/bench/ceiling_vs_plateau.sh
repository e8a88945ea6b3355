#!/bin/sh
# The decode ceiling of `loaderlab limits` against the plateau of a workers sweep of
# the loader alone (no step), on one image folder: per round, in alternating order,
# `limits --consumer none` and `run --workers W` for each W, then the ceiling over the
# plateau (the best W's mean rate). Min / median / max over the rounds.
#
#   tests/bench/ceiling_vs_plateau.sh BUILD_DIR FOLDER [ROUNDS] [WORKERS...]
#
# Defaults: 3 rounds, workers 2 3. Prints the commit, machine, folder and load.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR FOLDER [ROUNDS] [WORKERS...]" >&2; exit 2; }
loaderlab=$1/app/loaderlab
folder=$2
rounds=${3:-3}
shift 2
[ $# -gt 0 ] && shift
workers=${*:-2 3}
python=${LOADERLAB_PYTHON:-/usr/bin/python3}
. "$(dirname "$0")/bench_header.sh"
bench_header "$folder"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
field() { "$python" -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }
ratios=""
round=1
while [ "$round" -le "$rounds" ]; do
    limits() {
        "$loaderlab" limits --path "$folder" --consumer none --json "$work/l.json" > /dev/null 2>&1
        ceiling=$(field "$work/l.json" "['ceilings'][1]['samples_per_sec']")
    }
    sweep() {
        plateau=0
        for w in $workers; do
            "$loaderlab" run --path "$folder" --workers "$w" --persistent-workers --epochs 3 \
                --consumer none --quiet --json "$work/r.json" > /dev/null 2>&1
            rate=$(field "$work/r.json" "['summary']['samples_per_sec_mean']")
            plateau=$("$python" -c "print(max($plateau, $rate))")
        done
    }
    if [ $((round % 2)) -eq 1 ]; then limits; sweep; else sweep; limits; fi
    ratio=$("$python" -c "print(round($ceiling / $plateau, 3))")
    echo "round $round: decode ceiling $ceiling, plateau $plateau (workers $workers), ceiling/plateau $ratio; load $(cut -d' ' -f1-3 /proc/loadavg)"
    ratios="$ratios $ratio"
    round=$((round + 1))
done
"$python" -c "import statistics,sys; v=sorted(map(float, sys.argv[1:])); print('ceiling/plateau min / median / max: %.3f / %.3f / %.3f' % (v[0], statistics.median(v), v[-1]))" $ratios
