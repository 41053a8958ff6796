"""``pyfathom annotate``: hand-made games whose answers python-chess's
chess.syzygy confirms, generated games against a plain python-chess
annotator (tests/support/pgn_games.py), real-world PGN quirks and the command line."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import chess.syzygy
import pytest

from support import pgn_games
from support.sanitizer import SANITIZED

ROOT = Path(__file__).resolve().parent.parent

BLUNDER, MISTAKE = chess.pgn.NAG_BLUNDER, chess.pgn.NAG_MISTAKE


def _annotate(tablebase: Any, text: str) -> tuple[str, list[Any], Any]:
    from pyfathom.annotate import annotate_stream

    out = io.StringIO()
    rows: list[Any] = []
    summary = annotate_stream(tablebase, io.StringIO(text), out, report=rows.append)
    return out.getvalue(), rows, summary


def strip_notes(text: str) -> str:
    """The annotated text without what the annotator inserts."""
    text = re.sub(r"(\?\?|\?| \$[24])? \{TB: (win|draw|loss) ->[^}]*\}", "", text)
    text = re.sub(r" \{TB: (White|Black)[^}]*\}", "", text)
    return re.sub(r"(?m)^(\ufeff?)\{TB: [^}]*\} ", r"\1", text)


def _game(fen: str | None, sans: list[str], **headers: str) -> str:
    board = chess.Board(fen) if fen else chess.Board()
    game = chess.pgn.Game()
    game.headers.update(headers)
    if fen:
        game.setup(board)
    node: chess.pgn.GameNode = game
    for san in sans:
        node = node.add_main_variation(board.push_san(san))
    return str(game) + "\n\n"


def _result(oracle: chess.syzygy.Tablebase, board: chess.Board) -> int:
    """The game result for the side to move, from python-chess's DTZ and the
    board's clock (the rule stated in tests/support/pgn_games.py)."""
    return pgn_games.result_of(oracle.probe_dtz(board), True, board.halfmove_clock,
                               board.is_checkmate())[0]


def _after(oracle: chess.syzygy.Tablebase, board: chess.Board, san: str) -> int:
    """The mover's result after ``san``."""
    child = board.copy()
    child.push_san(san)
    return -_result(oracle, child)


# ---- hand-made games -----------------------------------------------------------------


def test_krk_win_thrown_into_stalemate(tablebase: Any, oracle: chess.syzygy.Tablebase) -> None:
    fen = "7k/R7/6K1/8/8/8/8/8 w - - 0 1"
    board = chess.Board(fen)
    # python-chess: a win (mate in one), and Rg7 is stalemate.
    assert _result(oracle, board) == 1 and _after(oracle, board, "Rg7") == 0
    after = board.copy()
    after.push_san("Rg7")
    assert after.is_stalemate()
    text, rows, summary = _annotate(tablebase, _game(fen, ["Rg7"], White="A", Black="B"))
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    node = game.next()
    assert node is not None and node.move == chess.Move.from_uci("a7g7")
    assert node.nags == {BLUNDER}
    assert node.comment == "TB: win -> draw. Best: Ra8# (DTZ 1)"
    assert game.comment.startswith("TB: White to move: win")
    assert len(rows) == 1 and rows[0].kind == "win -> draw" and rows[0].best_san == "Ra8#"
    assert (summary.games_read, summary.games_in_tables, summary.mistakes) == (1, 1, 1)


def test_kpk_draw_turned_into_loss(tablebase: Any, oracle: chess.syzygy.Tablebase) -> None:
    fen = "4k3/8/8/4K3/4P3/8/8/8 b - - 0 1"
    board = chess.Board(fen)
    assert _result(oracle, board) == 0 and _after(oracle, board, "Kd8") == -1
    # Ke7 is the only move that holds: the annotator must name it.
    holding = [board.san(m) for m in board.legal_moves if _after(oracle, board, board.san(m)) == 0]
    assert holding == ["Ke7"]
    text, rows, _ = _annotate(tablebase, _game(fen, ["Kd8", "Kd6"]))
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    nodes = list(game.mainline())
    assert nodes[0].nags == {BLUNDER}
    assert nodes[0].comment.startswith("TB: draw -> loss. Best: Ke7 (DTZ 0)")
    assert nodes[1].nags == set() and nodes[1].comment == ""
    assert game.comment == "TB: Black to move: draw"
    assert [r.label for r in rows] == ["1... Kd8"]


