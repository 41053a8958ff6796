"""cffi builder for pyfathom's C core (API mode, out of line).

This file is the only Python place that knows C declarations, and it
writes none of the core's by hand: the cdef is generated from the public
headers of ``src/fathom/`` (header_cdef), each declaration written once, in
its header:

* ``fen.h``      the C FEN parser and ``fathom_board``;
* ``fathom.h``   the instance API the Python package is built on;
* ``fathom_helpers.h`` what the binding and ``pyfathom annotate`` build on
  (lean probes, the best move as annotate ranks moves, SAN, game replay);
* ``tbprobe.h``  the Fathom-compatible facade (one default instance), exposed
  to Python as :mod:`pyfathom.fathom`;

and the one function of ``pyfathom/_c/board_calls.c`` that Python calls
through cffi (it installs the per-board probes, written against the CPython
API, into the module).

Numbers (enum values, ``#define`` constants, array sizes) become ``...`` so
that the C compiler fills them in from the headers: a header change can
never silently disagree with the Python side.  Macros with arguments
(``FATHOM_RESULT_VALUE(r)``, ``TB_GET_WDL(r)``, ...) cannot be declared to
cffi; the Python package re-implements them from the mask/shift constants.

The tests' raw decoder (tests/c/raw_read.c) is no part of the module:
build_test_decoder builds it, with the core, into a module of its own.

setup.py compiles this through ``cffi_modules=["build_ffi.py:ffi"]``; run
``python build_ffi.py`` to build ``pyfathom/_core*.so`` in place.

Environment:

``PYFATHOM_SANITIZE=1``
    build with AddressSanitizer and UndefinedBehaviorSanitizer (compile and
    link flags), for the fuzz and sanitizer runs.  The interpreter must then
    be started with the ASan runtime preloaded (``LD_PRELOAD=$(gcc
    -print-file-name=libasan.so)``).
"""

from __future__ import annotations

import os
import re
import sys

import cffi

HERE = os.path.dirname(os.path.abspath(__file__))
SRC_DIR = os.path.join("src", "fathom")  # relative to HERE (setuptools wants relative paths)
# The folders the extension's C includes from: the core and pyfathom/_c.
INCLUDE_DIRS = (SRC_DIR, os.path.join("pyfathom", "_c"))

PUBLIC_HEADERS = ("fen.h", "fathom.h", "fathom_helpers.h", "tbprobe.h")
"""The public headers whose declarations the module exposes, in an order
where every type is declared before its first use (``fathom_board`` is
fen.h's)."""

_HIDDEN_BRANCHES = ("__cplusplus", "TB_NO_STDINT", "TB_NO_STDBOOL")
"""Conditions whose first branch cffi must not see: C++'s ``extern "C"``,
and the engines' own integer and bool types (the else branches are
``#include`` lines)."""


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _visible_lines(text: str) -> list[str]:
    """The header's lines outside the _HIDDEN_BRANCHES (preprocessor
    conditions otherwise left as they are: their bodies are declarations
    the module's build defines), joined where a line ends in a
    backslash, comments and blank lines gone."""
    lines = _strip_comments(text).replace("\\\n", " ").splitlines()
    kept: list[str] = []
    hidden: list[bool] = []  # per open #if: is this branch hidden?
    for line in lines:
        directive = re.match(r"\s*#\s*(\w+)(.*)", line)
        if directive and directive[1] in ("if", "ifdef", "ifndef"):
            hidden.append(any(word in directive[2] for word in _HIDDEN_BRANCHES)
                          and directive[1] != "ifndef")
            continue
        if directive and directive[1] in ("else", "elif"):
            hidden[-1] = False
            continue
        if directive and directive[1] == "endif":
            hidden.pop()
            continue
        if any(hidden) or not line.strip():
            continue
        kept.append(line.rstrip())
    return kept


def header_cdef(path: str) -> str:
    """A public header's declarations as cffi's cdef takes them: object-like
    ``#define``s and enum values as ``...`` (the compiler fills them in,
    so Python can never disagree with the header), structs partial
    (``...;``, their array sizes ``[...]``), ``static inline`` functions as
    prototypes; ``#include``s, function-like macros and empty defines (the
    include guards) dropped.  Each declaration is written once, in the
    header: this is how the module learns them."""
    with open(os.path.join(HERE, path), encoding="utf-8") as f:
        lines = _visible_lines(f.read())
    out: list[str] = []
    body: str | None = None  # "enum" or "struct" while inside one
    skip_depth = 0  # inside a static inline function's body
    for line in lines:
        if skip_depth:
            skip_depth += line.count("{") - line.count("}")
            continue
        define = re.match(r"\s*#\s*define\s+(\w+)(\(?)\s*(.*)", line)
        if define:
            if not define[2] and define[3]:
                out.append(f"#define {define[1]} ...")
            continue
        if re.match(r"\s*#", line):
            continue  # #include, #error: nothing for cffi
        if line.lstrip().startswith("static inline"):
            line = line.replace("static inline ", "", 1)
            if line.rstrip().endswith(")"):
                out.append(line)
                continue
        if line.strip() == "{" and out and out[-1].rstrip().endswith(")") and body is None:
            out[-1] += ";"  # a static inline function: its prototype
            skip_depth = 1
            continue
        opens = re.match(r"\s*(typedef\s+)?(enum|struct)\b[^;]*\{\s*$", line)
        if opens:
            body = opens[2]
            out.append(line)
            continue
        if body and re.match(r"\s*\}", line):
            if body == "enum":
                out[-1] = out[-1].rstrip().rstrip(",") + ","
                out.append("    ...")
            else:
                out.append("    ...;")
            out.append(line)
            body = None
            continue
        if body == "enum":
            line = re.sub(r"=\s*[^,]+", "= ...", line)
        elif body == "struct":
            line = re.sub(r"\[[^\]]+\]", "[...]", line)
        out.append(line)
    return f"/* ---- {path} (generated by build_ffi.py) */\n" + "\n".join(out) + "\n"


