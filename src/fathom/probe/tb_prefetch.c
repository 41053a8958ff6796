/*
 * tb_prefetch.c - a root probe's table reads asked for in waves
 * (tb_probe.h).  A root probe (fathom_probe_root, fathom_best_move) probes
 * the position after every legal move, one after another: on tables that
 * are not in memory each of those probes waits for its reads (an index
 * entry, then a block-length entry, then a block), so a cold 7-piece root
 * probe waits for dozens of reads in turn.  Which values those probes
 * will read is known before they start, so here they are asked for all
 * together, step by step: every index entry, then every block-length
 * entry (each waits at most for the first of the index reads still in
 * flight), then every block; then the same for the reads of the children
 * whose DTZ probe searches a ply (their DTZ table stores the other side).
 * The probes that follow find their pages in memory.
 *
 * When: FATHOM_READ_AHEAD_ALWAYS, every root probe; AUTO (the default),
 * root probes of 6 pieces or more (the tables that do not fit in memory:
 * 3-5-piece tables are 1 GB in all) while the root probes before on the
 * instance took page faults: each such probe counts its thread's faults
 * (two getrusage calls, about 1 us, against the tens of us of a warm
 * 6-7-piece root probe), and the waves run for the next PREFETCH_KEEP root
 * probes after one that took them.  Asking costs a system call per page
 * even when it is in memory, so a root probe on warm tables does not ask.
 * Standard chess only (the variants' tables are small).
 */
#include "probe/tb_probe.h"

#include "platform/tb_platform.h"
#include "probe/tb_instance.h"
#include "probe/tb_search.h"
#include "rules/tb_movegen.h"

#include <stdlib.h>
#include <string.h>

/* Targets gathered before a wave is asked (24 bytes each), and pages a
 * wave remembers having asked (a hash of page numbers, so that the many
 * values that share an index page cost one system call).  Each wave asks
 * its targets in three dependent steps (index, block lengths, blocks), so
 * a root whose targets overflow the wave waits for the steps once per
 * piece: with 512 targets, a cold KQRBvKQR /standard request whose
 * children search (128 of 300 recorded ones) asked up to 2,489 targets in
 * up to 7 pieces, and 4,096 ask them in one: the cold requests with more
 * than 512 targets took 3.9-4.3 ms (median) more than warm against
 * 4.9-5.8, two runs each.  That is 128 KB, too much for the stack of an
 * engine's thread (macOS gives 512 KB to a thread, Windows 1 MB), so it is
 * allocated and kept in the instance for the next root probe (wave_spare):
 * memory allocated for each probe would bring fresh pages, whose minor
 * faults the AUTO rule below would take for cold tables.  Without memory,
 * a small wave on the stack. */
#define PREFETCH_TARGETS 4096
#define PREFETCH_PAGE_BITS 12 /* 4,096 cells */
#define PREFETCH_SMALL_TARGETS 256
#define PREFETCH_SMALL_PAGE_BITS 9 /* 512 */
/* Root probes that ask after one that took faults, and the faults that
 * count (major without asking; with asking the pages come in as minor
 * faults, as in the batch's read-ahead, tb_read_ahead.c). */
#define PREFETCH_KEEP 16
#define PREFETCH_FAULTS 2
#define PREFETCH_MIN_PIECES 6
/* Targets kept for one position's captures and for one child's search (a
 * 7-piece position rarely has more than 30 captures and 80 quiet moves'
 * values, and those 80 positions some 800 captures; the rest are read as
 * their probes come to them; a position's captures to PREFETCH_CAPTURE_DEPTH
 * plies, some hundred). */
#define PREFETCH_CAPTURES 256
/* Plies of captures asked below each probed position: a WDL probe tries
 * its captures, and each capture's probe its own, down to the small
 * tables, before it reads its own value.  Every one of those positions is
 * known before anything is read, so the deeper plies cost no dependent
 * step, only asks.  270 recorded cold KQRBvKQR /standard requests, each
 * from every page out, 3 alternated runs: with one ply the probes took
 * 6,514 major faults (captures of captures, in the 4-6-piece tables),
 * with three 33, for 352.6 MB read against 348.4; the cold extra p50
 * 3.72 -> 2.50 ms, p90 14.3 -> 9.6, p99 18.4 -> 14.2.  With the 3-5-piece
 * tables in memory, as on a server, those asks find their pages there:
 * p50 2.16 -> 2.25, p90 8.22 -> 8.71 (ranges overlap); on warm tables a
 * read_ahead_moves call asks in 0.34 ms against 0.31. */
