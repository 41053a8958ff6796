"""``.. internal-modules:: PACKAGE``: an ``automodule`` for every module of
the package that the public API pages do not cover, found by walking the
package as installed, so the page follows the code when modules move."""

from __future__ import annotations

import functools
import importlib
import pkgutil
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

# The modules with a page of their own under docs/api/ (and what is not
# Python: the compiled core).
PUBLIC = {"pyfathom", "pyfathom.fathom", "pyfathom.tables", "pyfathom.fen", "pyfathom.download",
          "pyfathom.batch_files", "pyfathom.columnar", "pyfathom.dask", "pyfathom.annotate",
          "pyfathom.server.app"}
SKIP = {"pyfathom._core", "pyfathom.__main__"}


def internal_modules(package: str) -> list[str]:
    root = importlib.import_module(package)
    names = [info.name for info in pkgutil.walk_packages(root.__path__, package + ".")]
    return sorted(n for n in names if n not in PUBLIC and n not in SKIP)


class InternalModules(SphinxDirective):
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        lines = []
        for name in internal_modules(self.arguments[0]):
            title = f"``{name}``"
            parent, _, short = name.rpartition(".")
            # A module its package shadows with a function of the same name
            # (pyfathom.annotate.verdict): the function keeps the name.
            shadowed = callable(getattr(importlib.import_module(parent), short, None))
            lines += [title, "-" * len(title), "", f".. automodule:: {name}",
                      "   :members:", "   :undoc-members:", *(["   :no-index:"] if shadowed else []), ""]
        content = StringList(lines, source="internal-modules")
        container = nodes.section()
        container.document = self.state.document
        self.state.nested_parse(content, self.content_offset, container, match_titles=True)
        return container.children


@functools.lru_cache(maxsize=1)
def _public_objects() -> frozenset[int]:
    """Objects the public pages document: skipped here, not twice."""
    ids = set()
    for name in PUBLIC:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr, None)
            if obj is not None and (isinstance(obj, type) or callable(obj)):
                ids.add(id(obj))
    import pyfathom

    ids.update(id(base) for base in pyfathom.Tablebase.__mro__)  # its mixins' methods
    return frozenset(ids)


def _skip(app: Sphinx, what: str, name: str, obj: Any, skip: bool, options: Any) -> bool | None:
    module = app.env.temp_data.get("autodoc:module")
    if what == "module" and module not in PUBLIC and id(obj) in _public_objects():
        return True
    return None


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("internal-modules", InternalModules)
    app.connect("autodoc-skip-member", _skip)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
