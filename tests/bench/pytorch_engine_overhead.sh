#!/bin/sh
# What the PyTorch engine costs (docs/pytorch-engine.md): `loaderlab run --engine
# pytorch` against the same DataLoader iterated by a plain Python loop, without
# LoaderLab: torchvision's ImageFolder with the eval transform (Resize 256,
# CenterCrop 224, ToTensor, Normalize), the default collate, WORKERS workers with
# one intra-op thread each, batch BATCH, no shuffle, EPOCHS epochs, no step.
# samples/s = samples / seconds from the DataLoader built to the last batch (the
# engine's summary: samples / wall_seconds). ROUNDS rounds, alternating which side
# goes first, so a slow phase of a shared machine hits both; prints each round, then
# min / median / max of each side and of the ratio engine / plain, with the commit,
# the CPU and the load. Target: the engine within 3 % (ratio >= 0.97).
#
#   tests/bench/pytorch_engine_overhead.sh BUILD_DIR FOLDER [ROUNDS] [EPOCHS] [WORKERS] [BATCH]
#
# Builds nothing: build the loaderlab target first. PYTHON (default /usr/bin/python3)
# is the interpreter of both sides.
set -eu

if [ $# -lt 2 ]; then
    echo "usage: $0 BUILD_DIR FOLDER [ROUNDS] [EPOCHS] [WORKERS] [BATCH]" >&2
    exit 2
fi
loaderlab="$1/app/loaderlab"
folder=$2
rounds=${3:-5}
epochs=${4:-2}
workers=${5:-2}
batch=${6:-32}
python=${PYTHON:-/usr/bin/python3}
if [ ! -x "$loaderlab" ]; then
    echo "$0: $loaderlab not found; build it with: cmake --build $1 --target loaderlab -j2" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$(dirname "$0")/bench_header.sh"
bench_header "$folder"
echo "torch:   $("$python" -c 'import torch; print(torch.__version__)' 2>/dev/null)"
echo "runs:    $workers workers, batch $batch, $epochs epochs, eval transform, no step"

engine() {
    LOADERLAB_PYTHON="$python" "$loaderlab" run --engine pytorch --dataset folder \
        --path "$folder" --workers "$workers" --batch-size "$batch" --epochs "$epochs" \
        --consumer none --quiet --json "$work/summary.json" > /dev/null 2> "$work/engine.err" ||
        { cat "$work/engine.err" >&2; exit 1; }
    "$python" -c 'import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print("%.1f" % (s["samples"] / s["wall_seconds"]))' "$work/summary.json"
}

plain() {
    "$python" - "$folder" "$workers" "$batch" "$epochs" <<'PY'
import sys, time
import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms
folder, workers, batch, epochs = sys.argv[1], *map(int, sys.argv[2:])
torch.set_num_threads(1)
def worker_init(_):
    torch.set_num_threads(1)
transform = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224),
                                transforms.ToTensor(),
                                transforms.Normalize([0.485, 0.456, 0.406],
                                                     [0.229, 0.224, 0.225])])
dataset = datasets.ImageFolder(folder, transform)
options = {"worker_init_fn": worker_init} if workers > 0 else {}
loader = DataLoader(dataset, batch_size=batch, num_workers=workers, **options)
start = time.monotonic()
samples = 0
for _ in range(epochs):
    for images, _labels in loader:
        samples += images.shape[0]
print("%.1f" % (samples / (time.monotonic() - start)))
PY
}

bench_engine_against_plain "$rounds" "$work"