#define PREFETCH_CAPTURE_DEPTH 3
#define PREFETCH_SEARCH 1024

typedef struct wave_memory {
    tb_ahead_target target[PREFETCH_TARGETS];
    uintptr_t asked[(size_t)1 << PREFETCH_PAGE_BITS];
} wave_memory;

typedef struct tb_waves {
    tb_ahead_target *target;
    unsigned n, cap;
    int check;            /* ask only for pages not in memory, counting them */
    unsigned missing;     /* with check: the pages asked for */
    uintptr_t *asked;
    unsigned asked_bits;  /* 2^asked_bits cells */
    wave_memory *memory;  /* to give back to the instance, or NULL */
    tb_ahead_target small_target[PREFETCH_SMALL_TARGETS];
    uintptr_t small_asked[(size_t)1 << PREFETCH_SMALL_PAGE_BITS];
} tb_waves;

/* No targets, no pages asked, in the instance's spare memory (or new, or
 * the small wave).  The pages asked are remembered for the whole call, not
 * one step: a page asked in an earlier step or wave is already on its way,
 * and asking again costs a system call for nothing (a game's positions
 * share many pages: annotating 200 cold KQRBvKQR games made 820,264
 * madvise calls with the memory per step, 636,713). */
static void wave_open(fathom_tb *tb, tb_waves *w)
{
    wave_memory *m = NULL;
    for (int i = 0; i < TB_WAVE_SPARES && !m; i++)
        m = (wave_memory *)(uintptr_t)tb_atomic_exchange_size(&tb->wave_spare[i], 0);
    if (!m)
        m = (wave_memory *)malloc(sizeof *m);
    w->memory = m;
    w->n = 0;
    w->check = 0;
    w->missing = 0;
    w->target = m ? m->target : w->small_target;
    w->cap = m ? PREFETCH_TARGETS : PREFETCH_SMALL_TARGETS;
    w->asked = m ? m->asked : w->small_asked;
    w->asked_bits = m ? PREFETCH_PAGE_BITS : PREFETCH_SMALL_PAGE_BITS;
    memset(w->asked, 0, ((size_t)1 << w->asked_bits) * sizeof *w->asked);
}

/* The memory back to the instance: into a free spare place, each taken
 * place's memory carried on to the next; what no place holds is freed. */
static void wave_close(fathom_tb *tb, tb_waves *w)
{
    uintptr_t m = (uintptr_t)w->memory;
    for (int i = 0; i < TB_WAVE_SPARES && m; i++)
        m = (uintptr_t)tb_atomic_exchange_size(&tb->wave_spare[i], (size_t)m);
    free((void *)m);
}

static void wave_ask_step(tb_waves *w, int step)
{
    for (unsigned i = 0; i < w->n; i++) {
        const tb_ahead_target *t = &w->target[i];
        const uint8_t *addr;
        size_t len;
        if (!tb_pairs_ahead_range(t->pairs, t->map, t->idx, step, &addr, &len))
            continue;
        uintptr_t page = ((uintptr_t)addr >> 12) + 1; /* + 1: 0 is an empty cell */
        uintptr_t *cell = &w->asked[tb_page_slot(page, w->asked_bits)];
        if (*cell == page && ((uintptr_t)addr + len - 1) >> 12 == page - 1)
            continue;
        *cell = page;
        uint64_t resident;
        if (w->check) {
            if (tb_os_resident(t->map->data, t->map->size, (uint64_t)(addr - t->map->data),
                               len, &resident) == FATHOM_OK && resident >= len)
                continue;
            w->missing++;
        }
        tb_os_prefetch(addr, len);
    }
}

/* The gathered targets' three steps, in order; then none are gathered. */
static void wave_ask_all(tb_waves *w)
{
    wave_ask_step(w, TB_AHEAD_INDEX);
    wave_ask_step(w, TB_AHEAD_SIZES);
    wave_ask_step(w, TB_AHEAD_BLOCK);
    w->n = 0;
}

/* Room for `need` more targets: the ones gathered are asked first when
 * there is not. */
static tb_ahead_target *wave_room(tb_waves *w, unsigned need)
{
    if (w->n + need > w->cap)
        wave_ask_all(w);
    return &w->target[w->n];
}

/* The reads of pos's own probe: its WDL (its captures' first) and, with
 * with_dtz, its DTZ value; *searches: its DTZ probe searches a ply. */
