/*
 * tb_read_ahead.h - internal: a batch slice's read-ahead.  A slice probes
 * its rows in table order (tb_batch_sorted.c), so which rows come next,
 * and where their table reads lie, is known before they are probed; on
 * tables that are not in memory, asking the system for those reads some
 * rows ahead keeps many of them in flight at once, where a probe on its
 * own waits for one page at a time.  Not installed.
 */
#ifndef PYFATHOM_TB_READ_AHEAD_H
#define PYFATHOM_TB_READ_AHEAD_H

#include "platform/tb_internal.h"
#include "platform/tb_platform.h"

#include <stddef.h>
#include <stdint.h>

#include "format/tb_table.h"
#include "probe/tb_probe.h"

/* tb_ahead_target and TB_AHEAD_TARGETS: probe/tb_probe.h, whose probes
 * know where a row's reads lie. */

/* The targets of the row at place k of the slice's order, into out;
 * RETURN how many (0: none known, e.g. a table not mapped yet). */
typedef unsigned (*tb_ahead_targets_fn)(const void *context, size_t k,
                                        tb_ahead_target out[TB_AHEAD_TARGETS]);

/* The reads place k's row will make beyond its targets (a DTZ row's
 * search: its children's values) into out, at most cap; RETURN how many.
 * Called once a row, when the row's own reads asked for before are in
 * memory (NULL: no such reads). */
typedef unsigned (*tb_ahead_children_fn)(const void *context, size_t k, tb_ahead_target *out,
                                         unsigned cap);

/*
 * Rows between the three steps of a read (tb_pairs_ahead_range): when row
 * j is probed, row j + D's block, row j + 2D's size entry and row j + 3D's
 * index entry are asked for, so up to 3D reads are in flight.  Measured
 * in bench_cold.py (KQRBvKQR, cold, 100,000 WDL rows, one thread): see
 * tb_read_ahead.c.
 *
 * A row's children (a DTZ row's search) are asked for in the same three
 * steps, C rows apart, the last C rows ahead of the probe: their places
 * are known only once the row's own value is in (a drawn row has no
 * search), so the row's own steps go 3C rows further ahead than without
 * children.  C is shorter than D: a pass with children spends more time a
 * row (the children's probes), so fewer rows cover a read's latency.
 */
#define TB_AHEAD_DISTANCE 48
#ifndef TB_AHEAD_CHILD_DISTANCE
#define TB_AHEAD_CHILD_DISTANCE 16
#endif
#define TB_AHEAD_RING 256 /* a power of two above 3 * (TB_AHEAD_DISTANCE + C) */
#ifndef TB_AHEAD_CHILD_RING
#define TB_AHEAD_CHILD_RING 64 /* a power of two above 3 * C */
#endif
/* Children's reads kept per row: 2 per quiet move (WDL and DTZ); a
 * 7-piece position has rarely more than 60 quiet moves, and a row with
 * more has the rest read as its probe comes to them. */
#define TB_AHEAD_CHILD_TARGETS 160
/* Pages asked for lately, remembered by hash so that one asked again soon
 * costs no system call (a DTZ row's children share pages with the rows'
 * before it by the dozen: 1,844,167 calls for 100,000 cold KQRBvKQR rows
 * with only the page last asked remembered, 511,217 with this).  4 bytes
 * each: a page number's low 32 bits (two pages that share them only cost
 * one read asked too few). */
#ifndef TB_AHEAD_ASKED_BITS
#define TB_AHEAD_ASKED_BITS 16 /* 65,536 */
#endif

/* Nearby pages asked as one call (a run): the reads of one step land a
 * page or two apart by the dozen when the batch is dense in its table
 * (100,000 KQRBvKQR rows in a 425 MB file: one row per 4 KiB), and each
 * call costs a system call and the device a request of its own (on a
 * virtual disk a doorbell and an interrupt), where a run costs one of
 * each for up to TB_AHEAD_RUN_PAGES pages.  So a step's reads wait in a
 * buffer of their own (one per step, for the rows' reads and for their
 * children's) for up to TB_AHEAD_RUN_ROWS rows, so that they keep most of
 * their lead on the probe, and are then sorted and asked as runs, up to
 * TB_AHEAD_GAP_PAGES pages between two reads read with them: a larger
 * read costs the device little more than a 4 KiB one (the default WDL
 * call: 115,909 -> 144,848 rows/s reading 292 -> 337 MB).  Sorted, since
 * a DTZ row's two reads lie in two files and its children's all over
 * theirs: taken in order, one run a step, they broke every run (cold DTZ,
 * 100,000 rows: 130,000 device requests; sorted 113,000). */
#ifndef TB_AHEAD_GAP_PAGES
#define TB_AHEAD_GAP_PAGES 2
#endif
#ifndef TB_AHEAD_RUN_PAGES
#define TB_AHEAD_RUN_PAGES 32
#endif
#ifndef TB_AHEAD_RUN_ROWS
#define TB_AHEAD_RUN_ROWS 4
#endif
/* Buffers: one per step (TB_AHEAD_BLOCK .. TB_AHEAD_INDEX, 1..3), for the
 * rows' own reads and for their children's, which lie elsewhere; a full
 * one is asked at once. */
#define TB_AHEAD_RUNS 6
#ifndef TB_AHEAD_PENDING
#define TB_AHEAD_PENDING 512
#endif

typedef struct tb_ahead_range {
    const tb_map *map;
    uintptr_t first, last; /* page numbers, inclusive */
} tb_ahead_range;

