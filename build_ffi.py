"""cffi builder for pyfathom's C core (API mode, out of line).

This file is the only place in the project that declares C.  The ``CDEF``
strings below mirror the public headers of ``src/fathom/``:

* ``fathom.h``   the instance API the Python package is built on;
* ``tbprobe.h``  the Fathom-compatible facade (one default instance), exposed
  to Python as :mod:`pyfathom.fathom`;
* ``fen.h``      the C FEN parser;
* ``fathom_helpers.h`` what the binding and ``pyfathom annotate`` build on
  (lean probes, the best move as annotate ranks moves, SAN, game replay);

and the one function of ``pyfathom/_c/board_calls.c`` that Python calls
through cffi (it installs the per-board probes, written against the CPython
API, into the module).

Numbers (enum values, ``#define`` constants, array sizes) are written as
``...`` so that the C compiler fills them in from the headers: a header change
can never silently disagree with the Python side.  Macros with arguments
(``FATHOM_RESULT_VALUE(r)``, ``TB_GET_WDL(r)``, ...) cannot be declared to
cffi; the Python package re-implements them from the mask/shift constants.

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
import sys

import cffi

HERE = os.path.dirname(os.path.abspath(__file__))
SRC_DIR = os.path.join("src", "fathom")  # relative to HERE (setuptools wants relative paths)
# The folders the extension's C includes from: the core and pyfathom/_c.
INCLUDE_DIRS = (SRC_DIR, os.path.join("pyfathom", "_c"))

CDEF_FATHOM = """
/* ---- src/fathom/fathom.h: the instance API ------------------------------ */
typedef struct fathom_tb fathom_tb;

#define FATHOM_MAX_PIECES ...
#define FATHOM_STATUS_COUNT ...
#define FATHOM_MAX_MOVES ...
#define FATHOM_BATCH_WDL_FAILED ...
#define FATHOM_BATCH_DTZ_FAILED ...

enum fathom_status {
    FATHOM_OK = ...,
    FATHOM_ERR_MISSING_TABLE = ...,
    FATHOM_ERR_CASTLING = ...,
    FATHOM_ERR_TOO_MANY_PIECES = ...,
    FATHOM_ERR_INVALID_POSITION = ...,
    FATHOM_ERR_BAD_MAGIC = ...,
    FATHOM_ERR_BAD_SIZE = ...,
    FATHOM_ERR_CORRUPT = ...,
    FATHOM_ERR_IO = ...,
    FATHOM_ERR_NO_MEMORY = ...,
    FATHOM_ERR_ARGUMENT = ...,
    ...
};

const char *fathom_strerror(int status);

void fathom_set_fault_guard(int enabled);

typedef int64_t fathom_result;

typedef struct fathom_detail {
    char table[...];
    char metric[...];
    char path[...];
    ...;
} fathom_detail;

int fathom_open(fathom_tb **out);
#define FATHOM_VARIANT_COUNT ...
enum fathom_variant {
    FATHOM_VARIANT_STANDARD = ...,
    FATHOM_VARIANT_ATOMIC = ...,
    FATHOM_VARIANT_SUICIDE = ...,
    FATHOM_VARIANT_GIVEAWAY = ...,
    ...
};
int fathom_open_variant(fathom_tb **out, int variant);
int fathom_variant(const fathom_tb *tb);
int fathom_add_directory(fathom_tb *tb, const char *dir, int load_wdl,
                         int load_dtz, unsigned *found);
int fathom_add_path_list(fathom_tb *tb, const char *paths, char sep,
                         unsigned *found);
int fathom_add_prefix_directory(fathom_tb *tb, const char *dir, unsigned *found);
int fathom_add_file(fathom_tb *tb, const char *path, int load_wdl,
                    int load_dtz, unsigned *found);
int fathom_add_table_memory(fathom_tb *tb, const char *name, const void *data,
                            size_t size);
void fathom_close(fathom_tb *tb);
unsigned fathom_largest(const fathom_tb *tb);
unsigned fathom_mapped_count(const fathom_tb *tb);

/* The position: fen.h's fathom_board (declared with the parser below). */
fathom_result fathom_probe_wdl(fathom_tb *tb, const struct fathom_board *board,
                               fathom_detail *detail);
fathom_result fathom_probe_dtz(fathom_tb *tb, const struct fathom_board *board,
                               fathom_detail *detail);
fathom_result fathom_probe_dtz_as_stored(fathom_tb *tb, const struct fathom_board *board,
                                         fathom_detail *detail);

enum fathom_clock_result {
    FATHOM_CLOCK_LOSS = ...,
    FATHOM_CLOCK_MAYBE_LOSS = ...,
    FATHOM_CLOCK_BLESSED_LOSS = ...,
    FATHOM_CLOCK_DRAW = ...,
    FATHOM_CLOCK_CURSED_WIN = ...,
    FATHOM_CLOCK_MAYBE_WIN = ...,
    FATHOM_CLOCK_WIN = ...,
    ...
};
int fathom_clock_result(int dtz, int precise, unsigned halfmove_clock);

