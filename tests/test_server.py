"""``pyfathom serve`` as a live process on 127.0.0.1: lichess's API, field by
field against the Python API and python-chess, the mainline, CBOR, the batch
endpoint, and 4xx JSON errors for bad input (with a fuzz test).

The expected documents are built here from ``Tablebase.probe_dtz_as_stored``
(dtz and lichess's precision, checked against a model of its rule in
test_server_lila_flags), python-chess (SAN, mate, stalemate, insufficient material,
zeroing) and lichess's published category rules, written out again below as
a table; the server's own code is never used to compute them.
"""

from __future__ import annotations

import json
import random
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import chess
import pytest

from support import positions
from support.damaged_tables import copy_with_truncated
from support.lichess_rules import clock_variants, lila_order_key, probe_or_none, sample_positions
from support.live_server import Server, q, serving

FLIP = {"win": "loss", "syzygy-win": "syzygy-loss", "maybe-win": "maybe-loss",
        "cursed-win": "blessed-loss", "draw": "draw", "unknown": "unknown"}
FLIP.update({v: k for k, v in FLIP.items()})


@pytest.fixture(scope="module")
def server(syzygy_dir: Path) -> Iterator[Server]:
    with serving(syzygy_dir) as s:
        yield s


def expected_category(dtz: Optional[int], precise: bool, mate: bool, drawn: bool,
                      clock: int, clock_before: int) -> str:
    """lichess's rules: a decisive result needs the zeroing move within the
    plies the clock leaves; a rounded DTZ landing exactly on the limit is
    syzygy-*; a clock already at 100 before the move curses/blesses."""
    if drawn or dtz == 0:
        return "draw"
    if mate:
        return "blessed-loss" if clock_before >= 100 else "loss"
    if dtz is None:
        return "unknown"
    sign = "win" if dtz > 0 else "loss"
    if clock_before >= 100:
        return {"win": "cursed-win", "loss": "blessed-loss"}[sign]
    low = abs(dtz) + clock                       # plies to zeroing, counted from the last zeroing
    high = low if precise else low + 1           # a rounded value may be one short
    if high <= 100:
        return sign
    if low > 100:
        return {"win": "cursed-win", "loss": "blessed-loss"}[sign]
    return "syzygy-" + sign


def expected_document(tb: Any, board: chess.Board) -> dict[str, Any]:
    clock = board.halfmove_clock
    moves = {}
    for move in board.legal_moves:
        child = board.copy(stack=False)
        child.push(move)
        dtz, precise = probe_or_none(tb, child)
        mate, stale, insufficient = (child.is_checkmate(), child.is_stalemate(),
                                     child.is_insufficient_material())
        moves[move.uci()] = {
            "uci": move.uci(), "san": board.san(move), "zeroing": board.is_zeroing(move),
            "conversion": board.is_capture(move) or move.promotion is not None,
            "dtz": dtz, "precise_dtz": dtz if precise else None,
            "dtm": None, "dtc": None, "dtw": None,
            "checkmate": mate, "stalemate": stale, "variant_win": False, "variant_loss": False,
            "insufficient_material": insufficient,
            "category": expected_category(dtz, precise, mate, stale or insufficient,
                                          child.halfmove_clock, clock),
        }
    dtz, precise = probe_or_none(tb, board)
    own = expected_category(dtz, precise, board.is_checkmate(),
                            board.is_stalemate() or board.is_insufficient_material(),
                            clock, max(clock - 1, 0))
    return {
        "dtz": dtz, "precise_dtz": dtz if precise else None, "dtm": None, "dtc": None,
        "dtw": None, "checkmate": board.is_checkmate(), "stalemate": board.is_stalemate(),
        "variant_win": False, "variant_loss": False,
        "insufficient_material": board.is_insufficient_material(),
        "own_category": own, "moves": moves,
    }


