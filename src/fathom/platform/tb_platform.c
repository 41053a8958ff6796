/*
 * tb_platform.c - the system calls behind tb_platform.h: file mapping,
 * directory listing, mutexes, threads and the CPU count, for Windows
 * (Win32 API, documented calls only) and POSIX.
 */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE 1
/* macOS hides sysconf's _SC_NPROCESSORS_ONLN under strict POSIX. */
#define _DARWIN_C_SOURCE 1
#endif

#include "platform/tb_platform.h"
#include "fathom.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

/* ---- The fault guard ----------------------------------------------------
 *
 * A read from a mapped file whose page the system cannot fill (the file was
 * cut short after it was mapped, or the disk returned an error) raises
 * SIGBUS (POSIX) or EXCEPTION_IN_PAGE_ERROR (Windows) in the reading
 * thread; by default that ends the process.  Every read of a table is
 * bounds-checked and any bytes decode safely, so the guard lets such a read
 * go on over zeros and tells the probe afterwards: the handler finds the
 * faulting address among the live table mappings, puts zeros in place of
 * what was lost (read-only, at the same addresses) and sets that mapping's
 * damaged flag, which the decoder checks after each read (tb_map_damaged)
 * to answer FATHOM_ERR_IO naming the file.  The hot path keeps its plain
 * memory reads; nothing is paid until a page is lost.
 *
 * Why process-wide state: a signal or exception handler belongs to the
 * process, not to an instance, and a fault in one thread must find the
 * mapping whatever instance made it.  So there is one registry of guarded
 * mappings, and one handler, installed on the first guarded mapping.  The
 * registry is lock-free (the handler may interrupt a thread that is
 * changing it): slots in chunks that are linked in once and never freed; a
 * slot's range is published under a sequence count (odd while it changes),
 * so the handler skips a slot being written instead of reading half of it.
 * Faults outside every table mapping go on as without the guard.  An
 * embedding program that wants none of this calls fathom_set_fault_guard(0)
 * before mapping tables, or builds the core with FATHOM_NO_FAULT_GUARD.
 *
 * The registry is written once, here, for both; the handlers and how zeros
 * replace a lost page are each platform's (below).  Its atomic operations
 * are spelled twice (guard_load and the rest, every one sequentially
 * consistent): the __atomic builtins (GCC, Clang, mingw, zig) and Win32's
 * Interlocked functions (full barriers), which are what MSVC has.
 * FATHOM_GUARD_INTERLOCKED picks the Interlocked spelling under mingw too:
 * that is how tests/test_platforms.py runs MSVC's guard under wine, as
 * there is no MSVC here.  On POSIX the guard needs the builtins (every
 * compiler there has them) and sigaction with SA_SIGINFO. */
#if TB_OS_WINDOWS
#if !defined(FATHOM_NO_FAULT_GUARD)
#define TB_FAULT_GUARD 1
#else
#define TB_FAULT_GUARD 0
#endif
#if defined(FATHOM_GUARD_INTERLOCKED) || !(defined(__GNUC__) || defined(__clang__))
#define TB_GUARD_INTERLOCKED 1
#endif
#else
#include <signal.h>
#include <sys/mman.h>
#if !defined(FATHOM_NO_FAULT_GUARD) && (defined(__GNUC__) || defined(__clang__)) && \
    defined(SA_SIGINFO) && defined(MAP_ANONYMOUS) && defined(MAP_FIXED)
#define TB_FAULT_GUARD 1
#else
#define TB_FAULT_GUARD 0
#endif
#endif

#if TB_FAULT_GUARD && defined(TB_GUARD_INTERLOCKED)
/* A compare-exchange that changes nothing reads with a full barrier. */
static long guard_load(long *p) { return InterlockedCompareExchange(p, 0, 0); }
static void guard_store(long *p, long v) { InterlockedExchange(p, v); }
static long guard_add(long *p, long v) { return InterlockedExchangeAdd(p, v); }

