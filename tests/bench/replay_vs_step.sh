#!/bin/sh
# Replay (`run --replay N`) against the step's own rate, on one image folder:
#   1. a simulated step of S ms a batch of B, on LoaderLab's engine and on PyTorch's
#      DataLoader: the replayed rate over B / S (the nominal step), and over B / the
#      replayed steps' mean time in the trace (what the replay adds between steps);
#   2. a LibTorch model step: the replayed rate over B / its steps' mean time, and over
#      `bench-model`'s rate at the same batch size and threads, the two in alternating
#      order each round.
# Min / median / max over the rounds.
#
#   tests/bench/replay_vs_step.sh BUILD_DIR FOLDER [ROUNDS] [MODEL] [PARTS]
#
# Defaults: 3 rounds, resnet18 (batch 8, $THREADS or 2 threads), PARTS "sleep model"
# (either alone runs that part only). Prints the commit, machine, load.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR FOLDER [ROUNDS] [MODEL] [PARTS]" >&2; exit 2; }
loaderlab=$1/app/loaderlab
folder=$2
rounds=${3:-3}
model=${4:-resnet18}
parts=${5:-sleep model}
threads=${THREADS:-2}
python=${LOADERLAB_PYTHON:-/usr/bin/python3}
. "$(dirname "$0")/bench_header.sh"
bench_header "$folder"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# B / the mean step time of the replayed batches of a run's CSV.
stepped() { "$python" -c "
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['worker'] == '-1' and int(r['index']) >= int(sys.argv[2])]
steps = [int(r['compute_end_ns']) - int(r['compute_start_ns']) for r in rows]
print(sum(int(r['samples']) for r in rows) / (sum(steps) / 1e9))" "$1" "$2"; }
replayed() { "$python" -c "import json,sys; print(json.load(open(sys.argv[1]))['summary']['replay']['replay_samples_per_sec'])" "$1"; }
stats() { "$python" -c "import statistics,sys; v=sorted(map(float, sys.argv[2:])); print('%s min / median / max: %.4f / %.4f / %.4f' % (sys.argv[1], v[0], statistics.median(v), v[-1]))" "$@"; }

batch=16
case " $parts " in *" sleep "*) engines="loaderlab pytorch" ;; *) engines="" ;; esac
for engine in $engines; do
    for ms in 5 20; do
        ratios=""
        owns=""
        round=1
        while [ "$round" -le "$rounds" ]; do
            "$loaderlab" run --engine "$engine" --path "$folder" --workers 2 --batch-size $batch \
                --consumer sleep --sleep-batch-ms "$ms" --replay 6 --batches 206 --quiet \
                --json "$work/s.json" --csv "$work/s.csv" > /dev/null 2>&1
            rate=$(replayed "$work/s.json")
            own=$(stepped "$work/s.csv" 6)
            ratio=$("$python" -c "print(round($rate / ($batch * 1000.0 / $ms), 4))")
            ownratio=$("$python" -c "print(round($rate / $own, 4))")
            echo "simulated step $ms ms x batch $batch, $engine engine, round $round: replay $rate samples/s, over B/S $ratio, over B/(mean step) $ownratio"
            ratios="$ratios $ratio"
            owns="$owns $ownratio"
            round=$((round + 1))
        done
        stats "simulated $ms ms, $engine: replay / (B / S)" $ratios
        stats "simulated $ms ms, $engine: replay / (B / mean step)" $owns
    done
done

case " $parts " in *" model "*) ;; *) exit 0 ;; esac
ratios=""
owns=""
round=1
while [ "$round" -le "$rounds" ]; do
    bench() {
        "$loaderlab" bench-model --model "$model" --batch-sizes 8 --threads "$threads" --warmup 3 \
            --iterations 20 --csv "$work/b.csv" > /dev/null 2>&1
        alone=$("$python" -c "import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))['samples_per_sec'])" "$work/b.csv")
    }
    replay() {
        "$loaderlab" run --path "$folder" --workers 2 --batch-size 8 --consumer model \
            --model "$model" --threads "$threads" --replay 4 --batches 27 --quiet \
            --json "$work/m.json" --csv "$work/m.csv" > /dev/null 2>&1
        rate=$(replayed "$work/m.json")
        own=$(stepped "$work/m.csv" 4)
    }
    if [ $((round % 2)) -eq 1 ]; then bench; replay; else replay; bench; fi
    ratio=$("$python" -c "print(round($rate / $alone, 4))")
    ownratio=$("$python" -c "print(round($rate / $own, 4))")
    echo "model $model batch 8, $threads thread(s), round $round: replay $rate, over B/(mean step) $ownratio; bench-model $alone samples/s, replay over it $ratio; load $(cut -d' ' -f1-3 /proc/loadavg)"
    ratios="$ratios $ratio"
    owns="$owns $ownratio"
    round=$((round + 1))
done
stats "model $model: replay / (B / mean step)" $owns
stats "model $model: replay / bench-model" $ratios
