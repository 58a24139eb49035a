/* libFuzzer target for the GGUF reader (ciot_gguf_parse): any byte string either parses to a handle whose
 * known tensors lie inside it and whose accessors work, or is refused with one line of reason. Never a
 * crash, a leak, or a read outside the input (built with -fsanitize=fuzzer,address,undefined).
 * Seeds: tests/fuzz/corpus/gguf (tiny files from tests/gguf/make_gguf.py --tiny).
 * ciot-fuzz-seconds: 12 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "gguf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ciot_gguf *g;
    char why[256];
    if (ciot_gguf_parse(data, size, &g, why, sizeof why) != CIOT_OK) {
        if (g || !why[0] || strchr(why, '\n')) __builtin_trap();
        return 0;
    }
    volatile uint8_t sink = 0;
    for (int i = 0; i < ciot_gguf_tensor_count(g); i++) {
        const ciot_gguf_tensor *t = ciot_gguf_tensor_at(g, i);
        if (!t->known) continue;
        const uint8_t *p = t->data;
        if (p < data || t->bytes > size || p > data + size - t->bytes) __builtin_trap();
        if (t->bytes) sink ^= p[0] ^ p[t->bytes - 1];
        ciot_format f;
        int rows, K;
        if (ciot_gguf_tensor_matrix(t, &f, &rows, &K) && (int64_t)rows * K != (int64_t)t->elements) __builtin_trap();
        if (ciot_gguf_find_tensor(g, t->name) != t) __builtin_trap(); /* names are unique */
    }
    for (int i = 0; i < ciot_gguf_kv_count(g); i++) {
        const ciot_gguf_kv *kv = ciot_gguf_kv_at(g, i);
        if (kv->type == CIOT_GGUF_STRING) sink ^= (uint8_t)kv->str[kv->str_len];
    }
    int64_t v;
    const char *s;
    ciot_gguf_get_arch_int(g, "block_count", &v);
    ciot_gguf_get_str(g, "general.architecture", &s);
    ciot_gguf_close(g);
    (void)sink;
    return 0;
}