def test_kbnk_win_lost_to_the_fifty_move_rule(tablebase: Any, oracle: chess.syzygy.Tablebase) -> None:
    fen = "4B3/k7/7K/8/7N/8/8/8 w - - 45 1"
    board = chess.Board(fen)
    dtz = oracle.probe_dtz(board)
    # A win within the clock's reach, even if the rounded DTZ is one short ...
    assert 0 < dtz and dtz + 1 + board.halfmove_clock <= 100
    child = board.copy()
    child.push_san("Bd7")
    # ... and Bd7 keeps the win on the board but not within the 50 moves.
    assert oracle.probe_wdl(child) == -2
    assert -oracle.probe_dtz(child) + child.halfmove_clock > 100
    text, rows, summary = _annotate(tablebase, _game(fen, ["Bd7"]))
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    node = game.next()
    assert node is not None and node.nags == {BLUNDER}
    assert node.comment.startswith("TB: win -> draw (50-move rule, halfmove clock 46). Best: ")
    best = node.comment.split("Best: ")[1].split(" (")[0]
    assert _after(oracle, board, best) == 1
    assert rows[0].after.fifty and summary.by_kind["win -> draw"] == 1


def test_correct_play_gets_no_mark(tablebase: Any, oracle: chess.syzygy.Tablebase) -> None:
    board = chess.Board("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1")
    ranks = pgn_games.ReferenceAnnotator(oracle, lambda b: True, 4)
    sans = []
    while not board.is_game_over():
        by_move, _ = ranks.move_ranks(board)
        san = max(by_move, key=lambda s: by_move[s])
        sans.append(san)
        board.push_san(san)
    assert board.is_checkmate() and len(sans) > 20
    text, rows, _ = _annotate(tablebase, _game("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1", sans))
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and rows == []
    nodes = list(game.mainline())
    assert [n.san() for n in nodes] == sans
    assert all(not n.nags and not n.comment for n in nodes)
    assert game.comment.startswith("TB: Black to move: loss (DTZ -")


def test_game_outside_the_tables_is_kept_as_is(tablebase: Any) -> None:
    pgn = ('[Event "Opening"]\n[White "A"]\n[Black "B"]\n[Result "*"]\n\n'
           '1. e4 { [%clk 0:03:00] } e5 (1... c5 2. Nf3) 2. Nf3 $1 Nc6 *\n\n')
    text, rows, summary = _annotate(tablebase, pgn)
    assert text == pgn and rows == []
    assert (summary.games_read, summary.games_in_tables) == (1, 0)


def test_castling_rights_delay_the_tables(tablebase: Any, oracle: chess.syzygy.Tablebase) -> None:
    fen = "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1"
    assert chess.popcount(chess.Board(fen).occupied) == 4
    text, _, summary = _annotate(tablebase, _game(fen, ["Kf2", "Kd7", "Rh7+", "Ke6"]))
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    nodes = list(game.mainline())
    # White's rights go with Kf2, black's with Kd7: the tables start there.
    assert game.comment == "" and nodes[0].comment == ""
    board = nodes[1].board()
    assert not board.castling_rights
    expected = {1: "win", 0: "draw", -1: "loss"}[_result(oracle, board)]
    assert nodes[1].comment.startswith(f"TB: White to move: {expected}")
    assert summary.games_in_tables == 1


# ---- the text around the annotations ---------------------------------------------------


def test_everything_else_is_kept(tablebase: Any) -> None:
    pgn = ('[Event "Kept"]\n[Site "https://lichess.org/abcdefgh"]\n[FEN "7k/R7/6K1/8/8/8/8/8 w - - 0 1"]\n'
           '[SetUp "1"]\n\n'
           '1. Rg7! { [%eval 0.0] [%clk 0:00:59] } ( 1. Ra8# { mate } ) { second\n'
           'comment } 1/2-1/2\n\n')
    text, rows, _ = _annotate(tablebase, pgn)
    # Only the notes were added: removing them gives the input back.
    assert strip_notes(text) == pgn and text.count("{TB: ") == 2
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    node = game.next()
    assert node is not None
    assert node.nags == {chess.pgn.NAG_GOOD_MOVE, BLUNDER}
    assert node.eval() is not None and node.clock() == 59
    assert "mate" in node.parent.variations[1].comment  # type: ignore[union-attr]
    assert "second\ncomment" in node.comment
    assert len(rows) == 1


