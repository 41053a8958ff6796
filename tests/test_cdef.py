"""The compiled module's declarations come from the public headers, each
written once: build_ffi.py generates its cdef from them (header_cdef) and
copies none by hand, so every function and constant a public header
declares is in ``pyfathom._core.lib``; and the tests' raw decoder is in no
shipped module.  Milliseconds (the module is imported, not built)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
try:
    import build_ffi
finally:
    sys.path.remove(str(ROOT))

core = pytest.importorskip("pyfathom._core", reason="the C core is not built")


def _declared(header: str) -> tuple[set[str], set[str]]:
    """(functions, object-like #defines) of a public header as cffi sees it,
    read from the header itself (not through build_ffi)."""
    text = "\n".join(build_ffi._visible_lines((ROOT / "src" / "fathom" / header).read_text()))
    functions = set(re.findall(r"^\s*(?:static inline\s+)?(?:const\s+)?[\w ]+?[\s*](\w+)\(",
                               text, re.MULTILINE))
    defines = {m[1] for m in re.finditer(r"^\s*#\s*define\s+(\w+)[ \t]+\S", text, re.MULTILINE)}
    return functions, defines


@pytest.mark.parametrize("header", build_ffi.PUBLIC_HEADERS)
def test_every_declaration_of_the_header_is_in_the_module(header: str) -> None:
    functions, defines = _declared(header)
    assert functions and defines, header
    missing = sorted(name for name in functions | defines if not hasattr(core.lib, name))
    assert not missing, f"{header}: not in pyfathom._core.lib: {missing}"


@pytest.mark.parametrize("header", build_ffi.PUBLIC_HEADERS)
def test_build_ffi_copies_no_declaration(header: str) -> None:
    """No prototype of the header is written out in build_ffi.py (the cdef
    is generated): one place holds each declaration."""
    source = (ROOT / "build_ffi.py").read_text()
    functions, _ = _declared(header)
    copied = sorted(f for f in functions if re.search(rf"\b{f}\(", source))
    assert not copied, f"build_ffi.py declares {header}'s {copied} by hand"


def test_generated_cdef_keeps_numbers_to_the_compiler() -> None:
    cdef = build_ffi.header_cdef("src/fathom/fathom.h")
    assert "#define FATHOM_MAX_PIECES ...\n" in cdef
    assert "FATHOM_ERR_ARGUMENT = ...," in cdef and "char path[...];" in cdef
    assert "FATHOM_RESULT_VALUE" not in cdef  # a macro with arguments
    # (a parameter's array size, bitboards[8], is a pointer's and stays)
    assert not re.search(r"=\s*-?\d|\[\d+\];", cdef), "a number copied into the cdef"


def test_the_shipped_module_has_no_test_decoder() -> None:
    assert not hasattr(core.lib, "pyfathom_test_raw_read")
    assert b"pyfathom_test_raw_read" not in Path(core.__file__).read_bytes()
