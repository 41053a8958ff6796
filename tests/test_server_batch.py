"""``POST /standard/batch`` on a live ``pyfathom serve``: every answer equals,
field by field, the ``GET /standard`` answer for the same FEN (the large set
of tests/test_server.py: 2,000+ positions over all tables, clocks near 100
around rounded and exact DTZs, mates, stalemates, en passant, positions the
tables cannot answer), in batches of the largest size and of odd sizes, in
JSON and NDJSON; a bad FEN's item carries the error GET gives it; a damaged
table gives an item error naming the file.  One in-process test shows the
endpoint answers through one batch probe, not a probe per position.

GET /standard is itself checked against the Python API and python-chess in
tests/test_server.py; here it is the reference.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import pytest

from support.asgi import asgi_call
from support.damaged_tables import copy_with_truncated
from support.lichess_rules import clock_variants, sample_positions
from support.live_server import Server, q, serving

# Positions the tables cannot answer in full, each answered by GET with a 200.
UNKNOWN_FENS = [
    "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",            # castling rights; king moves drop them
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 3 9",        # castling on both sides
    "7k/8/6K1/8/8/1p6/Q7/R7 w - - 0 1",            # 5 pieces: captures into the tables, a mate
    "7k/5Q2/6K1/8/8/8/1p6/R7 w - - 0 1",           # 5 pieces, mates and stalemates without tables
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "4k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1",       # 10 pieces, no castling
    "4k3/8/8/8/8/8/4p3/4K3 w - - 0 1",             # check by a pawn
    "8/8/8/2k5/2pP4/8/8/3K4 b - d3 0 1",           # en passant
    "8/8/8/8/8/8/8/K6k w - - 0 1",                 # bare kings
]

# FENs the batch must answer as GET answers them although written otherwise.
LOOSE_FENS = {
    "8/8/8/8/8/8/2Rk4/1K6_b": "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1",
    "4k3/8/4K3/8/8/8/8/7R  w  -  -  99  80": "4k3/8/4K3/8/8/8/8/7R w - - 99 80",
    "8/8/8/8/8/8/2Rk4/1K6 b KQkq - 0 1": "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1",  # rights dropped
}

BAD_FENS = ["not a fen", "", "8/8/8/8/8/8/2Rk4/1K6 w - - 0 1", "8/8/8/8/8/8/8/8 w",
            "x" * 300]


@pytest.fixture(scope="module")
def server(syzygy_dir: Path) -> Iterator[Server]:
    with serving(syzygy_dir) as s:
        yield s


@pytest.fixture(scope="module")
def fens(tablebase: Any) -> list[str]:
    boards = sample_positions()
    boards += clock_variants(tablebase, boards, random.Random(14))
    out = [b.fen() for b in boards] + UNKNOWN_FENS + list(LOOSE_FENS)
    assert len(out) >= 2000
    return out


@pytest.fixture(scope="module")
def get_answers(server: Server, fens: list[str]) -> dict[str, tuple[int, Any]]:
    """GET /standard's (status, JSON) for every FEN, the bad ones included."""
    return {fen: server.get_json("/standard?fen=" + q(fen)) for fen in fens + BAD_FENS}


def post(server: Server, fens: list[str], ndjson: bool = False) -> list[dict[str, Any]]:
    if ndjson:
        body = "".join(json.dumps(f) + "\n" for f in fens).encode()
        kind = "application/x-ndjson"
    else:
        body = json.dumps(fens).encode()
        kind = "application/json"
    status, head, data = server.request("POST", "/standard/batch", body, {"Content-Type": kind})
    assert status == 200, data[:300]
    assert head["content-type"].startswith(kind)
    answers = ([json.loads(line) for line in data.splitlines()] if ndjson
               else json.loads(data))
    assert isinstance(answers, list) and len(answers) == len(fens)
    return answers


def check_answers(fens: list[str], answers: list[dict[str, Any]],
                  get_answers: dict[str, tuple[int, Any]]) -> None:
    """Each batch item equals GET's answer, field by field (the item adds
    the FEN, normalized; a bad FEN's item carries GET's 400 error)."""
    for fen, answer in zip(fens, answers):
        status, want = get_answers[fen]
        answer = dict(answer)
        if status == 400:
            # Each error names its input as given: GET was given the URL's
            # form of the FEN (blanks written "_"), the batch the FEN itself.
            error = want["error"].replace(fen.replace(" ", "_"), fen)
            assert answer == {"fen": fen, "error": error}, (fen, answer, want)
            continue
        assert status == 200, (fen, want)
        assert answer.pop("fen") == LOOSE_FENS.get(fen, fen), fen
        differ = sorted(k for k in set(answer) | set(want) if answer.get(k) != want.get(k))
        assert not differ, (fen, {k: (answer.get(k), want.get(k)) for k in differ})


def test_batches_of_the_largest_size_equal_get(server: Server, fens: list[str],
                                               get_answers: dict[str, tuple[int, Any]]) -> None:
    from pyfathom.server.app import MAX_BATCH

    shuffled = list(fens)
    random.Random(141).shuffle(shuffled)
    assert len(shuffled) > 2 * MAX_BATCH
    for start in range(0, len(shuffled), MAX_BATCH):
        chunk = shuffled[start:start + MAX_BATCH]
        check_answers(chunk, post(server, chunk), get_answers)
    # Every category the sample reaches came through the batch too.
    categories = {a["category"] for a in post(server, shuffled[:MAX_BATCH])}
    assert {"win", "loss", "draw", "unknown"} <= categories, categories


