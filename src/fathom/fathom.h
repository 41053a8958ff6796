/*
 * fathom.h - the instance API of the pyfathom Syzygy prober.
 *
 * A fathom_tb is a set of Syzygy tables found in one or more directories.
 * Tables are located when a directory is added and memory-mapped the first
 * time a probe needs them.  Any number of instances may coexist; nothing in
 * the library is global except the optional Fathom-compatible facade in
 * tbprobe.h, which owns exactly one instance.
 *
 * Squares are numbered 0 = a1 ... 63 = h8.  Positions are passed as a
 * const fathom_board * (fen.h, which fathom_parse_fen fills): the eight
 * bitboards python-chess keeps (occupied by white, by black, and one mask
 * per piece type), the en-passant target square (0 for none), the side to
 * move (1 = white), the castling rights (a probe of a board with any
 * answers FATHOM_ERR_CASTLING: no table holds them) and the halfmove clock
 * (read by the root probes only: the others assume it was just reset).
 * A NULL instance or board answers FATHOM_ERR_ARGUMENT.  The batch calls
 * take the same fields as arrays instead.
 *
 * THREAD SAFETY: every probe function may be called from any number of
 * threads on one instance at once.  Adding directories or tables and closing
 * an instance must not overlap with probes on that instance.
 */
#ifndef PYFATHOM_FATHOM_H
#define PYFATHOM_FATHOM_H

#include <stddef.h>
#include <stdint.h>

#include "fen.h" /* fathom_board */

