"""Run the ``>>>`` examples of every pyfathom module against the test tables.

The examples refer to the tables as ``TABLES`` (and use ``chess`` and
``pyfathom`` without importing them); this file provides those names.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import chess
import pytest

import pyfathom

MODULES = [
    "pyfathom",
    "pyfathom._types",
    "pyfathom._errors",
    "pyfathom._tablebase.tablebase",
    "pyfathom._tablebase.board_probes",
    "pyfathom._tablebase.batch_probes",
    "pyfathom.fathom",
    "pyfathom.tables",
    "pyfathom.columnar",
    "pyfathom._files.columnar_files",
]

# Modules whose docstrings must hold examples (so a finder bug cannot pass).
WITH_EXAMPLES = {"pyfathom", "pyfathom._types", "pyfathom._tablebase.tablebase", "pyfathom._tablebase.board_probes",
                 "pyfathom._tablebase.batch_probes", "pyfathom.fathom",
                 "pyfathom.tables", "pyfathom.columnar", "pyfathom._files.columnar_files"}


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str, syzygy_dir: Path) -> None:
    if name == "pyfathom.columnar":  # its examples use pyarrow (the [arrow] extra)
        pytest.importorskip("pyarrow", reason="pyfathom.columnar's examples need the [arrow] extra")
    module = importlib.import_module(name)
    result = doctest.testmod(
        module,
        extraglobs={"TABLES": str(syzygy_dir), "chess": chess, "pyfathom": pyfathom},
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        report=True,
    )
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name} (output above)"
    if name in WITH_EXAMPLES:
        assert result.attempted > 0, f"no doctest found in {name}"
