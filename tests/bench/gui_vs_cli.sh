#!/usr/bin/env bash
# Does the live GUI slow the engine down? Runs the same configuration headless
# (`loaderlab run`) and in the window (plots refreshing at ~30 Hz), alternately,
# and prints the samples/s of each and the ratio GUI / CLI.
#
#   tests/bench/gui_vs_cli.sh BUILD_DIR [SECONDS] [ROUNDS]
#
# The window runs under Xvfb when xvfb-run is available, else offscreen.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [SECONDS] [ROUNDS]}
seconds=${2:-10}
rounds=${3:-2}
bin="$build/app/loaderlab"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/config.json" <<JSON
{"dataset": {"kind": "synthetic", "synthetic_shape": [3, 224, 224], "synthetic_samples": 1000000},
 "loader": {"num_workers": 2, "batch_size": 32},
 "consumer": {"kind": "none"}, "epochs": 0}
JSON

gui() {
    if command -v xvfb-run > /dev/null; then
        xvfb-run -a -s "-screen 0 1600x1000x24" "$bin" "$@"
    else
        QT_QPA_PLATFORM=offscreen "$bin" "$@"
    fi
}
rate() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['summary']['samples_per_sec_mean'])" "$1"; }

export LOADERLAB_CACHE_DIR="$work/cache"
export XDG_CONFIG_HOME="$work/config"   # fresh window settings
cli_rates=()
gui_rates=()
for ((i = 1; i <= rounds; i++)); do
    "$bin" run --config "$work/config.json" --seconds "$seconds" --quiet --json "$work/cli.json" > /dev/null
    cli_rates+=("$(rate "$work/cli.json")")
    gui --config "$work/config.json" --seconds "$seconds" --json "$work/gui.json" 2> /dev/null
    gui_rates+=("$(rate "$work/gui.json")")
    echo "round $i: CLI ${cli_rates[-1]} samples/s, GUI ${gui_rates[-1]} samples/s"
done
python3 - "${cli_rates[*]}" "${gui_rates[*]}" <<'PY'
import statistics, sys
cli = [float(x) for x in sys.argv[1].split()]
gui = [float(x) for x in sys.argv[2].split()]
c, g = statistics.mean(cli), statistics.mean(gui)
print(f"mean: CLI {c:.1f} samples/s, GUI {g:.1f} samples/s, GUI / CLI = {g / c:.3f}")
PY