def check_document(tb: Any, board: chess.Board, got: dict[str, Any]) -> None:
    """Field by field: the position's fields, every move's fields (the
    categories of the leading ambiguous moves may be resolved by the
    position's own result), the order, and the position's category."""
    want = expected_document(tb, board)
    where = board.fen()
    for field in ("dtz", "precise_dtz", "dtm", "dtc", "dtw", "checkmate", "stalemate",
                  "variant_win", "variant_loss", "insufficient_material"):
        assert got[field] == want[field], (where, field, got[field], want[field])
    assert sorted(m["uci"] for m in got["moves"]) == sorted(want["moves"]), where
    resolving = True
    resolved = {("win", "syzygy-loss"): "loss", ("loss", "syzygy-win"): "win",
                ("cursed-win", "syzygy-loss"): "blessed-loss",
                ("blessed-loss", "syzygy-win"): "cursed-win"}
    for m in got["moves"]:
        w = dict(want["moves"][m["uci"]])
        fix = resolved.get((want["own_category"], w["category"]))
        if resolving and fix is not None:
            w["category"] = fix
        else:
            resolving = False
        assert m == w, (where, m, w)
    keys = [lila_order_key(board, m) for m in got["moves"]]
    assert keys == sorted(keys), (where, [m["uci"] for m in got["moves"]])
    if got["moves"]:
        assert got["category"] == FLIP[got["moves"][0]["category"]], where
    else:
        assert got["category"] == want["own_category"], where



def test_standard_matches_python_api(server: Server, tablebase: Any) -> None:
    boards = sample_positions()
    boards += clock_variants(tablebase, boards, random.Random(14))
    assert len(boards) >= 2000
    categories: set[str] = set()
    for board in boards:
        status, doc = server.get_json("/standard?fen=" + q(board.fen()))
        assert status == 200, (board.fen(), doc)
        check_document(tablebase, board, doc)
        categories.add(doc["category"])
        categories.update(m["category"] for m in doc["moves"])
    # The sample reaches every category lichess gives for these tables.
    assert {"win", "loss", "draw", "cursed-win", "blessed-loss", "syzygy-win",
            "syzygy-loss"} <= categories, categories


def test_spaces_underscores_and_missing_fields(server: Server) -> None:
    a = server.get_json("/standard?fen=" + urllib.parse.quote("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"))
    b = server.get_json("/standard?fen=8/8/8/8/8/8/2Rk4/1K6_b_-_-_0_1")
    c = server.get_json("/standard?fen=8/8/8/8/8/8/2Rk4/1K6_b")
    assert a == b == c and a[0] == 200 and a[1]["category"] == "loss"


def test_positions_the_tables_cannot_answer(server: Server, tablebase: Any) -> None:
    # Castling rights: unknown, but the king moves (castling too) that drop them
    # lead to positions the tables hold.
    board = chess.Board("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")
    status, doc = server.get_json("/standard?fen=" + q(board.fen()))
    assert status == 200 and doc["category"] == "win"
    assert doc["dtz"] is None and doc["precise_dtz"] is None
    check_document(tablebase, board, doc)
    by_uci = {m["uci"]: m for m in doc["moves"]}
    assert by_uci["h1h5"]["category"] == "unknown" and by_uci["e1g1"]["dtz"] is not None
    # Five pieces with 3-4-piece tables: captures into the tables are
    # answered, and a mate is found without tables.
    board = chess.Board("7k/8/6K1/8/8/1p6/Q7/R7 w - - 0 1")
    status, doc = server.get_json("/standard?fen=" + q(board.fen()))
    assert status == 200
    check_document(tablebase, board, doc)
    first = doc["moves"][0]
    assert first["checkmate"] and first["dtz"] is None and first["category"] == "loss"
    assert doc["category"] == "win" and doc["dtz"] is None
    by_uci = {m["uci"]: m for m in doc["moves"]}
    assert by_uci["a2b3"]["dtz"] is not None and by_uci["a2a3"]["category"] == "unknown"


