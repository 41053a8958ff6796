/*
 * tb_read_ahead.c - a batch slice's read-ahead (tb_read_ahead.h): rows
 * D, 2D and 3D places ahead of the probe get the three steps of their
 * reads asked for (tb_pairs_read_ahead), so that when the probe gets to a
 * row its pages are in memory or on their way.
 *
 * When it runs: FATHOM_READ_AHEAD_AUTO (the default) decides per window
 * of TB_AHEAD_WINDOW rows, from the thread's page faults in the window
 * before (tb_os_thread_faults).  Asking costs a system call per step even
 * when the pages are in memory (0.7 us: 100,000 rows of bench_cold.py's
 * tables, page cache warm, fresh process: 0.18 s without, 0.39 s asking
 * always), most of a row's time there, so it asks only while reads go to
 * the disk:
 *   - off, it turns on after a window with TB_AHEAD_START_FAULTS major
 *     faults (reads the probes waited for: tables on disk).  Minor faults
 *     alone do not turn it on: a fresh process on tables in the page
 *     cache takes one a page as it maps them, and nothing would be read;
 *   - on, it stays on while a window takes TB_AHEAD_KEEP_FAULTS faults of
 *     either kind: the pages it asked for come in as minor faults (the
 *     probe finds them read, or being read), so major faults stop while
 *     it works, and with them they would turn it off every other window;
 *   - tables in memory and mapped take no faults: off, and the only cost
 *     is one getrusage per window.
 */
#include "batch/tb_read_ahead.h"

#include "fathom.h"
#include "platform/tb_platform.h"

#include <stdlib.h>

void tb_ahead_init(tb_read_ahead *ra, int mode)
{
    ra->mode = mode;
    ra->on = mode == FATHOM_READ_AHEAD_ALWAYS;
    tb_os_thread_faults(&ra->major_at, &ra->minor_at);
    ra->window_end = 0;
    ra->n = 0;
    ra->lead = 0;
    ra->mem = NULL;
    ra->targets = NULL;
    ra->children = NULL;
    ra->context = NULL;
}

void tb_ahead_release(tb_read_ahead *ra)
{
    free(ra->mem);
    ra->mem = NULL;
}

void tb_ahead_target_step(tb_read_ahead *ra, const tb_ahead_target *t, int step)
{
    const uint8_t *addr;
    size_t len;
    if (!tb_pairs_ahead_range(t->pairs, t->map, t->idx, step, &addr, &len))
        return;
    uintptr_t page = (uintptr_t)addr >> 12;
    if (ra->mem) {
        uint32_t *asked = &ra->mem->asked[(unsigned)((page * 0x9e3779b97f4a7c15ULL) >> 40) &
                                          (TB_AHEAD_ASKED - 1)];
        if (*asked == (uint32_t)page && ((uintptr_t)addr + len - 1) >> 12 == page)
            return;
        *asked = (uint32_t)page;
    }
    tb_os_prefetch(addr, len);
}

/* Place k's targets into the ring, and their first step. */
static void ask_index(tb_read_ahead *ra, size_t k)
{
    unsigned at = (unsigned)(k & (TB_AHEAD_RING - 1));
    unsigned n = ra->targets(ra->context, k, ra->ring[at]);
    ra->count[at] = (uint8_t)n;
    for (unsigned t = 0; t < n; t++)
        tb_ahead_target_step(ra, &ra->ring[at][t], TB_AHEAD_INDEX);
}

static void ask_step(tb_read_ahead *ra, size_t k, int step)
{
    unsigned at = (unsigned)(k & (TB_AHEAD_RING - 1));
    for (unsigned t = 0; t < ra->count[at]; t++)
        tb_ahead_target_step(ra, &ra->ring[at][t], step);
}

/* Place k's children into their ring, and their first step. */
static void ask_children(tb_read_ahead *ra, size_t k)
{
    tb_ahead_memory *mem = ra->mem;
    if (!mem)
        return;
    unsigned at = (unsigned)(k & (TB_AHEAD_CHILD_RING - 1));
    unsigned n = ra->children(ra->context, k, mem->child[at], TB_AHEAD_CHILD_TARGETS);
    mem->child_count[at] = (uint8_t)n;
    for (unsigned t = 0; t < n; t++)
        tb_ahead_target_step(ra, &mem->child[at][t], TB_AHEAD_INDEX);
}

