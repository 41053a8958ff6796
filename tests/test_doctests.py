"""Run the ``>>>`` examples of every pyfathom module against the test tables.

The modules are found by walking the package (:func:`pkgutil.walk_packages`),
so a new module's examples run without a list to add it to.  The examples
refer to the tables as ``TABLES`` (and use ``chess`` and ``pyfathom``
without importing them); this file provides those names.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import chess
import pytest

import pyfathom

PACKAGE = Path(pyfathom.__file__).parent


def _walked_modules() -> list[str]:
    """Every module and sub-package of pyfathom, from its source files (an
    import error in one does not hide the others: each is imported by its
    own test)."""
    return ["pyfathom"] + sorted(m.name for m in pkgutil.walk_packages([str(PACKAGE)], "pyfathom."))


MODULES = _walked_modules()

# The extra that a module's import needs, where it is not installed (the
# module is then skipped, naming the extra; .ci/run installs them all).
EXTRAS = {"pyfathom.server": "server", "pyfathom.dask": "dask", "pyfathom.columnar": "arrow"}

# Modules whose examples use pyarrow (the [arrow] extra) without their
# import needing it.
ARROW_EXAMPLES = ("pyfathom.columnar", "pyfathom._files.columnar_files")

# Modules whose examples print what python-chess writes (PGN), laid out as
# the python-chess the suite pins (1.11.2) lays it out; older releases
# (tests/test_oldest_chess.py runs these tests on them) write other tags,
# NAGs and comment spacing.
PGN_EXAMPLES = {"pyfathom.annotate": (1, 11)}

# Modules whose docstrings must hold examples (so a finder bug, or examples
# turned into plain text, cannot pass as "nothing to run").
WITH_EXAMPLES = {"pyfathom", "pyfathom._types", "pyfathom._tablebase.tablebase",
                 "pyfathom._tablebase.board_probes", "pyfathom._tablebase.batch_probes",
                 "pyfathom.fathom", "pyfathom.tables", "pyfathom.columnar",
                 "pyfathom._files.columnar_files", "pyfathom.fen", "pyfathom.annotate",
                 "pyfathom.annotate.verdict", "pyfathom.server.lichess", "pyfathom.server.web"}


def test_the_walk_finds_every_module() -> None:
    """Every .py file of the package is among the walked modules (and so
    is every module that must hold examples)."""
    on_disk = {".".join(("pyfathom", *p.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")
               for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    assert on_disk - {"pyfathom.__main__"} <= set(MODULES), sorted(on_disk - set(MODULES))
    assert WITH_EXAMPLES <= set(MODULES), sorted(WITH_EXAMPLES - set(MODULES))
    assert len(MODULES) > 40


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str, syzygy_dir: Path) -> None:
    extra = next((e for prefix, e in EXTRAS.items() if name == prefix or name.startswith(prefix + ".")), None)
    try:
        module = importlib.import_module(name)
    except ImportError as e:
        if extra is None or e.name == name or (e.name or "").startswith("pyfathom"):
            raise
        pytest.skip(f"{name} needs the [{extra}] extra ({e.name} is not installed)")
    if name in ARROW_EXAMPLES:
        pytest.importorskip("pyarrow", reason=f"{name}'s examples need the [arrow] extra")
    if name in PGN_EXAMPLES:
        have = tuple(int(x) for x in chess.__version__.split(".")[:2])
        if have < PGN_EXAMPLES[name]:
            pytest.skip(f"{name}'s examples print PGN as python-chess "
                        f"{'.'.join(map(str, PGN_EXAMPLES[name]))}+ writes it "
                        f"(this is {chess.__version__})")
    result = doctest.testmod(
        module,
        extraglobs={"TABLES": str(syzygy_dir), "chess": chess, "pyfathom": pyfathom},
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        report=True,
    )
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name} (output above)"
    if name in WITH_EXAMPLES:
        assert result.attempted > 0, f"no doctest found in {name}"
