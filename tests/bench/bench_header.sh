# Sourced by the benchmark scripts: prints what a figure needs beside it (the commit,
# the CPU, the image folder) and makes the folder's preprocessed tensor file.
#
#   bench_header FOLDER                 commit, machine and folder lines
#   bench_tensor LOADERLAB FOLDER FILE  `loaderlab preprocess` FOLDER into FILE, and its size

bench_header() {
    echo "commit:  $(git -C "$(dirname "$0")" describe --always --dirty --abbrev=12)"
    echo "machine: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs"
    echo "folder:  $1 ($(find "$1" -type f | wc -l) files, $(du -sh "$1" | cut -f1))"
}

bench_tensor() {
    "$1" preprocess "$2" "$3" > /dev/null 2>&1
    echo "tensor:  $(du -h "$3" | cut -f1)"
}