static void ask_children_step(tb_read_ahead *ra, size_t k, int step)
{
    tb_ahead_memory *mem = ra->mem;
    if (!mem)
        return;
    unsigned at = (unsigned)(k & (TB_AHEAD_CHILD_RING - 1));
    for (unsigned t = 0; t < mem->child_count[at]; t++)
        tb_ahead_target_step(ra, &mem->child[at][t], step);
}

#define D TB_AHEAD_DISTANCE
#define C TB_AHEAD_CHILD_DISTANCE

/* Read-ahead starting at place j with nothing asked yet: each step for
 * every place up to where tb_ahead_ask would have asked it by now, in the
 * order of the steps (each waits for at most the first of the reads the
 * step before asked for). */
static void prime(tb_read_ahead *ra, size_t j)
{
    size_t end = ra->n, own = j + ra->lead;
    if (!ra->mem) /* calloc: fresh pages, already zero */
        ra->mem = (tb_ahead_memory *)calloc(1, sizeof *ra->mem);
    for (size_t k = j; k < own + 3 * D && k < end; k++)
        ask_index(ra, k);
    for (size_t k = j; k < own + 2 * D && k < end; k++)
        ask_step(ra, k, TB_AHEAD_SIZES);
    for (size_t k = j; k < own + D && k < end; k++)
        ask_step(ra, k, TB_AHEAD_BLOCK);
    if (!ra->children)
        return;
    for (size_t k = j; k < j + 3 * C && k < end; k++)
        ask_children(ra, k);
    for (size_t k = j; k < j + 2 * C && k < end; k++)
        ask_children_step(ra, k, TB_AHEAD_SIZES);
    for (size_t k = j; k < j + C && k < end; k++)
        ask_children_step(ra, k, TB_AHEAD_BLOCK);
}

void tb_ahead_begin(tb_read_ahead *ra, size_t n, tb_ahead_targets_fn targets,
                    tb_ahead_children_fn children, const void *context)
{
    ra->n = n;
    ra->targets = targets;
    ra->children = children;
    ra->lead = children ? 3 * C : 0;
    ra->context = context;
    if (ra->mode == FATHOM_READ_AHEAD_OFF) {
        ra->window_end = (size_t)-1;
        return;
    }
    /* Each pass starts a window: the last one's state carries over. */
    ra->window_end = TB_AHEAD_WINDOW;
    if (ra->on)
        prime(ra, 0);
}

void tb_ahead_window(tb_read_ahead *ra, size_t j)
{
    ra->window_end = j + TB_AHEAD_WINDOW;
    if (ra->mode != FATHOM_READ_AHEAD_AUTO)
        return;
    uint64_t major, minor;
    tb_os_thread_faults(&major, &minor);
    uint64_t new_major = major - ra->major_at, new_minor = minor - ra->minor_at;
    int was_on = ra->on;
    ra->on = was_on ? new_major + new_minor >= TB_AHEAD_KEEP_FAULTS
                    : new_major >= TB_AHEAD_START_FAULTS;
    ra->major_at = major;
    ra->minor_at = minor;
    if (ra->on && !was_on)
        prime(ra, j);
}

void tb_ahead_ask(tb_read_ahead *ra, size_t j)
{
    size_t end = ra->n, own = j + ra->lead;
    if (own + 3 * D < end)
        ask_index(ra, own + 3 * D);
    if (own + 2 * D < end)
        ask_step(ra, own + 2 * D, TB_AHEAD_SIZES);
    if (own + D < end)
        ask_step(ra, own + D, TB_AHEAD_BLOCK);
    if (!ra->children)
        return;
    if (j + 3 * C < end)
        ask_children(ra, j + 3 * C);
    if (j + 2 * C < end)
        ask_children_step(ra, j + 2 * C, TB_AHEAD_SIZES);
    if (j + C < end)
        ask_children_step(ra, j + C, TB_AHEAD_BLOCK);
}