def test_batches_of_odd_sizes_with_bad_fens_equal_get(
        server: Server, fens: list[str], get_answers: dict[str, tuple[int, Any]]) -> None:
    rng = random.Random(142)
    items = list(fens) + BAD_FENS * 3
    rng.shuffle(items)
    sizes = [1, 7, 333, 999, 2, 65, 3, 129, 17, 511]
    start = 0
    turn = 0
    while start < len(items):
        chunk = items[start:start + sizes[turn % len(sizes)]]
        answers = post(server, chunk, ndjson=turn % 2 == 1)
        check_answers(chunk, answers, get_answers)
        start += len(chunk)
        turn += 1
    assert turn >= 10


def test_empty_and_bad_batches(server: Server) -> None:
    assert post(server, []) == []
    cases = [
        (b"[", "application/json", 400, "not JSON"),
        (b'[["8/8/8/8/8/8/2Rk4/1K6 b"]]', "application/json", 400, "item 0 is not a FEN string"),
        (json.dumps(UNKNOWN_FENS * 200).encode(), "application/json", 413, "more than 1000"),
        (b'"8/8/8/8/8/8/2Rk4/1K6 b"\n[', "application/x-ndjson", 400, "NDJSON line 2"),
    ]
    for body, kind, status, message in cases:
        got, head, data = server.request("POST", "/standard/batch", body, {"Content-Type": kind})
        assert got == status and head["content-type"] == "application/json", data[:200]
        assert message in json.loads(data)["error"]


def test_damaged_table_is_an_item_error_naming_it(syzygy_dir: Path, tmp_path: Path) -> None:
    """A position whose probes meet a damaged file gets GET's 503 message as
    its item's error; the other items of the same batch are answered."""
    copy_with_truncated(syzygy_dir, tmp_path, ("KRvK.rtbw", "KRvK.rtbz"))
    fens = ["8/8/8/4k3/8/8/Q7/K7 w - - 0 1", "8/8/8/4k3/8/8/2R5/1K6 w - - 0 1",
            "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1", "8/8/8/4k3/8/8/2Q5/1K6 b - - 0 1"]
    with serving(tmp_path) as server:
        answers = post(server, fens)
        for fen, answer in zip(fens, answers):
            status, want = server.get_json("/standard?fen=" + q(fen))
            if status == 503:
                assert answer == {"fen": fen, "error": want["error"]}
                assert "KRvK.rtb" in answer["error"]
            else:
                assert status == 200 and answer.pop("fen") == fen and answer == want
        assert [("error" in a) for a in answers] == [False, True, True, False]


def test_endpoint_answers_through_one_batch_probe(syzygy_dir: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """In process, the ASGI app itself: a batch of 40 FENs makes exactly one
    batch DTZ probe call with the precise flags (every root and child
    position in it) and no per-board probe; its answers equal GET's, served
    by the per-board path of the same app."""
    import pyfathom
    from pyfathom.server.app import create_app

    batch_rows: list[int] = []
    per_board: list[str] = []
    real_batch = pyfathom.Tablebase.probe_dtz_bitboards_as_stored
    real_probe = pyfathom.Tablebase.probe_dtz_as_stored

    def counting_batch(self: Any, *args: Any, **kwargs: Any) -> Any:
        assert kwargs.get("precise") is not None and kwargs.get("status") is not None
        batch_rows.append(len(args[0]))
        return real_batch(self, *args, **kwargs)

    def counting_probe(self: Any, board: chess.Board) -> Any:
        per_board.append(board.fen())
        return real_probe(self, board)

    monkeypatch.setattr(pyfathom.Tablebase, "probe_dtz_bitboards_as_stored", counting_batch)
    monkeypatch.setattr(pyfathom.Tablebase, "probe_dtz_as_stored", counting_probe)
    app = create_app([str(syzygy_dir)], cache_size=0)
    fens = [b.fen() for b in sample_positions()[::53]] + UNKNOWN_FENS[:3]
    assert len(fens) >= 40

    status, _, data = asyncio.run(asgi_call(app, "POST", "/standard/batch", b"",
                                            json.dumps(fens).encode()))
    assert status == 200, data[:300]
    answers = json.loads(data)
    positions = sum(1 + chess.Board(f).legal_moves.count() for f in fens)
    assert batch_rows == [positions] and per_board == []
    for fen, answer in zip(fens, answers):
        status, _, data = asyncio.run(asgi_call(app, "GET", "/standard", b"fen=" + q(fen).encode(),
                                                b""))
        assert status == 200 and answer.pop("fen") == fen and answer == json.loads(data)
    assert len(per_board) == positions and batch_rows == [positions]
    app.state.tablebase.close()


def test_bench_server_batch_mode_runs(syzygy_dir: Path) -> None:
    """``benchmarks/bench_server.py --batch`` runs (tiny sizes; speed is
    measured there, never asserted here)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "bench_server.py"), "--tables", str(syzygy_dir),
         "--batch", "--client", "python", "--batch-positions", "300", "--batch-size", "70",
         "--batch-connections", "2", "--connections", "8", "--workers", "1", "--rounds", "1",
         "--json"],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    for kind in ("batch", "get", "old-batch"):
        assert result["positions_per_sec"][kind]["median"] > 0, result
    assert result["ratios"]["batch_over_old_batch"]["median"] > 0
    assert result["in_process_ms_per_1000"]["c-batch-call"]["median"] > 0