typedef struct fathom_root_move {
    uint8_t from, to;
    uint8_t promotion;
    uint8_t is_ep;
    int8_t wdl;
    int8_t dtz_precise;
    uint8_t unsettled;
    int32_t dtz;
    int32_t rank;
    ...;
} fathom_root_move;

int fathom_probe_root(fathom_tb *tb, const struct fathom_board *board,
                      fathom_root_move *moves, unsigned *count, int *wdl,
                      int *dtz, int *dtz_precise, fathom_detail *detail);

typedef struct fathom_check_result {
    uint64_t offset;
    char what[...];
    ...;
} fathom_check_result;

int fathom_check_table(const char *path, fathom_check_result *result);

#define FATHOM_PART_HEADER ...
#define FATHOM_PART_SPARSE_INDEX ...
#define FATHOM_PART_BLOCK_LENGTHS ...
#define FATHOM_PART_DATA ...
#define FATHOM_LAYOUT_MAX_PARTS ...
typedef struct fathom_table_part {
    uint64_t offset;
    uint64_t length;
    uint8_t kind;
    uint8_t file;
    uint8_t side;
    ...;
} fathom_table_part;

int fathom_table_layout(const char *path, fathom_table_part *parts, unsigned capacity,
                        unsigned *count);
int fathom_file_resident(const char *path, size_t n, const uint64_t *offsets,
                         const uint64_t *lengths, uint64_t *resident);

#define FATHOM_BATCH_ROW_ORDER ...
#define FATHOM_BATCH_AS_STORED ...
int fathom_probe_batch(fathom_tb *tb, size_t n, const uint64_t *const bitboards[8],
                       const uint8_t *ep, const uint8_t *turn, int8_t *wdl_out,
                       int16_t *dtz_out, uint8_t *precise_out, uint8_t *status_out,
                       unsigned threads, unsigned flags);
int fathom_probe_wdl_batch(fathom_tb *tb, size_t n, const uint64_t *white,
                           const uint64_t *black, const uint64_t *kings,
                           const uint64_t *queens, const uint64_t *rooks,
                           const uint64_t *bishops, const uint64_t *knights,
                           const uint64_t *pawns, const uint8_t *ep,
                           const uint8_t *turn, int8_t *out, uint8_t *status,
                           unsigned threads);
int fathom_probe_dtz_batch(fathom_tb *tb, size_t n, const uint64_t *white,
                           const uint64_t *black, const uint64_t *kings,
                           const uint64_t *queens, const uint64_t *rooks,
                           const uint64_t *bishops, const uint64_t *knights,
                           const uint64_t *pawns, const uint8_t *ep,
                           const uint8_t *turn, int16_t *out, uint8_t *status,
                           unsigned threads);
int fathom_probe_dtz_batch_precise(fathom_tb *tb, size_t n, const uint64_t *white,
                                   const uint64_t *black, const uint64_t *kings,
                                   const uint64_t *queens, const uint64_t *rooks,
                                   const uint64_t *bishops, const uint64_t *knights,
                                   const uint64_t *pawns, const uint8_t *ep,
                                   const uint8_t *turn, int16_t *out, uint8_t *precise,
                                   uint8_t *status, unsigned threads);
"""

CDEF_TBPROBE = """
/* ---- src/fathom/tbprobe.h: the Fathom-compatible facade ----------------- */
#define TB_LOSS ...
#define TB_BLESSED_LOSS ...
#define TB_DRAW ...
#define TB_CURSED_WIN ...
#define TB_WIN ...

#define TB_PROMOTES_NONE ...
#define TB_PROMOTES_QUEEN ...
#define TB_PROMOTES_ROOK ...
#define TB_PROMOTES_BISHOP ...
#define TB_PROMOTES_KNIGHT ...

#define TB_RESULT_WDL_MASK ...
#define TB_RESULT_TO_MASK ...
#define TB_RESULT_FROM_MASK ...
#define TB_RESULT_PROMOTES_MASK ...
#define TB_RESULT_EP_MASK ...
#define TB_RESULT_DTZ_MASK ...
#define TB_RESULT_WDL_SHIFT ...
#define TB_RESULT_TO_SHIFT ...
#define TB_RESULT_FROM_SHIFT ...
#define TB_RESULT_PROMOTES_SHIFT ...
#define TB_RESULT_EP_SHIFT ...
#define TB_RESULT_DTZ_SHIFT ...

#define TB_RESULT_FAILED ...
#define TB_RESULT_CHECKMATE ...
#define TB_RESULT_STALEMATE ...

