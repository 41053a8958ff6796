"""Fuzz targets in the default suite.

* Always: the targets of tests/fuzz/ linked with replay.c (no libFuzzer) by
  gcc/cc (the session fixture ``replay_exes``, see support/fuzz_build.py) with AddressSanitizer and UndefinedBehaviorSanitizer, replaying a
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

from support.fuzz_build import FUZZ, SAN_ENV, TARGETS, build_targets
from support.sanitizer import native_env

pytestmark = pytest.mark.sanitizer_programs("fuzz targets built with ASan and UBSan "
                                            "(and libFuzzer) themselves")

FUZZ_SECONDS = int(os.environ.get("PYFATHOM_FUZZ_SECONDS", "30"))


@pytest.fixture(scope="module")
def fuzz_exes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_targets("clang", tmp_path_factory.mktemp("libfuzzer"),
                         "fuzzer,address,undefined", [])


@pytest.fixture(scope="module")
def corpus(syzygy_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fuzz-corpus")
    proc = subprocess.run([sys.executable, str(FUZZ / "make_corpus.py"), str(syzygy_dir),
                           str(out), "--mutants", "6", "--seed", "20"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out


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
