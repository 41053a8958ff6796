"""pyfathom's modules import each other without circles, and every import,
also one inside a function or under ``TYPE_CHECKING``, stays in its layer or
points down (:data:`LAYERS`: the command line above the server, the server
above the features, the features above the file formats, those above
``Tablebase``, ``Tablebase`` above the table folders, the grammar and the
disk, those above the bindings; only the bindings import the compiled
core); and no test module imports another (what tests share lives in
``tests/support/``).  Read from the source with :mod:`ast` (nothing is
imported); one to three seconds on a loaded 2-core machine."""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping, Set
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "pyfathom"
TESTS = Path(__file__).resolve().parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _modules() -> frozenset[str]:
    """pyfathom's Python modules and packages, and its compiled extensions."""
    names = {_module_name(p) for p in PACKAGE.rglob("*.py")}
    for extension in (*PACKAGE.rglob("*.so"), *PACKAGE.rglob("*.pyd")):
        names.add(_module_name(extension.with_name(extension.name.split(".")[0] + ".py")))
    return frozenset(names)


def _imports(path: Path, name: str) -> set[str]:
    """The pyfathom modules ``path`` imports (``from pkg import mod`` names
    ``mod``, not ``pkg``)."""
    modules = _modules()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            subs = [f"{base}.{a.name}" for a in node.names]
            found.update(s for s in subs if s in modules)
            if not all(s in modules for s in subs):
                found.add(base)
    return {m for m in found if m in modules and m != name}


@functools.cache
def _graph() -> dict[str, frozenset[str]]:
    return {_module_name(p): frozenset(_imports(p, _module_name(p))) for p in PACKAGE.rglob("*.py")}


