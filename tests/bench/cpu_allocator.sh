#!/bin/sh
# The LibTorch model step with LoaderLab's caching CPU allocator against LibTorch's own
# (LOADERLAB_CPU_ALLOCATOR=system), side by side: `bench-model` at each batch size, the
# two allocators in alternating order each round, and the caching one's samples/s over
# the system one's, with both one's page faults a step. Min / median / max over rounds.
#
#   tests/bench/cpu_allocator.sh BUILD_DIR [ROUNDS] [MODEL] [THREADS] [BATCHES]
#
# Defaults: 3 rounds, resnet18, 1 thread, batch sizes 8,32. Prints the commit, machine,
# load.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [ROUNDS] [MODEL] [THREADS] [BATCHES]" >&2; exit 2; }
loaderlab=$1/app/loaderlab
rounds=${2:-3}
model=${3:-resnet18}
threads=${4:-1}
batches=${5:-8,32}
python=${LOADERLAB_PYTHON:-/usr/bin/python3}
echo "commit:  $(git -C "$(dirname "$0")" describe --always --dirty --abbrev=12)"
echo "machine: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bench() { # $1: caching or system, $2: the CSV
    LOADERLAB_CPU_ALLOCATOR=$1 "$loaderlab" bench-model --model "$model" --batch-sizes "$batches" \
        --threads "$threads" --warmup 2 --iterations 8 --csv "$2" > /dev/null 2>&1
}
round=1
while [ "$round" -le "$rounds" ]; do
    if [ $((round % 2)) -eq 1 ]; then
        bench system "$work/system-$round.csv"; bench caching "$work/caching-$round.csv"
    else
        bench caching "$work/caching-$round.csv"; bench system "$work/system-$round.csv"
    fi
    echo "round $round done, load $(cut -d' ' -f1-3 /proc/loadavg)"
    round=$((round + 1))
done
"$python" - "$work" "$rounds" "$model" "$threads" <<'EOF'
import csv, statistics, sys
work, rounds, model, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def rows(kind, r):
    return {int(x['batch_size']): x for x in csv.DictReader(open(f'{work}/{kind}-{r}.csv'))}
def spread(values):
    v = sorted(values)
    return '%.3f / %.3f / %.3f' % (v[0], statistics.median(v), v[-1])
for batch in sorted(rows('caching', 1)):
    ratio, faults, ms = [], {'system': [], 'caching': []}, {'system': [], 'caching': []}
    for r in range(1, rounds + 1):
        c, s = rows('caching', r)[batch], rows('system', r)[batch]
        ratio.append(float(c['samples_per_sec']) / float(s['samples_per_sec']))
        for kind, row in (('caching', c), ('system', s)):
            faults[kind].append(float(row['page_faults_per_step']))
            ms[kind].append(float(row['batch_ms_mean']))
    print(f'{model}, {threads} thread(s), batch {batch}:')
    for kind in ('system', 'caching'):
        print(f'  {kind:8s} ms a step min / median / max {spread(ms[kind])}, '
              f'page faults a step median {statistics.median(faults[kind]):.0f}')
    print(f'  caching / system samples/s, min / median / max: {spread(ratio)}')
EOF
