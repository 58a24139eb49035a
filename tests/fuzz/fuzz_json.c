/* Fuzz target: the JSON writer (harness/io/json.c). The input is a program of writer calls with odd
 * strings (any bytes: invalid UTF-8, controls, quotes), keys, numbers (any double: NaN, Inf,
 * subnormals, huge) and nesting. A shadow of the grammar here predicts whether each call is legal: the
 * writer must report misuse exactly when the program misuses it, and whenever it reports success its
 * output must be one valid JSON document (tests/json_check.h).
 * ciot-fuzz-seconds: 10 */
#include <stdint.h>
#include "json_check.h"
#include "fuzz.h"
#include "json.h"

enum { MAX_DEPTH = 32 };   /* the writer's nesting limit (json.c) */

typedef struct {
    int depth, in_object[MAX_DEPTH + 1], have_key, done, misuse;
} shadow;

/* A value (scalar or container start) is legal here. */
static int value_ok(shadow *s) {
    if (s->depth == 0) return !s->done;
    return !s->in_object[s->depth - 1] || s->have_key;
}

static void after_value(shadow *s) {
    if (s->depth == 0) s->done = 1;
    else s->have_key = 0;
}

static void shadow_scalar(shadow *s) {
    if (s->misuse) return;
    if (!value_ok(s)) s->misuse = 1;
    else after_value(s);
}

static void shadow_begin(shadow *s, int object) {
    if (s->misuse) return;
    if (!value_ok(s) || s->depth == MAX_DEPTH) {
        s->misuse = 1;
        return;
    }
    s->have_key = 0;
    s->in_object[s->depth++] = object;
}

static void shadow_end(shadow *s, int object) {
    if (s->misuse) return;
    if (s->depth == 0 || s->in_object[s->depth - 1] != object || s->have_key) {
        s->misuse = 1;
        return;
    }
    s->depth--;
    after_value(s);
}

static void shadow_key(shadow *s) {
    if (s->misuse) return;
    if (s->depth == 0 || !s->in_object[s->depth - 1] || s->have_key) s->misuse = 1;
    else s->have_key = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input in = {data, size};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ciot_json *j;
    FUZZ_ASSERT(ciot_json_stream(f, &j) == CIOT_OK, "stream");
    shadow s = {0};
    while (in.left) {
        const uint8_t op = fuzz_byte(&in);
        double d;
        long long ll;
        char *str;
        switch (op % 12) {
        case 0: ciot_json_begin_object(j), shadow_begin(&s, 1); break;
        case 1: ciot_json_end_object(j), shadow_end(&s, 1); break;
        case 2: ciot_json_begin_array(j), shadow_begin(&s, 0); break;
        case 3: ciot_json_end_array(j), shadow_end(&s, 0); break;
        case 4:
            str = fuzz_string(&in);
            ciot_json_key(j, str), shadow_key(&s);
            free(str);
            break;
        case 5:
            str = fuzz_string(&in);
            ciot_json_string(j, str), shadow_scalar(&s);
            free(str);
            break;
        case 6: fuzz_bytes(&in, &d, sizeof d), ciot_json_number(j, d), shadow_scalar(&s); break;
        case 7: fuzz_bytes(&in, &d, sizeof d), ciot_json_fixed(j, d, (int8_t)fuzz_byte(&in)), shadow_scalar(&s); break;
        case 8: fuzz_bytes(&in, &ll, sizeof ll), ciot_json_int(j, ll), shadow_scalar(&s); break;
        case 9: ciot_json_bool(j, fuzz_byte(&in) & 1), shadow_scalar(&s); break;
        case 10: ciot_json_null(j), shadow_scalar(&s); break;
        default:
            str = fuzz_string(&in);
            ciot_json_kv_string(j, str, op & 0x80 ? NULL : str), shadow_key(&s), shadow_scalar(&s);
            free(str);
        }
        FUZZ_ASSERT((ciot_json_status(j) == CIOT_E_ARG) == s.misuse, "after op %d: writer status %d, shadow misuse %d",
                    op % 12, ciot_json_status(j), s.misuse);
    }
    const int complete = !s.misuse && s.done;
    const ciot_status st = ciot_json_close(j);
    fclose(f);
    FUZZ_ASSERT((st == CIOT_OK) == complete, "close %d, complete %d", st, complete);
    if (st == CIOT_OK)
        FUZZ_ASSERT(json_valid(buf, len), "invalid JSON written:\n%.*s", (int)(len < 2000 ? len : 2000), buf);
    free(buf);
    return 0;
}