static void wave_gather(tb_waves *w, const fathom_tb *tb, const tb_pos *pos, int with_dtz,
                            int *searches)
{
    w->n += tb_capture_targets(tb, pos, PREFETCH_CAPTURE_DEPTH, wave_room(w, PREFETCH_CAPTURES),
                                PREFETCH_CAPTURES);
    w->n += tb_position_targets(tb, pos, with_dtz, wave_room(w, TB_AHEAD_TARGETS), searches);
}

/* Open pos's own tables (WDL and, with_dtz, DTZ) where no probe has yet:
 * the waves ask only in mapped tables (tb_position_targets), so in a table
 * that pos's probe would open itself, the reads of every probe would come
 * one after another (300 cold KQRBvKQR requests: 488 major faults in the
 * first 30's probes after asking).  Its probe, next, needs them; a table
 * that fails to open fails that probe as before (the slot keeps its
 * verdict, tb_slot_load). */
static void open_own_tables(fathom_tb *tb, const tb_pos *pos, int with_dtz)
{
    tb_entry *e = tb_lookup(tb, tb_key_of(pos, 0));
    if (e && e->wdl.path)
        (void)tb_slot_ready(tb, e, &e->wdl, 0);
    if (e && with_dtz && e->dtz.path)
        (void)tb_slot_ready(tb, e, &e->dtz, 1);
}

/* tb_prefetch_root; with check, asking only for the pages not in memory:
 * RETURN how many were not (0 without check). */
static unsigned root_waves(fathom_tb *tb, const tb_pos *pos, int what, int check)
{
    tb_waves w;
    wave_open(tb, &w);
    w.check = check;
    tb_move legal[TB_MAX_LEGAL];
    unsigned char searches[TB_MAX_LEGAL];
    int root_searches;
    int n = tb_gen_legal(pos, TB_GEN_ALL, legal);
    int root_dtz = what != TB_PREFETCH_WDL;
    open_own_tables(tb, pos, root_dtz);
    wave_gather(&w, tb, pos, root_dtz, &root_searches);
    for (int i = 0; i < n; i++) {
        tb_pos child;
        int s = 0;
        tb_do_move(pos, legal[i], &child);
        int with_dtz = what == TB_PREFETCH_MOVES || (what == TB_PREFETCH_ROOT && child.rule50 != 0);
        open_own_tables(tb, &child, with_dtz);
        wave_gather(&w, tb, &child, with_dtz, &s);
        searches[i] = (unsigned char)(with_dtz && s);
    }
    wave_ask_all(&w);
    /* The children whose DTZ probe searches: their quiet children's reads
     * (tb_search_targets reads the child's WDL value, asked just above),
     * and those quiet children's captures, which each of their WDL probes
     * tries first, PREFETCH_CAPTURE_DEPTH plies deep (300 cold KQRBvKQR
     * root probes took 6.2 major faults each without the captures, 1.2
     * with one ply). */
    for (int i = 0; i < n; i++) {
        if (!searches[i])
            continue;
        tb_pos child;
        tb_do_move(pos, legal[i], &child);
        w.n += tb_search_targets(tb, &child, PREFETCH_CAPTURE_DEPTH, PREFETCH_CAPTURE_DEPTH,
                                 wave_room(&w, PREFETCH_SEARCH), PREFETCH_SEARCH);
    }
    wave_ask_all(&w);
    wave_close(tb, &w);
    return w.missing;
}

void tb_prefetch_root(fathom_tb *tb, const tb_pos *pos, int what)
{
    (void)root_waves(tb, pos, what, 0);
}

/* fathom_read_ahead_moves in AUTO: its caller probes on other threads, so
 * the fault count of tb_prefetch_decide cannot tell warm tables from cold
 * ones here, and asking for pages in memory costs a system call each for
 * nothing (a warm KQRBvKQR request of pyfathom serve: 360 madvise calls,
 * 0.39 ms, against 2.4-3.6 ms for the whole request).  So one call in
 * MOVES_CHECK_EVERY looks at each page before asking for it (mincore,
 * about 0.9 us a page here against madvise's 0.6) and asks only for those
 * not in memory; once MOVES_CLEAN_CHECKS such calls in a row found every
 * page in memory, the calls between two looks ask nothing, until a look
 * finds a page missing.  One clean look is not enough: while tables fill
 * up, one request's pages may all be in memory when the next one's are
 * not (300 cold KRRvKBN requests of tests/test_root_prefetch.py: 247 major
 * faults in their probes when one clean look stopped the asking, 8 with
 * every call asking).  Pages that leave memory meanwhile are read by
 * their probes, one after another, for up to MOVES_CHECK_EVERY - 1 calls. */
