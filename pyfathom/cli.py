"""The ``pyfathom`` command (also ``python -m pyfathom``).

Subcommands::

    pyfathom download [--dest DIR] [--source URL_OR_DIR [--checksums FILE]]
    pyfathom probe FEN [FEN ...] [--tables DIR] [--json]
    pyfathom info [MATERIAL ...] [--tables DIR]
    pyfathom batch FILE [--tables DIR] [--threads N] [--dtz] [-o OUT]
                   [--format csv|jsonl] [--strict]

Tables are looked up from ``--tables``, else ``$SYZYGY_PATH``, else the
directory ``pyfathom download`` fills (see :func:`pyfathom.download.default_dir`).

Every error is one line on stderr and a non-zero exit status, never a
traceback: 1 for a failure (bad position, missing tables, bad lines in a
batch), 2 for wrong usage.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, NoReturn

__all__ = ["main"]

PROG = "pyfathom"

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2


class CliError(Exception):
    """An error shown as one line on stderr; exit status EXIT_FAIL."""


def _err(message: str) -> None:
    sys.stderr.write(f"{PROG}: {message}\n")
    sys.stderr.flush()


# --- progress bar (stderr, TTY only) ------------------------------------------


class ProgressBar:
    """A one-line progress bar on stderr, drawn only when stderr is a TTY.

    ``update(done, total)`` redraws at most ten times a second; total 0 means
    unknown (no bar, no ETA, just the count and the rate).
    """

    def __init__(self, label: str, unit: str = "", stream: IO[str] | None = None,
                 enabled: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.enabled = enabled
        self.label = label
        self.unit = unit
        self.start = time.monotonic()
        self.last = 0.0
        self.drawn = False

    def update(self, done: int, total: int = 0, label: str | None = None, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self.last < 0.1:
            return
        self.last = now
        if label is not None:
            self.label = label
        elapsed = max(now - self.start, 1e-9)
        rate = done / elapsed
        text = f"{self.label} {_count(done, self.unit)}"
        if total > 0:
            frac = min(done / total, 1.0)
            width = 24
            filled = int(frac * width)
            bar = "#" * filled + "-" * (width - filled)
            text = f"{self.label} [{bar}] {frac * 100:5.1f}% {_count(done, self.unit)}/{_count(total, self.unit)}"
            if 0 < done < total and rate > 0:
                text += f" ETA {_duration((total - done) / rate)}"
        text += f" {_count(int(rate), self.unit)}/s"
        self.stream.write("\r" + text[:200] + "\x1b[K")
        self.stream.flush()
        self.drawn = True

    def update_lines(self, lines: int, done_bytes: int, total_bytes: int) -> None:
        """Batch progress: the fraction and ETA from bytes read (when the
        input size is known), the count and the rate in lines."""
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last < 0.1:
            return
        self.last = now
        elapsed = max(now - self.start, 1e-9)
        rate = lines / elapsed
        text = f"{self.label} {lines:,} lines, {rate:,.0f} lines/s"
        if total_bytes > 0:
            frac = min(done_bytes / total_bytes, 1.0)
            filled = int(frac * 24)
            text = f"{self.label} [{'#' * filled}{'-' * (24 - filled)}] {frac * 100:5.1f}% " + text[len(self.label) + 1:]
            if 0 < done_bytes < total_bytes:
                text += f", ETA {_duration((total_bytes - done_bytes) / (done_bytes / elapsed))}"
        self.stream.write("\r" + text[:200] + "\x1b[K")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.enabled and self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False


def _count(n: int, unit: str) -> str:
    if unit == "B":
        value = float(n)
        for suffix in ("B", "KiB", "MiB", "GiB"):
            if value < 1024:
                return f"{value:.0f} B" if suffix == "B" else f"{value:.1f} {suffix}"
            value /= 1024
        return f"{value:.1f} TiB"
    return f"{n:,}{(' ' + unit) if unit else ''}"


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


# --- tables -----------------------------------------------------------------------


def _download_hint(dirs: Sequence[Path], origin: str) -> str:
    if origin == "default":
        return f"{PROG} download"
    return f"{PROG} download --dest {shlex.quote(str(dirs[0]))}"


_VARIANT_CHOICES = ("chess", "atomic", "suicide", "giveaway", "antichess")


def _variant_board(variant: str | None) -> Any:
    """The python-chess board class of a --variant name."""
    import chess
    import chess.variant

    if not variant or variant == "chess":
        return chess.Board
    return chess.variant.find_variant(variant)


def _open_tables(explicit: Sequence[str] | None, variant: str | None = None) -> Any:
    """Open a Tablebase over the looked-up directories (the tables of a
    --variant if given), or raise CliError."""
    from . import download

    dirs, origin = download.table_dirs(explicit)
    if variant and variant != "chess":
        return _open_variant_tables(dirs, variant)
    if not download.find_table_files(dirs):
        where = os.pathsep.join(str(d) for d in dirs)
        source = {"--tables": "--tables", "SYZYGY_PATH": "$SYZYGY_PATH", "default": "the default directory"}[origin]
        raise CliError(
            f"no Syzygy tables found in {where} ({source}); "
            f"run: {_download_hint(dirs, origin)}"
        )
    import pyfathom

    tb = pyfathom.Tablebase()
    for d in dirs:
        if d.is_dir():
            tb.add_directory(str(d))
    return tb


def _open_variant_tables(dirs: Sequence[Path], variant: str) -> Any:
    import pyfathom

    tb = pyfathom.Tablebase(VariantBoard=_variant_board(variant))
    found = sum(tb.add_directory(str(d)) for d in dirs if d.is_dir())
    if not found:
        tb.close()
        where = os.pathsep.join(str(d) for d in dirs)
        raise CliError(f"no {variant} Syzygy tables found in {where} (see --tables)")
    return tb


# --- probe -----------------------------------------------------------------------

_WDL_WORDS = {-2: "loss", -1: "blessed loss", 0: "draw", 1: "cursed win", 2: "win"}


def _signed(value: int) -> str:
    return f"{value:+d}" if value else "0"


def _dtz_text(dtz: int, precise: bool | None) -> str:
    if precise is False and dtz != 0:
        # A rounded value may be one ply short: n or n+1 (away from zero).
        other = dtz + 1 if dtz > 0 else dtz - 1
        return f"{dtz} or {other}"
    return str(dtz)


def _move_dtz_precise(tb: Any, board: Any, move: Any) -> bool | None:
    """Whether a root move's DTZ is exact: a zeroing move's is (1 ply);
    otherwise it is as exact as the DTZ of the position the move leads to."""
    if board.is_zeroing(move):
        return True
    child = board.copy(stack=False)
    child.push(move)
    if child.is_checkmate() or child.is_stalemate():
        return True
    try:
        return bool(tb.probe(child).dtz_precise)
    except (KeyError, ValueError, OSError):
        return None


def _probe_one(tb: Any, fen: str) -> dict[str, Any]:
    """Probe a FEN; return a JSON-ready dict (raises CliError)."""
    import chess

    import pyfathom

    try:
        board = getattr(tb, "_board_type", chess.Board)(fen)
    except ValueError as e:
        raise CliError(f"invalid FEN {fen!r}: {e}") from None
    try:
        probe = tb.probe(board)
        root = tb.probe_root(board)
    except pyfathom.FathomError as e:
        raise CliError(f"{fen}: {e}") from None
    except (KeyError, ValueError, OSError) as e:
        raise CliError(f"{fen}: {e.args[0] if e.args else e}") from None
    moves = []
    for rm in root.moves:
        precise = _move_dtz_precise(tb, board, rm.move)
        moves.append({
            "uci": rm.move.uci(),
            "san": board.san(rm.move),
            "wdl": int(rm.wdl),
            "dtz": int(rm.dtz),
            "dtz_precise": None if precise is None else bool(precise),
            "rank": int(rm.rank),
        })
    if board.is_checkmate():
        state = "checkmate"
    elif board.is_stalemate():
        state = "stalemate"
    else:
        state = None
    return {
        "fen": board.fen(),
        "turn": "white" if board.turn else "black",
        "wdl": int(probe.wdl),
        "dtz": int(probe.dtz),
        "dtz_precise": bool(probe.dtz_precise),
        "wdl_50": int(root.wdl),
        "halfmove_clock": board.halfmove_clock,
        "state": state,
        "best_move": root.best_move.uci() if root.best_move is not None else None,
        "best_move_san": board.san(root.best_move) if root.best_move is not None else None,
        "moves": moves,
    }


def _print_probe(result: dict[str, Any], out: IO[str]) -> None:
    wdl = result["wdl"]
    lines = [result["fen"]]
    head = (f"  {result['turn']} to move: {_WDL_WORDS[wdl]} (WDL {_signed(wdl)}), "
            f"DTZ {_dtz_text(result['dtz'], result['dtz_precise'])}")
    if not result["dtz_precise"] and result["dtz"] != 0:
        head += " (DTZ stored rounded to moves: may be one ply more)"
    lines.append(head)
    if result["wdl_50"] != wdl:
        lines.append(f"  with the halfmove clock at {result['halfmove_clock']}: "
                     f"{_WDL_WORDS[result['wdl_50']]} under the 50-move rule")
    if result["state"] == "checkmate":
        lines.append(f"  checkmate: {result['turn']} is mated")
    elif result["state"] == "stalemate":
        lines.append("  stalemate")
    if result["moves"]:
        rows = [("move", "result", "WDL", "DTZ")]
        for m in result["moves"]:
            rows.append((m["san"], _WDL_WORDS[m["wdl"]], _signed(m["wdl"]), _dtz_text(m["dtz"], m["dtz_precise"])))
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        for r in rows:
            lines.append("  " + "  ".join([
                r[0].ljust(widths[0]), r[1].ljust(widths[1]),
                r[2].rjust(widths[2]), r[3].rjust(widths[3]),
            ]).rstrip())
    out.write("\n".join(lines) + "\n")


def cmd_probe(args: argparse.Namespace) -> int:
    tb = _open_tables(args.tables, getattr(args, "variant", None))
    status = EXIT_OK
    results: list[dict[str, Any]] = []
    try:
        for i, fen in enumerate(args.fens):
            try:
                result = _probe_one(tb, fen)
            except CliError as e:
                _err(str(e))
                status = EXIT_FAIL
                if args.json:
                    results.append({"fen": fen, "error": str(e)})
                continue
            if args.json:
                results.append(result)
            else:
                if i:
                    sys.stdout.write("\n")
                _print_probe(result, sys.stdout)
    finally:
        tb.close()
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return status


# --- info --------------------------------------------------------------------------

_ORDER = "KQRBNP"
_MATERIAL = re.compile(r"^(K[QRBNP]*)v(K[QRBNP]*)$")


def _sort_side(side: str) -> str:
    return "".join(sorted(side, key=_ORDER.index))


def normalize_material(material: str) -> str:
    """The Syzygy file stem for a material: ``KRvKQ`` -> ``KQvKR``.

    The side with more pieces comes first; with as many, the side whose
    pieces sorted K, Q, R, B, N, P come first in that order.
    """
    m = _MATERIAL.match(material.strip())
    if m is None:
        raise CliError(f"not a material like KRPvKR: {material!r}")
    a, b = _sort_side(m.group(1)), _sort_side(m.group(2))

    def key(side: str) -> tuple[int, list[int]]:
        return (-len(side), [_ORDER.index(c) for c in side])

    if key(b) < key(a):
        a, b = b, a
    return f"{a}v{b}"


def needed_materials(material: str) -> list[str]:
    """The table itself plus every table reachable by captures and promotions."""
    start = normalize_material(material)
    seen = {start}
    todo = [start]
    while todo:
        white, black = todo.pop().split("v")
        successors = []
        for side, other, first in ((white, black, True), (black, white, False)):
            for i, piece in enumerate(side):
                if piece == "K":
                    continue
                rest = side[:i] + side[i + 1:]
                # A capture of this piece.
                successors.append((rest, other) if first else (other, rest))
                if piece == "P":
                    for promo in "QRBN":
                        promoted = rest + promo
                        successors.append((promoted, other) if first else (other, promoted))
        for w, b in successors:
            if w == "K" and b == "K":
                continue  # KvK has no table
            key = normalize_material(f"{w}v{b}")
            if key not in seen:
                seen.add(key)
                todo.append(key)
    return sorted(seen, key=lambda k: (-(len(k) - 1), k))


def cmd_info(args: argparse.Namespace) -> int:
    from . import download

    dirs, origin = download.table_dirs(args.tables)
    files = download.find_table_files(dirs)
    out = sys.stdout
    out.write("directories: " + os.pathsep.join(str(d) for d in dirs) + f" ({origin})\n")
    if not files:
        raise CliError(
            f"no Syzygy tables found in {os.pathsep.join(str(d) for d in dirs)}; "
            f"run: {_download_hint(dirs, origin)}"
        )
    counts: dict[int, list[int]] = {}
    for name in files:
        pieces = len(name.split(".")[0]) - 1
        wdl_dtz = counts.setdefault(pieces, [0, 0])
        wdl_dtz[0 if name.endswith(".rtbw") else 1] += 1
    for pieces in sorted(counts):
        wdl, dtz = counts[pieces]
        out.write(f"{pieces}-piece tables: {wdl} WDL, {dtz} DTZ\n")
    tb = _open_tables(args.tables)
    try:
        largest = tb.largest
    finally:
        tb.close()
    out.write(f"largest: {largest} pieces\n")
    status = EXIT_OK
    for material in args.materials:
        needed = needed_materials(material)
        missing = [f"{m}.{ext}" for m in needed for ext in ("rtbw", "rtbz") if f"{m}.{ext}" not in files]
        name = normalize_material(material)
        if missing:
            status = EXIT_FAIL
            out.write(f"{name}: needs {len(needed)} tables, missing {len(missing)} files: {' '.join(missing)}\n")
        else:
            out.write(f"{name}: all {len(needed)} needed tables present ({' '.join(needed)})\n")
    return status


# --- download -----------------------------------------------------------------------


def cmd_download(args: argparse.Namespace) -> int:
    from . import download

    dest = Path(args.dest).expanduser() if args.dest else download.default_dir()
    if args.source:
        return _mirror(args, dest)
    if args.checksums:
        raise CliError("--checksums needs --source")
    bar = ProgressBar("extracting", "files")
    try:
        written = download.download_default(
            dest, archive=args.archive,
            progress=lambda name, i, total: bar.update(i, total, force=i == total),
            log=lambda text: _err(text) if bar.enabled else None,
        )
    except download.DownloadError as e:
        raise CliError(str(e)) from None
    finally:
        bar.close()
    if written == 0:
        print(f"nothing to do: all 70 tables are already in {dest}")
    else:
        print(f"downloaded {written} table files to {dest} (checksums verified)")
    return EXIT_OK


def _mirror(args: argparse.Namespace, dest: Path) -> int:
    from . import download

    bar = ProgressBar("", "B")
    try:
        checksums = download.read_checksums(args.checksums) if args.checksums else None
        result = download.mirror(
            args.source, dest, checksums=checksums,
            progress=lambda name, done, total: bar.update(done, total, label=name),
        )
    except download.DownloadError as e:
        raise CliError(str(e)) from None
    finally:
        bar.close()
    for name, reason in result.failed:
        _err(f"{name}: {reason}" if not reason.startswith(name) else reason)
    if not result.fetched and not result.failed:
        print(f"nothing to do: all {len(result.skipped)} table files are already in {dest}")
    else:
        print(f"{len(result.fetched)} fetched, {len(result.skipped)} already present, "
              f"{len(result.failed)} failed -> {dest}")
    return EXIT_FAIL if result.failed else EXIT_OK


# --- batch -------------------------------------------------------------------------

_MAX_REPORTED = 100


def cmd_batch(args: argparse.Namespace) -> int:
    from . import batchio

    if args.threads is not None and args.threads < 0:
        raise CliError(f"--threads must be >= 0, not {args.threads}")
    try:
        stream, size = batchio.open_input(args.file)
    except OSError as e:
        raise CliError(f"cannot read {args.file}: {e.strerror or e}") from None
    tb = _open_tables(args.tables, getattr(args, "variant", None))
    out_file: IO[str]
    if args.output and args.output != "-":
        try:
            out_file = open(args.output, "w", encoding="utf-8", newline="")
        except OSError as e:
            tb.close()
            raise CliError(f"cannot write {args.output}: {e.strerror or e}") from None
    else:
        out_file = sys.stdout
    bar = ProgressBar("batch", "lines")
    reported = 0

    def on_bad(line: int, text: str, reason: str) -> None:
        nonlocal reported
        reported += 1
        if reported <= _MAX_REPORTED:
            bar.close()
            shown = text if len(text) <= 100 else text[:97] + "..."
            _err(f"{args.file}:{line}: {reason}: {shown!r}")
        elif reported == _MAX_REPORTED + 1:
            bar.close()
            _err("more bad lines not shown (see the status column)")

    def progress(lines: int, nbytes: int) -> None:
        bar.update_lines(lines, nbytes, size)

    try:
        stats = batchio.run_batch(
            tb, stream, out_file, fmt=args.format, dtz=args.dtz,
            threads=args.threads, strict=args.strict, on_bad=on_bad, progress=progress,
        )
    finally:
        bar.close()
        tb.close()
        if out_file is not sys.stdout:
            out_file.close()
        else:
            out_file.flush()
        if stream is not sys.stdin.buffer:
            stream.close()
    elapsed = time.monotonic() - bar.start
    parts = ", ".join(f"{count} {name}" for name, count in (stats.by_status or {}).items()
                      if name != "ok" and count)
    summary = (f"{stats.lines} lines: {stats.probed} probed, {stats.bad} bad"
               + (f" ({parts})" if parts else "")
               + f" in {elapsed:.2f}s")
    if args.strict and stats.bad:
        summary += "; stopped at the first bad line (--strict)"
    _err(summary)
    return EXIT_FAIL if stats.bad else EXIT_OK


# --- main ---------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line (and exit status 2)."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: {message} (see {self.prog} --help)\n")
        raise SystemExit(EXIT_USAGE)


def _parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = _Parser(
        prog=PROG,
        description="Probe Syzygy endgame tablebases (WDL, DTZ, best moves) from the command line.",
        epilog="Tables are looked up from --tables, else $SYZYGY_PATH, else the directory "
               "'pyfathom download' fills.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    tables_help = ("table directory (repeatable, or a list separated by "
                   f"{os.pathsep!r}); default: $SYZYGY_PATH, else the download directory")

    p = sub.add_parser("download", help="fetch the 3-4-piece tables, or mirror a table set",
                       description="Without --source: fetch the 35 regular 3- and 4-piece tables "
                                   "(70 files, 4.5 MB) from python-chess 1.11.2's source distribution "
                                   "with pip, checking every checksum. With --source: mirror the "
                                   ".rtbw/.rtbz files of an HTTP directory listing or a local folder, "
                                   "resuming partial files.")
    p.add_argument("--dest", metavar="DIR", help="destination directory (default: the per-user data "
                                                 "directory, $PYFATHOM_HOME/syzygy if set)")
    p.add_argument("--source", metavar="URL_OR_DIR", help="HTTP index URL or local folder to mirror")
    p.add_argument("--checksums", metavar="FILE", help="sha256sum-format file to verify mirrored files")
    p.add_argument("--archive", metavar="FILE",
                   help="use this already downloaded chess-1.11.2.tar.gz instead of fetching it")
    p.set_defaults(func=cmd_download)

    p = sub.add_parser("probe", help="WDL, DTZ and every legal move ranked",
                       description="Probe positions: WDL and DTZ of the side to move, and every "
                                   "legal move ranked best first with its WDL and DTZ.")
    p.add_argument("fens", nargs="+", metavar="FEN")
    p.add_argument("--tables", action="append", metavar="DIR", help=tables_help)
    p.add_argument("--json", action="store_true", help="print a JSON array, one object per FEN")
    p.add_argument("--variant", choices=_VARIANT_CHOICES, default="chess",
                   help="the game of the positions and tables (default: chess)")
    p.set_defaults(func=cmd_probe)

    p = sub.add_parser("info", help="tables found, largest, and what a material needs",
                       description="Show the tables found per piece count and the largest; for "
                                   "each MATERIAL (e.g. KRPvKR) list the needed tables that are missing "
                                   "(the table itself and those reached by captures and promotions); exit status 1 "
                                   "when some are missing.")
    p.add_argument("materials", nargs="*", metavar="MATERIAL")
    p.add_argument("--tables", action="append", metavar="DIR", help=tables_help)
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("batch", help="probe a file of FEN/EPD lines",
                       description="Probe every line of a FEN or EPD file (or - for stdin), streamed "
                                   "in chunks; one output row (fen, wdl, dtz, status) per input line, "
                                   "in order. Bad lines are reported on stderr with their line numbers. "
                                   "Exit status 0 when every line was probed, 1 otherwise.")
    p.add_argument("file", metavar="FILE", help="input file, or - for stdin")
    p.add_argument("--tables", action="append", metavar="DIR", help=tables_help)
    p.add_argument("--threads", type=int, metavar="N", help="probe threads (default: every core)")
    p.add_argument("--dtz", action="store_true", help="also probe DTZ")
    p.add_argument("-o", "--output", metavar="OUT", help="output file (default: stdout)")
    p.add_argument("--format", choices=("csv", "jsonl"), default="csv", help="output format (default: csv)")
    p.add_argument("--strict", action="store_true", help="stop at the first bad line")
    p.add_argument("--variant", choices=_VARIANT_CHOICES, default="chess",
                   help="the game of the positions and tables (default: chess)")
    p.set_defaults(func=cmd_batch)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version, usage errors
        return int(e.code) if isinstance(e.code, int) else EXIT_USAGE
    if args.command is None:
        _err("a command is required: download, probe, info or batch (see pyfathom --help)")
        return EXIT_USAGE
    try:
        return int(args.func(args))
    except CliError as e:
        _err(str(e))
        return EXIT_FAIL
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, and point
        # stdout at devnull so the interpreter's final flush cannot fail.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return EXIT_FAIL
    except Exception as e:  # never a traceback
        _err(f"error: {type(e).__name__}: {e}")
        return EXIT_FAIL
