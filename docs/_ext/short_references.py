"""Cross-references in the code's docstrings that name an object by its short
name (``:meth:`probe_wdl``` inside a mixin, ``:data:`MAX_LINE``` in a module
that re-exports it) are resolved as a reference written with a leading dot
would be (Sphinx's suffix search), when that search finds exactly one
object of the role's kind; any other missing reference still fails the
``-n`` build.  References to private names (a dotted part starting with an
underscore) are shown as code, without a link: they name helpers that the
pages do not document on purpose."""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx


def _private(target: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in target.split("."))


def _resolve(app: Sphinx, env: Any, node: Any, contnode: nodes.Element) -> nodes.Element | None:
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    if _private(target):
        return contnode
    domain = env.get_domain("py")
    kind = node.get("reftype")
    matches = domain.find_obj(env, node.get("py:module"), node.get("py:class"), target, kind, 1)
    if len(matches) > 1:  # the public name over a private module's copy
        matches = [m for m in matches if not _private(m[0])] or matches
    if len(matches) > 1:  # a name re-exported by its package: the package's
        fewest = min(m[0].count(".") for m in matches)
        matches = [m for m in matches if m[0].count(".") == fewest]
    if len(matches) != 1:
        return None
    fullname, _obj = matches[0]
    return domain.resolve_xref(env, node.get("refdoc"), app.builder, kind, fullname, node, contnode)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("missing-reference", _resolve)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
