#!/bin/sh
# The Debian packages the test suite uses besides Python's own (README
# command 2 runs this first; so does .ci/run):
#   chromium, chromium-driver  the explorer page's real-browser test
#   make                       the engine library build (tests/test_engine_dropin.py)
#   clang, libclang-rt-14-dev  the bounded libFuzzer runs (tests/test_hostile_fuzz.py)
#   pgn-extract                a second PGN reader over annotate's output (tests/test_annotate_pgn.py)
#   gcc-mingw-w64-x86-64, wine64   the Windows build run under wine (tests/test_platforms.py)
#   gcc-aarch64-linux-gnu, gcc-s390x-linux-gnu, qemu-user-static
#                              the aarch64 and big-endian builds under qemu (same file)
#   g++                        the single-file build as C++ (same file)
#   fuse3, libfuse2            a filesystem whose reads fail with EIO, or wait,
#                              served by fusepy (tests/test_disk_errors.py,
#                              tests/test_check_stop.py)
# As root with apt-get, whatever is missing is installed (quietly, once).
# Elsewhere it only says what is missing: the tests that need it skip,
# each with a reason naming it.
set -u

missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v chromedriver >/dev/null 2>&1 || missing="$missing chromium-driver"
command -v make >/dev/null 2>&1 || missing="$missing make"
command -v clang >/dev/null 2>&1 || missing="$missing clang"
{ command -v pgn-extract || [ -x /usr/games/pgn-extract ]; } >/dev/null 2>&1 || missing="$missing pgn-extract"
if ! command -v clang >/dev/null 2>&1 ||
   [ ! -f "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ]; then
    missing="$missing libclang-rt-14-dev"
fi
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || missing="$missing gcc-mingw-w64-x86-64"
command -v wine >/dev/null 2>&1 || missing="$missing wine64 wine"
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing="$missing gcc-aarch64-linux-gnu"
command -v s390x-linux-gnu-gcc >/dev/null 2>&1 || missing="$missing gcc-s390x-linux-gnu"
command -v qemu-aarch64-static >/dev/null 2>&1 || missing="$missing qemu-user-static"
command -v g++ >/dev/null 2>&1 || missing="$missing g++"
command -v fusermount3 >/dev/null 2>&1 || missing="$missing fuse3"
ldconfig -p 2>/dev/null | grep -q 'libfuse\.so\.2 ' || missing="$missing libfuse2"
[ -z "$missing" ] && exit 0

if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    echo "tests/system_packages.sh: installing$missing" >&2
    log=$(mktemp)
    # Twice: a second try gets past another apt process holding the lock.
    for attempt in 1 2; do
        # shellcheck disable=SC2086
        if { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing; } >"$log" 2>&1; then
            rm -f "$log"
            exit 0
        fi
        [ "$attempt" -eq 1 ] && sleep 20
    done
    tail -n 5 "$log" >&2
    rm -f "$log"
    echo "tests/system_packages.sh: apt-get could not install$missing; the tests needing them will skip" >&2
else
    echo "tests/system_packages.sh: not installed:$missing (needs root and apt-get); the tests needing them will skip" >&2
fi
exit 0
