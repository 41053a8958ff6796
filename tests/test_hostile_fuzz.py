"""Fuzz targets in the default suite.

* Always: the targets of tests/fuzz/ linked with replay.c (no libFuzzer) by
  gcc/cc with AddressSanitizer and UndefinedBehaviorSanitizer, replaying a
  corpus generated now from the fetched tables (the real files plus
  deterministic truncations, bit flips and zeroed runs), endgame.epd FENs
  and bitboards, and the committed regression inputs.  Any sanitizer report
  aborts the replay and fails the test.
* When clang is installed: each libFuzzer target runs for FUZZ_SECONDS (30 s).
  Without clang that test is skipped with a reason saying so (see
  FUZZING.md: CI installs clang so it runs there).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.sanitizer import native_env

pytestmark = pytest.mark.plain_pass_only("its fuzz targets are programs of its own, "
                                         "built with ASan and UBSan themselves")

ROOT = Path(__file__).resolve().parents[1]
FUZZ = ROOT / "tests" / "fuzz"
CORE = sorted(p.name for p in (ROOT / "src" / "fathom").glob("*.c") if p.name != "tbprobe.c")
"""Every C file of the core but the Fathom facade (whose one global instance
the targets do not use)."""
TARGETS = ["table", "fen", "board", "game"]
FUZZ_SECONDS = int(os.environ.get("PYFATHOM_FUZZ_SECONDS", "30"))
SAN_ENV = {"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
           "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}


def _cc() -> str:
    for cc in (os.environ.get("CC"), "gcc", "clang", "cc"):
        if cc and shutil.which(cc):
            return cc
    pytest.fail("no C compiler found (gcc, clang or cc): the sanitizer replay needs one")


def _run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=native_env())
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"


def _build(cc: str, out_dir: Path, san: str, main: list[Path]) -> dict[str, Path]:
    """Compile the core once (objects in out_dir), then link each target
    with ``main`` (replay.c, or nothing for libFuzzer)."""
    flags = ["-g", "-O1", f"-fsanitize={san}", "-fno-sanitize-recover=undefined",
             f"-I{ROOT / 'src' / 'fathom'}", f"-I{FUZZ}"]
    objs = []
    for src in CORE:
        obj = out_dir / (src[:-2] + ".o")
        objs.append(str(obj))
        cmd = [cc, *flags, "-c", str(ROOT / "src" / "fathom" / src), "-o", str(obj)]
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


@pytest.fixture(scope="module")
def replay_exes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return _build(_cc(), tmp_path_factory.mktemp("replay"), "address,undefined",
                  [FUZZ / "replay.c"])


@pytest.fixture(scope="module")
def fuzz_exes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return _build("clang", tmp_path_factory.mktemp("libfuzzer"),
                  "fuzzer,address,undefined", [])


@pytest.fixture(scope="module")
def corpus(syzygy_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fuzz-corpus")
    proc = subprocess.run([sys.executable, str(FUZZ / "make_corpus.py"), str(syzygy_dir),
                           str(out), "--mutants", "6", "--seed", "20"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out


TARGETS = ["table", "fen", "board", "game"]


@pytest.mark.parametrize("target", TARGETS)
def test_replay_sanitized(target: str, corpus: Path, syzygy_dir: Path,
                          replay_exes: dict[str, Path]) -> None:
    exe = replay_exes[target]
    inputs = [str(corpus / target)]
    regressions = FUZZ / "regressions" / target
    if regressions.is_dir() and any(regressions.iterdir()):
        inputs.append(str(regressions))
    env = {**os.environ, **SAN_ENV, "PYFATHOM_FUZZ_TABLES": str(syzygy_dir)}
    proc = subprocess.run([str(exe), *inputs], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0 and "replayed" in proc.stdout, \
        f"exit {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-6000:]}"
    replayed = int(proc.stdout.split("replayed")[1].split()[0])
    assert replayed >= 100


def _has_libfuzzer() -> bool:
    if not shutil.which("clang"):
        return False
    probe = subprocess.run(["clang", "-print-file-name=libclang_rt.fuzzer-x86_64.a"],
                           capture_output=True, text=True)
    return os.path.isabs(probe.stdout.strip()) and os.path.exists(probe.stdout.strip())


@pytest.mark.skipif(not _has_libfuzzer(),
                    reason="clang with libFuzzer is not installed: the bounded libFuzzer runs need it "
                           "(the sanitized replays above run without it; see FUZZING.md)")
@pytest.mark.parametrize("target", TARGETS)
def test_libfuzzer_bounded(target: str, corpus: Path, syzygy_dir: Path,
                           tmp_path: Path, fuzz_exes: dict[str, Path]) -> None:
    exe = fuzz_exes[target]
    work = tmp_path / "corpus"
    work.mkdir()
    # clang's ASan runtime is linked in: no preloaded gcc runtime next to it.
    env = native_env(**SAN_ENV, PYFATHOM_FUZZ_TABLES=str(syzygy_dir))
    proc = subprocess.run(
        # A fixed seed keeps the suite's runs repeatable; tests/fuzz/run.sh
        # explores with fresh seeds for as long as one likes.
        [str(exe), f"-max_total_time={FUZZ_SECONDS}", "-seed=20261129", "-timeout=10",
         "-rss_limit_mb=2048",
         "-max_len=1048576", "-print_final_stats=1", f"-artifact_prefix={tmp_path}/",
         str(work), str(corpus / target)],
        capture_output=True, text=True, env=env, timeout=FUZZ_SECONDS + 300)
    crashes = [p.name for p in tmp_path.iterdir() if p.name.startswith(("crash-", "timeout-", "leak-", "oom-"))]
    assert proc.returncode == 0 and not crashes, \
        f"fuzz_{target} found {crashes}:\n{proc.stderr[-6000:]}"
