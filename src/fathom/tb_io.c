/*
 * tb_io.c - memory mapping of table files and directory listing (POSIX and
 * Windows), and views of table bytes the caller holds.
 */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE 1
#endif

#include "tb_io.h"
#include "fathom.h"

#include <string.h>

int tb_map_memory(const void *data, size_t size, tb_map *out)
{
    out->data = NULL;
    out->size = 0;
    out->borrowed = 1;
    if (size == 0 || data == NULL)
        return FATHOM_ERR_BAD_SIZE;
    out->data = (const uint8_t *)data;
    out->size = size;
    return FATHOM_OK;
}

#if defined(_WIN32)
#include <windows.h>

int tb_map_file(const char *path, tb_map *out)
{
    out->data = NULL;
    out->size = 0;
    out->borrowed = 0;
    HANDLE file = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ, NULL,
                              OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (file == INVALID_HANDLE_VALUE)
        return FATHOM_ERR_IO;
    LARGE_INTEGER size;
    if (!GetFileSizeEx(file, &size)) {
        CloseHandle(file);
        return FATHOM_ERR_IO;
    }
    if (size.QuadPart == 0) {
        CloseHandle(file);
        return FATHOM_ERR_BAD_SIZE;
    }
    HANDLE mapping = CreateFileMappingA(file, NULL, PAGE_READONLY, 0, 0, NULL);
    CloseHandle(file);
    if (mapping == NULL)
        return FATHOM_ERR_IO;
    void *view = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0);
    CloseHandle(mapping);
    if (view == NULL)
        return FATHOM_ERR_IO;
    out->data = (const uint8_t *)view;
    out->size = (size_t)size.QuadPart;
    return FATHOM_OK;
}

void tb_unmap_file(tb_map *map)
{
    if (map->data != NULL && !map->borrowed)
        UnmapViewOfFile((void *)map->data);
    map->data = NULL;
    map->size = 0;
}

int tb_list_dir(const char *dir, int (*visit)(const char *name, void *context),
                void *context)
{
    char pattern[4096];
    size_t dir_len = strlen(dir);
    if (dir_len + 3 > sizeof pattern)
        return FATHOM_ERR_ARGUMENT;
    memcpy(pattern, dir, dir_len);
    memcpy(pattern + dir_len, "\\*", 3);
    WIN32_FIND_DATAA fd;
    HANDLE h = FindFirstFileA(pattern, &fd);
    if (h == INVALID_HANDLE_VALUE)
        return FATHOM_ERR_IO;
    int status = FATHOM_OK;
    do {
        status = visit(fd.cFileName, context);
    } while (status == FATHOM_OK && FindNextFileA(h, &fd));
    FindClose(h);
    return status;
}

#else /* POSIX */
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int tb_map_file(const char *path, tb_map *out)
{
    out->data = NULL;
    out->size = 0;
    out->borrowed = 0;
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
    size_t size = (size_t)st.st_size;
    void *view = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
    /* The mapping keeps the file alive; the descriptor is not needed. */
    close(fd);
    if (view == MAP_FAILED)
        return FATHOM_ERR_IO;
#if defined(MADV_RANDOM)
    /* Probes touch scattered blocks: read-ahead only wastes page cache. */
    madvise(view, size, MADV_RANDOM);
#endif
    out->data = (const uint8_t *)view;
    out->size = size;
    return FATHOM_OK;
}

void tb_unmap_file(tb_map *map)
{
    if (map->data != NULL && !map->borrowed)
        munmap((void *)map->data, map->size);
    map->data = NULL;
    map->size = 0;
}

int tb_list_dir(const char *dir, int (*visit)(const char *name, void *context),
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
#endif
