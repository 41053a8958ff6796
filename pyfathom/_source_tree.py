"""The ImportError for a pyfathom folder whose compiled core is missing.

The usual way to get there: ``pip install .`` in a clone builds the core
(``pyfathom/_core*.so``) into the environment's site-packages, and Python
started in the clone's root then imports the clone's ``pyfathom/`` folder
first (the current directory comes first on ``sys.path``), which has no
core.  A bare ``ModuleNotFoundError: pyfathom._core`` says nothing of
that; :func:`missing_core_error` does.
"""

from __future__ import annotations

import os

__all__ = ["missing_core_error"]


def _is_source_tree(package_dir: str) -> bool:
    """A clone's ``pyfathom/`` sits beside the build script of the core."""
    root = os.path.dirname(package_dir)
    return all(os.path.isfile(os.path.join(root, name))
               for name in ("build_ffi.py", "pyproject.toml"))


def missing_core_error(package_file: str) -> ImportError:
    """The ImportError to raise from ``pyfathom/__init__.py`` (whose
    ``__file__`` is ``package_file``) when ``pyfathom._core`` is missing."""
    package_dir = os.path.dirname(os.path.abspath(package_file))
    if _is_source_tree(package_dir):
        root = os.path.dirname(package_dir)
        message = (
            f"pyfathom was imported from its source tree ({package_dir}), where its "
            f"compiled core (pyfathom._core) is not built. Python looks in the current "
            f"directory before the installed packages, so this folder hides any pyfathom "
            f"that `pip install .` put into your environment. Either run Python from "
            f"another directory, or build the core in place with "
            f"`pip install -e {root}` (or `python build_ffi.py` in {root}); "
            f"building needs a C compiler.")
    else:
        message = (
            f"pyfathom's compiled core (pyfathom._core) is missing from {package_dir}: "
            f"the installation is incomplete. Reinstall it with "
            f"`pip install --force-reinstall pyfathom-syzygy` (a build from source needs "
            f"a C compiler).")
    return ImportError(message, name="pyfathom._core", path=package_dir)