def test_windows_line_ends_and_bom(tablebase: Any) -> None:
    pgn = "\ufeff[FEN \"7k/R7/6K1/8/8/8/8/8 w - - 0 1\"]\r\n\r\n1. Rg7 1/2-1/2\r\n\r\n"
    text, rows, _ = _annotate(tablebase, pgn)
    assert len(rows) == 1 and text.startswith("\ufeff[FEN") and strip_notes(text) == pgn
    assert text.count("\r\n") == pgn.count("\r\n")
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and game.next().nags == {BLUNDER}  # type: ignore[union-attr]


def test_broken_and_variant_games_are_reported_and_kept(tablebase: Any) -> None:
    good = _game("7k/R7/6K1/8/8/8/8/8 w - - 0 1", ["Rg7"])
    broken = '[Event "Broken"]\n\n1. e4 e5 2. Qh8 *\n\n'
    variant = '[Variant "Atomic"]\n[FEN "7k/R7/6K1/8/8/8/8/8 w - - 0 1"]\n\n1. Rg7 *\n\n'
    bad_fen = '[FEN "not a fen"]\n\n1. e4 *\n\n'
    from pyfathom.annotate import annotate_stream

    out = io.StringIO()
    warnings: list[str] = []
    summary = annotate_stream(tablebase, io.StringIO(broken + good + variant + bad_fen + good),
                              out, warn=warnings.append)
    assert (summary.games_read, summary.broken, summary.variants, summary.mistakes) == (5, 2, 1, 2)
    assert not summary.ok  # the broken games; the variant game alone would not count
    assert warnings[0].startswith("game 1 ") and "illegal san" in warnings[0]
    assert warnings[1].startswith("game 3 ") and "Atomic" in warnings[1]
    assert warnings[2].startswith("game 4 ")
    text = out.getvalue()
    assert broken in text and variant in text and bad_fen in text


# ---- generated games against the python-chess annotator ------------------------------


def _compare(tablebase: Any, oracle: chess.syzygy.Tablebase, text: str,
             best_checks: int) -> tuple[int, int]:
    """Annotate ``text`` and check every game against the reference; return
    (games, mistakes)."""
    out, rows, summary = _annotate(tablebase, text)
    ref = pgn_games.ReferenceAnnotator(oracle, lambda b: bool(tablebase.probe(b).dtz_precise),
                                       tablebase.largest)
    assert strip_notes(out) == text
    games = pgn_games.read_games(text)
    back = pgn_games.read_games(out)
    assert len(back) == len(games) == summary.games_read
    mistakes = 0
    problems: list[str] = []
    rows_by_game: dict[tuple[int, int], Any] = {(r.game, r.move_index): r for r in rows}
    for number, (game, annotated) in enumerate(zip(games, back), 1):
        expected = ref.annotate(game, with_best=mistakes < best_checks)
        nodes = list(annotated.mainline())
        assert [n.move for n in nodes] == list(game.mainline_moves())
        marked = {i: n for i, n in enumerate(nodes) if n.nags & {BLUNDER, MISTAKE}}
        if sorted(marked) != [m.index for m in expected.mistakes]:
            problems.append(f"game {number}: marked {sorted(marked)}, "
                            f"expected {[m.index for m in expected.mistakes]}")
            continue
        if expected.first >= 0:
            host = annotated if expected.first == 0 else nodes[expected.first - 1]
            word = {1: "win", 0: "draw", -1: "loss"}[expected.first_result]
            if "TB: " not in host.comment or (word not in host.comment.split("TB: ")[1].split(")")[0]
                                               and "checkmated" not in host.comment):
                problems.append(f"game {number}: first verdict {host.comment!r}, expected {word}")
        for m in expected.mistakes:
            mistakes += 1
            node = marked[m.index]
            words = {1: "win", 0: "draw", -1: "loss"}
            kind = f"TB: {words[m.before]} -> {words[m.after]}"
            if not node.comment.startswith(kind) or m.nag not in node.nags or \
                    ("50-move rule" in node.comment.split(". Best")[0]) != m.fifty:
                problems.append(f"game {number} move {m.index}: {node.nags} {node.comment!r}, "
                                f"expected {kind} nag {m.nag} fifty {m.fifty}")
            row = rows_by_game.get((number, m.index))
            if row is None or row.kind != kind[4:] or row.nag != m.nag:
                problems.append(f"game {number} move {m.index}: report row {row}")
            if m.best_keys and m.best_keys.values():
                best_san = node.comment.split("Best: ")[1].split(" (")[0]
                best_dtz = node.comment.split("Best: ")[1].split("(DTZ ")[1].split(")")[0].split(" or ")[0]
                settled = {m.best_dtz}
                if m.best_on_edge:
                    settled.add(m.best_dtz + (1 if m.best_dtz > 0 else -1))
                if m.best_keys.get(best_san) != max(m.best_keys.values()) or \
                        int(best_dtz) not in settled:
                    problems.append(f"game {number} move {m.index}: best {best_san} DTZ {best_dtz}, "
                                    f"expected rank {max(m.best_keys.values())} DTZ {m.best_dtz}")
    assert not problems, f"{len(problems)} disagreements:\n" + "\n".join(problems[:20])
    assert summary.mistakes == mistakes == len(rows)
    return len(games), mistakes


