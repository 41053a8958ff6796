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

#include "tb_platform.h"
#include "fathom.h"

#include <stdint.h>
#include <string.h>

#if TB_OS_WINDOWS
#include <process.h>

int tb_os_resident(const void *data, size_t size, uint64_t offset, uint64_t length,
                   uint64_t *resident)
{
    (void)data, (void)size, (void)offset, (void)length;
    *resident = 0;
    return FATHOM_ERR_ARGUMENT;
}

int tb_os_map_file(const char *path, const void **data, size_t *size)
{
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
    return FATHOM_OK;
}

void tb_os_unmap_file(const void *data, size_t size)
{
    (void)size;
    UnmapViewOfFile(data);
}

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

unsigned tb_cpu_count(void)
{
    SYSTEM_INFO info;
    GetSystemInfo(&info);
    return info.dwNumberOfProcessors ? (unsigned)info.dwNumberOfProcessors : 1;
}

#else /* POSIX */
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int tb_os_map_file(const char *path, const void **data, size_t *size)
{
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
    return FATHOM_OK;
}

void tb_os_unmap_file(const void *data, size_t size)
{
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

unsigned tb_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}
#endif
