"""Damaged table files give CorruptTableError naming the file, never a crash.

Every kind of damage is probed in a child process (tests/fuzz/probe_child.py)
with a timeout, so a segfault, an abort, a sanitizer report or a hang fails
the test instead of killing the suite.  The damaged bytes are made in the
child and registered from memory (``Tablebase.add_table_bytes``, the same
checks as a mapped file) *after* the real tables are opened, so they replace
the real file of their table while every other table (captures lead into
them) stays intact; errors name them ``memory:<file name>``.  The cases a
file system is needed for (a directory or an unreadable file named like a
table, the empty files that find the sensitive positions) use files.

What each case must end with:

* damage the format detects (truncation, empty file, wrong magic, wrong
  kind, wrong material, random bytes): every probe either returns a value
  (positions the damaged table is never asked about, e.g. a winning capture)
  or raises CorruptTableError whose ``filename`` is the damaged file, and at
  least one probe raises it;
* damage the format cannot always detect (byte flips in header and index):
  values or CorruptTableError naming the file;
* a directory or an unreadable file named like a table: TableFileError (an
  OSError; CorruptTableError's base) naming it.

Nothing else: no other exception, no signal, no hang.
"""

from __future__ import annotations

import base64
import os
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from support.damaged_tables import check, run_cases, sensitive_probes, truncation_offsets

# Pawnless and pawnful, symmetric and not, 3 and 4 pieces, enc types 0 and 2.
TABLES = ["KQvK", "KRvKP", "KPvKP", "KBNvK", "KRvKR", "KBvKN"]
FILES = [t + ext for t in TABLES for ext in (".rtbw", ".rtbz")]


