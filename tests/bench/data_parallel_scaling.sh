#!/bin/sh
# Data-parallel scaling (docs/data-parallel.md): 1, 2 and 4 simulated devices on this
# host, each rank with 1 worker, batch 32 and a STEP_MS model step, over the same
# images as a JPEG folder and as a preprocessed tensor file. Speedup = total samples/s
# over that of 1 device in the same round, efficiency = speedup / devices. ROUNDS
# rounds, the order of the runs reversed every other round; prints each round, then
# min / median / max of every figure, with the commit, the CPU and the load.
#
#   tests/bench/data_parallel_scaling.sh BUILD_DIR FOLDER [ROUNDS] [SECONDS] [STEP_MS]
set -eu

if [ $# -lt 2 ]; then
    echo "usage: $0 BUILD_DIR FOLDER [ROUNDS] [SECONDS] [STEP_MS]" >&2
    exit 2
fi
build_dir=$1
folder=$2
rounds=${3:-5}
seconds=${4:-8}
step_ms=${5:-50}
loaderlab="$build_dir/app/loaderlab"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$(dirname "$0")/bench_header.sh"
bench_header "$folder"
bench_tensor "$loaderlab" "$folder" "$work/images.tensor"
echo "runs:    1 worker per rank, batch 32, ${step_ms} ms step, ${seconds} s each, warm-up excluded"

run() { # KIND DEVICES -> "samples/s worst-rank-input-bound-%"
    case $1 in
    folder) set -- --dataset folder --path "$folder" --devices "$2" ;;
    tensor) set -- --dataset tensor --path "$work/images.tensor" --devices "$2" ;;
    esac
    "$loaderlab" run "$@" --workers 1 --batch-size 32 --consumer sleep \
        --sleep-batch-ms "$step_ms" --epochs 0 --seconds "$seconds" --quiet \
        --json "$work/summary.json" > /dev/null 2>&1
    /usr/bin/python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["summary"]
ranks = s.get("ranks") or [{"input_bound_share": s["input_bound_share"]}]
print("%.1f %.1f" % (s["samples_per_sec_mean"],
                     100 * max(r["input_bound_share"] for r in ranks)))' "$work/summary.json"
}

for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then
        order="folder:1 folder:2 folder:4 tensor:1 tensor:2 tensor:4"
    else
        order="tensor:4 tensor:2 tensor:1 folder:4 folder:2 folder:1"
    fi
    for cell in $order; do
        kind=${cell%%:*}
        devices=${cell#*:}
        echo "$round $kind $devices $(run "$kind" "$devices")" >> "$work/values"
    done
    echo "round $round (load $(cut -d' ' -f1-3 /proc/loadavg)):"
    awk -v round="$round" '$1 == round {
            if ($3 == 1) base[$2] = $4
            v[$2, $3] = $4; ib[$2, $3] = $5 }
        END { for (k = 0; k < 2; ++k) { kind = k ? "tensor" : "folder"
                line = sprintf("  %-6s", kind)
                for (d = 1; d <= 4; d *= 2)
                    line = line sprintf("  %d dev %6.0f/s x%.2f eff %3.0f%% ib %2.0f%%", d,
                        v[kind, d], v[kind, d] / base[kind], 100 * v[kind, d] / base[kind] / d,
                        ib[kind, d])
                print line } }' "$work/values"
done

echo "over $rounds rounds (min / median / max):"
for kind in folder tensor; do
    for devices in 1 2 4; do
        awk -v kind="$kind" -v devices="$devices" '
            $3 == 1 { base[$1, $2] = $4 }
            $2 == kind && $3 == devices { n++; tp[n] = $4; r[n] = $1; ib[n] = $5 }
            END { for (i = 1; i <= n; ++i) eff[i] = 100 * tp[i] / base[r[i], kind] / devices
                  printf "  %-6s %d devices  samples/s %s  efficiency %s %%  worst rank input-bound %s %%\n",
                      kind, devices, mmm(tp, n, "%.0f"), mmm(eff, n, "%.0f"), mmm(ib, n, "%.0f") }
            function mmm(a, n, f,    i, j, t, m) {
                for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                m = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
                return sprintf(f " / " f " / " f, a[1], m, a[n]) }' "$work/values"
    done
done
