"""Damaged variant table files give CorruptTableError naming the file,
never a crash: the cases of test_hostile_tables.py (truncation, wrong magic,
another table's or another variant's file, random bytes, byte flips) on
atomic, suicide and giveaway tables of every index kind (three unique
leading pieces, two that may touch, a leading pair or triple of like pieces,
pawns), each in a child process (tests/fuzz/probe_child.py with a
``variant``).
"""

from __future__ import annotations

import os
import random
import re
from pathlib import Path
from typing import Any

import pytest

from support.damaged_tables import check, run_cases, sensitive_probes, truncation_offsets
from support.variant_positions import variant_dir

# (variant, folder, table file): enc types 0, 2 (adjacent), 3, 4, pawns.
FILES = [
    ("atomic", "atomic", "KQvK.atbw"), ("atomic", "atomic", "KRRvK.atbz"),
    ("atomic", "atomic", "KPvKP.atbw"), ("atomic", "atomic", "KQvKR.atbz"),
    ("suicide", "suicide", "BBvBB.stbw"), ("suicide", "suicide", "KKKvK.stbz"),
    ("suicide", "suicide", "PPvP.stbw"), ("suicide", "suicide", "KQvR.stbz"),
    ("giveaway", "giveaway", "KvK.gtbw"), ("giveaway", "giveaway", "QNvB.gtbz"),
]
SENSITIVE = 8


def write_case(tmp_path: Path, name: str, file_name: str, data: bytes) -> Path:
    """The damaged file alone in a directory of its own (opened after the
    real tables, so it replaces the real file of its table)."""
    d = tmp_path / name
    d.mkdir()
    (d / file_name).write_bytes(data)
    return d / file_name


def _id(entry: tuple[str, str, str]) -> str:
    return entry[2]


