"""Run the whole test suite against the ASan+UBSan build of the C core.

    python tests/run_sanitized.py [pytest arguments]

Copies the sources to a temporary directory, builds the extension there
with ``PYFATHOM_SANITIZE=1`` (see build_ffi.py), and runs pytest on this
tree with that build first on ``PYTHONPATH``, the ASan runtime preloaded into
every Python process (a Python interpreter is not instrumented itself), leak
detection off (the interpreter keeps memory until exit by design) and
UndefinedBehaviorSanitizer reports fatal.  ``PYFATHOM_SANITIZED=1`` tells the
suite: tests that assert on memory figures are skipped with a reason (ASan's
shadow memory and quarantine make RSS meaningless), tests marked
``plain_pass_only`` (they never load the suite's build of the core) are
skipped with their reason, and native children that carry their own
sanitizer (TSan, libFuzzer) get an environment without the preload.

The pass writes nothing a plain pass running beside it writes (see
tests/run_suite.py): the benchmarks' folder (``PYFATHOM_BENCH_BIN``) and
pytest's temporary folder are in the temporary directory, and pytest's
cache is off.  Exit status: pytest's (5, no tests, counts as failure).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    cc = os.environ.get("CC") or "gcc"
    runtime = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True,
                             text=True, check=True).stdout.strip()
    if not os.path.isabs(runtime):
        print(f"run_sanitized: {cc} has no ASan runtime (libasan.so)", file=sys.stderr)
        return 1
    # libstdc++ too: ASan intercepts __cxa_throw only if the C++ runtime is
    # loaded when it starts, and a C++ extension (pyarrow, in the [arrow]
    # tests) that throws in a plain Python process otherwise aborts on a
    # failed ASan CHECK.
    cxx = subprocess.run([cc, "-print-file-name=libstdc++.so.6"], capture_output=True,
                         text=True).stdout.strip()
    preload = runtime + (f" {cxx}" if os.path.isabs(cxx) else "")
    with tempfile.TemporaryDirectory(prefix="pyfathom-asan-") as tmp:
        build = Path(tmp)
        shutil.copytree(ROOT / "src", build / "src")
        shutil.copytree(ROOT / "pyfathom", build / "pyfathom",
                        ignore=shutil.ignore_patterns("*.so", "__pycache__", "_core.c"))
        shutil.copy(ROOT / "build_ffi.py", build / "build_ffi.py")
        subprocess.run([sys.executable, "build_ffi.py"], cwd=build, check=True,
                       stdout=subprocess.DEVNULL,
                       env={**os.environ, "PYFATHOM_SANITIZE": "1"})
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(build), os.environ.get("PYTHONPATH")])),
            "LD_PRELOAD": preload,
            # allocator_may_return_null: a malloc that fails returns NULL,
            # as libc's does, so the tests that limit the address space
            # (test_hostile_resources) see the core handle it instead of
            # ASan aborting the process.
            "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:allocator_may_return_null=1",
            "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
            "PYFATHOM_SANITIZED": "1",
            "PYFATHOM_BENCH_BIN": str(build / "bench-bin"),
        }
        check = subprocess.run([sys.executable, "-c", "import pyfathom._core as m; print(m.__file__)"],
                               env=env, capture_output=True, text=True, cwd=tmp)
        if check.returncode != 0 or not check.stdout.startswith(str(build)):
            print(f"run_sanitized: the sanitized build is not the one imported: "
                  f"{check.stdout.strip()} {check.stderr[-2000:]}", file=sys.stderr)
            return 1
        # Run from the build directory: `python -m pytest` puts the working
        # directory first on sys.path, and the source tree's own pyfathom/
        # (with the plain build of an editable install) must not shadow it.
        env["PYFATHOM_SANITIZED_BUILD"] = str(build)
        # Paths (and test ids, path::name) given relative to the source tree
        # still name the same tests.
        args = [str(ROOT / a) if not a.startswith("-") and (ROOT / a.split("::")[0]).exists()
                else a for a in argv]
        if not any(Path(a.split("::")[0]).exists() for a in args):
            args.append(str(ROOT / "tests"))  # no test path given: the whole suite
        own_dirs = ["-p", "no:cacheprovider"]
        if not any(a == "--basetemp" or a.startswith("--basetemp=") for a in args):
            own_dirs.append(f"--basetemp={build / 'pytest-tmp'}")
        status = subprocess.run([sys.executable, "-m", "pytest", "--rootdir", str(ROOT),
                                 "-c", str(ROOT / "pyproject.toml"), *own_dirs, *args],
                                cwd=build, env=env).returncode
    return 1 if status == 5 else status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
