/*
 * tb_platform.h - internal: everything the core needs from the operating
 * system beyond standard C, and the compilers' atomics, in one place.  The
 * rest of the core calls these and has no system #ifdefs of its own (the
 * compilers' bit intrinsics, in tb_chess.h, and inline attributes, in
 * tb_internal.h, each with a standard-C fallback, are the only compiler
 * tests elsewhere).
 *
 * Systems: POSIX (Linux, macOS, the BSDs) and Windows (MSVC, mingw-w64,
 * clang or zig targeting either C runtime).  What differs:
 *   - paths: the separator of a path list, the directory separators;
 *   - files: read-only mapping of a whole file, directory listing
 *     (tb_platform.c; tb_io.c turns them into the core's tb_map views);
 *   - threads: a mutex, starting and joining a thread, the CPU count;
 *   - atomics: the few atomic operations on a slot's state, the mapped
 *     count and a batch's next row.
 */
#ifndef PYFATHOM_TB_PLATFORM_H
#define PYFATHOM_TB_PLATFORM_H

#include "platform/tb_internal.h"

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define TB_OS_WINDOWS 1
#else
#define TB_OS_WINDOWS 0
#endif

/* ---- Paths ------------------------------------------------------------ */

/* Between the folders of a path list (tb_init, SYZYGY_PATH-style): ';' on
 * Windows, where ':' follows a drive letter, ':' elsewhere. */
#define TB_PATH_LIST_SEPARATOR (TB_OS_WINDOWS ? ';' : ':')

/* Does c end a directory name in a path?  Windows takes both slashes. */
static inline int tb_is_dir_separator(char c)
{
    return c == '/' || (TB_OS_WINDOWS && c == '\\');
}

/* ---- Files (tb_platform.c) ------------------------------------------- */

/* The fault guard of a mapping (see tb_os_map_file; defined with the
 * atomics below). */
typedef struct tb_fault_guard tb_fault_guard;

/*
 * Map the whole file at `path` read-only; no handle stays open.
 * *guard: the mapping's fault guard, or NULL where there is none (MSVC
 * builds, a build with FATHOM_NO_FAULT_GUARD, fathom_set_fault_guard(0),
 * or no memory for the registry): then a page that cannot be read (the
 * file cut short while mapped, a disk error) stops the process (SIGBUS,
 * EXCEPTION_IN_PAGE_ERROR), as any mapped read does.
 * RETURN: FATHOM_OK (*data, *size, *guard set), FATHOM_ERR_IO (cannot
 * open, stat or map it, or not a regular file) or FATHOM_ERR_BAD_SIZE
 * (empty file).
 */
TB_INTERNAL int tb_os_map_file(const char *path, const void **data, size_t *size,
                               tb_fault_guard **guard);

/* Release a mapping made by tb_os_map_file, and its guard (may be NULL). */
TB_INTERNAL void tb_os_unmap_file(const void *data, size_t size, tb_fault_guard *guard);

/*
 * Map the file at `path` (a prefix file: a copy of the first bytes of the
 * mapped file) over the head of a mapping made by tb_os_map_file (data,
 * size), in place, so that the same addresses then read the prefix
 * file's pages: every pointer the decoder computes stays valid and the
 * head of the table file is never paged in.  Whole pages only: the
 * prefix's last partial page stays the table file's, unless the prefix
 * is the whole file.  The mapping's fault guard covers the new pages as
 * it covers the rest (the address range is the same).  *covered receives
 * how many bytes now come from the prefix file, *prefix_size its size.
 * On failure other than FATHOM_ERR_BAD_SIZE the mapping may have lost
 * its head: the caller unmaps it.
 * RETURN: FATHOM_OK, FATHOM_ERR_IO (cannot open, stat or map it, or not
 * a regular file), FATHOM_ERR_BAD_SIZE (longer than the table file) or
 * FATHOM_ERR_ARGUMENT (no such mapping on this system: Windows).
 */
TB_INTERNAL int tb_os_map_prefix(const void *data, size_t size, const char *path,
                                 size_t *covered, uint64_t *prefix_size);

/* fathom_set_fault_guard (fathom.h): whether later mappings get a guard. */
TB_INTERNAL void tb_os_set_fault_guard(int enabled);

