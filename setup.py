"""Build script: the metadata lives in pyproject.toml; this file adds what
only setup() can take, the cffi extension and the version read from
pyfathom/__init__.py (the one place it is written)."""

import os
import re

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))


def read_version() -> str:
    with open(os.path.join(HERE, "pyfathom", "__init__.py"), encoding="utf-8") as f:
        match = re.search(r'^__version__ = "([^"]+)"$', f.read(), re.MULTILINE)
    if match is None:
        raise RuntimeError("pyfathom/__init__.py has no __version__")
    return match.group(1)


setup(
    version=read_version(),
    cffi_modules=["build_ffi.py:ffi"],
)
