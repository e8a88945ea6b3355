#!/usr/bin/env bash
# Memory of a long GUI run: runs the window (offscreen) for SECONDS on a light
# configuration (synthetic 3x32x32, 2 workers, batch 8, 1 ms simulated step),
# samples its resident memory every 30 s, and prints the growth per recorded batch.
#
#   tests/bench/gui_memory.sh BUILD_DIR [SECONDS]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [SECONDS]}
seconds=${2:-1800}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/config.json" <<JSON
{"dataset": {"kind": "synthetic", "synthetic_shape": [3, 32, 32], "synthetic_samples": 5000000},
 "loader": {"num_workers": 2, "batch_size": 8},
 "consumer": {"kind": "sleep", "sleep_per_batch_ms": 1}, "epochs": 0}
JSON
export XDG_CONFIG_HOME="$work/config" LOADERLAB_CACHE_DIR="$work/cache"
QT_QPA_PLATFORM=offscreen "$build/app/loaderlab" --config "$work/config.json" --seconds "$seconds" \
    --json "$work/summary.json" 2> /dev/null &
pid=$!
echo "seconds rss_kib"
while kill -0 "$pid" 2> /dev/null; do
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2> /dev/null || true)
    [ -n "$rss" ] && echo "$SECONDS $rss"
    sleep 30
done | tee "$work/rss.txt"
wait "$pid"
python3 - "$work/rss.txt" "$work/summary.json" "$seconds" <<'PY'
import json, sys
# Samples taken after the run ended include the summary export's copies: leave them out.
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if l.strip() and l[0].isdigit()]
rows = [r for r in rows if r[0] < int(sys.argv[3])]
batches = json.load(open(sys.argv[2]))["summary"]["batches"]
first, last = rows[1] if len(rows) > 2 else rows[0], rows[-1]
grown = (last[1] - first[1]) * 1024
share = (last[0] - first[0]) / max(rows[-1][0], 1)
print(f"batches recorded: {batches}; RSS {rows[0][1] / 1024:.0f} MiB at start, {last[1] / 1024:.0f} MiB at the end")
print(f"growth from t={first[0]} s to t={last[0]} s: {grown / 2**20:.1f} MiB for ~{batches * share:.0f} batches"
      f" = {grown / max(batches * share, 1):.0f} bytes per batch")
PY
