/*
 * tb_io.c - views of table bytes: a mapped file (through tb_platform.h)
 * or bytes the caller holds.
 */
#include "platform/tb_io.h"
#include "fathom.h"
#include "platform/tb_platform.h"

int tb_map_memory(const void *data, size_t size, tb_map *out)
{
    out->data = NULL;
    out->size = 0;
    out->borrowed = 1;
    out->guard = NULL;
    if (size == 0 || data == NULL)
        return FATHOM_ERR_BAD_SIZE;
    out->data = (const uint8_t *)data;
    out->size = size;
    return FATHOM_OK;
}

int tb_map_file(const char *path, tb_map *out)
{
    out->data = NULL;
    out->size = 0;
    out->borrowed = 0;
    out->guard = NULL;
    const void *data;
    size_t size;
    tb_fault_guard *guard;
    int status = tb_os_map_file(path, &data, &size, &guard);
    if (status != FATHOM_OK)
        return status;
    out->data = (const uint8_t *)data;
    out->size = size;
    out->guard = guard;
    return FATHOM_OK;
}

int tb_map_prefix(tb_map *map, const char *prefix_path, size_t *covered)
{
    *covered = 0;
    if (map->data == NULL || map->borrowed)
        return FATHOM_ERR_ARGUMENT;
    uint64_t prefix_size;
    return tb_os_map_prefix(map->data, map->size, prefix_path, covered, &prefix_size);
}

void tb_unmap_file(tb_map *map)
{
    if (map->data != NULL && !map->borrowed)
        tb_os_unmap_file(map->data, map->size, map->guard);
    map->data = NULL;
    map->size = 0;
    map->guard = NULL;
}

int tb_list_dir(const char *dir, int (*visit)(const char *name, void *context),
                void *context)
{
    return tb_os_list_dir(dir, visit, context);
}
