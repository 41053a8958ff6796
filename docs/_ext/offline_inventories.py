"""Intersphinx inventories written at build time from the installed packages.

The build machines reach no documentation site, so Sphinx cannot download
python-chess's, numpy's, pyarrow's, Dask's or Python's ``objects.inv``.  A
hand-written inventory would let ``-n`` pass for any name typed into it; this
one lists only what the installed package really has (its public modules,
classes, exceptions, functions, methods and attributes, found by importing
it), so a reference to a name that does not exist still fails the build.
The link targets follow each site's page layout, so the links work when the
site is read online.

``PYFATHOM_DOCS_ONLINE=1``, or Read the Docs (which sets ``READTHEDOCS``),
keeps Sphinx's own behaviour instead: the real inventories, downloaded.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import os
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config


@dataclass(frozen=True)
class Site:
    """A documentation site: where it lives, the modules it documents and
    how it names the page of an object."""

    url: str
    modules: tuple[str, ...]
    page: Callable[[str, str], str]  # (module, full name) -> page#anchor


def _python_page(module: str, name: str) -> str:
    if module == "builtins":
        short = name.split(".")[0]
        obj = getattr(builtins, short, None)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            return f"library/exceptions.html#{name}"
        return f"library/functions.html#{name}"
    return f"library/{module}.html#{name}"


def _chess_page(module: str, name: str) -> str:
    page = {"chess": "core", "chess.syzygy": "syzygy", "chess.variant": "variant",
            "chess.pgn": "pgn", "chess.engine": "engine", "chess.polyglot": "polyglot",
            "chess.gaviota": "gaviota", "chess.svg": "svg"}[module]
    return f"{page}.html#{name}"


def _generated(prefix: str) -> Callable[[str, str], str]:
    def page(module: str, name: str) -> str:
        owner = name.split(".")
        # numpy/pyarrow/dask give each class and function its own page.
        while len(owner) > len(module.split(".")) + 1:
            owner.pop()
        return f"{prefix}{'.'.join(owner)}.html#{name}"
    return page


SITES: dict[str, Site] = {
    "python": Site("https://docs.python.org/3/",
                   ("builtins", "os", "os.path", "io", "typing", "collections.abc", "pathlib",
                    "enum", "dataclasses", "concurrent.futures", "subprocess", "json", "csv",
                    "gzip", "signal", "threading", "multiprocessing", "array", "doctest", "hashlib"),
                   _python_page),
    "chess": Site("https://python-chess.readthedocs.io/en/latest/",
                  ("chess", "chess.syzygy", "chess.variant", "chess.pgn", "chess.engine"),
                  _chess_page),
    "numpy": Site("https://numpy.org/doc/stable/", ("numpy", "numpy.typing"),
                  _generated("reference/generated/")),
    "pyarrow": Site("https://arrow.apache.org/docs/", ("pyarrow", "pyarrow.parquet"),
                    _generated("python/generated/")),
    "pandas": Site("https://pandas.pydata.org/docs/", ("pandas",),
                   _generated("reference/api/")),
    "dask": Site("https://docs.dask.org/en/stable/", ("dask", "dask.dataframe"),
                 _generated("generated/")),
    "distributed": Site("https://distributed.dask.org/en/stable/", ("distributed",),
                        lambda module, name: f"api.html#{name}"),
    "starlette": Site("https://www.starlette.io/", ("starlette.applications", "starlette.exceptions"),
                      lambda module, name: "applications/"),
}


def _public(obj: Any) -> list[str]:
    # __all__ and what dir() shows: os.PathLike is documented but not in os.__all__.
    names = dict.fromkeys([*getattr(obj, "__all__", []), *dir(obj)])
    return [n for n in names if not n.startswith("_")]


def _is_type_alias(obj: Any) -> bool:
    """A generic alias or special form (``numpy.typing.NDArray``,
    ``typing.Any``): written where a class is, in type hints."""
    return type(obj).__module__ in ("typing", "types") and not inspect.isroutine(obj)


def _entries(module_name: str) -> Iterator[tuple[str, str]]:
    """(full name, role) for the public objects of one installed module."""
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return
    if module_name != "builtins":
        yield module_name, "module"
    prefix = "" if module_name == "builtins" else module_name + "."
    for name in _public(module):
        try:
            obj = getattr(module, name)
        except AttributeError:
            continue
        full = prefix + name
        if inspect.ismodule(obj):
            continue
        if isinstance(obj, type):
            yield full, "exception" if issubclass(obj, BaseException) else "class"
            for member, value in vars(obj).items():
                if member.startswith("_"):
                    continue
                if isinstance(value, property) or not callable(value):
                    yield f"{full}.{member}", "attribute"
                elif isinstance(value, (classmethod, staticmethod)) or inspect.isroutine(value):
                    yield f"{full}.{member}", "method"
        elif _is_type_alias(obj):
            yield full, "class"
        elif callable(obj):
            yield full, "function"
        else:
            yield full, "data"


def inventory_bytes(project: str, site: Site) -> bytes:
    """An ``objects.inv`` (version 2) for one site."""
    seen: set[str] = set()
    lines = []
    for module in site.modules:
        for full, role in _entries(module):
            if full in seen:
                continue
            seen.add(full)
            lines.append(f"{full} py:{role} 1 {site.page(module, full)} -\n")
    header = (f"# Sphinx inventory version 2\n# Project: {project}\n# Version: \n"
              "# The remainder of this file is compressed using zlib.\n")
    return header.encode() + zlib.compress("".join(lines).encode())


def _write_inventories(app: Sphinx, config: Config) -> None:
    if os.environ.get("PYFATHOM_DOCS_ONLINE") == "1" or os.environ.get("READTHEDOCS") == "True":
        config.intersphinx_mapping = {name: (site.url, None) for name, site in SITES.items()}
        return
    folder = Path(app.doctreedir) / "offline-inventories"
    folder.mkdir(parents=True, exist_ok=True)
    mapping = {}
    for name, site in SITES.items():
        path = folder / f"{name}.inv"
        path.write_bytes(inventory_bytes(name, site))
        mapping[name] = (site.url, str(path))
    config.intersphinx_mapping = mapping


def setup(app: Sphinx) -> dict[str, Any]:
    # Before intersphinx reads the mapping (its handler runs at priority 800).
    app.connect("config-inited", _write_inventories, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