/* 1 if *p was `expected` and is now `desired`. */
static int guard_cas(long *p, long expected, long desired)
{
    return InterlockedCompareExchange(p, desired, expected) == expected;
}

#if defined(_WIN64)
static size_t guard_load_size(size_t *p)
{
    return (size_t)InterlockedCompareExchange64((LONG64 *)p, 0, 0);
}
static void guard_store_size(size_t *p, size_t v) { InterlockedExchange64((LONG64 *)p, (LONG64)v); }
#else
static size_t guard_load_size(size_t *p)
{
    return (size_t)InterlockedCompareExchange((LONG *)p, 0, 0);
}
static void guard_store_size(size_t *p, size_t v) { InterlockedExchange((LONG *)p, (LONG)v); }
#endif

static void *guard_load_ptr(void **p) { return InterlockedCompareExchangePointer(p, NULL, NULL); }

static int guard_cas_ptr(void **p, void *expected, void *desired)
{
    return InterlockedCompareExchangePointer(p, desired, expected) == expected;
}
#elif TB_FAULT_GUARD
static long guard_load(long *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
static void guard_store(long *p, long v) { __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }
static long guard_add(long *p, long v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }

/* 1 if *p was `expected` and is now `desired`. */
static int guard_cas(long *p, long expected, long desired)
{
    return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}

static size_t guard_load_size(size_t *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
static void guard_store_size(size_t *p, size_t v) { __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }
static void *guard_load_ptr(void **p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }

static int guard_cas_ptr(void **p, void *expected, void *desired)
{
    return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}
#endif

#if TB_FAULT_GUARD
#include <stdlib.h>

#define GUARD_CHUNK_SLOTS 256

typedef struct guard_chunk {
    tb_fault_guard slot[GUARD_CHUNK_SLOTS];
    struct guard_chunk *next;
} guard_chunk;

static void *guard_chunks;            /* guard_chunk *, newest first; never freed */
static long guard_enabled = 1;        /* fathom_set_fault_guard */

/* The platform's handler is installed (once, on the first call); 0: it
 * could not be. */
static int guard_ready(void);

void tb_os_set_fault_guard(int enabled)
{
    guard_store(&guard_enabled, enabled != 0);
}

/* Publish [start, end) in a slot (or clear it, both 0). */
static void guard_publish(tb_fault_guard *g, size_t start, size_t end)
{
    /* Every access sequentially consistent, with no fences: the one total
     * order is what makes the sequence count work, ThreadSanitizer does not
     * model fences, and neither side is on a hot path. */
    guard_add(&g->seq, 1); /* odd */
    guard_store_size(&g->start, start);
    guard_store_size(&g->end, end);
    guard_add(&g->seq, 1); /* even */
}

/* The registered mapping holding addr, or NULL.  Async-signal-safe. */
static tb_fault_guard *guard_find(size_t addr)
{
    for (guard_chunk *c = (guard_chunk *)guard_load_ptr(&guard_chunks); c; c = c->next) {
        for (int i = 0; i < GUARD_CHUNK_SLOTS; i++) {
            tb_fault_guard *g = &c->slot[i];
            long before = guard_load(&g->seq);
            if (before & 1)
                continue;
            size_t start = guard_load_size(&g->start);
            size_t end = guard_load_size(&g->end);
            if (guard_load(&g->seq) != before)
                continue;
            if (addr >= start && addr < end)
                return g;
        }
    }
    return NULL;
}

/* A free slot with [start, end) published, or NULL (no memory). */
static tb_fault_guard *guard_register(const void *data, size_t size)
{
    if (!guard_load(&guard_enabled))
        return NULL;
    if (!guard_ready())
        return NULL;
    size_t start = (size_t)(uintptr_t)data, end = start + size;
    for (;;) {
        guard_chunk *head = (guard_chunk *)guard_load_ptr(&guard_chunks);
        for (guard_chunk *c = head; c; c = c->next) {
            for (int i = 0; i < GUARD_CHUNK_SLOTS; i++) {
                tb_fault_guard *g = &c->slot[i];
                if (guard_load(&g->in_use) == 0 && guard_cas(&g->in_use, 0, 1)) {
                    tb_atomic_store_release(&g->damaged, 0);
                    guard_store(&g->replaced, 0);
                    guard_publish(g, start, end);
                    return g;
                }
            }
        }
        /* All taken: link in a new chunk (another thread may have linked
         * one meanwhile; then look again). */
        guard_chunk *fresh = (guard_chunk *)calloc(1, sizeof *fresh);
        if (!fresh)
            return NULL;
        fresh->next = head;
        if (!guard_cas_ptr(&guard_chunks, head, fresh))
            free(fresh);
    }
}

static void guard_release(tb_fault_guard *g)
{
    if (!g)
        return;
    guard_publish(g, 0, 0);
    guard_store(&g->in_use, 0);
}

#else /* no fault guard */

void tb_os_set_fault_guard(int enabled) { (void)enabled; }

static tb_fault_guard *guard_register(const void *data, size_t size)
{
    (void)data;
    (void)size;
    return NULL;
}

static void guard_release(tb_fault_guard *g) { (void)g; }
#endif /* TB_FAULT_GUARD */

#if TB_OS_WINDOWS
#include <process.h>

int tb_os_resident(const void *data, size_t size, uint64_t offset, uint64_t length,
                   uint64_t *resident)
{
    (void)data, (void)size, (void)offset, (void)length;
    *resident = 0;
    return FATHOM_ERR_ARGUMENT;
}

/* A view cannot be put over part of another view without placeholder
 * calls (VirtualAlloc2, Windows 10 1803 and later): no prefix files. */
int tb_os_map_prefix(const void *data, size_t size, const char *path, size_t *covered,
                     uint64_t *prefix_size)
{
    (void)data, (void)size, (void)path;
    *covered = 0;
    *prefix_size = 0;
    return FATHOM_ERR_ARGUMENT;
}

#if TB_FAULT_GUARD
/*
 * Windows: a read the system cannot page in raises EXCEPTION_IN_PAGE_ERROR
 * (a disk error, a network or removable drive gone; a mapped file cannot
 * be cut short there, SetEndOfFile fails with ERROR_USER_MAPPED_FILE).  A
 * view cannot have a page of other memory put inside it without the
 * placeholder calls (VirtualAlloc2, Windows 10 1803 and later), so the
 * first thread that faults replaces the whole view: unmaps it, reserves
 * the same addresses, and from then on every fault in the range commits a
 * read-only zero page where it lands (reserved memory costs nothing until
 * then).  A thread that faults while the view is being replaced waits for
 * it (replaced 1 -> 2).  If another allocation took the addresses between
 * the unmap and the reservation (nothing of the core allocates there; a
 * thread of the program might), the fault goes on as without the guard.
 *
 * Wine maps a file view with mmap and turns SIGBUS (a file cut short from
 * outside) into EXCEPTION_ACCESS_VIOLATION; a read inside a live read-only
 * view faults only when its page cannot be had, so an access violation in
 * a registered view is taken as a lost page too.
 */
static PVOID guard_handle;
static long guard_state; /* 0 not installed, 1 installing, 2 installed, 3 failed */

/* A zero page at addr, in the reserved range of a replaced view. */
static int guard_commit_zero(uintptr_t addr)
{
    void *page = (void *)(addr & ~(uintptr_t)4095);
    return VirtualAlloc(page, 4096, MEM_COMMIT, PAGE_READONLY) != NULL;
}

/* Replace g's view by reserved memory (the first faulting thread), or wait
 * for the thread that does.  RETURN 1 once the range is reserved. */
static int guard_replace(tb_fault_guard *g)
{
    if (guard_cas(&g->replaced, 0, 1)) {
        void *base = (void *)g->start;
        size_t size = g->end - g->start;
        tb_atomic_store_release(&g->damaged, 1);
        UnmapViewOfFile(base);
        int ok = VirtualAlloc(base, size, MEM_RESERVE, PAGE_READONLY) == base;
        guard_store(&g->replaced, ok ? 2 : 3);
        return ok;
    }
    long state;
    while ((state = guard_load(&g->replaced)) == 1)
        SwitchToThread();
    return state == 2;
}

static LONG CALLBACK guard_handler(PEXCEPTION_POINTERS info)
{
    const EXCEPTION_RECORD *rec = info->ExceptionRecord;
    DWORD code = rec->ExceptionCode;
    if ((code != EXCEPTION_IN_PAGE_ERROR && code != EXCEPTION_ACCESS_VIOLATION) ||
        rec->NumberParameters < 2 || rec->ExceptionInformation[0] != 0 /* a read */)
        return EXCEPTION_CONTINUE_SEARCH;
    uintptr_t addr = (uintptr_t)rec->ExceptionInformation[1];
    tb_fault_guard *g = guard_find((size_t)addr);
    if (!g)
        return EXCEPTION_CONTINUE_SEARCH;
    DWORD saved = GetLastError();
    int ok = guard_replace(g) && guard_commit_zero(addr);
    SetLastError(saved);
    return ok ? EXCEPTION_CONTINUE_EXECUTION : EXCEPTION_CONTINUE_SEARCH;
}

static int guard_ready(void)
{
    if (guard_cas(&guard_state, 0, 1)) {
        /* First in the chain: the program's own handlers see only what is
         * not a table's. */
        guard_handle = AddVectoredExceptionHandler(1, guard_handler);
        guard_store(&guard_state, guard_handle ? 2 : 3);
    }
    long state;
    while ((state = guard_load(&guard_state)) == 1)
        SwitchToThread();
    return state == 2;
}

/* What a guarded range is now: a view, or reserved memory. */
static void guard_unmap(const void *data, tb_fault_guard *g)
{
    long replaced = g ? guard_load(&g->replaced) : 0;
    guard_release(g);
    if (replaced == 2)
        VirtualFree((void *)data, 0, MEM_RELEASE);
    else if (replaced == 0)
        UnmapViewOfFile(data);
    /* 3: the view was unmapped and the range is someone else's */
}
#else
static void guard_unmap(const void *data, tb_fault_guard *g)
{
    (void)g;
    UnmapViewOfFile(data);
}
#endif /* TB_FAULT_GUARD */

int tb_os_map_file(const char *path, const void **data, size_t *size,
                   tb_fault_guard **guard)
{
    *guard = NULL;
    HANDLE file = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ, NULL,
                              OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (file == INVALID_HANDLE_VALUE)
        return FATHOM_ERR_IO;
    LARGE_INTEGER length;
    if (!GetFileSizeEx(file, &length)) {
        CloseHandle(file);
        return FATHOM_ERR_IO;
    }
    if (length.QuadPart == 0) {
        CloseHandle(file);
        return FATHOM_ERR_BAD_SIZE;
    }
    /* A file larger than the address space cannot be viewed whole. */
    if ((unsigned long long)length.QuadPart > (size_t)-1) {
        CloseHandle(file);
        return FATHOM_ERR_IO;
    }
    HANDLE mapping = CreateFileMappingA(file, NULL, PAGE_READONLY, 0, 0, NULL);
    CloseHandle(file);
    if (mapping == NULL)
        return FATHOM_ERR_IO;
    /* The view keeps the mapping (and the file) alive. */
    void *view = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0);
    CloseHandle(mapping);
    if (view == NULL)
        return FATHOM_ERR_IO;
    *data = view;
    *size = (size_t)length.QuadPart;
    *guard = guard_register(view, *size);
    return FATHOM_OK;
}

void tb_os_unmap_file(const void *data, size_t size, tb_fault_guard *guard)
{
    (void)size;
    guard_unmap(data, guard);
}

/* PrefetchVirtualMemory (Windows 8) would be the equivalent; not used, so
 * that the core keeps running on every Windows the toolchains target. */
void tb_os_prefetch(const void *addr, size_t len) { (void)addr, (void)len; }

void tb_os_thread_faults(uint64_t *major, uint64_t *minor) { *major = *minor = 0; }

int tb_os_list_dir(const char *dir, int (*visit)(const char *name, void *context),
                   void *context)
{
    char pattern[4096];
    size_t dir_len = strlen(dir);
    if (dir_len + 3 > sizeof pattern)
        return FATHOM_ERR_ARGUMENT;
    memcpy(pattern, dir, dir_len);
    memcpy(pattern + dir_len, "\\*", 3);
    WIN32_FIND_DATAA found;
    HANDLE h = FindFirstFileA(pattern, &found);
    if (h == INVALID_HANDLE_VALUE)
        return FATHOM_ERR_IO;
    int status = FATHOM_OK;
    do {
        status = visit(found.cFileName, context);
    } while (status == FATHOM_OK && FindNextFileA(h, &found));
    FindClose(h);
    return status;
}

void tb_mutex_init(tb_mutex *m) { InitializeCriticalSection(m); }
void tb_mutex_destroy(tb_mutex *m) { DeleteCriticalSection(m); }
void tb_mutex_lock(tb_mutex *m) { EnterCriticalSection(m); }
void tb_mutex_unlock(tb_mutex *m) { LeaveCriticalSection(m); }

/* _beginthreadex, not CreateThread: the C runtime of the thread is set up. */
static unsigned __stdcall thread_entry(void *arg)
{
    tb_thread *t = (tb_thread *)arg;
    t->fn(t->arg);
    return 0;
}

int tb_thread_start(tb_thread *t, void (*fn)(void *arg), void *arg)
{
    t->fn = fn;
    t->arg = arg;
    uintptr_t h = _beginthreadex(NULL, 0, thread_entry, t, 0, NULL);
    t->handle = (HANDLE)h;
    return h != 0;
}

void tb_thread_join(tb_thread *t)
{
    WaitForSingleObject(t->handle, INFINITE);
    CloseHandle(t->handle);
}

/* Sleep(1) would be a whole timer tick (1-16 ms): a yield, then a tick
 * only when nothing else wants the processor. */
void tb_os_nap(void)
{
    if (!SwitchToThread())
        Sleep(1);
}

unsigned tb_cpu_count(void)
{
    SYSTEM_INFO info;
    GetSystemInfo(&info);
    return info.dwNumberOfProcessors ? (unsigned)info.dwNumberOfProcessors : 1;
}

#else /* POSIX */
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if TB_FAULT_GUARD
/* POSIX: SIGBUS; a zero page mapped over the lost one (MAP_FIXED). */
static struct sigaction guard_previous;
static uintptr_t guard_page_size;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static long guard_installed;

/* Not a table's fault: what would have happened without the guard. */
static void guard_pass_on(int sig, siginfo_t *info, void *context)
{
    if (guard_previous.sa_flags & SA_SIGINFO) {
        guard_previous.sa_sigaction(sig, info, context);
        return;
    }
    if (guard_previous.sa_handler != SIG_DFL && guard_previous.sa_handler != SIG_IGN) {
        guard_previous.sa_handler(sig);
        return;
    }
    /* The default action (also for SIG_IGN: an ignored fault would only
     * repeat): it takes effect when the handler returns, as the signal is
     * blocked until then (a fault faults again; a raised one is pending). */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

static void guard_handler(int sig, siginfo_t *info, void *context)
{
    /* si_code > 0: sent by the kernel for a fault (not kill or raise). */
    tb_fault_guard *g = info && info->si_code > 0 ? guard_find((size_t)(uintptr_t)info->si_addr) : NULL;
    if (g) {
        int saved_errno = errno;
        uintptr_t page = (uintptr_t)info->si_addr & ~(guard_page_size - 1);
        /* The flag first: a thread that reads the zero page sees it. */
        tb_atomic_store_release(&g->damaged, 1);
        /* mmap is a plain system call (async-signal-safe in practice on
         * every POSIX system, though POSIX does not list it). */
        void *zero = mmap((void *)page, (size_t)guard_page_size, PROT_READ,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        errno = saved_errno;
        if (zero != MAP_FAILED)
            return; /* the read is retried, over zeros */
    }
    guard_pass_on(sig, info, context);
}

static void guard_install(void)
{
    long page = sysconf(_SC_PAGESIZE);
    guard_page_size = page > 0 ? (uintptr_t)page : 4096;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = guard_handler;
    sigemptyset(&action.sa_mask);
    /* SA_ONSTACK: on a thread's alternate stack if it has one. */
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    if (sigaction(SIGBUS, &action, &guard_previous) == 0)
        guard_store(&guard_installed, 1);
}

static int guard_ready(void)
{
    pthread_once(&guard_once, guard_install);
    return (int)guard_load(&guard_installed);
}
#endif /* TB_FAULT_GUARD */


int tb_os_map_file(const char *path, const void **data, size_t *size,
                   tb_fault_guard **guard)
{
    *guard = NULL;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return FATHOM_ERR_IO;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return FATHOM_ERR_IO;
    }
    if (st.st_size <= 0) {
        close(fd);
        return FATHOM_ERR_BAD_SIZE;
    }
    size_t length = (size_t)st.st_size;
    void *view = mmap(NULL, length, PROT_READ, MAP_SHARED, fd, 0);
    /* The mapping keeps the file alive; the descriptor is not needed. */
    close(fd);
    if (view == MAP_FAILED)
        return FATHOM_ERR_IO;
#if defined(MADV_RANDOM)
    /* Probes touch scattered blocks: read-ahead only wastes page cache. */
    madvise(view, length, MADV_RANDOM);
#endif
    *data = view;
    *size = length;
    *guard = guard_register(view, length);
    return FATHOM_OK;
}

int tb_os_map_prefix(const void *data, size_t size, const char *path, size_t *covered,
                     uint64_t *prefix_size)
{
    *covered = 0;
    *prefix_size = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return FATHOM_ERR_IO;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) {
        close(fd);
        return FATHOM_ERR_IO;
    }
    *prefix_size = (uint64_t)st.st_size;
    if (*prefix_size > size) {
        close(fd);
        return FATHOM_ERR_BAD_SIZE;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t length = *prefix_size == size ? size : (size_t)*prefix_size / page * page;
    if (length > 0) {
        /* MAP_FIXED replaces the pages of our own mapping in one step. */
        void *view = mmap((void *)data, length, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
        if (view == MAP_FAILED) {
            close(fd);
            return FATHOM_ERR_IO;
        }
#if defined(MADV_RANDOM)
        madvise(view, length, MADV_RANDOM);
#endif
    }
    close(fd);
    *covered = length;
    return FATHOM_OK;
}

void tb_os_unmap_file(const void *data, size_t size, tb_fault_guard *guard)
{
    /* Out of the registry first: the range is then never remapped by the
     * handler after munmap has given it back. */
    guard_release(guard);
    munmap((void *)data, size);
}

int tb_os_resident(const void *data, size_t size, uint64_t offset, uint64_t length,
                   uint64_t *resident)
{
    *resident = 0;
    if (offset >= size)
        return FATHOM_OK;
    if (length > size - offset)
        length = size - offset;
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t end = offset + length;
    /* A fixed vector, many pages per call: a table of gigabytes takes
     * some thousand calls, and no allocation. */
    unsigned char vec[4096];
    for (uint64_t at = offset / page * page; at < end;) {
        uint64_t span = end - at;
        if (span > page * sizeof vec)
            span = page * sizeof vec;
#if defined(__linux__)
        unsigned char *out = vec;
#else
        char *out = (char *)vec; /* the BSDs' and macOS's mincore */
#endif
        if (mincore((void *)((uintptr_t)data + at), (size_t)span, out) != 0)
            return FATHOM_ERR_IO;
        for (uint64_t i = 0; i * page < span; i++) {
            if (!(vec[i] & 1))
                continue;
            uint64_t lo = at + i * page, hi = lo + page;
            *resident += (hi < end ? hi : end) - (lo > offset ? lo : offset);
        }
        at += span;
    }
    return FATHOM_OK;
}

/*
 * MADV_WILLNEED on the pages of the range.  Measured against the other
 * ways of keeping reads in flight (benchmarks/bench_cold.py's tables,
 * 30,000 random 4 KiB pages of the 425 MB KQRBvKQR.rtbw in file order,
 * cold, five alternated rounds, median reads/s): touching each page in
 * turn 13,200; each way 64 pages ahead: MADV_WILLNEED 68,300,
 * readahead(2) 74,900, POSIX_FADV_WILLNEED 73,700 (ranges 50-96k, as
 * wide as the differences), 32 threads touching pages ahead 57,500.
 * The three calls are one: readahead and fadvise need the file's
 * descriptor, which tb_os_map_file does not keep (a thousand tables,
 * no descriptors); madvise works on the mapping.  Threads cost their
 * stacks and, on two cores, the probe's CPU time.
 */
void tb_os_prefetch(const void *addr, size_t len)
{
#if defined(MADV_WILLNEED)
    static const uintptr_t page_mask = 4095; /* madvise wants a page boundary;
                                                  4 KiB divides every page size */
    uintptr_t start = (uintptr_t)addr & ~page_mask;
    uintptr_t end = (uintptr_t)addr + len;
    if (len)
        madvise((void *)start, (size_t)(end - start), MADV_WILLNEED);
#else
    (void)addr, (void)len;
#endif
}

#if defined(__linux__) && !defined(RUSAGE_THREAD)
#define RUSAGE_THREAD 1 /* Linux's number for it; glibc names it under _GNU_SOURCE only */
#endif

void tb_os_thread_faults(uint64_t *major, uint64_t *minor)
{
    struct rusage use;
    *major = *minor = 0;
#if defined(RUSAGE_THREAD)
    if (getrusage(RUSAGE_THREAD, &use) != 0)
        return;
#else
    if (getrusage(RUSAGE_SELF, &use) != 0) /* the process's: still the sign */
        return;
#endif
    *major = (uint64_t)use.ru_majflt;
    *minor = (uint64_t)use.ru_minflt;
}

int tb_os_list_dir(const char *dir, int (*visit)(const char *name, void *context),
                   void *context)
{
    DIR *d = opendir(dir);
    if (!d)
        return FATHOM_ERR_IO;
    int status = FATHOM_OK;
    struct dirent *ent;
    while (status == FATHOM_OK && (ent = readdir(d)) != NULL)
        status = visit(ent->d_name, context);
    closedir(d);
    return status;
}

void tb_mutex_init(tb_mutex *m) { pthread_mutex_init(m, NULL); }
void tb_mutex_destroy(tb_mutex *m) { pthread_mutex_destroy(m); }
void tb_mutex_lock(tb_mutex *m) { pthread_mutex_lock(m); }
void tb_mutex_unlock(tb_mutex *m) { pthread_mutex_unlock(m); }

static void *thread_entry(void *arg)
{
    tb_thread *t = (tb_thread *)arg;
    t->fn(t->arg);
    return NULL;
}

int tb_thread_start(tb_thread *t, void (*fn)(void *arg), void *arg)
{
    t->fn = fn;
    t->arg = arg;
    return pthread_create(&t->handle, NULL, thread_entry, t) == 0;
}

void tb_thread_join(tb_thread *t) { pthread_join(t->handle, NULL); }

void tb_os_nap(void)
{
    struct timespec nap = {0, 20000}; /* 20 us; the timer's slack adds about 50 */
    nanosleep(&nap, NULL);
}

unsigned tb_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}
#endif
