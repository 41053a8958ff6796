"""The C core's files include each other without circles and never up a
layer.  Read from the ``#include`` lines of the files that
``src/fathom/sources.txt`` lists (nothing is compiled; well under a second).

The unit is the module: a ``.c`` file and the header of the same name in
its folder (``rules/tb_chess.c`` and ``rules/tb_chess.h``; a public header
and the source of its name in its layer, ``tbprobe.h`` and
``facades/tbprobe.c``).  A module
includes another when any of its files does, so a source that includes a
header whose module includes back is a circle, though no file includes
itself.

The layers, lowest first, are docs/architecture.md's folders: the public
contract, then ``platform``, ``rules``, ``format``, ``probe``, ``batch``,
``helpers``, ``facades``.  A module may include its own layer's modules and
those below.  Each public header is a module of its own with the layer of
PUBLIC_LAYERS: the instance API's headers (``fathom.h``, ``fen.h``,
``fathom_helpers.h``: the types, codes and prototypes every layer shares and
implements its part of) are the contract, below everything, and include no
private header; Fathom's ``tbprobe.h`` and ``tbconfig.h`` belong to the
facades, so no layer below them may know Fathom's packed results.  A
``*_body.h`` (a body compiled into each file that includes it, after the
macros it reads) is a module like any header.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Set
from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "src" / "fathom"
PUBLIC_LAYERS = {"fathom.h": "contract", "fen.h": "contract", "fathom_helpers.h": "contract",
                 "tbprobe.h": "facades", "tbconfig.h": "facades"}
LAYERS = ("contract", "platform", "rules", "format", "probe", "batch", "helpers", "facades")
_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def core_files(core: Path = CORE) -> list[str]:
    """The files sources.txt lists, as paths under src/fathom/."""
    lines = (core / "sources.txt").read_text(encoding="utf-8").splitlines()
    return [line.split()[0] for line in lines if line.strip() and not line.startswith("#")]


def _resolve(name: str, includer: str, files: Set[str]) -> str:
    """Where the compiler finds a quoted include: beside the includer
    first, then src/fathom/ (the one -I of every build)."""
    beside = str(Path(includer).parent / name) if "/" in includer else name
    for candidate in (beside, name):
        if candidate in files:
            return candidate
    raise AssertionError(f'{includer}: #include "{name}" is not a file of sources.txt')


def module_of(path: str, files: Set[str] = frozenset()) -> str:
    """A file's module: its path without the suffix; a public header with
    one source of its name in its own layer joins that source's module
    (``tbprobe.h`` and ``facades/tbprobe.c``; not ``fen.h``, the contract,
    and ``helpers/fen.c``)."""
    stem = path.rsplit(".", 1)[0]
    if "/" not in path and path in PUBLIC_LAYERS:
        owners = [f for f in files if f.endswith(".c") and Path(f).stem == stem
                  and f.split("/", 1)[0] == PUBLIC_LAYERS[path]]
        if len(owners) == 1:
            return owners[0].rsplit(".", 1)[0]
    return stem


def layer_of(module: str) -> int:
    """A module's layer, as an index into LAYERS."""
    if "/" not in module:
        assert f"{module}.h" in PUBLIC_LAYERS, f"{module}.h: a public header PUBLIC_LAYERS has no layer for"
        return LAYERS.index(PUBLIC_LAYERS[f"{module}.h"])
    folder = module.split("/", 1)[0]
    assert folder in LAYERS, f"{module}: folder {folder!r} is no layer of docs/architecture.md"
    return LAYERS.index(folder)


def include_graph(core: Path = CORE) -> dict[str, set[str]]:
    """Module -> the other modules its files include."""
    files = set(core_files(core))
    graph: dict[str, set[str]] = {module_of(f, files): set() for f in files}
    for path in files:
        text = (core / path).read_text(encoding="utf-8")
        source = module_of(path, files)
        for name in _INCLUDE.findall(text):
            target = module_of(_resolve(name, path, files), files)
            if target != source:
                graph[source].add(target)
    return graph


def upward_includes(graph: Mapping[str, Set[str]]) -> list[tuple[str, str]]:
    return sorted((a, b) for a, targets in graph.items() for b in targets
                  if layer_of(b) > layer_of(a))


def circles(graph: Mapping[str, Set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's
    algorithm, iterative): each holds at least one circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def levels(graph: Mapping[str, Set[str]]) -> dict[str, int]:
    """Each module's depth in the include graph: 0 includes no other module,
    else one more than the deepest it includes (a circle's modules share
    one level)."""
    component = {m: tuple(c) for c in circles(graph) for m in c}
    depth: dict[str, int] = {}

    def visit(module: str) -> int:
        members = component.get(module, (module,))
        if module not in depth:
            for m in members:
                depth[m] = 0  # a placeholder while the circle is visited
            below = [visit(t) for m in members for t in graph[m] if t not in members]
            for m in members:
                depth[m] = 1 + max(below, default=-1)
        return depth[module]

    for module in sorted(graph):
        visit(module)
    return depth


def test_every_quoted_include_is_a_listed_file() -> None:
    graph = include_graph()
    assert graph, "sources.txt lists no file"
    for module in graph:
        layer_of(module)


def test_no_include_circle() -> None:
    found = circles(include_graph())
    assert not found, "include circles (modules that include each other): " + "; ".join(
        " <-> ".join(c) for c in found)


def test_no_include_points_up_a_layer() -> None:
    found = upward_includes(include_graph())
    assert not found, "includes pointing up a layer: " + ", ".join(
        f"{a} ({LAYERS[layer_of(a)]}) -> {b} ({LAYERS[layer_of(b)]})" for a, b in found)


def test_the_public_contract_includes_no_private_header() -> None:
    graph = include_graph()
    for module, targets in graph.items():
        if layer_of(module) == 0:
            assert all(layer_of(t) == 0 for t in targets), (module, sorted(targets))


def test_the_checks_see_a_circle_and_an_upward_include(tmp_path: Path) -> None:
    """The checks themselves: a copy of the tree with one include added
    fails them."""
    import shutil

    copy = tmp_path / "fathom"
    shutil.copytree(CORE, copy)
    chess = copy / "rules" / "tb_chess.h"
    chess.write_text('#include "probe/tb_search.h"\n' + chess.read_text(encoding="utf-8"),
                     encoding="utf-8")
    graph = include_graph(copy)
    assert ("rules/tb_chess", "probe/tb_search") in upward_includes(graph)
    assert any({"rules/tb_chess", "probe/tb_search"} <= set(c) for c in circles(graph))


if __name__ == "__main__":  # the report: levels, upward includes, circles
    g = include_graph()
    lv = levels(g)
    for level in range(max(lv.values()) + 1):
        print(f"level {level}:", " ".join(sorted(m for m in lv if lv[m] == level)))
    up = upward_includes(g)
    print(f"upward includes ({len(up)}):")
    for a, b in up:
        print(f"  {a} ({LAYERS[layer_of(a)]}) -> {b} ({LAYERS[layer_of(b)]})")
    cs = circles(g)
    print(f"circles ({len(cs)}):")
    for c in cs:
        print("  " + " <-> ".join(c))
