/* Outputs that are none of the inputs and none of each other (distinct_paths.h). */
#include "distinct_paths.h"

#include <string.h>
#include "os.h"
#include "output.h"

/* The file an output would replace or create; 0 when it is written through or leads nowhere. */
static int output_file(const ciot_named_path *p, ciot_output_file *f) {
    char why[CIOT_WHY_MAX];
    if (p->role != CIOT_PATH_OUTPUT || !p->path) return 0;
    return ciot_output_identify(p->path, f, why, sizeof why) == CIOT_OK && f->kind != CIOT_OUTPUT_THROUGH;
}

/* Whether output f is the input p: only an existing regular file can be replaced by a rename. */
static int is_input(const ciot_output_file *f, const ciot_named_path *p) {
    ciot_os_file_info st;
    if (p->role != CIOT_PATH_INPUT || !p->path || f->kind != CIOT_OUTPUT_REGULAR) return 0;
    return ciot_os_file_info_of(p->found ? p->found : p->path, 1, &st) == 0 && st.kind == CIOT_OS_REGULAR &&
           st.dev == f->dev && st.ino == f->ino;
}

static int same_output(const ciot_output_file *a, const ciot_output_file *b) {
    return a->kind == b->kind && a->dev == b->dev && a->ino == b->ino &&
           (a->kind != CIOT_OUTPUT_NEW || !strcmp(a->name, b->name));
}

static ciot_status clash(const ciot_named_path *out, const ciot_named_path *other, char *why, size_t len) {
    const int elsewhere = other->found && strcmp(other->found, other->path);
    return ciot_error(CIOT_E_ARG, why, len, "%s %s is the same file as %s %s%s%s%s", out->option, out->path,
                      other->option, other->path, elsewhere ? " (" : "", elsewhere ? other->found : "",
                      elsewhere ? ")" : "");
}

ciot_status ciot_distinct_paths_check(const ciot_named_path *paths, int n, char *why, size_t why_len) {
    for (int i = 0; i < n; i++) {
        ciot_output_file f, g;
        if (!output_file(&paths[i], &f)) continue;
        for (int j = 0; j < n; j++)
            if (is_input(&f, &paths[j])) return clash(&paths[i], &paths[j], why, why_len);
        for (int j = 0; j < i; j++)
            if (output_file(&paths[j], &g) && same_output(&f, &g)) return clash(&paths[i], &paths[j], why, why_len);
    }
    return CIOT_OK;
}
