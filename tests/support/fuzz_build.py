"""Builds of the fuzz targets of tests/fuzz/ (tests only).

The ASan+UBSan replay build (each target linked with ``replay.c``) is the
session fixture ``replay_exes`` of tests/conftest.py, built once per run
and used by test_hostile_fuzz.py and test_hostile_variant_tables.py; the
libFuzzer build is test_hostile_fuzz.py's own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from support.c_programs import FUZZ_BUILD, core_files
from support.sanitizer import native_env

ROOT = Path(__file__).resolve().parents[2]
FUZZ = ROOT / "tests" / "fuzz"
CORE = core_files(*FUZZ_BUILD)
"""Every C file of the core but the Fathom facade's instance (whose one
global instance the targets do not use)."""
TARGETS = ["table", "fen", "board", "game"]
SAN_ENV = {"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
           "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}
"""Sanitizer options of a target's run: leaks reported, UB fatal."""


def c_compiler() -> str:
    for cc in (os.environ.get("CC"), "gcc", "clang", "cc"):
        if cc and shutil.which(cc):
            return cc
    pytest.fail("no C compiler found (gcc, clang or cc): the sanitizer replay needs one")


def _run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=native_env())
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"


def build_targets(cc: str, out_dir: Path, san: str, main: list[Path]) -> dict[str, Path]:
    """Compile the core once (objects in out_dir), then link each target
    with ``main`` (replay.c, or nothing for libFuzzer)."""
    flags = ["-g", "-O1", f"-fsanitize={san}", "-fno-sanitize-recover=undefined",
             f"-I{ROOT / 'src' / 'fathom'}", f"-I{FUZZ}"]
    objs = []
    for src in CORE:
        obj = out_dir / (src.stem + ".o")
        objs.append(str(obj))
        cmd = [cc, *flags, "-c", str(src), "-o", str(obj)]
        if san.startswith("fuzzer"):  # no libFuzzer main in the core objects
            cmd[3] = "-fsanitize=fuzzer-no-link,address,undefined"
        _run(cmd)
    exes = {}
    for target in TARGETS:
        exe = out_dir / f"{target}.exe"
        _run([cc, *flags, str(FUZZ / f"fuzz_{target}.c"), *map(str, main), *objs,
              "-lpthread", "-o", str(exe)])
        exes[target] = exe
    return exes


def build_replay(out_dir: Path) -> dict[str, Path]:
    """The targets with replay.c, under ASan and UBSan (gcc or cc)."""
    return build_targets(c_compiler(), out_dir, "address,undefined", [FUZZ / "replay.c"])