def test_mainline_plays_out(server: Server, tablebase: Any) -> None:
    rng = random.Random(1414)
    boards = [b for key in positions.ALL_TABLES for b in positions.table_sample(key, 3, seed=1414)]
    boards += [chess.Board("4k3/6KP/8/8/8/8/7p/8 w - - 0 1")]
    rng.shuffle(boards)
    ended = {"mate": 0, "claimed": 0, "drawn": 0}
    for board in boards:
        status, doc = server.get_json("/standard/mainline?fen=" + q(board.fen()))
        assert status == 200, (board.fen(), doc)
        p = tablebase.probe(board)
        dtz, precise = probe_or_none(tablebase, board)
        assert doc["dtz"] == p.dtz == dtz and doc["precise_dtz"] == (dtz if precise else None)
        position = board.copy()
        for step in doc["mainline"]:
            move = chess.Move.from_uci(step["uci"])
            assert move in position.legal_moves, (board.fen(), step)
            assert step["san"] == position.san(move)
            position.push(move)
            dtz, precise = probe_or_none(tablebase, position)
            assert step["dtz"] == dtz
            assert step["precise_dtz"] == (dtz if precise else None)
        if p.dtz == 0:
            assert doc["mainline"] == [] and doc["winner"] is None
            ended["drawn"] += 1
        elif position.is_checkmate():
            assert doc["winner"] == ("b" if position.turn else "w")
            # The winner is the side the probe said wins.
            assert (doc["winner"] == "w") == ((p.dtz > 0) == (board.turn == chess.WHITE))
            ended["mate"] += 1
        else:
            # The draw claimed as soon as the clock allows it: a cursed win
            # or blessed loss.
            assert position.halfmove_clock == 100 and doc["winner"] is None, board.fen()
            assert abs(p.dtz) > 100
            ended["claimed"] += 1
    assert ended["mate"] >= 50 and ended["drawn"] >= 5, ended
    # First moves of the published example.
    status, doc = server.get_json("/standard/mainline?fen=4k3/6KP/8/8/8/8/7p/8_w_-_-_0_1")
    assert [s["san"] for s in doc["mainline"][:3]] == ["h8=Q+", "Kd7", "Qxh2"]
    assert doc["winner"] == "w" and doc["mainline"][-1]["dtz"] == -1


def test_mainline_claims_the_draw_of_a_cursed_win(server: Server, tablebase: Any) -> None:
    # The 3-4-piece tables hold no cursed win at clock 0: a long win with
    # the clock already advanced makes one (DTZ + clock > 100).
    # (A rounded DTZ may be one ply short: the sum passes 100 either way.)
    for board in positions.table_sample("KBNvK", 400, seed=77):
        p = tablebase.probe(board)
        if 30 <= p.dtz <= 90:
            break
    else:
        pytest.fail("no long win found in the sample")
    board.halfmove_clock = 103 - p.dtz
    status, doc = server.get_json("/standard?fen=" + q(board.fen()))
    assert status == 200 and doc["category"] == "cursed-win", doc["category"]
    status, doc = server.get_json("/standard/mainline?fen=" + q(board.fen()))
    assert status == 200 and doc["winner"] is None and doc["dtz"] == p.dtz
    assert len(doc["mainline"]) == 100 - board.halfmove_clock
    position = board.copy()
    for step in doc["mainline"]:
        position.push_uci(step["uci"])
    assert position.halfmove_clock == 100 and not position.is_checkmate()


def test_mainline_404_outside_the_tables(server: Server) -> None:
    for fen in ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "7k/8/6K1/8/8/1p6/Q7/R7 w - - 0 1"):
        status, doc = server.get_json("/standard/mainline?fen=" + q(fen))
        assert status == 404 and "error" in doc


def test_cbor(server: Server) -> None:
    import cbor2

    for path in ("/standard?fen=4k3/6KP/8/8/8/8/7p/8_w_-_-_0_1",
                 "/standard/mainline?fen=4k3/6KP/8/8/8/8/7p/8_w_-_-_0_1"):
        status, head, body = server.request("GET", path, headers={"Accept": "application/cbor"})
        assert status == 200 and head["content-type"] == "application/cbor"
        assert cbor2.loads(body) == server.get_json(path)[1]


