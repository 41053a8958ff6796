"""The performance page's pictures, drawn at build time by
``benchmarks/plot_figures.py`` from ``benchmarks/figures.json`` (the
recorded benchmark figures) and served as ``_static/plots/NAME.svg``."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "plot_figures.py"


def _draw(app: Sphinx, config: Config) -> None:
    spec = importlib.util.spec_from_file_location("plot_figures", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # Beside the sources (git-ignored), not under the output folder, where
    # Sphinx refuses static folders (its default doctree folder is in there).
    static = Path(app.confdir) / "_generated" / "benchmark-plots"
    out = static / "plots"
    out.mkdir(parents=True, exist_ok=True)
    for name, entry in module.load().items():
        module.draw(name, entry, out)
    config.html_static_path = [*config.html_static_path, str(static)]


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _draw)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
