"""pyfathom's modules import each other without circles: every import,
also one inside a function or under ``TYPE_CHECKING``, points down a layer
(the command line above the features, the features above ``Tablebase``,
``Tablebase`` above the bindings).  Read from the source with :mod:`ast`
(nothing is imported); well under a second."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "pyfathom"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    """A Python module, a package or a compiled extension of pyfathom."""
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file() or any(
        path.parent.glob(path.name + ".*.so")) or any(path.parent.glob(path.name + ".*.pyd"))


def _imports(path: Path, name: str) -> set[str]:
    """The pyfathom modules ``path`` imports (``from pkg import mod`` names
    ``mod``, not ``pkg``)."""
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
            found.update(s for s in subs if _is_module(s))
            if not all(_is_module(s) for s in subs):
                found.add(base)
    return {m for m in found if m.split(".")[0] == "pyfathom" and m != name and _is_module(m)}


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): _imports(p, _module_name(p)) for p in PACKAGE.rglob("*.py")}


def _cycle(graph: dict[str, set[str]]) -> list[str]:
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