/*
 * How many bytes of [offset, offset + length) of a mapping made by
 * tb_os_map_file (data, size) are in the page cache, counted by whole
 * pages clipped to the range (mincore, as vmtouch counts).
 * RETURN: FATHOM_OK (*resident set), FATHOM_ERR_IO (the call failed) or
 * FATHOM_ERR_ARGUMENT (no such call on this system: Windows).
 */
TB_INTERNAL int tb_os_resident(const void *data, size_t size, uint64_t offset,
                               uint64_t length, uint64_t *resident);

/*
 * Ask the system to start reading the pages under [addr, addr + len) of a
 * mapping made by tb_os_map_file into the page cache, and return without
 * waiting (the batch's read-ahead, batch/tb_read_ahead.c).  Only a hint:
 * nothing is mapped, faulted or reported, and a range past the file's end
 * is ignored.  MADV_WILLNEED where there is madvise, nothing elsewhere
 * (Windows: reads stay one at a time).  Why madvise and not readahead(2),
 * posix_fadvise or threads that touch the pages: see tb_platform.c.
 */
TB_INTERNAL void tb_os_prefetch(const void *addr, size_t len);

/* Page faults the calling thread has taken so far: *major, those that
 * waited for a read from the file, and *minor, those that found the page
 * in memory (the read-ahead's signs that a batch's tables are not in
 * memory, batch/tb_read_ahead.c); both 0 where the system does not count
 * them. */
TB_INTERNAL void tb_os_thread_faults(uint64_t *major, uint64_t *minor);

/* As tb_list_dir (tb_io.h), which is this. */
TB_INTERNAL int tb_os_list_dir(const char *dir,
                               int (*visit)(const char *name, void *context),
                               void *context);

/* ---- Threads (tb_platform.c) ----------------------------------------- */

#if TB_OS_WINDOWS
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
typedef CRITICAL_SECTION tb_mutex;
typedef HANDLE tb_thread_handle;
#else
#include <pthread.h>
typedef pthread_mutex_t tb_mutex;
typedef pthread_t tb_thread_handle;
#endif

TB_INTERNAL void tb_mutex_init(tb_mutex *m);
TB_INTERNAL void tb_mutex_destroy(tb_mutex *m);
TB_INTERNAL void tb_mutex_lock(tb_mutex *m);
TB_INTERNAL void tb_mutex_unlock(tb_mutex *m);

/* A thread running fn(arg); the struct must live until tb_thread_join. */
typedef struct tb_thread {
    tb_thread_handle handle;
    void (*fn)(void *arg);
    void *arg;
} tb_thread;

/* Start a thread.  RETURN: 1 if it runs, 0 if the system refused one. */
TB_INTERNAL int tb_thread_start(tb_thread *t, void (*fn)(void *arg), void *arg);
TB_INTERNAL void tb_thread_join(tb_thread *t);

/* Processors online (at least 1). */
TB_INTERNAL unsigned tb_cpu_count(void);

/* Give up the processor for a short while (tens of microseconds where the
 * system allows; a thread that waits for another to move on, without a
 * lock the other would have to take). */
TB_INTERNAL void tb_os_nap(void);

/* ---- Atomics ---------------------------------------------------------- */

/*
 * Three implementations of the same operations, chosen by compiler:
 *   MSVC (C or C++):  Interlocked* functions, on volatile longs;
 *   C11 or later (when the compiler has <stdatomic.h>): _Atomic objects;
 *   GCC and Clang otherwise (C99, C++, mingw, zig): the __atomic builtins
 *   on plain objects, which compile to the same instructions as C11's.
 * Objects touched from several threads are declared with these types and
 * accessed only through these functions.
 */
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
typedef volatile long tb_atomic_int;
#if defined(_WIN64)
typedef volatile __int64 tb_atomic_size;
#else
typedef volatile long tb_atomic_size;
#endif

/* A read-modify-write that changes nothing: a full barrier, so at least
 * acquire (the documented way to read with ordering from Win32). */
static inline int tb_atomic_load_acquire(tb_atomic_int *p)
{
    return (int)InterlockedCompareExchange(p, 0, 0);
}

static inline int tb_atomic_load_relaxed(tb_atomic_int *p) { return (int)*p; }

static inline void tb_atomic_store_release(tb_atomic_int *p, int v)
{
    InterlockedExchange(p, (long)v);
}

static inline void tb_atomic_add_relaxed(tb_atomic_int *p, int v)
{
    InterlockedExchangeAdd(p, (long)v);
}

