/*
 * replay.c - a main() for the fuzz targets without libFuzzer: runs every
 * file named on the command line (directories: every file inside, sorted)
 * through LLVMFuzzerTestOneInput once.  Built with gcc -fsanitize=address,
 * undefined it replays corpora and regression inputs in the ordinary test
 * suite.  Prints "replayed N inputs" on success.
 */
#define _DEFAULT_SOURCE 1
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long replayed;

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, size = 0;
    uint8_t *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + size, 1, cap - size, f)) > 0) {
        size += n;
        if (size == cap) {
            uint8_t *grown = realloc(buf, cap *= 2);
            if (!grown) {
                free(buf);
                buf = NULL;
            }
            buf = grown;
        }
    }
    fclose(f);
    if (!buf)
        return 1;
    /* An exactly sized copy: the target must not read past `size`. */
    uint8_t *exact = malloc(size ? size : 1);
    memcpy(exact, buf, size);
    free(buf);
    if (getenv("REPLAY_VERBOSE"))
        fprintf(stderr, "%s\n", path);
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    replayed++;
    return 0;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "cannot stat %s\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return run_file(path);
    DIR *d = opendir(path);
    if (!d)
        return 1;
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (count == cap) {
            cap = cap ? 2 * cap : 256;
            names = realloc(names, cap * sizeof *names);
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[count] = malloc(len);
        snprintf(names[count++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    if (count > 0) /* qsort may not be given NULL, even for no elements */
        qsort(names, count, sizeof *names, cmp);
    int rc = 0;
    for (size_t i = 0; i < count; i++) {
        rc |= run_path(names[i]);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0;
    for (int i = 1; i < argc; i++)
        rc |= run_path(argv[i]);
    printf("replayed %lu inputs\n", replayed);
    return rc;
}