#define MOVES_CHECK_EVERY 16
#define MOVES_CLEAN_CHECKS 4

void tb_prefetch_moves(fathom_tb *tb, const tb_pos *pos)
{
    if (tb_atomic_load_relaxed(&tb->read_ahead) != FATHOM_READ_AHEAD_AUTO) {
        (void)root_waves(tb, pos, TB_PREFETCH_MOVES, 0);
        return;
    }
    /* Relaxed and racy on purpose, as root_prefetch: a hint. */
    int until = tb_atomic_load_relaxed(&tb->moves_until_check);
    if (until <= 0) {
        tb_atomic_store_release(&tb->moves_until_check, MOVES_CHECK_EVERY - 1);
        int clean = tb_atomic_load_relaxed(&tb->moves_clean_checks);
        int found_all = root_waves(tb, pos, TB_PREFETCH_MOVES, 1) == 0;
        tb_atomic_store_release(&tb->moves_clean_checks,
                                !found_all ? 0 : clean < MOVES_CLEAN_CHECKS ? clean + 1 : clean);
        return;
    }
    tb_atomic_store_release(&tb->moves_until_check, until - 1);
    if (tb_atomic_load_relaxed(&tb->moves_clean_checks) < MOVES_CLEAN_CHECKS)
        (void)root_waves(tb, pos, TB_PREFETCH_MOVES, 0);
}

/* Positions whose DTZ reads are gathered together, then their searches'
 * (a wave that fills up is asked as it goes, wave_room): a game's probed
 * stretch rarely has more.  The searches' children's captures are asked
 * too, as a root's: annotating 200 cold KQRBvKQR games took 648 major
 * faults with them, 971 without (the time within the noise: 2.10-2.46 s
 * against 2.35-2.39). */
#define PREFETCH_POSITIONS 64

void tb_prefetch_positions(fathom_tb *tb, const tb_pos *pos, size_t n)
{
    tb_waves w;
    wave_open(tb, &w);
    for (size_t first = 0; first < n; first += PREFETCH_POSITIONS) {
        size_t count = n - first < PREFETCH_POSITIONS ? n - first : PREFETCH_POSITIONS;
        int searches[PREFETCH_POSITIONS];
        for (size_t i = 0; i < count; i++)
            wave_gather(&w, tb, &pos[first + i], 1, &searches[i]);
        wave_ask_all(&w);
        for (size_t i = 0; i < count; i++)
            if (searches[i])
                w.n += tb_search_targets(tb, &pos[first + i], PREFETCH_CAPTURE_DEPTH,
                                         PREFETCH_CAPTURE_DEPTH,
                                         wave_room(&w, PREFETCH_SEARCH), PREFETCH_SEARCH);
        wave_ask_all(&w);
    }
    wave_close(tb, &w);
}

int tb_prefetch_decide(fathom_tb *tb, int pieces, tb_prefetch_watch *watch)
{
    int mode = tb_atomic_load_relaxed(&tb->read_ahead);
    watch->watching = mode == FATHOM_READ_AHEAD_AUTO && tb_rules_are_inline(tb) &&
                      pieces >= PREFETCH_MIN_PIECES;
    watch->asked = tb_rules_are_inline(tb) &&
                   (mode == FATHOM_READ_AHEAD_ALWAYS ||
                    (watch->watching && tb_atomic_load_relaxed(&tb->root_prefetch) > 0));
    if (watch->watching)
        tb_os_thread_faults(&watch->major, &watch->minor);
    return watch->asked;
}

void tb_prefetch_begin(fathom_tb *tb, const tb_pos *pos, int what,
                       tb_prefetch_watch *watch)
{
    if (tb_prefetch_decide(tb, tb_popcount(pos->color[0] | pos->color[1]), watch))
        tb_prefetch_root(tb, pos, what);
}

void tb_prefetch_end(fathom_tb *tb, const tb_prefetch_watch *watch)
{
    if (!watch->watching)
        return;
    uint64_t major, minor;
    tb_os_thread_faults(&major, &minor);
    uint64_t faults = major - watch->major + (watch->asked ? minor - watch->minor : 0);
    int left = tb_atomic_load_relaxed(&tb->root_prefetch);
    /* Relaxed and racy on purpose: a hint, which threads may overwrite. */
    if (faults >= PREFETCH_FAULTS)
        tb_atomic_store_release(&tb->root_prefetch, PREFETCH_KEEP);
    else if (left > 0)
        tb_atomic_store_release(&tb->root_prefetch, left - 1);
}
