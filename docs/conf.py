"""Sphinx configuration of pyfathom's documentation site.

Build: ``python -m sphinx -W --keep-going -n docs OUT`` (warnings and broken
references are errors; ``tests/test_docs_build.py`` builds it so).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import pyfathom  # noqa: E402  (the installed package, with its compiled core)

project = "pyfathom"
author = "the pyfathom authors"
copyright = "the pyfathom authors (MIT license)"
release = version = pyfathom.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.intersphinx",
    "offline_inventories",
    "internal_modules",
    "benchmark_plots",
    "architecture_graph",
    "short_references",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "_generated", "Thumbs.db", ".DS_Store"]
templates_path: list[str] = []

# MyST: heading anchors for links like [text](batch.md#table-order), and the
# ::: fence for directives inside Markdown.
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 4

# autodoc: the type hints go into the description, next to each parameter.
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented_params"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": True, "show-inheritance": True}
autodoc_preserve_defaults = True

# intersphinx_mapping is filled by the offline_inventories extension (local
# inventories of the installed packages; see docs/_ext/offline_inventories.py).
intersphinx_mapping: dict[str, tuple[str, str | None]] = {}
intersphinx_timeout = 5

nitpicky = True
# References in the internal modules' docstrings (docs/api/internals.rst)
# that name what no page documents: private helpers, data without a
# docstring, a TypeVar.  Listed one by one, so that any other reference
# that does not resolve still fails the build; each one fixed in its
# docstring comes off this list.
nitpick_ignore = [
    ('py:attr', 'file'),
    ('py:class', 'HTTPException'),
    ('py:class', '_GameReader'),
    ('py:class', 'lichess.BadRequest'),
    ('py:class', 'lichess.NotInTables'),
    ('py:class', "probe_answer's Probe for a DTZ lean answer."),
    ('py:class', 'pyfathom._batch_probes.BatchProbes'),
    ('py:class', 'pyfathom._board_probes.BoardProbes'),
    ('py:class', 'pyfathom._board_probes._T'),
    ('py:class', 'pyfathom._types.ClockResult'),
    ('py:data', 'COMMANDS'),
    ('py:data', 'MAX_BATCH'),
    ('py:data', 'MAX_LINE'),
    ('py:data', 'Members'),
    ('py:data', 'REPORT_FIELDS'),
    ('py:data', 'STATUS_NAMES'),
    ('py:data', 'STATUS_NAME_OF_CODE'),
    ('py:data', 'fathom_tb_probe_wdl'),
    ('py:data', 'pyfathom._types.STATUS_NAME_OF_CODE'),
    ('py:data', 'pyfathom.batch_files.MAX_LINE'),
    ('py:func', '_board'),
    ('py:func', '_move_sort_key'),
    ('py:func', '_probe'),
    ('py:func', '_replay'),
    ('py:func', 'annotate_stream'),
    ('py:func', 'ffi.gc'),
    ('py:func', 'lichess.probe_documents'),
    ('py:meth', 'pyfathom._types.ClockResult.of'),
    ('py:mod', 'pyfathom.annotate.verdict'),
]

# Type hints name numpy as the code imports it (``np.int8``,
# ``npt.NDArray``): written out in full before intersphinx looks them up.
ALIASES = {"np.": "numpy.", "npt.": "numpy.typing.", "pa.": "pyarrow.", "pd.": "pandas.",
           "dd.": "dask.dataframe."}


def _expand_alias(app, env, node, contnode):  # type: ignore[no-untyped-def]
    target = node.get("reftarget", "")
    for short, full in ALIASES.items():
        if target.startswith(short):
            node["reftarget"] = full + target[len(short):]
            break
    return None  # intersphinx (the next handler) resolves the full name


def _public_bases(app, name, obj, options, bases):  # type: ignore[no-untyped-def]
    """Show-inheritance names only the bases a reader can look up: not the
    private mixins and helpers a public class is assembled from."""
    bases[:] = [b for b in bases if not (b.__module__.startswith("pyfathom._")
                                         or b.__name__.startswith("_"))]


def setup(app):  # type: ignore[no-untyped-def]
    app.connect("missing-reference", _expand_alias, priority=100)
    app.connect("autodoc-process-bases", _public_bases)

html_theme = "furo"
html_title = f"pyfathom {release}"
html_static_path: list[str] = []
html_show_sourcelink = False
pygments_style = "sphinx"