#ifdef __cplusplus
extern "C" {
#endif

/* An instance: the tables of some directories, probed through this handle. */
typedef struct fathom_tb fathom_tb;

/* Largest number of pieces any Syzygy table holds. */
#define FATHOM_MAX_PIECES 7

/* Status codes.  Values are pinned: bindings map them to exceptions. */
enum fathom_status {
    FATHOM_OK = 0,
    FATHOM_ERR_MISSING_TABLE = 1,    /* a table the probe needs is not loaded */
    FATHOM_ERR_CASTLING = 2,         /* castling rights: tables hold none */
    FATHOM_ERR_TOO_MANY_PIECES = 3,  /* more than FATHOM_MAX_PIECES pieces */
    FATHOM_ERR_INVALID_POSITION = 4, /* inconsistent or illegal position */
    FATHOM_ERR_BAD_MAGIC = 5,        /* file does not start with the magic */
    FATHOM_ERR_BAD_SIZE = 6,         /* file size is not 16 mod 64 */
    FATHOM_ERR_CORRUPT = 7,          /* header/index/block points outside */
    FATHOM_ERR_IO = 8,               /* open, stat, mmap or a read failed */
    FATHOM_ERR_NO_MEMORY = 9,        /* allocation failed */
    FATHOM_ERR_ARGUMENT = 10         /* bad argument (NULL, bad path list) */
};
#define FATHOM_STATUS_COUNT 11

/* A short English description of a status code; never NULL. */
const char *fathom_strerror(int status);

/*
 * The fault guard (GCC or Clang builds, POSIX and Windows; on by default).  A table
 * file is read through a memory map; when a page of it cannot be read
 * while mapped (the file was truncated or shrunk in use, or the disk
 * reports an error), the system raises SIGBUS.  The core's SIGBUS handler,
 * installed once per process when the first table file is mapped, puts a
 * page of zeros in its place and marks that file damaged: the probes that
 * read it then answer FATHOM_ERR_IO with the file in their detail, until
 * the instance is closed (a new instance maps the file afresh).  Faults
 * elsewhere go on to the handler installed before (or the default
 * action).  fathom_set_fault_guard(0) before the first table is mapped
 * keeps the core's hands off SIGBUS (for a program that handles it
 * itself): later mappings get no guard, and a lost page then stops the
 * process, as it does for any mapped read.  Building the core with
 * -DFATHOM_NO_FAULT_GUARD leaves the handler out altogether.  Process-wide
 * by nature, as a signal handler is.
 * On Windows (every compiler: MSVC, Clang, mingw-w64) the guard is a
 * vectored exception handler, first in the chain, for a read that cannot
 * be paged in (EXCEPTION_IN_PAGE_ERROR: a disk error, a drive gone): the
 * file's view is replaced by zeros at the same addresses and the file
 * marked damaged, with the same answers; other exceptions go on down the
 * chain.
 */
void fathom_set_fault_guard(int enabled);

/*
 * Probe results are packed into one 64-bit integer so that a binding makes
 * exactly one foreign call per probe and allocates nothing:
 *
 *   bits 0..7   status (enum fathom_status)
 *   bit  8      DTZ precise flag (1 = exact plies, 0 = may be one ply short)
 *   bits 16..   the answer, signed (WDL -2..2 or DTZ in plies)
 *
 * so  value = r >> 16 (arithmetic) = FATHOM_RESULT_VALUE(r).
 */
typedef int64_t fathom_result;
#define FATHOM_RESULT_STATUS(r) ((int)((r) & 0xff))
#define FATHOM_RESULT_PRECISE(r) ((int)(((r) >> 8) & 1))
#define FATHOM_RESULT_VALUE(r) ((int32_t)(((r) - ((r) & 0xffff)) / 65536))

/* Failure detail: which table a MISSING_TABLE/CORRUPT/... error is about. */
typedef struct fathom_detail {
    char table[16];   /* material, e.g. "KRvKP" ("" if not about a table) */
    char metric[8];   /* "wdl" or "dtz" ("" if not about a table) */
    char path[4096];  /* file path when a file was involved, else "" */
} fathom_detail;

/*
 * fathom_open: create an empty instance.
 * RETURN: FATHOM_OK and *out set, or an error code (*out left NULL).
 */
int fathom_open(fathom_tb **out);

/*
 * fathom_add_directory: register every regular Syzygy table (KQvK.rtbw,
 * KQvK.rtbz, ...) found in one directory.  Nothing is mapped yet.  A table
 * already registered is replaced by the newer file.
 * PARAMETERS: load_wdl/load_dtz select the file kinds; *found (may be NULL)
 * receives the number of table files registered.
 * RETURN: FATHOM_OK, or FATHOM_ERR_IO if the directory cannot be listed.
 */
int fathom_add_directory(fathom_tb *tb, const char *dir, int load_wdl,
                         int load_dtz, unsigned *found);

/*
 * fathom_add_file: register one table file, as fathom_add_directory does
 * for each file of a directory (python-chess's Tablebase.add_file).  The
 * file is not opened yet; a name that is not a regular table's (or a kind
 * not selected by load_wdl/load_dtz) registers nothing.
 * RETURN: FATHOM_OK (*found, may be NULL, is 1 if the file was registered,
 * else 0), FATHOM_ERR_NO_MEMORY or FATHOM_ERR_ARGUMENT.
 */
int fathom_add_file(fathom_tb *tb, const char *path, int load_wdl,
                    int load_dtz, unsigned *found);

/*
 * fathom_add_path_list: fathom_add_directory for each entry of a list
 * separated by `sep` (':' on POSIX, ';' on Windows, as Fathom's tb_init).
 * Empty entries are skipped; directories that cannot be read are skipped.
 */
int fathom_add_path_list(fathom_tb *tb, const char *paths, char sep,
                         unsigned *found);

/*
 * fathom_add_table_memory: register one table from bytes the caller already
 * holds (read from an archive, a network, a test) instead of a file.
 * PARAMETERS: name is the file name the bytes would have ("KQvK.rtbw" or
 * "KQvK.rtbz", normalised as in a directory); data/size the whole file.
 * The bytes are not copied: they must stay valid and unchanged until the
 * instance is closed or the table is registered again.  Nothing is parsed
 * yet; the first probe that needs the table checks it exactly as a mapped
 * file (size, magic, every offset), and errors name it "memory:NAME".
 * RETURN: FATHOM_OK, or FATHOM_ERR_ARGUMENT (NULL instance or name, NULL
 * data with a size, not a table name), FATHOM_ERR_NO_MEMORY.
 */
int fathom_add_table_memory(fathom_tb *tb, const char *name, const void *data,
                            size_t size);

/*
 * Chess variants whose Syzygy tables an instance can probe.  An instance
 * probes one variant, fixed when it is opened: it registers that variant's
 * file names only and applies its rules.
 *
 *   STANDARD  .rtbw/.rtbz
 *   ATOMIC    .atbw/.atbz
 *   SUICIDE   .stbw/.stbz, pawnless tables also .gtbw/.gtbz
 *   GIVEAWAY  .gtbw/.gtbz, pawnless tables also .stbw/.stbz (antichess)
 */
enum fathom_variant {
    FATHOM_VARIANT_STANDARD = 0,
    FATHOM_VARIANT_ATOMIC = 1,
    FATHOM_VARIANT_SUICIDE = 2,
    FATHOM_VARIANT_GIVEAWAY = 3
};
#define FATHOM_VARIANT_COUNT 4

/*
 * fathom_open_variant: fathom_open for the tables of a variant.
 * RETURN: FATHOM_OK, or FATHOM_ERR_ARGUMENT for an unknown variant.
 */
int fathom_open_variant(fathom_tb **out, int variant);

/* The variant an instance probes (FATHOM_VARIANT_*); -1 for NULL. */
int fathom_variant(const fathom_tb *tb);

/* fathom_close: unmap everything and free the instance.  NULL is fine. */
void fathom_close(fathom_tb *tb);

/* Number of pieces of the largest registered WDL table (Fathom's TB_LARGEST). */
unsigned fathom_largest(const fathom_tb *tb);

/* Number of table files currently mapped (memory grows with tables touched). */
unsigned fathom_mapped_count(const fathom_tb *tb);

/*
 * fathom_probe_wdl: WDL of the position for the side to move, -2..2
 * (loss, blessed loss, draw, cursed win, win), assuming the halfmove clock
 * was just reset.  Same answers as python-chess's chess.syzygy.probe_wdl.
 * The board's halfmove clock is not read.  detail may be NULL; on
 * failure it names the table involved.
 * RETURN: packed fathom_result.
 */
fathom_result fathom_probe_wdl(fathom_tb *tb, const fathom_board *board,
                               fathom_detail *detail);

/*
 * fathom_probe_dtz: DTZ in plies for the side to move, python-chess's
 * probe_dtz semantics (positive: win, negative: loss, 0: draw; values
 * beyond +-100 are cursed wins / blessed losses).  The precise bit of the
 * result says whether the value is exact or may be one ply short because the
 * table stores it rounded to moves.
 * RETURN: packed fathom_result.
 */
fathom_result fathom_probe_dtz(fathom_tb *tb, const fathom_board *board,
                               fathom_detail *detail);

/*
 * fathom_probe_dtz_as_stored: fathom_probe_dtz with the precise flag that
 * shakmaty-syzygy, and so lichess's tablebase server, reports (pyfathom's
 * server answers with it); the DTZ is the same.  Two differences: a DTZ
 * of 1 the table stores rounded keeps its rounded flag even where a move
 * mates (fathom_probe_dtz marks it exact), and where the DTZ comes from a
 * one-ply search (the table stores the other side to move) and several
 * moves tie for it, the flag is that of the first of them in
 * shakmaty-syzygy's move order (fathom_probe_dtz: exact when the tied
 * moves together pin the value down).  Standard chess only: an instance
 * of a variant answers as fathom_probe_dtz.
 * RETURN: packed fathom_result.
 */
fathom_result fathom_probe_dtz_as_stored(fathom_tb *tb, const fathom_board *board,
                                         fathom_detail *detail);

/*
 * The result of a position under the 50-move rule (the shape of
 * shakmaty-syzygy's AmbiguousWdl), from its DTZ (python-chess's sign: plies
 * to the zeroing move, positive when the side to move wins), the DTZ's
 * precise flag and the halfmove clock the position already has.  Ordered:
 * higher is better for the side to move.
 *
 *   WIN          the zeroing move comes by ply 100 of the clock, also if
 *                a rounded DTZ is one ply short
 *   MAYBE_WIN    it comes at ply 100 by a rounded DTZ, which may be one ply
 *                short: a win or a 50-move draw, the table cannot say
 *   CURSED_WIN   it comes after ply 100: a draw under the rule
 *
 * and the same for losses; DRAW for a DTZ of 0.
 */
enum fathom_clock_result {
    FATHOM_CLOCK_LOSS = -3,
    FATHOM_CLOCK_MAYBE_LOSS = -2,
    FATHOM_CLOCK_BLESSED_LOSS = -1,
    FATHOM_CLOCK_DRAW = 0,
    FATHOM_CLOCK_CURSED_WIN = 1,
    FATHOM_CLOCK_MAYBE_WIN = 2,
    FATHOM_CLOCK_WIN = 3
};

/* fathom_clock_result: the FATHOM_CLOCK_* result of a DTZ under a clock. */
int fathom_clock_result(int dtz, int precise, unsigned halfmove_clock);

/* fathom_clock_wdl: a clock result as a WDL -2..2 taking a rounded DTZ at
 * its face value (a maybe-win is a win), as fathom_root_move.wdl holds it. */
int fathom_clock_wdl(int result);

/* One legal root move with its outcome from the mover's point of view. */
typedef struct fathom_root_move {
    uint8_t from, to;
    uint8_t promotion;  /* 0 none, else python-chess piece type 2..5 (N,B,R,Q) */
    uint8_t is_ep;      /* 1 if an en-passant capture */
    int8_t wdl;         /* -2..2 under the 50-move rule from the root clock */
    int8_t dtz_precise; /* 1 if dtz is exact */
    uint8_t unsettled;  /* 1: dtz is rounded and exactly the plies the clock
                         * leaves, and the settling search (fathom_probe_root)
                         * ran out of budget before deciding it */
    uint8_t reserved;   /* 0 */
    int32_t dtz;        /* signed DTZ in plies counted from the root position
                         * (settled on the 50-move edge: fathom_probe_root) */
    int32_t rank;       /* tbRank on a 2^18 scale: higher is better */
} fathom_root_move;

#define FATHOM_MAX_MOVES 256

/* The scale of fathom_root_move.rank (Fathom's and Stockfish's TB_MAX_RANK):
 * a win within the 50-move rule ranks FATHOM_RANK_MAX. */
#define FATHOM_RANK_MAX (1 << 18)

/*
 * fathom_probe_root: probe every legal move of the position (Fathom's
 * tb_probe_root), sorted best first: wins certain within the 50-move rule
 * (shortest DTZ first; certain also when a DTZ stored rounded is one ply
 * short), other wins by DTZ (a rounded DTZ at the limit, cursed wins),
 * draws, blessed losses, losses (longest DTZ first).  A move whose DTZ is
 * rounded and exactly the plies the clock leaves (the rounding then decides
 * between a win and a 50-move draw) is settled by a search below it (can
 * the winner force mate or a winning zeroing move in time, whatever the
 * loser does?): its dtz becomes exact, one ply longer than the table's if
 * not, and its wdl and rank follow.  The search is bounded by a budget of
 * work (EDGE_WORK_BUDGET in tb_probe.c: 3,072 table reads and nodes
 * searched, counted, so deterministic), the same for every root: on 3-5
 * pieces at most about 5 times the most expensive plain root probe's
 * instructions, a few ms (README, "Wins at the 50-move edge", has the
 * figures); a move it leaves open keeps its rounded value and has
 * unsettled set.  moves must have room for FATHOM_MAX_MOVES entries; *count
 * receives the number of legal moves (0: mate or stalemate).  *wdl and *dtz
 * receive the root position's WDL under the 50-move rule (from the board's
 * halfmove clock; its
 * best move's where its own rounded DTZ sits on the limit) and its DTZ (as
 * fathom_probe_dtz); *dtz_precise its precise flag.
 * RETURN: a status code.
 */
int fathom_probe_root(fathom_tb *tb, const fathom_board *board,
                      fathom_root_move *moves, unsigned *count, int *wdl,
                      int *dtz, int *dtz_precise, fathom_detail *detail);

/*
 * fathom_probe_root_wdl: like fathom_probe_root but with the WDL tables
 * only (a fallback when DTZ tables are missing): each move's wdl is the
 * child's WDL from the mover's side (cursed/blessed as stored), dtz is 0,
 * rank is Fathom's WDL rank, and moves are sorted by it, best first.
 * *wdl receives the root position's WDL (as fathom_probe_wdl; the board's
 * halfmove clock is not read).
 */
int fathom_probe_root_wdl(fathom_tb *tb, const fathom_board *board,
                          fathom_root_move *moves, unsigned *count, int *wdl,
                          fathom_detail *detail);

/*
 * Batch probes over arrays of n positions (struct-of-arrays, as numpy
 * holds them).  Rows that cannot be probed get FATHOM_BATCH_WDL_FAILED /
 * FATHOM_BATCH_DTZ_FAILED; a bad row never stops the batch.  status may be
 * NULL; else it has room for n bytes and receives each row's status code
 * (FATHOM_OK where the row was answered): why a row failed.  threads == 0
 * means one thread per online CPU (the calling thread is one of them).
 * fathom_probe_dtz_batch_precise is fathom_probe_dtz_batch with one more
 * output: precise (NULL: not wanted; else room for n bytes) receives each
 * row's DTZ precise flag (FATHOM_RESULT_PRECISE of fathom_probe_dtz: 1 when
 * the value is exact, 0 when it may be one ply short or the row failed), so
 * a caller can tell a rounded DTZ from an exact one without a probe per row.
 *
 * Each row's value, status and precise flag are those of fathom_probe_wdl /
 * fathom_probe_dtz on it, whatever the thread count and order.  How the rows
 * are worked through: in slices of at most 1,048,576 rows, in table order,
 * each answer stored in the row's own place.  Standard-chess WDL rows are
 * probed up to their own table read (captures resolved, the table found,
 * the index computed), then those reads are made sorted by (table, stream,
 * index); DTZ rows and variants' rows are sorted by where their WDL value
 * lies and probed in that order.  Rows in the same block of a table (and
 * the captures and DTZ searches below them, which land near each other)
 * are then decoded by one walk forward through the block instead of a walk
 * from its start per row, and a read behind where the block's walk stands
 * walks on from the nearest earlier stop kept for the block (up to 16 per
 * block of 128 bytes or more, the DTZ tables' blocks).  Working memory:
 * 16 bytes per row of a slice (20 when a 7-piece table is probed) plus
 * about 0.74 MB per thread, less under 1,024 rows, and 0.52 MB for
 * read-ahead unless it is off (at most about 22 MB per thread however
 * large the batch, and nothing that grows with the tables); when it cannot
 * be allocated the rows are probed in the caller's order.
 * Threads claim slices (at least two per thread, so an unevenly loaded
 * machine does not hold the call up); a thread that cannot be started
 * leaves its rows to the others.
 *
 * fathom_probe_batch is the general form behind the three: bitboards holds
 * the eight arrays (white, black, kings, queens, rooks, bishops, knights,
 * pawns); exactly one of wdl_out and dtz_out is given (precise only with
 * dtz_out).  flags: 0, or any of FATHOM_BATCH_ROW_ORDER to probe the rows
 * one by one in the caller's order, 64 rows per claim (the same answers;
 * for comparisons and measurements), and FATHOM_BATCH_AS_STORED for the
 * precise flags of fathom_probe_dtz_as_stored (DTZ batches).
 * RETURN: FATHOM_OK, or FATHOM_ERR_ARGUMENT for a NULL instance or array,
 * both or neither output, or an unknown flag.
 */
#define FATHOM_BATCH_WDL_FAILED (-128)
#define FATHOM_BATCH_DTZ_FAILED (-32768)
#define FATHOM_BATCH_ROW_ORDER 1u
#define FATHOM_BATCH_AS_STORED 2u
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

/*
 * Read-ahead of a batch's table reads (the batch calls above; not the
 * single probes).  A slice's rows are probed in table order, so where
 * the next rows' reads lie is known: with read-ahead, the pages that the
 * rows 48 to 144 places ahead will read are asked of the system
 * (MADV_WILLNEED) before they are needed, so that tables on disk keep
 * many reads in flight however few threads run, where each probe alone
 * waits for one page at a time.  Covered: each standard-chess row's own
 * WDL read, a DTZ row's own DTZ read, its captures' WDL reads and its
 * DTZ search's children's reads; not a WDL row's captures, nor
 * variants' rows (read as before).
 *
 * A batch that probes with fewer threads than there are processors
 * (threads=1 on a 2-core machine) has the asking done by a thread of its
 * own, a few rows ahead of each probing thread, which then only probes;
 * pages of one table a page or two apart are asked for as one range.
 *
 * Root probes (fathom_probe_root, fathom_probe_root_wdl, whose waves
 * ask for the moves' WDL reads only, and fathom_best_move, which annotate
 * uses) of standard-chess positions follow the same mode:
 * the reads of the root's probe and of every move's probe are asked for
 * together, in three waves (index entries, block-length entries, blocks),
 * then those of the moves whose DTZ probe searches a ply, so that a cold
 * root probe waits for about six reads in turn instead of its moves'
 * reads one after another.  AUTO asks for roots of 6 pieces or more
 * (3-5-piece tables fit in memory) while the instance's root probes
 * before took page faults.  So do game replays (fathom_game_replay,
 * fathom_helpers.h): the reads of the DTZ probes of a game's positions
 * within the tables are asked for together, 64 positions a time, before
 * they are probed.
 * FATHOM_READ_AHEAD_AUTO, the default: each batch thread asks ahead
 * while its last 256 rows took page faults (tables not in memory), and
 * not while they took none (tables in memory, where asking would only
 * cost a system call per read); FATHOM_READ_AHEAD_ALWAYS asks always,
 * FATHOM_READ_AHEAD_OFF never (for comparisons and measurements).  The
 * answers are the same in every mode.  POSIX with madvise only;
 * elsewhere every mode reads as OFF does.  fathom_set_read_ahead applies
 * to the instance's batch calls, root probes and replays that start after it.  RETURN: FATHOM_OK,
 * or FATHOM_ERR_ARGUMENT for a NULL instance or an unknown mode.
 * fathom_read_ahead: the instance's mode (-1 for NULL).
 */
#define FATHOM_READ_AHEAD_OFF 0
#define FATHOM_READ_AHEAD_AUTO 1
#define FATHOM_READ_AHEAD_ALWAYS 2
int fathom_set_read_ahead(fathom_tb *tb, int mode);
int fathom_read_ahead(const fathom_tb *tb);

/*
 * Ask the system for the table reads that probing board and the position
 * after each of its legal moves will make (its WDL and DTZ values, every
 * move's, a capture's DTZ too, and their searches' children and those
 * children's captures), for a caller that probes those positions itself,
 * such as a server answering one position with every move's values from
 * several threads.  Returns once the reads are asked for (the index and
 * block-length entries they depend on are then in memory); the probes
 * that follow find their pages read or on their way.  The tables of the
 * position's and its moves' own values are opened first where no probe
 * has yet; others (their captures' and searches') are covered once a
 * probe has opened them.  Standard chess, POSIX; elsewhere, and
 * with the instance's mode FATHOM_READ_AHEAD_OFF, nothing is asked.
 * Answers never change.  Asking costs a system call per page even when
 * it is in memory, so in the mode FATHOM_READ_AHEAD_AUTO one call in 16
 * looks which pages are in memory first (mincore) and asks only for the
 * others, and once 4 such looks in a row found every page in memory, the
 * calls between looks ask nothing, until a look finds pages missing;
 * FATHOM_READ_AHEAD_ALWAYS asks on every call.  RETURN: FATHOM_OK, or the status
 * fathom_probe_dtz gives for a board it cannot probe (nothing asked).
 */
int fathom_read_ahead_moves(fathom_tb *tb, const fathom_board *board);

/*
 * fathom_check_table: read a whole table file the way probes read it and
 * report the first damage found: a file that cannot be opened, a wrong
 * size or magic, a header, index entry, block size or data block that a
 * probe would find pointing outside the file or decoding wrongly.  Does
 * not need an instance; thread-safe.  The file name says the table
 * (KRPvKR.rtbw).  *result receives the offset of the damaged region (0 for
 * the whole file) and one English sentence; both are zero/"" when the file
 * is fine.  Reads the whole file: about as long as copying it.
 * RETURN: FATHOM_OK, FATHOM_ERR_ARGUMENT (not a table name),
 * FATHOM_ERR_{IO,BAD_SIZE,BAD_MAGIC,CORRUPT}, FATHOM_ERR_NO_MEMORY.
 */
typedef struct fathom_check_result {
    uint64_t offset;
    char what[128];
} fathom_check_result;

int fathom_check_table(const char *path, fathom_check_result *result);

/*
 * fathom_check_table_stoppable: fathom_check_table, giving up early once
 * *stop is nonzero (raised by another thread or a signal handler; read
 * before every block and every 4,096 index entries, so a check of a
 * file of many gigabytes stops within a block's read).  *stopped (may
 * be NULL) is set to 1 when it gave up, else 0: the status is then
 * FATHOM_OK and *result empty, meaning nothing was found in the part
 * read, not that the file is fine.  stop NULL: never gives up.
 */
int fathom_check_table_stoppable(const char *path, fathom_check_result *result,
                                 const int *stop, int *stopped);

/*
 * fathom_add_prefix_directory: take every file NAME.prefix of directory
 * dir as the prefix file of table files called NAME (KRvK.rtbw.prefix for
 * any KRvK.rtbw), as lila-tablebase's --hot-prefix does: a copy of the
 * table file's first bytes, kept on faster storage.  When such a table is
 * mapped, the bytes below the prefix's size are read from the prefix file
 * (whole pages; the table file's head is not read), once its header is
 * found to describe exactly the table file's length.  A prefix file longer
 * than its table, or whose header does not fit it, fails the table's
 * probes with FATHOM_ERR_BAD_SIZE or FATHOM_ERR_CORRUPT and a detail path
 * naming the prefix file.  Later directories win; tables already mapped
 * keep their mapping.  Not on Windows (FATHOM_ERR_ARGUMENT).
 * RETURN: FATHOM_OK, FATHOM_ERR_IO (cannot list dir), FATHOM_ERR_NO_MEMORY.
 */
int fathom_add_prefix_directory(fathom_tb *tb, const char *dir, unsigned *found);

/*
 * fathom_table_layout: where the parts of a table file lie, as the open
 * step finds them (for warming the page cache, residency reports and
 * prefix files on fast storage).  Does not need an instance; thread-safe;
 * reads only the headers.  Parts come in file order: one
 * FATHOM_PART_HEADER (offset 0 up to the first sparse index: the file
 * header, every stream's Huffman header and symbol table, DTZ value
 * maps), then per stored stream (file = pawn file 0..3 or 0, side 0..1)
 * its sparse index, then per stream its block-length table, then per
 * stream its data blocks.  Streams of one constant value have no parts.
 * At most FATHOM_LAYOUT_MAX_PARTS parts; *count receives how many.
 * RETURN: FATHOM_OK, FATHOM_ERR_ARGUMENT (not a table name, or fewer
 * than FATHOM_LAYOUT_MAX_PARTS slots), or tb open's errors.
 */
#define FATHOM_PART_HEADER 0
#define FATHOM_PART_SPARSE_INDEX 1
#define FATHOM_PART_BLOCK_LENGTHS 2
#define FATHOM_PART_DATA 3
#define FATHOM_LAYOUT_MAX_PARTS 25
typedef struct fathom_table_part {
    uint64_t offset;
    uint64_t length;
    uint8_t kind; /* FATHOM_PART_* */
    uint8_t file; /* pawn file 0..3 (a..d), 0 for pawnless tables */
    uint8_t side; /* stored side 0..1 */
} fathom_table_part;

int fathom_table_layout(const char *path, fathom_table_part *parts, unsigned capacity,
                        unsigned *count);

/*
 * fathom_file_resident: per range i of the file at path, how many bytes of
 * [offsets[i], offsets[i] + lengths[i]) are in the page cache
 * (resident[i]; whole pages clipped to the range, as vmtouch counts).
 * Reads nothing from the file.  RETURN: FATHOM_OK, FATHOM_ERR_IO (cannot
 * map it), FATHOM_ERR_BAD_SIZE (empty), FATHOM_ERR_ARGUMENT (not
 * available on this system: Windows).
 */
int fathom_file_resident(const char *path, size_t n, const uint64_t *offsets,
                         const uint64_t *lengths, uint64_t *resident);

#ifdef __cplusplus
}
#endif

#endif /* PYFATHOM_FATHOM_H */