@pytest.fixture(scope="module")
def probes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Per file: probes that read it (they fail with the file emptied)
    followed by a few that do not."""
    root = tmp_path_factory.mktemp("variant-sensitive")
    cases = []
    for variant, folder, file_name in FILES:
        d = root / file_name
        d.mkdir()
        (d / file_name).write_bytes(b"")
        cases.append({"name": file_name, "variant": variant,
                      "dirs": [str(variant_dir(folder)), str(d)],
                      "material": file_name.split(".")[0], "metrics": ["wdl", "dtz"],
                      "count": 80, "seed": 11})
    return sensitive_probes(cases, SENSITIVE)


def _case(name: str, variant: str, folder: str, case_dir: Path, file_name: str,
          probes: dict[str, Any]) -> dict[str, Any]:
    reads, skips = probes[file_name]
    return {"name": name, "variant": variant,
            "dirs": [str(variant_dir(folder)), str(case_dir)], "probes": reads + skips}


def test_sensitive_positions_found(probes: dict[str, Any]) -> None:
    """Every damaged file below is read by some probe: the checks bite."""
    counts = {k: len(r) for k, (r, _) in probes.items()}
    assert all(counts.values()), counts


@pytest.mark.parametrize("entry", FILES, ids=_id)
def test_truncated_and_replaced(tmp_path: Path, entry: tuple[str, str, str],
                                probes: dict[str, Any]) -> None:
    variant, folder, file_name = entry
    data = (variant_dir(folder) / file_name).read_bytes()
    cases, paths, detectable = [], {}, {}

    def add(name: str, content: bytes, can_detect: bool = True) -> None:
        paths[name] = write_case(tmp_path, name, file_name, content)
        cases.append(_case(name, variant, folder, paths[name].parent, file_name, probes))
        detectable[name] = can_detect

    for off in truncation_offsets(len(data))[::2]:
        add(f"trunc{off}", data[:off])
    add("empty", b"")
    for i in range(4):
        bad = bytearray(data)
        bad[i] ^= 0x41
        add(f"magic{i}", bytes(bad))
    # The same-named file of the other kind, and of other variants: a
    # standard table's magic, the sibling antichess variant's.
    stem, ext = file_name.split(".")
    kinds = {"w": "z", "z": "w"}
    add("kind", (variant_dir(folder) / f"{stem}.{ext[:-1]}{kinds[ext[-1]]}").read_bytes())
    for other_folder, other_ext in (("atomic", "atb"), ("suicide", "stb"), ("giveaway", "gtb")):
        donor = variant_dir(other_folder) / f"{stem}.{other_ext}{ext[-1]}"
        if other_folder != folder and donor.is_file():
            # Suicide and giveaway share pawnless tables only by name: the
            # magic tells them apart (python-chess reads the sibling's
            # magic in pawn tables only).
            siblings = {folder, other_folder} == {"suicide", "giveaway"}
            add(f"from-{other_folder}", donor.read_bytes(),
                can_detect=not (siblings and "P" in stem))
    rng = random.Random(file_name)
    noise = bytes(rng.getrandbits(8) for _ in range(len(data)))
    add("random", noise)
    add("random-magic", data[:4] + noise[4:])
    add("random-header", data[:5] + noise[5:], can_detect=False)
    results = run_cases(cases)
    for name, outcomes in results.items():
        check(f"{file_name} {name}", outcomes, paths[name], detectable=detectable[name],
              sensitive=len(probes[file_name][0]))


@pytest.mark.parametrize("entry", FILES, ids=_id)
def test_byte_flips(tmp_path: Path, entry: tuple[str, str, str],
                    probes: dict[str, Any]) -> None:
    variant, folder, file_name = entry
    data = (variant_dir(folder) / file_name).read_bytes()
    rng = random.Random(f"flips-{file_name}")
    area = min(len(data), 1024)
    cases, paths = [], {}
    for n in range(24):
        bad = bytearray(data)
        for _ in range(1 + n % 4):
            pos = rng.randrange(4, area)
            bad[pos] ^= 1 << rng.randrange(8) if n % 2 else rng.randrange(1, 256)
        name = f"flip{n}"
        paths[name] = write_case(tmp_path, name, file_name, bytes(bad))
        cases.append(_case(name, variant, folder, paths[name].parent, file_name, probes))
    for name, outcomes in run_cases(cases).items():
        check(f"{file_name} {name}", outcomes, paths[name], detectable=False)


# --------------------------------------------------------------------------
# The fuzz targets with a variant ($PYFATHOM_FUZZ_VARIANT), replayed under
# ASan+UBSan (replay.c as main), as test_hostile_fuzz.py does for standard
# chess: the real variant files and their mutants as table inputs, random
# legal positions and flipped bits as board inputs.

def _variant_materials(block_name: str) -> list[str]:
    src = (Path(__file__).parent / "fuzz" / "fuzz_table.c").read_text()
    block = src[src.index(f"{block_name}[] = {{"):]
    return re.findall(r'"([KQRBNPv]+)"', block[:block.index("};")])


@pytest.mark.sanitizer_programs("replays with the fuzz targets' own ASan+UBSan build")
@pytest.mark.parametrize("variant", ["atomic", "suicide", "giveaway"])
def test_fuzz_targets_replay_variant(variant: str, tmp_path: Path,
                                     replay_exes: dict[str, Path]) -> None:
    import struct
    import subprocess

    import chess

    from fuzz.make_corpus import mutants  # type: ignore[import-not-found]
    from support.fuzz_build import SAN_ENV
    from support.variant_positions import BOARDS, random_position

    folder = variant_dir(variant)
    suffix = {"atomic": "atb", "suicide": "stb", "giveaway": "gtb"}[variant]
    names = _variant_materials("ATOMIC_MATERIALS" if variant == "atomic"
                               else "ANTICHESS_MATERIALS")
    rng = random.Random(f"fuzz-{variant}")
    table_dir, board_dir = tmp_path / "table", tmp_path / "board"
    table_dir.mkdir()
    board_dir.mkdir()
    for index, material in enumerate(names):
        for kind, ext in ((0, "w"), (0x80, "z")):
            path = folder / f"{material}.{suffix}{ext}"
            assert path.is_file(), path
            data = path.read_bytes()
            for j, blob in enumerate([data] + mutants(data, 4, rng)):
                (table_dir / f"{material}-{ext}-{j}.seed").write_bytes(bytes([index | kind]) + blob)
        for j in range(6):
            board = random_position(variant, material, rng)
            masks = [board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK],
                     board.kings, board.queens, board.rooks, board.bishops,
                     board.knights, board.pawns]
            if j % 2:
                masks[rng.randrange(8)] ^= 1 << rng.randrange(64)
            record = struct.pack("<8QBB", *masks, board.ep_square or 0, int(board.turn))
            (board_dir / f"{material}-{j}.seed").write_bytes(record * (1 + j % 3))
    assert BOARDS[variant]
    env = {**os.environ, **SAN_ENV, "PYFATHOM_FUZZ_TABLES": str(folder),
           "PYFATHOM_FUZZ_VARIANT": variant}
    for target, inputs in (("table", table_dir), ("board", board_dir)):
        proc = subprocess.run([str(replay_exes[target]), str(inputs)], capture_output=True,
                              text=True, env=env, timeout=600)
        assert proc.returncode == 0 and "replayed" in proc.stdout, \
            f"{target}: exit {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-6000:]}"
        replayed = int(proc.stdout.split("replayed")[1].split()[0])
        assert replayed >= 40
