#!/bin/sh
# LibTorch C++ (loaderlab bench-model) against Python PyTorch + torchvision: forward
# throughput at batch 32, 3x224x224, same intra-op threads, printed side by side; then
# what channels-last, bf16, training and activation checkpointing change for one model.
# Builds nothing: build the loaderlab target first.
#
#   tests/bench/torch_vs_pytorch.sh BUILD_DIR
#
# Environment: THREADS (default: all cores), BATCH (32), WARMUP (2), ITERATIONS (5),
# ROUNDS (3), MODELS ("resnet18 resnet50 mobilenet_v2"), VARIANT_MODELS (resnet50),
# PYTHON (/usr/bin/python3). Both sides use random weights and random input; warm-up
# excluded. Each round times both sides back to back, alternating which goes first, so
# a slow phase of a shared machine hits both; the ratio is printed per round and for
# the median of the rounds. The C++ side runs with LibTorch's own CPU allocator
# (LOADERLAB_CPU_ALLOCATOR=system), as Python does: the same kernels on the same
# allocator; tests/bench/cpu_allocator.sh measures what LoaderLab's caching allocator
# changes.
set -eu
export LOADERLAB_CPU_ALLOCATOR=system

if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi
loaderlab="$1/app/loaderlab"
if [ ! -x "$loaderlab" ]; then
    echo "$0: $loaderlab not found; build it with: cmake --build $1 --target loaderlab -j2" >&2
    exit 1
fi
threads=${THREADS:-$(nproc)}
batch=${BATCH:-32}
warmup=${WARMUP:-2}
iterations=${ITERATIONS:-5}
models=${MODELS:-"resnet18 resnet50 mobilenet_v2"}
rounds=${ROUNDS:-3}
variant_models=${VARIANT_MODELS:-${VARIANT_MODEL:-resnet50}}
python=${PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Mean ms per batch of `loaderlab bench-model` (column batch_ms_mean of its CSV).
cpp_ms() {
    "$loaderlab" bench-model --batch-sizes "$batch" --threads "$threads" --warmup "$warmup" \
        --iterations "$iterations" --csv "$work/out.csv" "$@" > /dev/null 2>&1
    awk -F, 'NR == 2 { printf "%.1f %.0f", $8, $12 }' "$work/out.csv"
}

py_ms() {
    "$python" - "$1" "$threads" "$batch" "$warmup" "$iterations" <<'PY'
import sys, time
import torch, torchvision
name, threads, batch, warmup, iterations = sys.argv[1], *map(int, sys.argv[2:])
torch.set_num_threads(threads)
model = getattr(torchvision.models, name)().eval()
x = torch.rand(batch, 3, 224, 224)
with torch.inference_mode():
    for _ in range(warmup):
        model(x)
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        model(x)
        times.append((time.perf_counter() - start) * 1000)
print(f"{sum(times) / len(times):.1f}")
PY
}

echo "LibTorch C++ vs PyTorch (Python), forward, batch $batch, 3x224x224, $threads threads"
echo "torch $("$python" -c 'import torch; print(torch.__version__)'), $(nproc) cores," \
     "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"

# Median of the numbers given as arguments.
median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

printf '%-14s %6s %14s %14s %14s\n' model round "C++ ms/batch" "Python ms/batch" "Python/C++"
summary=""
for model in $models; do
    cpp_all=""
    py_all=""
    round=1
    while [ "$round" -le "$rounds" ]; do
        if [ $((round % 2)) -eq 1 ]; then
            set -- $(cpp_ms --model "$model")
            cpp=$1
            py=$(py_ms "$model")
        else
            py=$(py_ms "$model")
            set -- $(cpp_ms --model "$model")
            cpp=$1
        fi
        cpp_all="$cpp_all $cpp"
        py_all="$py_all $py"
        awk -v m="$model" -v r="$round" -v c="$cpp" -v p="$py" \
            'BEGIN { printf "%-14s %6d %14.1f %14.1f %14.2f\n", m, r, c, p, p / c }'
        round=$((round + 1))
    done
    cpp_med=$(median $cpp_all)
    py_med=$(median $py_all)
    summary="$summary$(awk -v m="$model" -v c="$cpp_med" -v p="$py_med" -v b="$batch" \
        'BEGIN { printf "%-14s %14.1f %14.1f %14.1f %14.2f", m, c, p, 1000 * b / c, p / c }')
"
done
echo
echo "median of $rounds rounds"
printf '%-14s %14s %14s %14s %14s\n' model "C++ ms/batch" "Python ms/batch" "C++ samples/s" \
    "Python/C++"
printf '%s' "$summary"

variant() {
    label=$1
    shift
    set -- $(cpp_ms --model "$variant_model" "$@")
    awk -v l="$label" -v c="$1" -v m="$2" -v b="$batch" \
        'BEGIN { printf "%-34s %14.1f %14.1f %12.0f\n", l, c, 1000 * b / c, m / 1048576 }'
}
for variant_model in $variant_models; do
    echo
    echo "$variant_model, batch $batch, C++ (bench-model): what each setting changes"
    printf '%-34s %14s %14s %12s\n' setting "ms/batch" "samples/s" "peak MiB"
    variant "inference fp32"
    variant "inference fp32 channels-last" --channels-last
    variant "inference bf16 (autocast)" --precision bf16
    variant "train fp32 (sgd)" --mode train
    variant "train fp32 + checkpointing" --mode train --checkpointing
done