@pytest.fixture(scope="module")
def probes(syzygy_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Per table file: ([fen, metric] probes whose answer reads that file,
    then a few that do not).  Found by probing random positions with the
    file replaced by an empty one: exactly the probes that read it fail."""
    root = tmp_path_factory.mktemp("sensitive")
    cases = []
    for file_name in FILES:
        d = root / file_name
        d.mkdir()
        (d / file_name).write_bytes(b"")
        cases.append({"name": file_name, "dirs": [str(syzygy_dir), str(d)],
                      "material": file_name.split(".")[0], "metrics": ["wdl", "dtz"],
                      "count": 600 if file_name.startswith("KRvKR") else 120,
                      "seed": 7})
    return sensitive_probes(cases, SENSITIVE)


SENSITIVE = 10


def case(name: str, case_dir: Path, syzygy_dir: Path, file_name: str,
         probes: dict[str, Any]) -> dict[str, Any]:
    reads, skips = probes[file_name]
    return {"name": name, "dirs": [str(syzygy_dir), str(case_dir)],
            "probes": reads + skips}


def run_damaged(syzygy_dir: Path, probes: dict[str, Any],
                damaged: dict[str, tuple[str, dict[str, Any]]]) -> dict[str, list[Any]]:
    """``damaged``: case name -> (file name, damage as probe_child's
    ``memory`` keys).  Each case's bytes are registered from memory over the
    real tables and probed, all in one child: case name -> outcomes.  Errors
    must name the bytes ``memory:<file name>``."""
    cases = []
    for name, (file_name, damage) in damaged.items():
        reads, skips = probes[file_name]
        cases.append({"name": name, "dirs": [str(syzygy_dir)],
                      "memory": {"name": file_name, **damage}, "probes": reads + skips})
    return run_cases(cases)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


@pytest.mark.parametrize("file_name", FILES)
def test_truncated(syzygy_dir: Path, file_name: str, probes: dict[str, Any]) -> None:
    source = str(syzygy_dir / file_name)
    damaged = {f"trunc{off}": (file_name, {"source": source, "truncate": off})
               for off in truncation_offsets((syzygy_dir / file_name).stat().st_size)}
    for name, outcomes in run_damaged(syzygy_dir, probes, damaged).items():
        check(f"{file_name} {name}", outcomes, f"memory:{file_name}", detectable=True,
              sensitive=len(probes[file_name][0]))


def test_empty_wrong_magic_and_kind(syzygy_dir: Path, probes: dict[str, Any]) -> None:
    damaged: dict[str, tuple[str, dict[str, Any]]] = {}

    def add(name: str, file_name: str, **damage: Any) -> None:
        damaged[name] = (file_name, damage)

    for file_name in FILES:
        data = (syzygy_dir / file_name).read_bytes()
        stem, ext = file_name.split(".")
        add(f"empty-{file_name}", file_name, base64="")
        for i in range(4):  # each magic byte changed
            add(f"magic{i}-{file_name}", file_name, source=str(syzygy_dir / file_name),
                xor=[[i, 0x41]])
        # the other kind of file of the same table under this name
        other = "rtbz" if ext == "rtbw" else "rtbw"
        add(f"kind-{file_name}", file_name, source=str(syzygy_dir / f"{stem}.{other}"))
        # a file of another table (both kinds tried) under this name
        for donor in TABLES:
            if donor != stem:
                add(f"material-{donor}-{file_name}", file_name,
                    source=str(syzygy_dir / f"{donor}.{ext}"))
        # random bytes of the right size, then with a valid magic in front
        rng = random.Random(file_name)
        noise = bytes(rng.getrandbits(8) for _ in range(len(data)))
        add(f"random-{file_name}", file_name, base64=b64(noise))
        add(f"random-magic-{file_name}", file_name, base64=b64(data[:4] + noise[4:]))
        add(f"random-header-{file_name}", file_name, base64=b64(data[:5] + noise[5:]))
    for name, outcomes in run_damaged(syzygy_dir, probes, damaged).items():
        # Random bytes behind a real magic and flags byte may by chance
        # parse; then only "no crash, no other error" can be required.
        detectable = not name.startswith("random-header")
        file_name = damaged[name][0]
        check(name, outcomes, f"memory:{file_name}", detectable=detectable,
              sensitive=len(probes[file_name][0]))


@pytest.mark.parametrize("file_name", FILES)
def test_byte_flips(syzygy_dir: Path, file_name: str, probes: dict[str, Any]) -> None:
    """Seeded flips in the first KiB: header, piece orders, Huffman tables,
    DTZ maps and (for small tables) the sparse index and block lengths."""
    data = (syzygy_dir / file_name).read_bytes()
    rng = random.Random(f"flips-{file_name}")
    area = min(len(data), 1024)
    damaged = {}
    for n in range(40):
        flips = []
        for _ in range(1 + n % 4):
            pos = rng.randrange(4, area)  # keep the magic: go past the cheap check
            flips.append([pos, 1 << rng.randrange(8) if n % 2 else rng.randrange(1, 256)])
        damaged[f"flip{n}"] = (file_name, {"source": str(syzygy_dir / file_name), "xor": flips})
    for name, outcomes in run_damaged(syzygy_dir, probes, damaged).items():
        check(f"{file_name} {name}", outcomes, f"memory:{file_name}", detectable=False)


def test_directory_named_like_a_table(syzygy_dir: Path, tmp_path: Path,
                                      probes: dict[str, Any]) -> None:
    d = tmp_path / "dir"
    (d / "KRvKP.rtbw").mkdir(parents=True)
    (d / "KQvK.rtbz").mkdir()
    results = run_cases([case("dir-wdl", d, syzygy_dir, "KRvKP.rtbw", probes),
                         case("dir-dtz", d, syzygy_dir, "KQvK.rtbz", probes)])
    check("dir-wdl", results["dir-wdl"], d / "KRvKP.rtbw", detectable=True, kind="file",
          sensitive=len(probes["KRvKP.rtbw"][0]))
    check("dir-dtz", results["dir-dtz"], d / "KQvK.rtbz", detectable=True, kind="file",
          sensitive=len(probes["KQvK.rtbz"][0]))


def test_unreadable_file(syzygy_dir: Path) -> None:
    """chmod 000.  Root reads it anyway, so as root the child drops to
    ``nobody`` before opening (the directory is world-searchable); if it
    cannot, the test says so instead of passing vacuously."""
    with tempfile.TemporaryDirectory(prefix="pyfathom-unreadable-") as tmp:
        d = Path(tmp)
        os.chmod(d, 0o755)
        target = d / "KQvK.rtbw"
        shutil.copyfile(syzygy_dir / "KQvK.rtbw", target)
        os.chmod(target, 0)
        c = {"name": "unreadable", "dirs": [str(d)], "material": "KQvK",
             "metrics": ["wdl"], "count": 10, "seed": 1,
             "drop_privileges": os.geteuid() == 0}
        outcomes = run_cases([c])["unreadable"]
        if os.geteuid() != 0 and os.access(target, os.R_OK):
            pytest.skip("a process with CAP_DAC_OVERRIDE ignores chmod 000")
        check("unreadable", outcomes, target, detectable=True, kind="file")
        assert all(o[0] == "file" for o in outcomes), outcomes


def test_sensitive_positions_found(probes: dict[str, Any]) -> None:
    """The detection checks above are not vacuous: for every damaged file
    there are probes that read it (except a DTZ file no probe ever needs)."""
    counts = {name: len(reads) for name, (reads, _) in probes.items()}
    assert all(n >= SENSITIVE // 2 for name, n in counts.items()
               if name not in NEVER_READ), counts


# KBvKN has no won or lost position: its DTZ is never read (drawn WDL).
NEVER_READ = {"KBvKN.rtbz"}