def test_batch(server: Server, tablebase: Any) -> None:
    boards = [b for key in positions.ALL_TABLES for b in positions.table_sample(key, 8, seed=3)]
    fens = [b.fen() for b in boards] + ["not a fen", "8/8/8/8/8/8/2Rk4/1K6 w - - 0 1"]
    status, _, body = server.request("POST", "/standard/batch", json.dumps(fens).encode(),
                                     {"Content-Type": "application/json"})
    assert status == 200
    answers = json.loads(body)
    assert len(answers) == len(fens)
    for board, answer in zip(boards, answers):
        assert answer.pop("fen") == board.fen()
        assert answer == server.get_json("/standard?fen=" + q(board.fen()))[1]
    assert "invalid fen" in answers[-2]["error"] and "illegal position" in answers[-1]["error"]
    # NDJSON in, NDJSON out; {"fens": [...]} and text/plain are accepted too.
    ndjson = "".join(json.dumps(f) + "\n" for f in fens[:5]).encode()
    status, head, body = server.request("POST", "/standard/batch", ndjson,
                                        {"Content-Type": "application/x-ndjson"})
    assert status == 200 and head["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in body.splitlines()]
    assert [d["fen"] for d in lines] == fens[:5]
    status, _, body2 = server.request("POST", "/standard/batch",
                                      json.dumps({"fens": fens[:5]}).encode(),
                                      {"Content-Type": "application/json"})
    assert status == 200 and json.loads(body2) == lines
    status, _, body3 = server.request("POST", "/standard/batch", "\n".join(fens[:5]).encode(),
                                      {"Content-Type": "text/plain"})
    assert status == 200 and json.loads(body3) == lines


BAD_GETS = [
    ("/standard", 400, "missing query parameter: fen"),
    ("/standard?fen=", 400, "empty fen"),
    ("/standard?fen=xyz", 400, "invalid fen"),
    ("/standard?fen=8/8/8/8/8/8/2Rk4/1K6_w", 400, "illegal position (opposite check)"),
    ("/standard?fen=8/8/8/8/8/8/8/8_w", 400, "illegal position"),
    ("/standard?fen=4k3/8/8/8/8/8/8/4K3_w_-_-_-5_1", 400, "invalid fen"),
    ("/standard?fen=" + "8/" * 200, 400, "fen too long"),
    ("/standard?fen=" + "a" * 3000, 414, "query string longer"),
    ("/standard?fen=%00%ff", 400, "fen"),
    ("/standard/mainline?fen=kk", 400, "invalid fen"),
    ("/standard/batch", 405, "method GET not allowed"),
    ("/nothing/here", 404, "no such endpoint"),
    ("/static/../../etc/passwd", 404, ""),
    ("/explorer/play?fen=8/8/8/8/8/8/2Rk4/1K6_b&uci=a1a2", 400, "illegal move"),
    ("/explorer/play?fen=8/8/8/8/8/8/2Rk4/1K6_b&uci=zz", 400, "not a UCI move"),
]


@pytest.mark.parametrize("path,status,message", BAD_GETS)
def test_bad_requests_get_json_errors(server: Server, path: str, status: int, message: str) -> None:
    got, head, body = server.request("GET", path)
    assert got == status, (path, body)
    assert head["content-type"] == "application/json"
    assert message in json.loads(body)["error"]


BAD_BATCHES = [
    (b"{", "application/json", 400, "not JSON"),
    (b'{"a": 1}', "application/json", 400, "JSON array"),
    (b"[1, 2]", "application/json", 400, "not a FEN string"),
    (b"\xff\xfe", "application/json", 400, "not UTF-8"),
    (b"x", "application/x-www-form-urlencoded", 415, "unsupported Content-Type"),
    (b'"a"\n{', "application/x-ndjson", 400, "NDJSON line 2"),
    (json.dumps(["8/8/8/8/8/8/2Rk4/1K6 b"] * 1001).encode(), "application/json", 413,
     "more than 1000"),
    (b" " * (1 << 20) + b"[]", "application/json", 413, "bytes"),
]


@pytest.mark.parametrize("body,content_type,status,message", BAD_BATCHES)
def test_bad_batches_get_json_errors(server: Server, body: bytes, content_type: str,
                                     status: int, message: str) -> None:
    got, _, data = server.request("POST", "/standard/batch", body, {"Content-Type": content_type})
    assert got == status, data[:200]
    assert message in json.loads(data)["error"]


def test_requests_uvicorn_refuses_get_json_errors(server: Server) -> None:
    """A request line too long for the HTTP parser, or bytes that are not
    HTTP, never reach the app: still a JSON 400."""
    import socket

    status, head, body = server.request("GET", "/standard?fen=" + "a" * 100_000)
    assert status == 400 and head["content-type"] == "application/json"
    assert "malformed HTTP request" in json.loads(body)["error"]
    server.close()
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as raw:
        raw.sendall(b"\x00\x01 not http\r\n\r\n")
        answer = b""
        while chunk := raw.recv(4096):
            answer += chunk
    head_text, _, payload = answer.partition(b"\r\n\r\n")
    assert head_text.startswith(b"HTTP/1.1 400") and b"application/json" in head_text
    assert "error" in json.loads(payload)
    assert server.get_json("/standard?fen=8/8/8/8/8/8/2Rk4/1K6_b")[0] == 200


def _mutate(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        pos = rng.randrange(len(chars) + 1)
        if op < 0.4 and chars:
            chars[min(pos, len(chars) - 1)] = rng.choice("KQRBNPkqrbnp12345678/ wb-_0123456789x%&=\x00é")
        elif op < 0.7:
            chars.insert(pos, rng.choice("KQRBNPkqrbnp/87 -_wb"))
        elif chars:
            del chars[min(pos, len(chars) - 1)]
    return "".join(chars)


def test_fuzz_never_500(server: Server) -> None:
    """Random and mutated queries and bodies: every answer is a 200 or a
    4xx with a JSON error, and the server keeps answering."""
    rng = random.Random(2026)
    seeds = [b.fen() for key in positions.ALL_TABLES for b in positions.table_sample(key, 2, seed=9)]
    seeds.append("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")
    statuses: dict[int, int] = {}
    for i in range(600):
        kind = i % 4
        if kind == 0:
            fen = _mutate(rng, rng.choice(seeds))
            path = rng.choice(["/standard", "/standard/mainline"]) + "?fen=" + urllib.parse.quote(fen)
        elif kind == 1:
            raw = bytes(rng.randrange(256) for _ in range(rng.randint(0, 80)))
            path = "/standard?" + urllib.parse.quote(raw, safe="=&")
        elif kind == 2:
            path = "/standard?fen=" + urllib.parse.quote(rng.choice(seeds)) + "&" + \
                urllib.parse.quote(bytes(rng.randrange(256) for _ in range(20)), safe="=&%")
        else:
            items: list[Any] = [_mutate(rng, rng.choice(seeds)) for _ in range(rng.randint(0, 5))]
            if rng.random() < 0.3:
                items.append(rng.choice([None, 1, [], {}, {"fen": 3}, True]))
            body = json.dumps(items).encode()
            if rng.random() < 0.3:
                cut = rng.randrange(len(body) + 1)
                body = body[:cut] + bytes(rng.randrange(256) for _ in range(3))
            ctype = rng.choice(["application/json", "application/x-ndjson", "text/plain", ""])
            status, head, data = server.request("POST", "/standard/batch", body,
                                                {"Content-Type": ctype} if ctype else {})
            statuses[status] = statuses.get(status, 0) + 1
            assert status == 200 or 400 <= status < 500, (body, data[:300])
            json.loads(data) if not head["content-type"].startswith("application/x-ndjson") else None
            continue
        status, head, data = server.request("GET", path)
        statuses[status] = statuses.get(status, 0) + 1
        assert status == 200 or 400 <= status < 500, (path, data[:300])
        doc = json.loads(data)
        assert status == 200 or isinstance(doc.get("error"), str), (path, doc)
    assert statuses.get(200, 0) > 20 and statuses.get(400, 0) > 100, statuses
    assert server.get_json("/standard?fen=8/8/8/8/8/8/2Rk4/1K6_b")[0] == 200


def test_lichess_module_doctests(syzygy_dir: Path) -> None:
    import doctest

    import pyfathom
    from pyfathom.server import lichess

    result = doctest.testmod(lichess, extraglobs={"TABLES": str(syzygy_dir), "chess": chess,
                                                  "pyfathom": pyfathom},
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                             report=True)
    assert result.attempted >= 8 and result.failed == 0, result


def _serve(*args: str) -> Any:
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "pyfathom", "serve", *args],
                          capture_output=True, text=True, timeout=60)


