#!/usr/bin/env bash
# Every lesson on data of every kind (docs/lessons.md): makes seven data sets with the
# project's own tools — tiny photos (32 px short side, 432), photos of 300–500 px
# (432), 600–900 px (432) and 1024–1536 px (180), generated textures (make-dataset,
# 432 of 300–500 px), a folder of only 50 photos (300–500 px), and the 300–500 px
# photos preprocessed into a uint8 tensor file — then runs every lesson of
# `loaderlab lesson --list` on each, on LoaderLab's engine, and prints one row per
# lesson with a column per data set: "seen", "NOT SEEN", or "n/a: REASON" (the
# verdict says the finding does not apply to this data, or the lesson refused the
# data), each with the step and batch its set-up chose; a lesson that failed says so
# in its cell and the others go on. Then each cell's verdict (its first 300
# characters), the commit, the machine, the load and the total wall time.
#
#   tests/bench/lessons_on_datasets.sh BUILD_DIR [WORK_DIR]
#
# WORK_DIR keeps the data sets (made once, reused by a later run), each lesson's JSON
# and output, and the cache the lessons prepare tensor files in; without it a
# temporary folder, removed at the end. LESSONS="first-batch spikes-every-w" and
# DATASETS="photos-300-500 tensor" run a subset; ENGINE=pytorch runs the lessons on
# PyTorch's DataLoader (`--engine pytorch`; runs kept in WORK_DIR/runs-pytorch; the
# lessons that engine cannot run say so in their cells); TABLE_ONLY=1 prints the table
# again from WORK_DIR's last runs without running anything. The photos are crops of Debian's
# mate-backgrounds (tests/bench/make_photo_folder.py, Pillow). Run it on an idle
# machine: the lessons' set-ups measure how fast the data loads, and most verdicts
# read waits that other programs change. It takes 20–40 minutes on a 2-core VM.
set -uo pipefail
build=${1:?usage: $0 BUILD_DIR [WORK_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$build" && pwd)/app/loaderlab
[ -x "$bin" ] || { echo "$0: no $bin: build the loaderlab target first" >&2; exit 2; }
if [ -n "${2:-}" ]; then
    work=$2
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
work=$(cd "$work" && pwd)
export LOADERLAB_CACHE_DIR=$work/cache
photos=/usr/share/backgrounds/mate
if ! find "$photos" -name '*.jpg' 2> /dev/null | grep -q .; then
    echo "$0: no photographs under $photos: sudo apt-get install mate-backgrounds" >&2
    exit 2
fi
started=$SECONDS

echo "commit:  $(git -C "$here" describe --always --dirty)"
echo "machine: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs," \
    "$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)," \
    "$(. /etc/os-release && echo "$PRETTY_NAME")"
echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
echo "engine:  ${ENGINE:-loaderlab}"
echo "work:    $work"

# NAME: the data set's path, made when it is not there yet.
make_photos() { # NAME CLASSES PER_CLASS MIN_SHORT MAX_SHORT
    [ -d "$work/$1" ] && return 0
    /usr/bin/python3 "$here/make_photo_folder.py" "$work/$1" --classes "$2" --per-class "$3" \
        --min-short "$4" --max-short "$5" > /dev/null ||
        { echo "$0: make_photo_folder.py $1 failed (python3-pil installed?)" >&2; exit 2; }
}
make_photos tiny-32 9 48 32 32
make_photos photos-300-500 9 48 300 500
make_photos photos-600-900 9 48 600 900
make_photos photos-1024-1536 9 20 1024 1536
make_photos fifty-300-500 2 25 300 500
if [ ! -d "$work/textures" ]; then
    "$bin" make-dataset "$work/textures" --classes 9 --images-per-class 48 > /dev/null ||
        { echo "$0: make-dataset failed" >&2; exit 2; }
fi
if [ ! -f "$work/photos-300-500.tensor" ]; then
    "$bin" preprocess "$work/photos-300-500" "$work/photos-300-500.tensor" --dtype uint8 \
        > /dev/null 2>&1 || { echo "$0: preprocess failed" >&2; exit 2; }
fi
datasets=(${DATASETS:-tiny-32 photos-300-500 photos-600-900 photos-1024-1536 textures fifty-300-500 tensor})
path_of() { [ "$1" = tensor ] && echo "$work/photos-300-500.tensor" || echo "$work/$1"; }
for d in "${datasets[@]}"; do
    p=$(path_of "$d")
    [ -e "$p" ] || { echo "$0: no data set $d" >&2; exit 2; }
    echo "data:    $d: $p ($(find "$p" -type f | wc -l) files, $(du -sh "$p" | cut -f1))"
done
lessons=(${LESSONS:-$("$bin" lesson --list | cut -d' ' -f1)})

# One cell: the lesson on the data set; its JSON, output and exit code in WORK/runs.
runs=$work/runs${ENGINE:+-$ENGINE}
engine_args=(${ENGINE:+--engine "$ENGINE"})
mkdir -p "$runs"
[ "${TABLE_ONLY:-0}" = 1 ] && datasets_to_run=() || datasets_to_run=("${datasets[@]}")
for d in "${datasets_to_run[@]}"; do
    echo "== $d (load $(cut -d' ' -f1-3 /proc/loadavg))"
    for l in "${lessons[@]}"; do
        out=$runs/$d.$l
        rm -f "$out.json"
        # Each lesson starts from the data in the page cache, as the set-up found it
        # (the project's VM pages memory that stays cold out: DAMON's pageout).
        find "$(path_of "$d")" -type f -exec cat {} + > /dev/null
        cell_started=$SECONDS
        timeout 1800 "$bin" lesson "$l" --path "$(path_of "$d")" "${engine_args[@]}" \
            --json "$out.json" > "$out.out" 2> "$out.err"
        echo $? > "$out.rc"
        echo $((SECONDS - cell_started)) > "$out.seconds"
        echo "  $l: exit $(cat "$out.rc"), $(cat "$out.seconds") s"
    done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

/usr/bin/python3 - "$runs" "${#datasets[@]}" "${datasets[@]}" "${lessons[@]}" <<'PY'
import json, os, sys

runs, count = sys.argv[1], int(sys.argv[2])
datasets, lessons = sys.argv[3:3 + count], sys.argv[3 + count:]

# A few words for why a finding did not apply or a lesson refused the data.
REASONS = [("epochs are too short", "epochs too short"),
           ("too little for spikes", "batches load too fast"),
           ("no more batches than the", "epoch < 1 round of big batches"),
           ("batches, fewer than the", "epochs too short"),
           ("is larger than the tensor file", "JPEGs larger than the tensors"),
           ("preprocessing enlarged them", "JPEGs smaller than the samples"),
           ("needs the image folder", "needs an image folder"),
           ("synthetic samples of its own", "own synthetic data")]


def short(text):
    for words, reason in REASONS:
        if words in text:
            return reason
    return text.replace("Does not apply to this data: ", "")[:40]


def cell(dataset, lesson):
    base = os.path.join(runs, dataset + "." + lesson)
    rc = int(open(base + ".rc").read())
    err = open(base + ".err").read().strip().splitlines()
    last = err[-1] if err else ""
    if rc == 2:
        return "n/a: refused (%s)" % short(last), last
    if rc != 0 or not os.path.exists(base + ".json"):
        return "FAILED (exit %d: %s)" % (rc, last[-60:]), last
    j = json.load(open(base + ".json"))
    verdict = j["verdict"]
    if j["observed"]:
        word = "seen"
    elif not j.get("applies", True):
        word = "n/a: " + short(verdict)
    elif verdict.startswith("No data"):
        word = "NO DATA"
    else:
        word = "NOT SEEN"
    setup = j.get("setup", {})
    if setup.get("need", "none") != "none" and "step_ms" in setup:
        word += " (%.1f ms, b%d)" % (setup["step_ms"], setup.get("batch_size",
                                                                 j["phases"][0]["batch_size"]))
    return word, verdict


cells = {(d, l): cell(d, l) for d in datasets for l in lessons}
print("\n| lesson | " + " | ".join(datasets) + " |")
print("|---|" + "---|" * len(datasets))
for l in lessons:
    print("| `%s` | " % l + " | ".join(cells[(d, l)][0] for d in datasets) + " |")
print("\n(step and batch: what the set-up chose on the data, for the lessons that measure it)")
print("\nverdicts (first 300 characters) and seconds per lesson:")
for d in datasets:
    for l in lessons:
        seconds = open(os.path.join(runs, d + "." + l + ".seconds")).read().strip()
        word, text = cells[(d, l)]
        print("  %s / %s (%s s): %s" % (d, l, seconds, text[:300]))
PY
total=$((SECONDS - started))
echo "total wall time: $((total / 60)) min $((total % 60)) s"
