# Sourced by the benchmark scripts: prints what a figure needs beside it (the commit,
# the CPU, the image folder) and makes the folder's preprocessed tensor file.
#
#   bench_header FOLDER                 commit, machine and folder lines
#   bench_tensor LOADERLAB FOLDER FILE  `loaderlab preprocess` FOLDER into FILE, and its size
#   bench_folder LOADERLAB FOLDER WORK  FOLDER, or the window's default dataset (made in
#                                       WORK when it is not there yet)
#   bench_busy_loop                     starts a CPU-bound loop pinned to the last core;
#                                       its pid in $busy
#   bench_scratch                       a scratch folder in $work, removed on exit with
#                                       the busy loop, if one was started, killed

bench_header() {
    echo "commit:  $(git -C "$(dirname "$0")" describe --always --dirty --abbrev=12)"
    echo "machine: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs"
    echo "folder:  $1 ($(find "$1" -type f | wc -l) files, $(du -sh "$1" | cut -f1))"
}

bench_folder() {
    if [ -n "$2" ]; then
        echo "$2"
        return
    fi
    local folder="${LOADERLAB_CACHE_DIR:-$HOME/.cache/loaderlab}/imagenette-synth-10x100"
    [ -d "$folder" ] || { folder="$3/photos"; "$1" make-dataset "$folder" > /dev/null; }
    echo "$folder"
}

bench_busy_loop() {
    taskset -c "$(($(nproc) - 1))" sh -c 'while :; do :; done' &
    busy=$!
}

bench_scratch() {
    work=$(mktemp -d)
    busy=
    trap 'rm -rf "$work"; [ -z "$busy" ] || kill "$busy" 2>/dev/null || true' EXIT
}

bench_tensor() {
    "$1" preprocess "$2" "$3" > /dev/null 2>&1
    echo "tensor:  $(du -h "$3" | cut -f1)"
}

# Calls the script's `engine` and `plain` functions ROUNDS times, alternating which
# goes first, prints each round's samples/s and ratio engine / plain, then min /
# median / max of each (values kept in WORK/values).
#
#   bench_engine_against_plain ROUNDS WORK
bench_engine_against_plain() {
    : > "$2/values"
    for round in $(seq 1 "$1"); do
        if [ $((round % 2)) -eq 1 ]; then
            e=$(engine)
            p=$(plain)
        else
            p=$(plain)
            e=$(engine)
        fi
        echo "$e $p" >> "$2/values"
        echo "round $round (load $(cut -d' ' -f1-3 /proc/loadavg)): engine $e/s, plain $p/s," \
            "ratio $(echo "$e $p" | awk '{ printf "%.3f", $1 / $2 }')"
    done

    echo "over $1 rounds (min / median / max):"
    awk '{ e[NR] = $1; p[NR] = $2; r[NR] = $1 / $2 }
        END { printf "  engine samples/s %s\n  plain  samples/s %s\n  ratio engine/plain %s\n",
                  mmm(e, NR, "%.1f"), mmm(p, NR, "%.1f"), mmm(r, NR, "%.3f") }
        function mmm(a, n, f,    i, j, t, m) {
            for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            m = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
            return sprintf(f " / " f " / " f, a[1], m, a[n]) }' "$2/values"
    echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
}
