"""Draw the recorded benchmark figures (``figures.json`` beside this file)
as SVG bar charts, one per entry, medians with the rounds' range.

    python benchmarks/plot_figures.py OUTDIR

The documentation build runs it (docs/_ext/benchmark_plots.py), so the
pictures on the performance page always show the figures the file holds;
nothing is drawn by hand.  Needs matplotlib (the ``docs`` extra).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

FIGURES = Path(__file__).resolve().parent / "figures.json"


def load(path: Path = FIGURES) -> dict[str, Any]:
    """The recorded figures: name -> {title, source, unit, rows}."""
    data = json.loads(path.read_text())
    return {name: entry for name, entry in data.items() if isinstance(entry, dict)}


def draw(name: str, entry: dict[str, Any], out: Path, fmt: str = "svg") -> Path:
    """One horizontal bar chart, medians and (where recorded) ranges."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = entry["rows"]
    labels = [row["label"] for row in rows]
    medians = [row["median"] for row in rows]
    below = [row["median"] - row.get("low", row["median"]) for row in rows]
    above = [row.get("high", row["median"]) - row["median"] for row in rows]
    fig, ax = plt.subplots(figsize=(7.5, 0.5 * len(rows) + 1.4))
    ax.barh(range(len(rows)), medians, xerr=[below, above], color="#3b7dd8",
            ecolor="#333333", capsize=3)
    ax.set_yticks(range(len(rows)), labels)
    ax.invert_yaxis()
    if entry.get("log"):  # figures orders of magnitude apart
        ax.set_xscale("log")
    ax.set_xlabel(entry["unit"] + (" (log scale)" if entry.get("log") else ""))
    ax.set_title(entry["title"], fontsize=10)
    for i, value in enumerate(medians):
        ax.text(value, i, f" {value:g}", va="center", fontsize=8)
    fig.text(0.01, 0.01, entry["source"], fontsize=7, color="#555555")
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    path = out / f"{name}.{fmt}"
    # No timestamp in an SVG, so an unchanged record gives the same bytes.
    fig.savefig(path, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--figures", type=Path, default=FIGURES)
    parser.add_argument("--format", default="svg", choices=("svg", "png"))
    args = parser.parse_args(argv)
    args.outdir.mkdir(parents=True, exist_ok=True)
    for name, entry in load(args.figures).items():
        print(draw(name, entry, args.outdir, args.format))
    return 0


if __name__ == "__main__":
    sys.exit(main())
