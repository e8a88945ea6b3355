#!/usr/bin/env bash
# Installs what LoaderLab needs from Debian 12's archive (only what is missing),
# then configures and builds it into ./build. Safe to run again.
#
#   bash installer/build.sh            # everything: the app, tests, benchmarks (RelWithDebInfo)
#   bash installer/build.sh loaderlab  # only the app (README, step 1): about half the work
#   BUILD_DIR=build-asan CMAKE_ARGS="-DLOADERLAB_SANITIZER=address" bash installer/build.sh
# Arguments are build targets (default: all).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build}
read -r -a EXTRA_ARGS <<< "${CMAKE_ARGS:-}"

mapfile -t packages < <(grep -v '^\s*#' installer/debian-packages.txt | grep -v '^\s*$')
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "Installing: ${missing[*]}"
    SUDO=""
    [[ $(id -u) -eq 0 ]] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${EXTRA_ARGS[@]}"
targets=()
(($#)) && targets=(--target "$@")
cmake --build "$BUILD_DIR" -j"$(nproc)" "${targets[@]}"
