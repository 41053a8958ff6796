"""Probing damaged table files in a child process
(``tests/fuzz/probe_child.py``), so that a segfault, an abort, a sanitizer
report or a hang fails a test instead of killing the suite; what the
outcomes must be; where to cut a file.  For ``test_hostile_tables.py`` and
``test_hostile_variant_tables.py``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

CHILD = Path(__file__).resolve().parent.parent / "fuzz" / "probe_child.py"
TIMEOUT = 180
"""Seconds one child may take for all its cases."""


def run_cases(cases: list[dict[str, Any]], timeout: float = TIMEOUT) -> dict[str, list[Any]]:
    """Run the cases in one child: name -> outcomes."""
    return {row["name"]: row["outcomes"] for row in run_rows(cases, timeout)}


def run_rows(cases: list[dict[str, Any]], timeout: float = TIMEOUT) -> list[dict[str, Any]]:
    """Run the cases in one child; fail on a signal, exit code or timeout."""
    try:
        proc = subprocess.run([sys.executable, str(CHILD)], input=json.dumps(cases),
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"child hung (> {timeout} s); last output: {exc.stdout!r:.2000}")
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    results = {row["name"] for row in rows}
    if proc.returncode != 0:
        done = set(results)
        pending = [c["name"] for c in cases if c["name"] not in done]
        pytest.fail(f"child died with exit code {proc.returncode} at case "
                    f"{pending[:1]}; stderr:\n{proc.stderr[-4000:]}")
    assert len(results) == len(cases), proc.stderr[-4000:]
    return rows


def check(name: str, outcomes: list[Any], path: Path | str, *, detectable: bool,
          kind: str = "corrupt", sensitive: int = 0) -> None:
    """Outcomes are values or ``kind`` errors naming ``path``; when the
    damage is detectable, the first ``sensitive`` probes (positions whose
    answer reads the damaged file) must all raise."""
    assert outcomes, f"{name}: no positions were probed"
    bad = [o for o in outcomes if o[0] not in ("value", kind) or
           (o[0] == kind and o[1] != str(path))]
    assert not bad, f"{name}: unexpected outcomes {bad[:5]}"
    if detectable:
        missed = [o for o in outcomes[:sensitive] if o[0] != kind]
        assert not missed, f"{name}: damage to {Path(path).name} went unnoticed: {missed[:5]}"


def truncation_offsets(size: int) -> list[int]:
    """Offsets in the header (every byte of the first 24, where magic,
    flags and piece orders live), through the pairs headers, index and
    block-length tables, into the data; many keep the size 16 mod 64 so the
    cheap size check passes and the region checks must catch it."""
    offs = set(range(1, 25)) | {32, 48, 63, 64, 80, 100, 128, 144, 200, 256, 272, 400, 528}
    x = 16
    while x < size:
        offs.add(x)  # 16 mod 64: passes the size check
        x = x * 2 + 16 if x >= 64 else x + 64
    for frac in (0.1, 0.25, 0.5, 0.75, 0.9):
        y = int(size * frac)
        offs.add(y)
        offs.add(y - y % 64 + 16)
    offs |= {size - 1, size - 16, size - 48, size - 64, size - 128}
    return sorted(o for o in offs if 0 < o < size)


def sensitive_probes(cases: list[dict[str, Any]], keep: int) -> dict[str, Any]:
    """Run cases that replace a table file by an empty one: case name ->
    (the first ``keep`` probes that failed, so read that file; four that
    answered, so do not)."""
    out = {}
    for row in run_rows(cases):
        pairs = list(zip(row["probes"], row["outcomes"]))
        reads = [p for p, o in pairs if o[0] == "corrupt"]
        skips = [p for p, o in pairs if o[0] == "value"]
        assert len(reads) + len(skips) == len(pairs), row
        out[row["name"]] = (reads[:keep], skips[:4])
    return out


def copy_with_truncated(src: Path, dest: Path, truncated: tuple[str, ...],
                        keep: int = 1000) -> Path:
    """``dest`` holding a copy of every table file of ``src``, with the
    files named in ``truncated`` cut to their first ``keep`` bytes."""
    for f in src.iterdir():
        if f.suffix in (".rtbw", ".rtbz"):
            shutil.copy(f, dest / f.name)
    for name in truncated:
        damaged = dest / name
        damaged.write_bytes(damaged.read_bytes()[:keep])
    return dest
