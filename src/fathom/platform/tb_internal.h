/*
 * tb_internal.h - linkage of the functions the core's files share.
 *
 * Built file by file (the Python module, the tests), TB_INTERNAL is empty:
 * the shared functions are ordinary extern functions, hidden from the
 * module's export table by -fvisibility=hidden.  The single-file build an
 * engine vendors (amalgamate.sh, and the static library made from it)
 * defines TB_INTERNAL as `static`, so that tb_gen_legal, tb_map_file and
 * the rest have internal linkage there and cannot collide with an
 * engine's own symbols.  Only the first declaration carries the macro: a
 * later definition without a storage class inherits its linkage (C99
 * 6.2.2p5).
 */
#ifndef PYFATHOM_TB_INTERNAL_H
#define PYFATHOM_TB_INTERNAL_H

#ifndef TB_INTERNAL
#define TB_INTERNAL
#endif

/* For the few small functions of the probe's hot path that the compiler
 * would leave out of line (its size heuristics do not know they run on
 * every probe). */
#if defined(__GNUC__) || defined(__clang__)
#define TB_ALWAYS_INLINE static inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define TB_ALWAYS_INLINE static __forceinline
#else
#define TB_ALWAYS_INLINE static inline
#endif

/* Out of line on purpose: keeps a rare path's code and stack away from a
 * hot caller the compiler would otherwise inline it into. */
#if defined(__GNUC__) || defined(__clang__)
#define TB_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define TB_NOINLINE __declspec(noinline)
#else
#define TB_NOINLINE
#endif

#endif /* PYFATHOM_TB_INTERNAL_H */