def test_serve_command_errors(syzygy_dir: Path, tmp_path: Path) -> None:
    import socket

    proc = _serve("--tables", str(tmp_path))
    assert proc.returncode == 1 and "no Syzygy tables found" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = _serve("--tables", str(syzygy_dir), "--workers", "0")
    assert proc.returncode == 2  # wrong usage (issue 23)
    assert proc.stderr.strip() == "pyfathom: --workers must be >= 1, not 0 (see pyfathom serve --help)"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = _serve("--tables", str(syzygy_dir), "--port", str(port))
    assert proc.returncode == 1 and "cannot serve on 127.0.0.1" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    proc = _serve("--help")
    assert proc.returncode == 0 and "--workers" in proc.stdout and "127.0.0.1" in proc.stdout


def test_two_worker_processes(syzygy_dir: Path) -> None:
    """--workers 2: uvicorn's worker processes answer, all the same."""
    import http.client

    fen = "8/8/8/8/8/2k5/1p6/3K4_b_-_-_0_1"
    with serving(syzygy_dir, "--workers", "2", "--cache", "0") as server:
        want = server.get_json("/standard?fen=" + fen)
        assert want[0] == 200
        # Fresh connections, so that both workers get some of them.
        for _ in range(40):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            conn.request("GET", "/standard?fen=" + fen)
            response = conn.getresponse()
            assert (response.status, json.loads(response.read())) == want
            conn.close()
        children = [line for line in open(f"/proc/{server.proc.pid}/task/{server.proc.pid}/children")
                    .read().split()] if Path(f"/proc/{server.proc.pid}/task").is_dir() else ["?", "?"]
        assert len(children) >= 2, children


