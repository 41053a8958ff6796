"""The ``--report`` file of ``pyfathom annotate`` (a row per mistake) and
the :class:`Summary` of a run."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from typing import IO, Any

import chess

from pyfathom.annotate.analysis import Mistake
from pyfathom.annotate.verdict import NAG_MISTAKE, RESULT_WORDS, _dtz_text
from pyfathom.annotate.writing import _nag_text

REPORT_HEADERS = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
#: The columns of the mistakes report (CSV header, JSON keys), in order.
REPORT_FIELDS = ("game", *(h.lower() for h in REPORT_HEADERS), "ply", "move", "side", "nag",
                 "before", "after", "fifty_move", "doubt", "dtz_before", "dtz_after",
                 "halfmove_clock", "best_move", "best_dtz", "fen")


def report_row(m: Mistake) -> dict[str, Any]:
    """One report row (the keys are :data:`REPORT_FIELDS`)."""
    row: dict[str, Any] = {"game": m.game}
    for name in REPORT_HEADERS:
        row[name.lower()] = m.headers.get(name, "")
    row.update({
        "ply": m.ply,
        "move": m.label,
        "side": "white" if m.board.turn == chess.WHITE else "black",
        "nag": _nag_text(m.nag),
        "before": RESULT_WORDS[m.result_before],
        "after": RESULT_WORDS[m.result_after],
        "fifty_move": m.before.fifty or m.after.fifty,
        "doubt": m.nag == NAG_MISTAKE,
        "dtz_before": _dtz_text(m.before.dtz, m.before.precise),
        "dtz_after": _dtz_text(m.after.dtz, m.after.precise),
        "halfmove_clock": m.before.clock,
        "best_move": m.best_san,
        "best_dtz": _dtz_text(m.best_dtz, m.best_precise),
        "fen": m.fen,
    })
    return row


class ReportWriter:
    """The ``--report`` file: one row per :class:`Mistake` (:data:`REPORT_FIELDS`),
    then the :class:`Summary` (a ``# summary: ...`` line in CSV, an object
    ``{"summary": ...}`` in JSONL)."""

    def __init__(self, handle: IO[str], fmt: str) -> None:
        if fmt not in ("csv", "jsonl"):
            raise ValueError(f"report format must be csv or jsonl, not {fmt!r}")
        self.handle = handle
        self.fmt = fmt
        self.csv: Any = None
        if fmt == "csv":
            self.csv = csv.DictWriter(handle, fieldnames=REPORT_FIELDS, lineterminator="\n")
            self.csv.writeheader()

    def row(self, m: Mistake) -> None:
        if self.csv is not None:
            self.csv.writerow(report_row(m))
        else:
            self.handle.write(json.dumps(report_row(m)) + "\n")

    def summary(self, s: Summary) -> None:
        if self.csv is not None:
            self.handle.write(f"# summary: {s.text()}\n")
        else:
            self.handle.write(json.dumps({"summary": s.as_dict()}) + "\n")



@dataclass
class Summary:
    """Counts over a run."""

    games_read: int = 0
    games_in_tables: int = 0
    positions_probed: int = 0
    broken: int = 0
    variants: int = 0
    failed_probes: int = 0
    mistakes: int = 0
    doubtful: int = 0
    by_kind: dict[str, int] = field(default_factory=lambda: {
        "win -> draw": 0, "win -> loss": 0, "draw -> loss": 0})

    def as_dict(self) -> dict[str, Any]:
        return {"games_read": self.games_read, "games_in_tables": self.games_in_tables,
                "positions_probed": self.positions_probed, "broken_games": self.broken,
                "variant_games": self.variants, "failed_probes": self.failed_probes,
                "mistakes": self.mistakes, "doubtful": self.doubtful,
                "by_kind": dict(self.by_kind)}

    def text(self) -> str:
        kinds = ", ".join(f"{k} {v}" for k, v in self.by_kind.items())
        text = (f"{_plural(self.games_read, 'game')} read, {self.games_in_tables} reaching the "
                f"tables, {_plural(self.mistakes, 'mistake')} ({kinds}; {self.doubtful} of them '?': "
                f"DTZ rounding leaves doubt)")
        skipped = []
        if self.broken:
            skipped.append(f"{self.broken} broken")
        if self.variants:
            skipped.append(f"{self.variants} of other variants (written back unchanged; "
                           f"not a failure)")
        if skipped:
            text += f"; skipped {' and '.join(skipped)}"
        if self.failed_probes:
            text += f"; {self.failed_probes} positions could not be probed"
        return text

    @property
    def ok(self) -> bool:
        """True when every game was read and every position in range probed
        (games of other variants are not asked for: skipping them is fine)."""
        return not (self.broken or self.failed_probes)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")