def public_cdef() -> str:
    """The cdef of every public header of PUBLIC_HEADERS, generated."""
    return "".join(header_cdef(os.path.join(SRC_DIR, h)) for h in PUBLIC_HEADERS)


CDEF_BOARD_CALLS = """
/* ---- pyfathom/_c/board_calls.c: the per-board hot path ------------------ */
int pyfathom_board_calls_install(void);
"""

BOARD_CALLS = os.path.join("pyfathom", "_c", "board_calls.c")
"""The per-board probes written against the CPython API (METH_FASTCALL), for
the one call where cffi's argument conversion is most of the cost: see the
file's comment.  Compiled into the same module; installs its functions into
it when pyfathom._bindings.lowlevel calls pyfathom_board_calls_install()."""
TEST_DECODER = os.path.join("tests", "c", "raw_read.c")
"""One table file's stored values, straight from the decoder, for
tests/test_beyond_five.py to compare with python-chess's table reader: built
by build_test_decoder into a module of its own, for the tests only (no
wheel holds it)."""


FATHOM_BUILD = ("core", "fathom-api", "fathom-instance")
"""The roles of src/fathom/sources.txt that the module (like the Fathom
single file) compiles."""


def core_sources(roles: tuple[str, ...]) -> list[str]:
    """The files of src/fathom/sources.txt (the one list of the core's
    files) with one of *roles*, relative to src/fathom, in the list's order."""
    with open(os.path.join(HERE, SRC_DIR, "sources.txt"), encoding="utf-8") as f:
        rows = [line.split() for line in f if line.strip() and not line.startswith("#")]
    return [path for path, role in rows if role in roles]


def _sources(absolute: bool = False) -> list[str]:
    """Every C file of the core, and the board calls, relative to the project
    root (as setuptools wants) or absolute (for a build from another
    directory)."""
    paths = [os.path.join(HERE, SRC_DIR, s) for s in core_sources(FATHOM_BUILD)]
    paths.append(os.path.join(HERE, BOARD_CALLS))
    return paths if absolute else [os.path.relpath(p, HERE) for p in paths]


def _is_msvc() -> bool:
    return sys.platform == "win32" and "GCC" not in sys.version


def _flags() -> tuple[list[str], list[str], list[str]]:
    """(extra_compile_args, extra_link_args, libraries) for this platform."""
    if _is_msvc():
        return ["/O2"], [], []
    # -fvisibility=hidden: the module exports only PyInit__core (which
    # Python's headers mark visible), not the core's 40-odd functions, whose
    # calls between files then bind directly instead of through the PLT.
    # (Measured: no change in instructions per probe, 2,393 -> 2,410 per
    # batch row under callgrind; this is hygiene, not speed.)
    # -O3: the 5-piece probe's Huffman decoding and move generation ran
    # 5-10% faster than at -O2 (bench_core loop over 1,000 5-piece
    # positions, alternated builds); no -march: the module must run on any
    # CPU of its platform.
    compile_args = ["-std=c99", "-O3", "-Wall", "-Wextra", "-fvisibility=hidden"]
    link_args: list[str] = []
    if os.environ.get("PYFATHOM_SANITIZE", "") not in ("", "0"):
        sanitize = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-O1", "-g"]
        compile_args += sanitize
        link_args += sanitize
    return compile_args, link_args, ["pthread"]


ffi = cffi.FFI()
ffi.cdef(public_cdef() + CDEF_BOARD_CALLS)

# Run as a script, the build happens in build/cffi (objects and all) and the
# module is then copied into pyfathom/; under setuptools, paths are relative
# to the project root, which is the current directory there.
_STANDALONE = __name__ == "__main__"
_compile_args, _link_args, _libraries = _flags()
ffi.set_source(
    "pyfathom._core",
    "".join(f'#include "{h}"\n' for h in PUBLIC_HEADERS) + CDEF_BOARD_CALLS,
    sources=_sources(absolute=_STANDALONE),
    include_dirs=[os.path.join(HERE, d) if _STANDALONE else d for d in INCLUDE_DIRS],
    extra_compile_args=_compile_args,
    extra_link_args=_link_args,
    libraries=_libraries,
)

def build_test_decoder(tmpdir: str) -> str:
    """Build TEST_DECODER with the core into the module
    ``_pyfathom_test_decoder`` in *tmpdir*; return the module file's path.
    Its one function is declared in tests/c/raw_read.h, read like the
    public headers."""
    test_ffi = cffi.FFI()
    test_ffi.cdef(header_cdef(os.path.join("tests", "c", "raw_read.h")))
    compile_args, link_args, libraries = _flags()
    sources = [os.path.join(HERE, SRC_DIR, s) for s in core_sources(FATHOM_BUILD)]
    test_ffi.set_source(
        "_pyfathom_test_decoder", '#include "raw_read.h"\n',
        sources=[*sources, os.path.join(HERE, TEST_DECODER)],
        include_dirs=[os.path.join(HERE, SRC_DIR), os.path.join(HERE, "tests", "c")],
        extra_compile_args=compile_args, extra_link_args=link_args, libraries=libraries)
    return str(test_ffi.compile(tmpdir=tmpdir))


if __name__ == "__main__":
    import shutil

    tmpdir = os.path.join(HERE, "build", "cffi")
    built = ffi.compile(tmpdir=tmpdir, verbose=True)
    target = os.path.join(HERE, "pyfathom", os.path.basename(built))
    shutil.copyfile(built, target)
    print(f"built {target}")
