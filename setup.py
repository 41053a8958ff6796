"""Build script: the metadata lives in pyproject.toml; this file adds what
only setup() can take, the cffi extension, the version read from
pyfathom/__init__.py (the one place it is written) and the wheel's tag."""

import os
import platform
import re
import sys
import sysconfig

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))


def read_version() -> str:
    with open(os.path.join(HERE, "pyfathom", "__init__.py"), encoding="utf-8") as f:
        match = re.search(r'^__version__ = "([^"]+)"$', f.read(), re.MULTILINE)
    if match is None:
        raise RuntimeError("pyfathom/__init__.py has no __version__")
    return match.group(1)


def wheel_options() -> dict:
    """One wheel for every CPython from 3.10 on (tag ``cp310-abi3``).

    cffi compiles its part of the module against the stable ABI, and
    pyfathom/_c/board_calls.c uses only the stable ABI of 3.10 (METH_FASTCALL
    joined it then), so the extension is ``_core.abi3.so`` already; the
    tag tells pip so.  Not for a free-threaded or debug CPython (no stable
    ABI there: cffi builds a version-specific module) or another Python.
    """
    if (platform.python_implementation() != "CPython" or hasattr(sys, "gettotalrefcount")
            or sysconfig.get_config_var("Py_GIL_DISABLED")):
        return {}
    return {"bdist_wheel": {"py_limited_api": "cp310"}}


setup(
    version=read_version(),
    cffi_modules=["build_ffi.py:ffi"],
    options=wheel_options(),
)