#define TB_MAX_MOVES ...
#define TB_MAX_CAPTURES ...
#define TB_MAX_PLY ...
#define TB_CASTLING_K ...
#define TB_CASTLING_Q ...
#define TB_CASTLING_k ...
#define TB_CASTLING_q ...

typedef uint16_t TbMove;

struct TbRootMove {
    TbMove move;
    TbMove pv[...];
    unsigned pvSize;
    int32_t tbScore;
    int32_t tbRank;
    ...;
};

struct TbRootMoves {
    unsigned size;
    struct TbRootMove moves[...];
    ...;
};

/* TB_LARGEST is read through this function: see pyfathom/fathom.py. */
extern unsigned TB_LARGEST;

bool tb_init(const char *path);
void tb_free(void);
unsigned tb_probe_wdl(uint64_t white, uint64_t black, uint64_t kings,
                      uint64_t queens, uint64_t rooks, uint64_t bishops,
                      uint64_t knights, uint64_t pawns, unsigned rule50,
                      unsigned castling, unsigned ep, bool turn);
unsigned tb_probe_root(uint64_t white, uint64_t black, uint64_t kings,
                       uint64_t queens, uint64_t rooks, uint64_t bishops,
                       uint64_t knights, uint64_t pawns, unsigned rule50,
                       unsigned castling, unsigned ep, bool turn,
                       unsigned *results);
int tb_probe_root_dtz(uint64_t white, uint64_t black, uint64_t kings,
                      uint64_t queens, uint64_t rooks, uint64_t bishops,
                      uint64_t knights, uint64_t pawns, unsigned rule50,
                      unsigned castling, unsigned ep, bool turn,
                      bool hasRepeated, bool useRule50,
                      struct TbRootMoves *results);
int tb_probe_root_wdl(uint64_t white, uint64_t black, uint64_t kings,
                      uint64_t queens, uint64_t rooks, uint64_t bishops,
                      uint64_t knights, uint64_t pawns, unsigned rule50,
                      unsigned castling, unsigned ep, bool turn,
                      bool useRule50, struct TbRootMoves *results);
"""

CDEF_FEN = """
/* ---- src/fathom/fen.h: the C FEN parser --------------------------------- */
typedef struct fathom_board {
    uint64_t white, black;
    uint64_t kings, queens, rooks, bishops, knights, pawns;
    uint8_t ep;
    uint8_t turn;
    uint8_t castling;
    uint16_t halfmove;
    uint16_t fullmove;
    ...;
} fathom_board;

#define FATHOM_FEN_OK ...
#define FATHOM_FEN_ERR_ARGUMENT ...
#define FATHOM_FEN_ERR_FIELD_COUNT ...
#define FATHOM_FEN_ERR_PIECE ...
#define FATHOM_FEN_ERR_RANK_FILES ...
#define FATHOM_FEN_ERR_DIGITS ...
#define FATHOM_FEN_ERR_RANK_COUNT ...
#define FATHOM_FEN_ERR_SIDE ...
#define FATHOM_FEN_ERR_CASTLING ...
#define FATHOM_FEN_ERR_EP ...
#define FATHOM_FEN_ERR_HALFMOVE ...
#define FATHOM_FEN_ERR_FULLMOVE ...
#define FATHOM_FEN_STATUS_COUNT ...
#define FATHOM_FEN_EPD ...
#define FATHOM_FEN_MAX_COUNTER ...
#define FATHOM_CASTLE_WK ...
#define FATHOM_CASTLE_WQ ...
#define FATHOM_CASTLE_BK ...
#define FATHOM_CASTLE_BQ ...

const char *fathom_fen_strerror(int status);
int fathom_parse_fen(const char *fen, size_t len, fathom_board *out);
int fathom_parse_fen_ex(const char *fen, size_t len, unsigned flags,
                        fathom_board *out, size_t *fen_begin,
                        size_t *fen_end);
size_t fathom_parse_fen_batch(const char *buf, const size_t *offsets,
                              const size_t *lengths, size_t n,
                              unsigned flags,
                              uint64_t *white, uint64_t *black,
                              uint64_t *kings, uint64_t *queens,
                              uint64_t *rooks, uint64_t *bishops,
                              uint64_t *knights, uint64_t *pawns,
                              uint8_t *ep, uint8_t *turn, uint8_t *castling,
                              uint16_t *halfmove, size_t *fen_begin,
                              size_t *fen_end, int8_t *status);
"""

CDEF_HELPERS = """
/* ---- src/fathom/fathom_helpers.h: the binding's and annotate's helpers -- */
#define FATHOM_LEAN_FAILED ...
int32_t fathom_probe_wdl_lean(fathom_tb *tb, uint64_t white, uint64_t black,
                              uint64_t queens, uint64_t rooks, uint64_t bishops,
                              uint64_t knights, uint64_t pawns, unsigned ep,
                              int turn);
