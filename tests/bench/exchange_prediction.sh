#!/bin/bash
# The gradient exchange measured and predicted (docs/data-parallel.md): 1, 2, 3 and 4
# ranks on this host all-reduce a MB-sized gradient (c10d's gloo) after every
# STEP_MS simulated step, on synthetic samples (1 worker a rank, batch 32), so the
# cores stay free for the exchange. `loaderlab predict` calibrated from the round's
# 2-rank run (its loader costs and the link its exchange measured) predicts every
# rank count; each round prints the measured and predicted exchange per step,
# samples/s and scaling efficiency (samples/s over N x one rank's), then min /
# median / max of the errors. The order of the rank counts is reversed every other
# round. Needs a build with LibTorch.
#
#   tests/bench/exchange_prediction.sh BUILD_DIR [ROUNDS] [MB] [STEP_MS] [BATCHES]
set -eu

if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [ROUNDS] [MB] [STEP_MS] [BATCHES]" >&2
    exit 2
fi
build_dir=$1
rounds=${2:-3}
mb=${3:-102.2}
step_ms=${4:-10}
batches=${5:-160}
loaderlab="$build_dir/app/loaderlab"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py=${LOADERLAB_PYTHON:-/usr/bin/python3}

echo "commit:  $(git -C "$(dirname "$0")" describe --always --dirty --abbrev=12)"
echo "machine: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg)"
echo "runs:    synthetic, 1 worker a rank, batch 32, ${step_ms} ms step, ${mb} MB gradient, ${batches} batches (all ranks)"

run() { # RANKS ROUND -> writes $work/r$1.json and .csv
    "$loaderlab" run --dataset synthetic --devices "$1" --set "gradient_mb=$mb" \
        --workers 1 --batch-size 32 --sleep-batch-ms "$step_ms" --batches "$batches" \
        --epochs 0 --quiet --csv "$work/r$1.csv" --json "$work/r$1.json" > /dev/null 2>&1
}

measured() { # RANKS -> "samples/s exchange-ms"
    "$py" -c 'import json, sys
s = json.load(open(sys.argv[1]))["summary"]
ranks = s.get("ranks") or []
ex = sum(r.get("exchange_mean_ms", 0) for r in ranks) / len(ranks) if ranks else 0.0
print("%.1f %.2f" % (s["samples_per_sec_mean"], ex))' "$work/r$1.json"
}

for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then order="1 2 3 4"; else order="4 3 2 1"; fi
    for n in $order; do run "$n"; done
    "$loaderlab" predict --from "$work/r2.json" --axis devices=1,2,3,4 > "$work/predict.txt"
    echo "round $round (load $(cut -d' ' -f1-3 /proc/loadavg)):"
    "$py" - "$work" "$mb" "$round" <<'EOF'
import json, re, sys
work, mb, rnd = sys.argv[1], float(sys.argv[2]), sys.argv[3]
text = open(work + "/predict.txt").read()
ring = {int(n): float(ms) for ms, n in re.findall(r"([0-9.]+) ms with ([0-9]+) ranks", text)}
pred = {}
for line in text.splitlines():
    m = re.match(r"^([1-4])\s+\d+\s+[0-9.]+\s+[0-9.]+ %\s+([0-9.]+)", line)
    if m:
        pred[int(m.group(1))] = float(m.group(2))
meas = {}
for n in (1, 2, 3, 4):
    s = json.load(open("%s/r%d.json" % (work, n)))["summary"]
    ranks = s.get("ranks") or []
    ex = sum(r.get("exchange_mean_ms", 0) for r in ranks) / len(ranks) if ranks else 0.0
    meas[n] = (s["samples_per_sec_mean"], ex)
print("  ranks  exchange ms: measured  predicted  error   samples/s: measured  predicted  error   efficiency: measured  predicted  points")
with open(work + "/errors", "a") as out:
    for n in (1, 2, 3, 4):
        ms, ex = meas[n]
        ps = pred.get(n, 0.0)
        e_ex = (ring.get(n, 0.0) / ex - 1) * 100 if ex else 0.0
        e_s = (ps / ms - 1) * 100 if ms else 0.0
        eff_m = ms / (n * meas[1][0]) * 100
        eff_p = ps / (n * pred[1]) * 100 if pred.get(1) else 0.0
        print("  %5d  %20.1f  %9.1f  %+5.1f %%  %18.1f  %9.1f  %+5.1f %%  %19.1f %%  %7.1f %%  %+6.1f" %
              (n, ex, ring.get(n, 0.0), e_ex, ms, ps, e_s, eff_m, eff_p, eff_p - eff_m))
        out.write("%s %d %.2f %.2f %.2f\n" % (rnd, n, e_ex, e_s, eff_p - eff_m))
EOF
done

echo "over $rounds rounds: min / median / max"
"$py" - "$work/errors" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1])]
def mmm(v):
    v = sorted(v); n = len(v)
    med = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    return "%+.1f / %+.1f / %+.1f" % (v[0], med, v[-1])
for n in ("2", "3", "4"):
    sel = [r for r in rows if r[1] == n]
    print("  %s ranks: exchange error %s %%, samples/s error %s %%, efficiency error %s points" %
          (n, mmm([float(r[2]) for r in sel]), mmm([float(r[3]) for r in sel]),
           mmm([float(r[4]) for r in sel])))
EOF
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