static inline size_t tb_atomic_fetch_add_size(tb_atomic_size *p, size_t v)
{
#if defined(_WIN64)
    return (size_t)InterlockedExchangeAdd64(p, (__int64)v);
#else
    return (size_t)InterlockedExchangeAdd(p, (long)v);
#endif
}

static inline size_t tb_atomic_exchange_size(tb_atomic_size *p, size_t v)
{
#if defined(_WIN64)
    return (size_t)InterlockedExchange64(p, (__int64)v);
#else
    return (size_t)InterlockedExchange(p, (long)v);
#endif
}

static inline void tb_atomic_size_init(tb_atomic_size *p, size_t v) { *p = v; }

#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && \
    __STDC_VERSION__ >= 201112L && !defined(__STDC_NO_ATOMICS__)
#include <stdatomic.h>
typedef _Atomic int tb_atomic_int;
typedef _Atomic size_t tb_atomic_size;

static inline int tb_atomic_load_acquire(tb_atomic_int *p)
{
    return atomic_load_explicit(p, memory_order_acquire);
}

static inline int tb_atomic_load_relaxed(tb_atomic_int *p)
{
    return atomic_load_explicit(p, memory_order_relaxed);
}

static inline void tb_atomic_store_release(tb_atomic_int *p, int v)
{
    atomic_store_explicit(p, v, memory_order_release);
}

static inline void tb_atomic_add_relaxed(tb_atomic_int *p, int v)
{
    atomic_fetch_add_explicit(p, v, memory_order_relaxed);
}

static inline size_t tb_atomic_fetch_add_size(tb_atomic_size *p, size_t v)
{
    return atomic_fetch_add_explicit(p, v, memory_order_relaxed);
}

static inline size_t tb_atomic_exchange_size(tb_atomic_size *p, size_t v)
{
    return atomic_exchange_explicit(p, v, memory_order_acq_rel);
}

static inline void tb_atomic_size_init(tb_atomic_size *p, size_t v) { atomic_init(p, v); }

#elif defined(__GNUC__) || defined(__clang__)
typedef int tb_atomic_int;
typedef size_t tb_atomic_size;

static inline int tb_atomic_load_acquire(tb_atomic_int *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline int tb_atomic_load_relaxed(tb_atomic_int *p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void tb_atomic_store_release(tb_atomic_int *p, int v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline void tb_atomic_add_relaxed(tb_atomic_int *p, int v)
{
    __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

static inline size_t tb_atomic_fetch_add_size(tb_atomic_size *p, size_t v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

static inline size_t tb_atomic_exchange_size(tb_atomic_size *p, size_t v)
{
    return __atomic_exchange_n(p, v, __ATOMIC_ACQ_REL);
}

static inline void tb_atomic_size_init(tb_atomic_size *p, size_t v) { *p = v; }

#else
#error "pyfathom's core needs atomics: MSVC, a C11 compiler with <stdatomic.h>, GCC or Clang"
#endif

/* A flag that another thread (or a signal handler) raises in an int the
 * caller owns: the public API cannot hand out tb_atomic_int, so the flag is
 * a plain int, read afresh each time (relaxed: it orders nothing else). */
static inline int tb_flag_raised(const int *flag)
{
#if defined(__GNUC__) || defined(__clang__)
    return __atomic_load_n(flag, __ATOMIC_RELAXED) != 0;
#else
    return *(const volatile int *)flag != 0;
#endif
}

/* ---- The fault guard of a mapping (tb_platform.c) -------------------- */

/* Its `damaged` flag is set, once and for good, when a page of the mapping
 * could not be read and was replaced by zeros.  The other fields are
 * tb_platform.c's registry (here only so that the flag is read inline). */
struct tb_fault_guard {
    tb_atomic_int damaged;
    long in_use;          /* slot taken (compare-and-swap 0 -> 1) */
    long seq;             /* odd while start and end change */
    size_t start, end;    /* the mapping's addresses: [start, end) */
    long replaced;        /* Windows: 1 while the view is being replaced by
                             reserved memory, 2 once it is (tb_platform.c) */
};

/* Has a page of the guarded mapping been lost?  An acquire load: a reader
 * that met a zero page put there by another thread's fault sees the flag
 * that thread set before it put the page there. */
static inline int tb_os_guard_damaged(const tb_fault_guard *guard)
{
    return tb_atomic_load_acquire((tb_atomic_int *)&guard->damaged) != 0;
}

#endif /* PYFATHOM_TB_PLATFORM_H */
