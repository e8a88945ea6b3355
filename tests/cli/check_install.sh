#!/bin/sh
# What the package installs, checked by installing the build into a scratch prefix
# (`cmake --install`, the step cpack's .deb is made from): the binary runs, the
# probe module sits where Debian's python3 finds it (lib/python3/dist-packages, on
# its sys.path under /usr) and is the module `loaderlab python-path` writes out, the
# example pipelines and the desktop file are there, and a build with LibTorch's
# loaderlab loads its models from lib/loaderlab.
#
#   tests/cli/check_install.sh BUILD_DIR
set -eu
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "check_install: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" > "$prefix.log" 2>&1 || { cat "$prefix.log" >&2; rm -f "$prefix.log"; fail "cmake --install failed"; }
rm -f "$prefix.log"
"$prefix/bin/loaderlab" --version > /dev/null || fail "the installed loaderlab does not run"
probe="$prefix/lib/python3/dist-packages/loaderlab_probe.py"
[ -f "$probe" ] || fail "no $probe"
cmp -s "$probe" "$("$prefix/bin/loaderlab" python-path)/loaderlab_probe.py" ||
    fail "the installed probe is not the one loaderlab python-path writes"
for example in fashion_augment.py text_tokens.py; do
    [ -f "$prefix/share/loaderlab/examples/$example" ] || fail "example $example not installed"
done
[ -f "$prefix/share/applications/loaderlab.desktop" ] || fail "no desktop file"
if [ -f "$build/app/loaderlab_torch_plugin.so" ]; then
    plugin="$prefix/lib/loaderlab/loaderlab_torch_plugin.so"
    [ -f "$plugin" ] || fail "no $plugin"
    models=$("$prefix/bin/loaderlab" info | sed -n 's/^models *//p')
    [ "$models" = "$plugin" ] || fail "the installed loaderlab's models: '$models', not $plugin"
fi
python=/usr/bin/python3
if [ -x "$python" ]; then
    # Under /usr this folder is on Debian's python3 path; here, the same folder by hand.
    "$python" -c 'import sys; assert "/usr/lib/python3/dist-packages" in sys.path' ||
        fail "Debian's python3 does not search /usr/lib/python3/dist-packages"
    PYTHONPATH="$prefix/lib/python3/dist-packages" "$python" -c \
        'import loaderlab_probe; assert callable(loaderlab_probe.watch)' ||
        fail "the installed probe does not import"
fi
echo "check_install: OK ($prefix)"
