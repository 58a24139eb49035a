/* Peer modules: found, loaded with the dynamic loader, their table checked before anything calls it. */
#include "peer.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"

struct ciot_peer {
    ciot_os_module *handle;
    const ciot_peer_api *api;
    char name[64];
    char path[4096];
};

static int is_file(const char *path) {
    ciot_os_file_info fi;
    return ciot_os_file_info_of(path, 1, &fi) == 0 && fi.kind == CIOT_OS_REGULAR;
}

static int same_name(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

static int has_suffix(const char *s, const char *suffix) {
    const size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The last path separator in path, or NULL. */
static const char *last_sep(const char *path) {
    const char *last = NULL;
    for (const char *c = path; *c; c++)
        if (ciot_os_is_sep(*c)) last = c;
    return last;
}

/* The module file a NAME stands for, or 0 when none of the places holds it (out: the last place tried). */
static int find_named(const char *name, char *out, size_t len) {
    const char *suffix = ciot_os_module_suffix();
    const char *dir = getenv("CIOT_PEER_DIR");
    if (dir && *dir) {
        snprintf(out, len, "%s/%s/" CIOT_PEER_STEM "%s", dir, name, suffix);
        if (is_file(out)) return 1;
    }
    snprintf(out, len, "build/peers/%s/" CIOT_PEER_STEM "%s", name, suffix);
    if (is_file(out)) return 1;
    char exe[4096];
    if (ciot_os_executable_path(exe, sizeof exe) < 0) return 0;
    char *sep = (char *)last_sep(exe);
    if (!sep) return 0;
    *sep = 0;   /* build/native/ciot -> build/native, whose parent holds peers/ */
    snprintf(out, len, "%s/../peers/%s/" CIOT_PEER_STEM "%s", exe, name, suffix);
    return is_file(out);
}

/* The module's name: its folder's when the file is ciot-peer.so (.dll), else its file's without the suffix. */
static void name_of(const char *path, char *out, size_t len) {
    const char *base = last_sep(path);
    base = base ? base + 1 : path;
    char file[64];
    snprintf(file, sizeof file, CIOT_PEER_STEM "%s", ciot_os_module_suffix());
    if (strcmp(base, file) == 0 && base > path) {
        const char *end = base - 1, *start = end;
        while (start > path && !ciot_os_is_sep(start[-1])) start--;
        snprintf(out, len, "%.*s", (int)(end - start), start);
        return;
    }
    snprintf(out, len, "%.*s", (int)strcspn(base, "."), base);
}

static ciot_status check_table(const ciot_peer *p, char *why, size_t len) {
    const ciot_peer_api *a = p->api;
    if (a->abi != CIOT_PEER_ABI) {
        snprintf(why, len, "%s is a peer module of ABI version %u; this ciot reads version %d (rebuild it with "
                           "scripts/peer-build)", p->path, a->abi, CIOT_PEER_ABI);
        return CIOT_E_FORMAT;
    }
    if (a->size < sizeof *a || a->n_types < 0 || (a->n_types && !a->types) || !a->row_bytes || !a->quantize ||
        !a->dequantize_row || !a->mm_new || !a->mm_run || !a->mm_free || !a->op_new || !a->op_run || !a->op_free) {
        snprintf(why, len, "%s: its peer table is incomplete (size %u, %d types)", p->path, a->size, a->n_types);
        return CIOT_E_FORMAT;
    }
    return CIOT_OK;
}

ciot_status ciot_peer_open(const char *arg, ciot_peer **out, char *why, size_t len) {
    *out = NULL;
    ciot_peer *p = calloc(1, sizeof *p);
    if (!p) return CIOT_E_NOMEM;
    /* a folder in it, or a module file's suffix: .so, or Windows' .dll */
    const int is_path = strchr(arg, '/') || (ciot_os_is_sep('\\') && strchr(arg, '\\')) || has_suffix(arg, ".so") ||
                        has_suffix(arg, ".dll");
    if (is_path) snprintf(p->path, sizeof p->path, "%s", arg);
    if ((is_path && !is_file(p->path)) || (!is_path && !find_named(arg, p->path, sizeof p->path))) {
        if (is_path) snprintf(why, len, "%s: no such file", arg);
        else snprintf(why, len, "no peer module named '%s' (looked for %s, and under $CIOT_PEER_DIR; scripts/peer-build "
                                "makes one)", arg, p->path);
        free(p);
        return CIOT_E_IO;
    }
    name_of(p->path, p->name, sizeof p->name);
    p->handle = ciot_os_module_open(p->path);
    char e[512] = "";
    if (!p->handle) ciot_os_module_error(e, sizeof e);
    ciot_peer_entry_fn entry = p->handle ? (ciot_peer_entry_fn)ciot_os_module_symbol(p->handle, CIOT_PEER_ENTRY) : NULL;
    if (!entry) {
        snprintf(why, len, "%s is not a peer module (%s)", p->path, p->handle ? "it has no " CIOT_PEER_ENTRY : e);
        ciot_peer_close(p);
        return CIOT_E_IO;
    }
    p->api = entry();
    ciot_status st = p->api ? check_table(p, why, len) : CIOT_E_FORMAT;
    if (!p->api) snprintf(why, len, "%s: " CIOT_PEER_ENTRY " returned no table", p->path);
    if (st != CIOT_OK) {
        ciot_peer_close(p);
        return st;
    }
    *out = p;
    return CIOT_OK;
}

void ciot_peer_close(ciot_peer *p) {
    if (!p) return;
    if (p->handle) ciot_os_module_close(p->handle);
    free(p);
}

const char *ciot_peer_name(const ciot_peer *p) { return p->name; }
const char *ciot_peer_path(const ciot_peer *p) { return p->path; }
const ciot_peer_api *ciot_peer_api_of(const ciot_peer *p) { return p->api; }

int ciot_peer_type_find(const ciot_peer *p, const char *type) {
    for (int i = 0; i < p->api->n_types; i++)
        if (same_name(p->api->types[i].name, type)) return i;
    return -1;
}

const char *ciot_peer_type_list(const ciot_peer *p, char *buf, size_t len) {
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < p->api->n_types && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", p->api->types[i].name);
    return buf;
}

int ciot_peer_type_format(const ciot_peer *p, int type, ciot_format *f) {
    static const struct {
        const char *name;
        ciot_format format;
    } same_bytes[] = {{"q2_0", CIOT_FMT_PQ2_0}, {"tq1_0", CIOT_FMT_TQ1_0}, {"tq2_0", CIOT_FMT_TQ2_0}};
    const ciot_peer_type *t = &p->api->types[type];
    for (size_t i = 0; i < sizeof same_bytes / sizeof same_bytes[0]; i++) {
        const ciot_format g = same_bytes[i].format;
        if (!same_name(t->name, same_bytes[i].name) || t->block_values != ciot_format_block_values(g) ||
            p->api->row_bytes(type, t->block_values) != ciot_format_block_bytes(g))
            continue;
        *f = g;
        return 1;
    }
    return 0;
}

double ciot_peer_bits_per_weight(const ciot_peer *p, int type, int K) {
    const size_t bytes = p->api->row_bytes(type, K);
    return bytes ? 8.0 * (double)bytes / K : 0;
}
