#!/bin/sh
# What the PyTorch engine costs on a user's pipeline file (docs/your-pipeline.md):
# `loaderlab run --dataset python` on resources/examples/fashion_augment.py against
# the same file's make_dataset(args) in a DataLoader iterated by a plain Python loop,
# without LoaderLab: SAMPLES Fashion-MNIST images augmented at 64 px, the default
# collate, WORKERS workers with one intra-op thread each, batch BATCH, no shuffle,
# EPOCHS epochs, no step. samples/s = samples / seconds from the DataLoader built to
# the last batch (the engine's summary: samples / wall_seconds). ROUNDS rounds,
# alternating which side goes first; prints each round, then min / median / max of
# each side and of the ratio engine / plain, with the commit, the CPU and the load.
# Target: the engine within 3 % (ratio >= 0.97).
#
#   tests/bench/pipeline_engine_overhead.sh BUILD_DIR [ROUNDS] [SAMPLES] [EPOCHS] [WORKERS] [BATCH]
#
# Builds nothing: build the loaderlab target first. PYTHON (default /usr/bin/python3)
# is the interpreter of both sides.
set -eu

if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [ROUNDS] [SAMPLES] [EPOCHS] [WORKERS] [BATCH]" >&2
    exit 2
fi
loaderlab="$1/app/loaderlab"
rounds=${2:-5}
samples=${3:-4000}
epochs=${4:-1}
workers=${5:-2}
batch=${6:-64}
python=${PYTHON:-/usr/bin/python3}
examples="$(cd "$(dirname "$0")/../../resources/examples" && pwd)"
if [ ! -x "$loaderlab" ]; then
    echo "$0: $loaderlab not found; build it with: cmake --build $1 --target loaderlab -j2" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
probe_dir=$("$loaderlab" python-path)
. "$(dirname "$0")/bench_header.sh"

echo "commit:  $(git -C "$(dirname "$0")" describe --always --dirty --abbrev=12)"
echo "machine: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs"
echo "torch:   $("$python" -c 'import torch; print(torch.__version__)' 2>/dev/null)"
echo "runs:    fashion_augment.py, $samples samples at 64 px, $workers workers, batch $batch," \
    "$epochs epochs, no step"

engine() {
    LOADERLAB_PYTHON="$python" "$loaderlab" run --dataset python \
        --path "$examples/fashion_augment.py" --set "dataset.args.samples=$samples" \
        --set dataset.args.step=none --workers "$workers" --batch-size "$batch" \
        --epochs "$epochs" --quiet --json "$work/summary.json" > /dev/null 2> "$work/engine.err" ||
        { cat "$work/engine.err" >&2; exit 1; }
    "$python" -c 'import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print("%.1f" % (s["samples"] / s["wall_seconds"]))' "$work/summary.json"
}

plain() {
    PYTHONPATH="$probe_dir:$examples" "$python" - "$samples" "$workers" "$batch" "$epochs" <<'PY'
import sys, time
import torch
from torch.utils.data import DataLoader
import fashion_augment
samples, workers, batch, epochs = map(int, sys.argv[1:])
dataset = fashion_augment.make_dataset({"samples": samples})
torch.set_num_threads(1)  # as the engine's main process without a step of the file's
def worker_init(_):
    torch.set_num_threads(1)
options = {"worker_init_fn": worker_init} if workers > 0 else {}
loader = DataLoader(dataset, batch_size=batch, num_workers=workers, **options)
start = time.monotonic()
seen = 0
for _ in range(epochs):
    for images, _labels in loader:
        seen += images.shape[0]
print("%.1f" % (seen / (time.monotonic() - start)))
PY
}

bench_engine_against_plain "$rounds" "$work"