def test_bench_server_runs(syzygy_dir: Path) -> None:
    """benchmarks/bench_server.py runs (tiny sizes; speed is measured there,
    never asserted here)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "bench_server.py"), "--tables", str(syzygy_dir),
         "--client", "python", "--requests", "300", "--reference-requests", "20",
         "--connections", "8", "--workers", "1", "--json"],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["pyfathom"]["requests"] == 300 and result["pyfathom"]["non_200"] == 0
    assert result["python-chess"]["requests"] == 20 and result["python-chess"]["non_200"] == 0
    assert result["ratio_requests_per_sec"] > 0


def test_damaged_table_is_a_503_naming_it(syzygy_dir: Path, tmp_path: Path) -> None:
    """The server's fault, not the request's: a 503 with a JSON error that
    names the file, and the server goes on answering other positions."""
    copy_with_truncated(syzygy_dir, tmp_path, ("KRvK.rtbw", "KRvK.rtbz"))
    with serving(tmp_path) as server:
        status, doc = server.get_json("/standard?fen=8/8/8/4k3/8/8/2R5/1K6_w_-_-_0_1")
        assert status == 503 and "KRvK.rtb" in doc["error"], doc
        status, doc = server.get_json("/standard?fen=8/8/8/4k3/8/8/Q7/K7_w_-_-_0_1")
        assert status == 200 and doc["category"] == "win"


def test_five_piece_cursed_wins_and_blessed_losses(syzygy_dir: Path, syzygy5_dir: Path) -> None:
    """KBBvKN holds real cursed wins and blessed losses (DTZ past 100 at
    clock 0): their documents field by field, and a mainline from one that
    ends in the claimed draw."""
    import pyfathom

    with pyfathom.open_tablebase([syzygy_dir, syzygy5_dir]) as tb, \
            serving(syzygy_dir, "--tables", str(syzygy5_dir)) as server:
        boards = positions.table_sample("KBBvKN", 1500, seed=5)
        beyond = [b for b in boards if abs(tb.probe(b).dtz) > 100]
        assert len(beyond) >= 10, len(beyond)
        sample = beyond[:60] + boards[:140]
        seen = set()
        for board in sample:
            status, doc = server.get_json("/standard?fen=" + q(board.fen()))
            assert status == 200, doc
            check_document(tb, board, doc)
            seen.add(doc["category"])
        assert {"cursed-win", "blessed-loss", "win", "loss"} <= seen, seen
        cursed = next(b for b in beyond if tb.probe(b).dtz > 100)
        status, doc = server.get_json("/standard/mainline?fen=" + q(cursed.fen()))
        assert status == 200 and doc["winner"] is None and doc["dtz"] == tb.probe(cursed).dtz
        position = cursed.copy()
        for step in doc["mainline"]:
            position.push_uci(step["uci"])
            assert step["dtz"] == tb.probe(position).dtz
        assert position.halfmove_clock == 100 and not position.is_checkmate()
