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
#include "probe/tb_instance.h" /* tb_hash_home, tb_page_slot */

#include <stdlib.h>

/* A pass starts with no file's density counted. */
static void densities_forget(tb_read_ahead *ra)
{
    for (int i = 0; i < TB_AHEAD_DENSITIES; i++)
        ra->density[i].map = NULL;
}

void tb_ahead_init(tb_read_ahead *ra, int mode, unsigned batch_threads)
{
    ra->mode = mode;
    ra->batch_threads = batch_threads;
    ra->asking_thread = 0;
    tb_atomic_store_release(&ra->progress, 0);
    tb_atomic_store_release(&ra->stop, 0);
    ra->on = mode == FATHOM_READ_AHEAD_ALWAYS;
    tb_os_thread_faults(&ra->major_at, &ra->minor_at);
    ra->window_end = 0;
    ra->n = 0;
    ra->lead = 0;
    ra->at = 0;
    ra->mem = NULL;
    densities_forget(ra);
    ra->targets = NULL;
    ra->children = NULL;
    ra->context = NULL;
}

void tb_ahead_release(tb_read_ahead *ra)
{
    tb_ahead_end(ra);
    free(ra->mem);
    ra->mem = NULL;
}

static int range_order(const void *a, const void *b)
{
    const tb_ahead_range *x = (const tb_ahead_range *)a, *y = (const tb_ahead_range *)b;
    uintptr_t xm = (uintptr_t)x->map, ym = (uintptr_t)y->map;
    if (xm != ym)
        return xm < ym ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

static void ask_pages(uintptr_t first, uintptr_t last)
{
    tb_os_prefetch((const void *)(first << 12), (size_t)(last - first + 1) << 12);
}

/* A buffer's reads, sorted, as runs.  The pages between two reads of one
 * mapping are mapped too: a run never leaves its table's file. */
static void pending_ask(tb_ahead_pending *p)
{
    if (!p->count)
        return;
    qsort(p->range, p->count, sizeof p->range[0], range_order);
    tb_ahead_range run = p->range[0];
    for (unsigned i = 1; i < p->count; i++) {
        const tb_ahead_range *r = &p->range[i];
        if (r->map == run.map && r->first <= run.last + 1 + TB_AHEAD_GAP_PAGES &&
            r->last < run.first + TB_AHEAD_RUN_PAGES) {
            if (r->last > run.last)
                run.last = r->last;
            continue;
        }
        ask_pages(run.first, run.last);
        run = *r;
    }
    ask_pages(run.first, run.last);
    p->count = 0;
}

static void runs_ask_all(tb_read_ahead *ra)
{
    if (ra->mem)
        for (int i = 0; i < TB_AHEAD_RUNS; i++)
            pending_ask(&ra->mem->pending[i]);
}

static unsigned asked_slot(uintptr_t page)
{
    return (unsigned)tb_page_slot(page, TB_AHEAD_ASKED_BITS);
}

/* The slot that keeps map's density in this pass. */
static tb_ahead_density *density_slot(tb_read_ahead *ra, const tb_map *map)
{
    return &ra->density[tb_hash_home((tb_key)((uintptr_t)map >> 4), TB_AHEAD_DENSITY_BITS)];
}

/* Count a new block page of map's in slot d. */
static void density_count(tb_ahead_density *d, const tb_map *map, uintptr_t page)
{
    if (d->map != map) {
        d->map = map;
        d->low = d->high = page;
        d->pages = 0;
    }
    d->pages++;
    if (page < d->low)
        d->low = page;
    if (page > d->high)
        d->high = page;
}

/* The pass's new block pages in map's file (slot d) lie
 * TB_AHEAD_DENSE_GAP pages apart or less on average, over
 * TB_AHEAD_DENSE_MIN_PAGES pages or more. */
static int dense_in(const tb_ahead_density *d, const tb_map *map)
{
    return d->map == map && d->pages >= TB_AHEAD_DENSE_MIN_PAGES &&
           d->high - d->low < (uintptr_t)d->pages * TB_AHEAD_DENSE_GAP;
}

void tb_ahead_target_step(tb_read_ahead *ra, const tb_ahead_target *t, int step, int run)
{
    const uint8_t *addr;
    size_t len;
    if (!tb_pairs_ahead_range(t->pairs, t->map, t->idx, step, &addr, &len))
        return;
    uintptr_t first = (uintptr_t)addr >> 12, last = ((uintptr_t)addr + len - 1) >> 12;
    tb_ahead_memory *mem = ra->mem;
    if (!mem) {
        ask_pages(first, last);
        return;
    }
    uint32_t *asked = &mem->asked[asked_slot(first)];
    if (*asked == (uint32_t)first && last == first)
        return;
    *asked = (uint32_t)first;
    tb_ahead_density *d = density_slot(ra, t->map);
    if (step == TB_AHEAD_BLOCK)
        density_count(d, t->map, first);
    if (dense_in(d, t->map)) {
        /* The pass reads most pages of this file, these among them: now,
         * in the same request, they cost the device next to nothing. */
        uintptr_t end = ((uintptr_t)t->map->data + t->map->size - 1) >> 12;
        uintptr_t to = end - last > TB_AHEAD_DENSE_PAGES ? last + TB_AHEAD_DENSE_PAGES : end;
        for (uintptr_t page = last + 1; page <= to; page++)
            mem->asked[asked_slot(page)] = (uint32_t)page;
        last = to;
    }
    tb_ahead_pending *p = &mem->pending[run];
    if (p->count == TB_AHEAD_PENDING)
        pending_ask(p);
    if (!p->count)
        p->since = ra->at;
    tb_ahead_range *r = &p->range[p->count++];
    r->map = t->map;
    r->first = first;
    r->last = last;
}

/* Place k's targets into the ring, and their first step. */
static void ask_index(tb_read_ahead *ra, size_t k)
{
    unsigned at = (unsigned)(k & (TB_AHEAD_RING - 1));
    unsigned n = ra->targets(ra->context, k, ra->ring[at]);
    ra->count[at] = (uint8_t)n;
    for (unsigned t = 0; t < n; t++)
        tb_ahead_target_step(ra, &ra->ring[at][t], TB_AHEAD_INDEX, TB_AHEAD_INDEX - 1);
}

static void ask_step(tb_read_ahead *ra, size_t k, int step)
{
    unsigned at = (unsigned)(k & (TB_AHEAD_RING - 1));
    for (unsigned t = 0; t < ra->count[at]; t++)
        tb_ahead_target_step(ra, &ra->ring[at][t], step, step - 1);
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
        tb_ahead_target_step(ra, &mem->child[at][t], TB_AHEAD_INDEX, TB_AHEAD_INDEX + 2);
}

static void ask_children_step(tb_read_ahead *ra, size_t k, int step)
{
    tb_ahead_memory *mem = ra->mem;
    if (!mem)
        return;
    unsigned at = (unsigned)(k & (TB_AHEAD_CHILD_RING - 1));
    for (unsigned t = 0; t < mem->child_count[at]; t++)
        tb_ahead_target_step(ra, &mem->child[at][t], step, step + 2);
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
    /* Each step's runs are asked before the next step reads what they
     * bring (tb_pairs_ahead_range reads the entry the step before asked). */
    ra->at = j;
    for (size_t k = j; k < own + 3 * D && k < end; k++)
        ask_index(ra, k);
    runs_ask_all(ra);
    for (size_t k = j; k < own + 2 * D && k < end; k++)
        ask_step(ra, k, TB_AHEAD_SIZES);
    runs_ask_all(ra);
    for (size_t k = j; k < own + D && k < end; k++)
        ask_step(ra, k, TB_AHEAD_BLOCK);
    runs_ask_all(ra);
    if (!ra->children)
        return;
    for (size_t k = j; k < j + 3 * C && k < end; k++)
        ask_children(ra, k);
    runs_ask_all(ra);
    for (size_t k = j; k < j + 2 * C && k < end; k++)
        ask_children_step(ra, k, TB_AHEAD_SIZES);
    runs_ask_all(ra);
    for (size_t k = j; k < j + C && k < end; k++)
        ask_children_step(ra, k, TB_AHEAD_BLOCK);
    runs_ask_all(ra);
}

/* ---- The asking thread ----------------------------------------------
 *
 * Asking costs the probing thread most of its time on cold tables: a DTZ
 * row's search has its children's places worked out (their moves, their
 * indexes, their blocks) and a system call for each new page, 6.7 calls a
 * row (100,000 cold KQRBvKQR DTZ rows: 2.7 s of CPU in a 3.0 s run, against
 * 1.2 s warm).  When the batch leaves a processor free (fewer probing
 * threads than processors, e.g. threads=1), a thread of its own does the
 * asking, TB_AHEAD_ASKER_LEAD places past the row being probed at most
 * (the same distances ahead as asking inline), napping when it is there:
 * the probing thread only says where it is.  The asker reads the rows and
 * the tables mapped (as the batch's other threads do) and nothing the
 * probing thread writes; it is started when asking turns on and ended when
 * it turns off and after each pass. */
#ifndef TB_AHEAD_ASKER_LEAD
#define TB_AHEAD_ASKER_LEAD 16
#endif

static void asker_run(void *arg)
{
    tb_read_ahead *ra = (tb_read_ahead *)arg;
    size_t v = (size_t)tb_atomic_load_acquire(&ra->progress);
    prime(ra, v);
    while (v < ra->n && !tb_atomic_load_acquire(&ra->stop)) {
        if (v > (size_t)tb_atomic_load_acquire(&ra->progress) + TB_AHEAD_ASKER_LEAD)
            tb_os_nap();
        else
            tb_ahead_ask(ra, v++);
    }
}

void tb_ahead_end(tb_read_ahead *ra)
{
    if (!ra->asking_thread)
        return;
    tb_atomic_store_release(&ra->stop, 1);
    tb_thread_join(&ra->asker);
    ra->asking_thread = 0;
}

/* Asking starts at place j: on a thread of its own where a processor is
 * free for it (and it starts), else inline. */
static void start_asking(tb_read_ahead *ra, size_t j)
{
    if (ra->batch_threads < tb_cpu_count()) {
        tb_atomic_store_release(&ra->progress, (int)j);
        tb_atomic_store_release(&ra->stop, 0);
        if (tb_thread_start(&ra->asker, asker_run, ra)) {
            ra->asking_thread = 1;
            return;
        }
    }
    prime(ra, j);
}

void tb_ahead_begin(tb_read_ahead *ra, size_t n, tb_ahead_targets_fn targets,
                    tb_ahead_children_fn children, const void *context)
{
    tb_ahead_end(ra);
    ra->n = n;
    ra->targets = targets;
    ra->children = children;
    ra->lead = children ? 3 * C : 0;
    ra->context = context;
    densities_forget(ra);
    runs_ask_all(ra); /* the last pass's */
    if (ra->mode == FATHOM_READ_AHEAD_OFF) {
        ra->window_end = (size_t)-1;
        return;
    }
    /* Each pass starts a window: the last one's state carries over. */
    ra->window_end = TB_AHEAD_WINDOW;
    if (ra->on)
        start_asking(ra, 0);
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
    if (ra->on && !was_on) {
        start_asking(ra, j);
    } else if (!ra->on) {
        tb_ahead_end(ra);
        runs_ask_all(ra);
    }
}

void tb_ahead_ask(tb_read_ahead *ra, size_t j)
{
    size_t end = ra->n, own = j + ra->lead;
    ra->at = j;
    if (ra->mem)
        for (int i = 0; i < TB_AHEAD_RUNS; i++) {
            tb_ahead_pending *p = &ra->mem->pending[i];
            if (p->count && p->since + TB_AHEAD_RUN_ROWS <= j)
                pending_ask(p);
        }
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