@pytest.mark.slow
def test_generated_games_match_python_chess(tablebase: Any, oracle: chess.syzygy.Tablebase) -> None:
    """A few thousand weak-mover games from random 3-5-piece starts (5-piece
    starts reach the 3-4-piece tables after a capture), many with a halfmove
    clock near the limit: the same mistakes, NAGs, kinds, report rows and
    best moves (the best moves of the first 200 mistakes: each costs a
    python-chess probe per legal move) as the python-chess annotator."""
    n = 500 if SANITIZED else 1500
    games, mistakes = _compare(tablebase, oracle, pgn_games.generated_pgn(n, seed=16), 200)
    assert games == n and mistakes > n // 3


def test_generated_five_piece_games_match_python_chess(tmp_path: Path, syzygy5_dir: Path) -> None:
    """Games in KBBvKN and KRPvKR (../shared/syzygy5 with the 3-4-piece set):
    cursed wins and blessed losses, DTZ past 100."""
    import pyfathom
    from support import table_cache

    small = table_cache.tables_dir()
    with pyfathom.open_tablebase([small, syzygy5_dir]) as tb, \
            chess.syzygy.open_tablebase(str(small)) as oracle:
        oracle.add_directory(str(syzygy5_dir))
        text = pgn_games.generated_pgn(300, seed=5, keys=["KBBvKN", "KRPvKR"], five_share=0.0,
                                       plies=(2, 8))
        games, mistakes = _compare(tb, oracle, text, 60)
        assert games == 300 and mistakes > 40


# ---- command line --------------------------------------------------------------------


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pyfathom", "annotate", *args],
                          input=stdin, capture_output=True, text=True, timeout=300)