def _cycle(graph: Mapping[str, Set[str]]) -> list[str]:
    """One import circle of ``graph`` (empty: none)."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = 1
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[module] = 2
        return []

    for module in sorted(graph):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return []


def test_no_import_circles() -> None:
    graph = _graph()
    assert len(graph) > 40 and "pyfathom.cli.serve" in graph["pyfathom.cli"]
    circle = _cycle(graph)
    assert not circle, "import circle: " + " -> ".join(circle)


def test_the_circle_finder_finds_circles() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_library_modules_do_not_import_the_command_line() -> None:
    """The command line is the top layer: nothing outside ``pyfathom.cli``
    imports it (``pyfathom.__main__`` starts it)."""
    graph = _graph()
    upward = sorted(f"{m} -> {t}" for m, targets in graph.items() for t in targets
                    if t.startswith("pyfathom.cli") and not m.startswith("pyfathom.cli")
                    and m != "pyfathom.__main__")
    assert not upward, upward


# pyfathom's layers, bottom first (docs/architecture.md, "The layers"):
# a module may import its own layer and the layers below, never one above.
# Each entry is a module's name or a package's name ending in ".*" (the
# package and everything in it); a module takes the entry that names it
# most closely, and every module must have one (a new one is placed here).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("the compiled core", ("pyfathom._core",)),
    # The 50-move rule's binding sits below _types (ClockResult.of calls
    # it); _errors, _signals and _source_tree import nothing of pyfathom.
    ("the foundations", ("pyfathom._bindings.clock_rule", "pyfathom._errors", "pyfathom._signals",
                         "pyfathom._source_tree", "pyfathom._bindings")),
    ("the types", ("pyfathom._types",)),
    ("the bindings", ("pyfathom._bindings.lowlevel", "pyfathom._bindings.lowlevel_helpers",
                      "pyfathom.fathom")),
    # The position grammar and the tables on disk use the bindings only.
    ("the grammar and the disk", ("pyfathom.fen", "pyfathom._disk.*")),
    ("the table folders", ("pyfathom.tables",)),
    ("the Tablebase class", ("pyfathom._tablebase.*", "pyfathom")),
    ("the file formats", ("pyfathom._files.*",)),
    ("the features", ("pyfathom.batch_files", "pyfathom.columnar", "pyfathom.dask",
                      "pyfathom.download", "pyfathom.annotate.*")),
    ("the server", ("pyfathom.server.*",)),
    ("the command line", ("pyfathom.cli.*", "pyfathom.__main__")),
)

# Imports that point up a layer on purpose: "importer -> imported": why.
UPWARD_EXCEPTIONS: dict[str, str] = {}


def _layer_of(module: str, layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS) -> int:
    """The index in ``layers`` of the entry that names ``module`` most
    closely (an exact name before the longest package); KeyError if none."""
    best: tuple[int, int] | None = None  # (closeness, layer)
    for index, (_, entries) in enumerate(layers):
        for entry in entries:
            if entry == module:
                closeness = 1_000
            elif entry.endswith(".*") and (module == entry[:-2] or module.startswith(entry[:-1])):
                closeness = len(entry)
            else:
                continue
            if best is None or closeness > best[0]:
                best = (closeness, index)
    if best is None:
        raise KeyError(module)
    return best[1]


def _upward_imports(graph: Mapping[str, Set[str]],
                    layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS) -> list[str]:
    """Every import of ``graph`` from a layer to a higher one, as
    ``importer (layer) -> imported (layer)``."""
    found = []
    for module, targets in sorted(graph.items()):
        low = _layer_of(module, layers)
        for target in sorted(targets):
            high = _layer_of(target, layers)
            if high > low:
                found.append(f"{module} ({layers[low][0]}) -> {target} ({layers[high][0]})")
    return found


def test_every_module_has_a_layer() -> None:
    unplaced = []
    for module in sorted(_modules()):
        try:
            _layer_of(module)
        except KeyError:
            unplaced.append(module)
    assert not unplaced, f"place these in LAYERS: {unplaced}"


def test_no_import_points_up_a_layer() -> None:
    graph = _graph()
    upward = [line for line in _upward_imports(graph)
              if " -> ".join(part.split(" (")[0] for part in line.split(" -> ")) not in UPWARD_EXCEPTIONS]
    assert not upward, "imports pointing up a layer: " + "; ".join(upward)
    # Every listed exception still exists (a stale one would hide the next).
    edges = {f"{m} -> {t}" for m, targets in graph.items() for t in targets}
    assert set(UPWARD_EXCEPTIONS) <= edges, sorted(set(UPWARD_EXCEPTIONS) - edges)


def test_the_layer_check_finds_upward_imports() -> None:
    layers = (("low", ("p.low", "p.base.*")), ("high", ("p.high", "p")))
    assert _layer_of("p.base.x", layers) == 0 and _layer_of("p", layers) == 1
    assert _upward_imports({"p.low": {"p.base.x"}, "p.high": {"p.low"}}, layers) == []
    assert _upward_imports({"p.base.x": {"p"}}, layers) == ["p.base.x (low) -> p (high)"]


# The binding layer: the only modules that import the compiled core (its
# ``ffi`` and ``lib``); everything above them works with Python values.
BINDINGS = frozenset({
    "pyfathom._bindings.lowlevel",          # fathom.h and fen.h: instances, probes, batches, checks
    "pyfathom._bindings.lowlevel_helpers",  # fathom_helpers.h: best move, SAN, game replay
    "pyfathom._bindings.clock_rule",        # fathom_clock_result, for ClockResult.of (below _types)
    "pyfathom.fathom",             # the Fathom-compatible module
})


def test_only_the_bindings_import_the_compiled_core() -> None:
    graph = _graph()
    assert BINDINGS <= graph.keys(), sorted(BINDINGS - graph.keys())
    importers = {m for m, targets in graph.items() if "pyfathom._core" in targets}
    assert importers == BINDINGS, (sorted(importers - BINDINGS), sorted(BINDINGS - importers))


def _imported_names(path: Path) -> set[str]:
    """Every module name ``path`` imports, as written (relative imports
    without their dots)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def _test_modules_importing_tests(tests: Path) -> list[str]:
    """``importer -> imported`` for every Python file under ``tests`` that
    imports one of its test modules (``test_*.py``, ``conftest.py``)."""
    test_modules = {p.stem for p in tests.rglob("*.py")
                    if p.name.startswith("test_") or p.name == "conftest.py"}
    found = []
    for path in sorted(tests.rglob("*.py")):
        for name in sorted(_imported_names(path)):
            if name.split(".")[-1] in test_modules or name.split(".")[0] in test_modules:
                found.append(f"{path.relative_to(tests)} -> {name}")
    return found


def test_no_test_module_imports_another(tmp_path: Path) -> None:
    """A helper two test files share belongs in ``tests/support/``: a test
    module imported by another runs its module-level code (fixtures, skips,
    marks) twice and ties the two files' fates together."""
    found = _test_modules_importing_tests(TESTS)
    assert not found, "move the helpers into tests/support/: " + ", ".join(found)
    # ... and the check finds one (so a finder bug cannot pass).
    (tmp_path / "test_a.py").write_text("def helper():\n    return 1\n")
    (tmp_path / "test_b.py").write_text("def test_b():\n    from test_a import helper\n")
    (tmp_path / "helper.py").write_text("import os\n")
    assert _test_modules_importing_tests(tmp_path) == ["test_b.py -> test_a"]
