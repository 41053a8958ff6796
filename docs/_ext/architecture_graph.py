"""The architecture page's picture, drawn at build time from the code: the
Python packages' imports (read with :mod:`ast`) and the C folders'
``#include`` lines, as boxes in layers (each box above every box it uses)
and arrows, written as ``_static/architecture.svg``.

Nodes: each sub-package and top-level module of ``pyfathom/``, the compiled core ``pyfathom._core`` (built by ``build_ffi.py``),
and each folder of ``src/fathom/`` (its top-level headers as one box).
Nothing is drawn by hand, so the picture follows the code when files move.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from html import escape
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pyfathom"
CORE = ROOT / "src" / "fathom"
CORE_BOX = "pyfathom._core (cffi, build_ffi.py)"
HEADERS_BOX = "src/fathom/*.h (public headers)"


def _python_node(module: str) -> str | None:
    """The box of a module name under ``pyfathom``."""
    parts = module.split(".")
    if parts[0] != "pyfathom":
        return None
    if len(parts) == 1:
        return "pyfathom/__init__.py"
    if parts[1] == "_core":
        return CORE_BOX
    if (PACKAGE / parts[1]).is_dir():
        return f"pyfathom/{parts[1]}/"
    if (PACKAGE / f"{parts[1]}.py").is_file():
        return f"pyfathom/{parts[1]}.py"
    return "pyfathom/__init__.py"  # a name the package itself exports


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    rel = Path(*name.split("."))
    return (ROOT / rel).is_dir() or (ROOT / rel).with_suffix(".py").is_file() or name == "pyfathom._core"


def _imports(path: Path) -> set[str]:
    """Absolute names of the pyfathom modules a file imports."""
    tree = ast.parse(path.read_text(), str(path))
    here = _module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package[:len(package) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:  # a submodule by its own name, else the module
                full = f"{base}.{alias.name}"
                is_module = _is_module(full)
                found.add(full if is_module else base)
    return {name for name in found if name.split(".")[0] == "pyfathom"}


def python_edges() -> set[tuple[str, str]]:
    edges = set()
    for path in PACKAGE.rglob("*.py"):
        source = _python_node(_module_name(path))
        for name in _imports(path):
            target = _python_node(name)
            # A module name resolves to the deepest real box it names.
            if target and source and target != source:
                edges.add((source, target))
    return edges


def _c_node(path: Path) -> str:
    rel = path.relative_to(CORE)
    return HEADERS_BOX if len(rel.parts) == 1 else f"src/fathom/{rel.parts[0]}/"


def c_edges() -> set[tuple[str, str]]:
    by_name: dict[str, list[Path]] = defaultdict(list)
    files = [p for p in CORE.rglob("*") if p.suffix in (".c", ".h")]
    for path in files:
        by_name[path.name].append(path)
    edges = set()
    for path in files:
        for included in re.findall(r'^\s*#\s*include\s+"([^"]+)"', path.read_text(), re.M):
            candidates = [(path.parent / included).resolve()] + by_name.get(Path(included).name, [])
            target = next((c for c in candidates if c.is_file()), None)
            if target is not None and _c_node(target) != _c_node(path):
                edges.add((_c_node(path), _c_node(target)))
    # The compiled module is built from the headers (build_ffi.py).
    edges.add((CORE_BOX, HEADERS_BOX))
    return edges


def layers(edges: set[tuple[str, str]]) -> list[list[str]]:
    """Boxes by depth: a box sits one row above the deepest box it uses
    (an import cycle is cut where the walk first meets it)."""
    uses: dict[str, set[str]] = defaultdict(set)
    nodes = set()
    for a, b in edges:
        uses[a].add(b)
        nodes |= {a, b}
    height: dict[str, int] = {}

    def walk(node: str, stack: frozenset[str]) -> int:
        if node in height:
            return height[node]
        below = [walk(n, stack | {node}) for n in uses[node] if n not in stack]
        height[node] = 1 + max(below, default=-1)
        return height[node]

    for node in sorted(nodes):
        walk(node, frozenset())
    rows: dict[int, list[str]] = defaultdict(list)
    for node, h in height.items():
        rows[h].append(node)
    return [sorted(rows[h]) for h in sorted(rows, reverse=True)]


def svg(edges: set[tuple[str, str]]) -> str:
    rows = layers(edges)
    char, pad, box_h, gap_x, gap_y = 7.2, 14, 30, 18, 56
    width_of = {n: len(n) * char + 2 * pad for row in rows for n in row}
    row_widths = [sum(width_of[n] for n in row) + gap_x * (len(row) - 1) for row in rows]
    total_w = max(row_widths) + 40
    pos: dict[str, tuple[float, float]] = {}
    for r, row in enumerate(rows):
        x = (total_w - row_widths[r]) / 2
        y = 20 + r * (box_h + gap_y)
        for node in row:
            pos[node] = (x, y)
            x += width_of[node] + gap_x
    total_h = 20 + len(rows) * (box_h + gap_y) - gap_y + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:.0f}" height="{total_h:.0f}" '
           f'viewBox="0 0 {total_w:.0f} {total_h:.0f}" font-family="monospace" font-size="12">',
           '<title>pyfathom: which part uses which (arrows point to what is used; uses implied by others left out)</title>',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
           'markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" '
           'fill="#666"/></marker></defs>']
    for a, b in sorted(edges):
        (xa, ya), (xb, yb) = pos[a], pos[b]
        x1, y1 = xa + width_of[a] / 2, ya + box_h
        x2, y2 = xb + width_of[b] / 2, yb
        if yb <= ya:  # a use within a row or upwards (a cycle): from the side
            y1, y2 = ya + box_h / 2, yb + box_h / 2
        out.append(f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" '
                   'stroke="#888" stroke-width="1" marker-end="url(#arrow)"/>')
    for node, (x, y) in sorted(pos.items()):
        fill = "#e8f0fc" if node.startswith("pyfathom") else "#fcefe3"
        out.append(f'<rect x="{x:.0f}" y="{y:.0f}" width="{width_of[node]:.0f}" height="{box_h}" '
                   f'rx="5" fill="{fill}" stroke="#446"/>')
        out.append(f'<text x="{x + pad:.0f}" y="{y + 19:.0f}">{escape(node)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def reduced(edges: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Without the uses implied by others (a -> c where a -> b -> ... -> c),
    so that the picture shows each box's direct layer below.  Boxes in an
    import cycle are one group for this (their uses of each other stay)."""
    uses: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        uses[a].add(b)

    def reach(a: str) -> set[str]:
        seen: set[str] = set()
        todo = list(uses[a])
        while todo:
            n = todo.pop()
            if n not in seen:
                seen.add(n)
                todo.extend(uses[n])
        return seen

    nodes = {n for edge in edges for n in edge}
    reach_of = {n: reach(n) for n in nodes}
    group = {n: frozenset({n} | {m for m in reach_of[n] if n in reach_of[m]}) for n in nodes}
    group_uses: dict[frozenset[str], set[frozenset[str]]] = defaultdict(set)
    for a, b in edges:
        if group[a] != group[b]:
            group_uses[group[a]].add(group[b])

    def implied(ga: frozenset[str], gb: frozenset[str]) -> bool:
        todo = [g for g in group_uses[ga] if g != gb]
        seen: set[frozenset[str]] = set()
        while todo:
            g = todo.pop()
            if g == gb:
                return True
            if g not in seen:
                seen.add(g)
                todo.extend(group_uses[g])
        return False

    return {(a, b) for a, b in edges
            if group[a] == group[b] or not implied(group[a], group[b])}


def graph_edges() -> set[tuple[str, str]]:
    return reduced(python_edges() | c_edges())


def _write(app: Any, config: Any) -> None:
    # Beside the sources (git-ignored), not under the output folder, where
    # Sphinx refuses static folders (its default doctree folder is in there).
    static = Path(app.confdir) / "_generated" / "architecture-static"
    static.mkdir(parents=True, exist_ok=True)
    (static / "architecture.svg").write_text(svg(graph_edges()))
    config.html_static_path = [*config.html_static_path, str(static)]


def setup(app: Any) -> dict[str, Any]:
    app.connect("config-inited", _write)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
