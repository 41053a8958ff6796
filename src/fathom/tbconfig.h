/*
 * tbconfig.h - build switches of the Fathom-compatible facade (tbprobe.h).
 *
 * Same switch names as Fathom's tbconfig.h, so an engine that keeps its own
 * copy of that file next to tbprobe.h (or passes the switches with -D) gets
 * the behaviour it configured.  Every switch is optional; this file only
 * documents them and sets nothing: an engine's own copy (of any Fathom
 * release since 2016, older ones lack the scoring constants) works as well.
 *
 * Honoured:
 *
 *   TB_NO_HELPER_API      leave out tb_pop_count, tb_lsb, tb_pop_lsb and the
 *                         tb_*_attacks functions (declarations and code).
 *   TB_CUSTOM_POP_COUNT(x), TB_CUSTOM_LSB(x)
 *                         expressions the whole core then uses to count bits
 *                         and find the lowest set bit of a uint64_t (e.g.
 *                         the engine's own intrinsics).  They must be
 *                         visible where the core is compiled: in this file,
 *                         or as -D flags for the library build.
 *   TB_NO_HW_POP_COUNT    never use the CPU's popcount instruction, even when
 *                         the compiler targets it.
 *   TB_NO_STDINT, TB_NO_STDBOOL
 *                         tbprobe.h declares the fixed-width integer types
 *                         and bool itself instead of including <stdint.h> /
 *                         <stdbool.h>, for the engine's own files.  The
 *                         core is C99 and always uses the standard headers
 *                         inside its own files.
 *   TB_VALUE_PAWN, TB_VALUE_MATE, TB_VALUE_INFINITE, TB_VALUE_DRAW,
 *   TB_MAX_MATE_PLY       the engine's score scale, used for tbScore by
 *                         tb_probe_root_dtz and tb_probe_root_wdl.  They are
 *                         compiled into the facade: set them where the core
 *                         is compiled.  Fathom's defaults (tbprobe.h) for
 *                         any left undefined.
 *
 * Not honoured, on purpose:
 *
 *   TB_NO_THREADS         the core takes a lock only while a table file is
 *                         mapped the first time, never on a probe, so a
 *                         single-threaded engine has nothing to save; and the
 *                         batch calls of fathom.h use threads.  Link with
 *                         -pthread (POSIX) as for Fathom built with threads.
 *   TB_USE_ATOMIC         a C++ <atomic> choice of Fathom's; the core is
 *                         compiled as C99 and publishes loaded tables with
 *                         its own memory barriers.
 *   TB_KING_ATTACKS, TB_KNIGHT_ATTACKS, TB_ROOK_ATTACKS, TB_BISHOP_ATTACKS,
 *   TB_QUEEN_ATTACKS, TB_PAWN_ATTACKS
 *                         the core's move generator is part of what the
 *                         tests check against python-chess; it computes
 *                         slider attacks without lookup tables (no
 *                         initialisation, nothing shared), so plugging in
 *                         the engine's generator would save no memory and
 *                         would leave the validated path.
 */
#ifndef TBCONFIG_H
#define TBCONFIG_H

/* #define TB_NO_HELPER_API */
/* #define TB_CUSTOM_POP_COUNT(x) __builtin_popcountll(x) */
/* #define TB_CUSTOM_LSB(x) __builtin_ctzll(x) */
/* #define TB_NO_HW_POP_COUNT */
/* #define TB_NO_STDINT */
/* #define TB_NO_STDBOOL */

/* The scoring constants: tbprobe.h gives each one left undefined here
 * Fathom's default, so an engine's older tbconfig.h without them works.
 * #define TB_VALUE_PAWN 100
 * #define TB_VALUE_MATE 32000
 * #define TB_VALUE_INFINITE 32767
 * #define TB_VALUE_DRAW 0
 * #define TB_MAX_MATE_PLY 255
 */

#endif /* TBCONFIG_H */