/* Dense passes: where the new pages a pass asks in a file (block steps,
 * the rows' and their children's) lie TB_AHEAD_DENSE_GAP pages apart or
 * less on average, over TB_AHEAD_DENSE_MIN_PAGES of them or more, the pass
 * reads most of the file sooner or later, so each read there takes the
 * TB_AHEAD_DENSE_PAGES pages after it along: the same bytes in a fifth of
 * the requests (bench_cold.py, cold DTZ, 100,000 KQRBvKQR rows read 605 MB
 * of the 695: 130,000 requests -> 75,000, 655 MB).  A sparse pass (5,000
 * rows) stays under the gap and reads what it did: taking pages along
 * there cost it 15% (twice the bytes). */
#ifndef TB_AHEAD_DENSE_GAP
#define TB_AHEAD_DENSE_GAP 8
#endif
#ifndef TB_AHEAD_DENSE_PAGES
#define TB_AHEAD_DENSE_PAGES 7
#endif
#define TB_AHEAD_DENSE_MIN_PAGES 64

typedef struct tb_ahead_density {
    const tb_map *map; /* NULL: none yet */
    uintptr_t low, high; /* the lowest and highest block page counted */
    size_t pages; /* new block pages asked */
} tb_ahead_density;
#define TB_AHEAD_DENSITY_BITS 4 /* 16 files kept track of, by hash */
#define TB_AHEAD_DENSITIES (1 << TB_AHEAD_DENSITY_BITS)

typedef struct tb_ahead_pending {
    tb_ahead_range range[TB_AHEAD_PENDING];
    unsigned count;
    size_t since; /* the place probed when the first range came */
} tb_ahead_pending;

/* Rows a fault count covers (FATHOM_READ_AHEAD_AUTO); the major faults
 * among them that turn read-ahead on for the next window, and the faults
 * of either kind that keep it on (tb_read_ahead.c). */
#define TB_AHEAD_WINDOW 256
#define TB_AHEAD_START_FAULTS 4
#define TB_AHEAD_KEEP_FAULTS 8

/* The larger part of a thread's read-ahead (about 0.6 MB), allocated when
 * it first asks for reads: a batch on tables in memory, whose read-ahead
 * never turns on, does not pay for clearing it. */
typedef struct tb_ahead_memory {
    tb_ahead_target child[TB_AHEAD_CHILD_RING][TB_AHEAD_CHILD_TARGETS]; /* by place */
    uint8_t child_count[TB_AHEAD_CHILD_RING];
    uint32_t asked[(size_t)1 << TB_AHEAD_ASKED_BITS]; /* pages asked for lately, by hash */
    tb_ahead_pending pending[TB_AHEAD_RUNS]; /* by step, waiting to be asked */
} tb_ahead_memory;

typedef struct tb_read_ahead {
    tb_ahead_target ring[TB_AHEAD_RING][TB_AHEAD_TARGETS]; /* by place mod RING */
    uint8_t count[TB_AHEAD_RING];
    size_t at;           /* the place being probed (tb_ahead_ask) */
    tb_ahead_density density[TB_AHEAD_DENSITIES]; /* this pass's, by file */
    tb_ahead_memory *mem; /* NULL until asking starts, or without memory:
                             then no children are asked, nor pages remembered */
    int mode;            /* FATHOM_READ_AHEAD_* */
    int on;              /* asking ahead in this window */
    uint64_t major_at, minor_at; /* tb_os_thread_faults when the window began */
    size_t window_end;   /* the place where the window ends */
    size_t n;            /* places in this pass */
    size_t lead;         /* how much further ahead the row's own steps go */
    tb_ahead_targets_fn targets;
    tb_ahead_children_fn children;
    const void *context;
    /* The asking thread (tb_read_ahead.c): while it runs, it alone asks,
     * and everything above but mode, on and the window is its own. */
    unsigned batch_threads; /* the batch's probing threads */
    int asking_thread;      /* the asker runs */
    tb_thread asker;
    tb_atomic_int progress; /* the place the probing thread is at */
    tb_atomic_int stop;     /* the asker is to end */
} tb_read_ahead;

/* A thread's read-ahead, off until its first window says otherwise
 * (mode AUTO), on (ALWAYS) or never (OFF); batch_threads: how many threads
 * the batch probes with (fewer than the processors: the asking is done by
 * a thread of its own, tb_read_ahead.c). */
TB_INTERNAL void tb_ahead_init(tb_read_ahead *ra, int mode, unsigned batch_threads);
TB_INTERNAL void tb_ahead_release(tb_read_ahead *ra);

/* A pass over n places in order, whose targets `targets` gives (and
 * `children` the children's, or NULL). */
TB_INTERNAL void tb_ahead_begin(tb_read_ahead *ra, size_t n, tb_ahead_targets_fn targets,
                                tb_ahead_children_fn children, const void *context);

/* Ask for one step of target t (tb_pairs_ahead_range), in buffer `run`
 * (step - 1, plus 3 for a child's): nothing if its page was asked for
 * lately, else into the buffer (asked at once without memory). */
TB_INTERNAL void tb_ahead_target_step(tb_read_ahead *ra, const tb_ahead_target *t, int step,
                                      int run);

/* Before the row at place j is probed (j = 0, 1, ... n - 1). */
TB_INTERNAL void tb_ahead_window(tb_read_ahead *ra, size_t j);
TB_INTERNAL void tb_ahead_ask(tb_read_ahead *ra, size_t j);
static inline void tb_ahead_step(tb_read_ahead *ra, size_t j)
{
    if (j >= ra->window_end)
        tb_ahead_window(ra, j);
    if (ra->asking_thread)
        tb_atomic_store_release(&ra->progress, (int)j); /* j < TB_SLICE_ROWS */
    else if (ra->on)
        tb_ahead_ask(ra, j);
}

/* After a pass's last row: the asker, if it runs, ends. */
TB_INTERNAL void tb_ahead_end(tb_read_ahead *ra);

#endif /* PYFATHOM_TB_READ_AHEAD_H */