int32_t fathom_probe_dtz_lean(fathom_tb *tb, uint64_t white, uint64_t black,
                              uint64_t queens, uint64_t rooks, uint64_t bishops,
                              uint64_t knights, uint64_t pawns, unsigned ep,
                              int turn);

typedef struct fathom_best {
    fathom_root_move move;
    int result;
    unsigned count;
    unsigned dtz_probes;
    int on_edge;
    ...;
} fathom_best;

int fathom_best_move(fathom_tb *tb, const fathom_board *board, int dtz_hint,
                     fathom_best *out, fathom_detail *detail);
#define FATHOM_SAN_MAX ...
int fathom_move_san(const fathom_board *board, unsigned from, unsigned to,
                    unsigned promotion, char *out, size_t cap);

typedef struct fathom_game_position {
    uint64_t white, black;
    uint64_t kings, queens, rooks, bishops, knights, pawns;
    uint64_t promoted;
    uint64_t castling;
    uint32_t halfmove;
    uint32_t fullmove;
    int32_t dtz;
    uint16_t move;
    uint8_t ep;
    uint8_t turn;
    ...;
} fathom_game_position;

typedef struct fathom_game_summary {
    uint32_t moves;
    int32_t first;
    uint32_t records;
    ...;
} fathom_game_summary;

enum fathom_game_stop {
    FATHOM_GAME_DONE = ...,
    FATHOM_GAME_STOP_START = ...,
    FATHOM_GAME_STOP_TOKEN = ...,
    FATHOM_GAME_STOP_ILLEGAL = ...,
    FATHOM_GAME_STOP_AMBIGUOUS = ...,
    FATHOM_GAME_STOP_ROOM = ...,
    FATHOM_GAME_STOP_ARGUMENT = ...,
    ...
};
#define FATHOM_GAME_RECORD_ALL ...

int fathom_game_replay(fathom_tb *tb, const fathom_game_position *start,
                       const char *sans, size_t len, unsigned largest,
                       unsigned flags, fathom_game_position *out, size_t cap,
                       fathom_game_summary *summary);
"""

CDEF_BOARD_CALLS = """
/* ---- pyfathom/_c/board_calls.c: the per-board hot path ------------------ */
int pyfathom_board_calls_install(void);
"""

CDEF_TESTS_ONLY = """
/* ---- pyfathom/_c/raw_read.h: tests only, not the public API ------------- */
int pyfathom_test_raw_read(const char *path, const char *name, int is_dtz,
                           size_t count, const uint64_t *boards,
                           const uint8_t *turns, const int8_t *wdls,
                           int32_t *values, int8_t *stored, int8_t *status);
"""

HEADERS = ["fathom.h", "tbprobe.h", "fen.h", "fathom_helpers.h"]
BOARD_CALLS = os.path.join("pyfathom", "_c", "board_calls.c")
"""The per-board probes written against the CPython API (METH_FASTCALL), for
the one call where cffi's argument conversion is most of the cost: see the
file's comment.  Compiled into the same module; installs its functions into
it when pyfathom._bindings.lowlevel calls pyfathom_board_calls_install()."""
RAW_READ = os.path.join("pyfathom", "_c", "raw_read.c")
"""One table file's stored values, straight from the decoder, for
tests/test_beyond_five.py to compare with python-chess's table reader; no
pyfathom module calls it."""


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
    paths.append(os.path.join(HERE, RAW_READ))
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
ffi.cdef(CDEF_FATHOM + CDEF_TBPROBE + CDEF_FEN + CDEF_HELPERS + CDEF_BOARD_CALLS
         + CDEF_TESTS_ONLY)

# Run as a script, the build happens in build/cffi (objects and all) and the
# module is then copied into pyfathom/; under setuptools, paths are relative
# to the project root, which is the current directory there.
_STANDALONE = __name__ == "__main__"
_compile_args, _link_args, _libraries = _flags()
ffi.set_source(
    "pyfathom._core",
    "".join(f'#include "{h}"\n' for h in HEADERS) + CDEF_BOARD_CALLS + '#include "raw_read.h"\n',
    sources=_sources(absolute=_STANDALONE),
    include_dirs=[os.path.join(HERE, d) if _STANDALONE else d for d in INCLUDE_DIRS],
    extra_compile_args=_compile_args,
    extra_link_args=_link_args,
    libraries=_libraries,
)

if __name__ == "__main__":
    import shutil

    tmpdir = os.path.join(HERE, "build", "cffi")
    built = ffi.compile(tmpdir=tmpdir, verbose=True)
    target = os.path.join(HERE, "pyfathom", os.path.basename(built))
    shutil.copyfile(built, target)
    print(f"built {target}")