def test_cli_output_report_and_exit_status(syzygy_dir: Path, tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    text = pgn_games.generated_pgn(40, seed=3) + '[Event "Broken"]\n\n1. e4 e5 2. Qh8 *\n\n'
    pgn.write_text(text)
    out = tmp_path / "out.pgn"
    for report, fmt in ((tmp_path / "r.csv", "csv"), (tmp_path / "r.jsonl", "jsonl")):
        proc = _cli(str(pgn), "-o", str(out), "--tables", str(syzygy_dir), "--report", str(report))
        assert proc.returncode == 1, proc.stderr     # the broken game
        assert "game 41 " in proc.stderr and "Traceback" not in proc.stderr
        assert "41 games read" in proc.stderr
        lines = report.read_text().splitlines()
        if fmt == "csv":
            assert lines[0].startswith("game,event,site")
            assert lines[-1].startswith("# summary: 41 games read")
            rows = lines[1:-1]
        else:
            assert json.loads(lines[-1])["summary"]["games_read"] == 41
            rows = lines[:-1]
            assert all(json.loads(r)["nag"] in ("?", "??") for r in rows)
        marked = sum(1 for g in pgn_games.read_games(out.read_text()) for n in g.mainline()
                     if n.nags & {BLUNDER, MISTAKE})
        assert len(rows) == marked > 0
    # stdin to stdout gives the same text.
    proc = _cli("-", "--tables", str(syzygy_dir), stdin=text)
    assert proc.stdout == out.read_text()
    # Only good games: exit status 0; no leftover temporary file.
    good = tmp_path / "good.pgn"
    good.write_text(pgn_games.generated_pgn(5, seed=4))
    proc = _cli(str(good), "-o", str(tmp_path / "good-out.pgn"), "--tables", str(syzygy_dir))
    assert proc.returncode == 0, proc.stderr
    assert not list(tmp_path.glob(".*.part"))


def test_cli_refuses_to_overwrite_its_input(syzygy_dir: Path, tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    text = pgn_games.generated_pgn(3, seed=3)
    pgn.write_text(text)
    proc = _cli(str(pgn), "-o", str(pgn), "--tables", str(syzygy_dir))
    assert proc.returncode == 2 and "is the input file" in proc.stderr
    assert pgn.read_text() == text
    proc = _cli(str(pgn), "--report", str(tmp_path / "r.txt"), "--tables", str(syzygy_dir))
    assert proc.returncode == 2 and ".csv or .jsonl" in proc.stderr
    proc = _cli(str(tmp_path / "missing.pgn"), "--tables", str(syzygy_dir))
    assert proc.returncode == 1 and "cannot read" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.measures_memory
def test_memory_stays_flat_over_a_long_stream(tablebase: Any) -> None:
    """Games are streamed: peak traced memory for 2,000 games is about that
    for 200."""
    import tracemalloc

    from pyfathom.annotate import annotate_stream

    one = pgn_games.generated_pgn(200, seed=9)

    def peak(copies: int) -> int:
        class Source(io.TextIOBase):
            def __init__(self) -> None:
                self.left = copies
                self.current = io.StringIO(one)

            def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
                line = self.current.readline()
                if not line and self.left > 1:
                    self.left -= 1
                    self.current = io.StringIO(one)
                    line = self.current.readline()
                return line

        class Sink(io.TextIOBase):
            def write(self, s: str) -> int:
                return len(s)

        tracemalloc.start()
        try:
            annotate_stream(tablebase, Source(), Sink())
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, big = peak(1), peak(10)
    assert big < small * 1.5 + 200_000, (small, big)


def test_random_clock_rounding_cases_exist(tablebase: Any) -> None:
    """The generated games do reach the doubtful '?' case the rules describe."""
    _, rows, summary = _annotate(tablebase, pgn_games.generated_pgn(600, seed=16))
    assert summary.doubtful > 0 and any(r.nag == MISTAKE for r in rows)


def test_module_examples(syzygy_dir: Path) -> None:
    import doctest

    import pyfathom
    import importlib
    import pkgutil

    import pyfathom.annotate

    # doctest looks only at what a module defines: every module of the package.
    names = ["pyfathom.annotate"] + [f"pyfathom.annotate.{m.name}"
                                     for m in pkgutil.iter_modules(pyfathom.annotate.__path__)]
    failed = attempted = 0
    for name in names:
        result = doctest.testmod(importlib.import_module(name),
                                 extraglobs={"TABLES": str(syzygy_dir), "pyfathom": pyfathom},
                                 optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        failed += result.failed
        attempted += result.attempted
    assert len(names) > 5 and failed == 0 and attempted > 3


def test_readme_example(tablebase: Any) -> None:
    """The annotation page's before/after example (docs/annotate.md, once
    the README's) is what the annotator writes."""
    section = (ROOT / "docs" / "annotate.md").read_text()
    blocks = section.split("```\n")
    before = next(b for b in blocks if b.startswith("[Event"))
    after = next(b for b in blocks if b.startswith("{TB:"))
    text, rows, summary = _annotate(tablebase, before)
    assert summary.games_read == 3 and len(rows) == 3
    written = text.splitlines()
    for line in after.splitlines():
        shown = line.split(" ...")[0]
        assert any(w.startswith(shown) for w in written), line
    assert strip_notes(text) == before


def test_benchmark_runs(syzygy_dir: Path, tmp_path: Path) -> None:
    pgn = tmp_path / "g.pgn"
    pgn.write_text(pgn_games.generated_pgn(30, seed=2))
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_annotate.py"),
                           "--pgn", str(pgn), "--tables", str(syzygy_dir), "--rounds", "1",
                           "--oracle-games", "5", "--json"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["games"] == 30 and result["cli_status"] in (0, 1)
    assert result["annotate_over_read"]["median"] > 0 and result["per_board_us"] > 0


def test_rewrite_when_the_moves_cannot_be_located(tablebase: Any,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Should the text scan ever disagree with python-chess's reader (a game
    python-chess reads, not the C replay, whose moves come from the scan),
    the game is rewritten by python-chess's exporter, notes included."""
    import pyfathom.annotate.reading
    import pyfathom.annotate.stream

    monkeypatch.setattr(pyfathom.annotate.stream, "_replay", lambda *args: None)
    monkeypatch.setattr(pyfathom.annotate.reading, "_mainline_spans", lambda lines: (-1, []))
    text, rows, _ = _annotate(tablebase, _game("7k/R7/6K1/8/8/8/8/8 w - - 0 1", ["Rg7"],
                                               Event="Fallback"))
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and game.headers["Event"] == "Fallback"
    node = game.next()
    assert node is not None and node.nags == {BLUNDER} and node.comment.startswith("TB: win -> draw")
    assert game.comment.startswith("TB: White to move: win") and len(rows) == 1


def test_missing_table_is_reported_once_per_game(syzygy_dir: Path, tmp_path: Path) -> None:
    import pyfathom
    from pyfathom.annotate import annotate_stream

    for name in ("KRvK.rtbw", "KRvK.rtbz"):
        (tmp_path / name).symlink_to(syzygy_dir / name)
    krk = _game("7k/R7/6K1/8/8/8/8/8 w - - 0 1", ["Rg7"])
    kqk = _game("7k/Q7/6K1/8/8/8/8/8 w - - 0 1", ["Qb7", "Kg8", "Qc8#"])
    warnings: list[str] = []
    out = io.StringIO()
    with pyfathom.open_tablebase(tmp_path) as tb:
        summary = annotate_stream(tb, io.StringIO(krk + kqk), out, warn=warnings.append)
    assert summary.mistakes == 1 and summary.failed_probes == 4 and not summary.ok
    assert len(warnings) == 1 and warnings[0].startswith("game 2 ")
    assert "KQvK" in warnings[0] and "and 3 more positions" in warnings[0]
    assert out.getvalue().endswith(kqk)


def test_lichess_and_chesscom_headers(tablebase: Any) -> None:
    """lichess's 'From Position' and Chess960 games are standard chess for the
    tables; chess.com's clock comments with tenths are kept."""
    body = '[FEN "7k/R7/6K1/8/8/8/8/8 w - - 0 1"]\n[SetUp "1"]\n\n1. Rg7 {[%clk 0:02:59.9]} 1/2-1/2\n\n'
    pgn = ('[Variant "From Position"]\n' + body + '[Variant "Chess960"]\n' + body
           + '[Variant "Crazyhouse"]\n' + body)
    text, rows, summary = _annotate(tablebase, pgn)
    assert [r.game for r in rows] == [1, 2] and summary.variants == 1
    assert strip_notes(text) == pgn
    games = pgn_games.read_games(text)
    assert games[0].next().clock() == pytest.approx(179.9)  # type: ignore[union-attr]


def test_cli_progress_bar_on_a_terminal(syzygy_dir: Path, tmp_path: Path) -> None:
    import pty

    pgn = tmp_path / "games.pgn"
    pgn.write_text(pgn_games.generated_pgn(20, seed=8))
    master, slave = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "pyfathom", "annotate", str(pgn), "-o",
                               str(tmp_path / "out.pgn"), "--tables", str(syzygy_dir)],
                              stderr=slave, stdout=subprocess.DEVNULL, timeout=300)
        os.close(slave)
        slave = -1
        seen = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)
    assert proc.returncode == 0
    text = seen.decode(errors="replace")
    assert "games/s" in text and "annotate" in text and "20 games read" in text
