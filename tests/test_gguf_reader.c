/* The GGUF reader on make_gguf.py's model (argv[1], or model-v3.gguf in $CIOT_GGUF_DIR): the accessors, then every prefix
 * of the file and every header byte changed to other values: each parse either succeeds with every
 * tensor inside the image, or fails with CIOT_E_FORMAT and one line saying why (run under the
 * sanitizers in the debug preset, so an out-of-bounds read fails the test). */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "gguf.h"

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(*len ? *len : 1);
    if (b && fread(b, 1, *len, f) != *len) free(b), b = NULL;
    fclose(f);
    return b;
}

static void accessors(const unsigned char *img, size_t len) {
    ciot_gguf *g;
    char why[512];
    CHECK(ciot_gguf_parse(img, len, &g, why, sizeof why) == CIOT_OK, "the model parses: %s", why);
    if (!g) return;
    const char *s;
    int64_t v;
    CHECK(ciot_gguf_version(g) == 3 && ciot_gguf_tensor_count(g) == 41 && ciot_gguf_kv_count(g) == 19,
          "version 3, 41 tensors, 19 keys");
    CHECK(ciot_gguf_get_str(g, "general.architecture", &s) == CIOT_OK && !strcmp(s, "bitnet"), "architecture");
    CHECK(ciot_gguf_get_arch_int(g, "block_count", &v) == CIOT_OK && v == 4, "block_count (u32)");
    CHECK(ciot_gguf_get_arch_int(g, "context_length", &v) == CIOT_OK && v == 2048, "context_length (u64)");
    CHECK(ciot_gguf_get_arch_int(g, "feed_forward_length", &v) == CIOT_OK && v == 512, "feed_forward_length (i32)");
    CHECK(ciot_gguf_get_arch_int(g, "attention.head_count_kv", &v) == CIOT_OK && v == 1, "head_count_kv (u8)");
    CHECK(ciot_gguf_get_int(g, "test.i64", &v) == CIOT_OK && v == -(1ll << 40), "an i64");
    CHECK(ciot_gguf_get_int(g, "test.i8", &v) == CIOT_OK && v == -5, "an i8");
    CHECK(ciot_gguf_get_int(g, "bitnet.rope.freq_base", &v) == CIOT_E_FORMAT, "a float is not an integer");
    CHECK(ciot_gguf_get_int(g, "test.bool", &v) == CIOT_E_FORMAT, "a bool is not an integer");
    CHECK(ciot_gguf_get_int(g, "no.such.key", &v) == CIOT_E_UNKNOWN, "an absent key");
    CHECK(ciot_gguf_get_str(g, "test.i8", &s) == CIOT_E_FORMAT, "an integer is not a string");
    const ciot_gguf_kv *tok = ciot_gguf_find_kv(g, "tokenizer.ggml.tokens");
    CHECK(tok && tok->type == CIOT_GGUF_ARRAY && tok->elem_type == CIOT_GGUF_STRING && tok->count == 64, "string array");
    const ciot_gguf_kv *fb = ciot_gguf_find_kv(g, "bitnet.rope.freq_base");
    CHECK(fb && fb->type == CIOT_GGUF_F32 && fb->f == 10000.0, "f32 value");
    const ciot_gguf_tensor *t = ciot_gguf_find_tensor(g, "blk.0.attn_q.weight");
    ciot_format f;
    int rows, K;
    CHECK(t && t->type == CIOT_GGML_TQ2_0 && t->bytes == 256 * 66 && t->known, "attn_q: tq2_0, 16896 bytes");
    CHECK(t && ciot_gguf_tensor_matrix(t, &f, &rows, &K) && f == CIOT_FMT_TQ2_0 && rows == 256 && K == 256,
          "attn_q is a 256 x 256 TQ2_0 matrix");
    CHECK(t && (const unsigned char *)t->data == img + ciot_gguf_data_offset(g) + t->offset && t->offset % 32 == 0,
          "attn_q's data pointer");
    t = ciot_gguf_find_tensor(g, "blk.3.ffn_up_exps.weight");
    CHECK(t && t->n_dims == 3 && !ciot_gguf_tensor_matrix(t, &f, &rows, &K), "a 3-D tensor is not a matrix");
    t = ciot_gguf_find_tensor(g, "rope_freqs.weight");
    CHECK(t && !t->known && !t->data && t->bytes == 0 && !ciot_ggml_type_name(t->type), "an unknown type");
    t = ciot_gguf_find_tensor(g, "token_embd.weight");
    CHECK(t && t->type == CIOT_GGML_F16 && !ciot_gguf_tensor_matrix(t, &f, &rows, &K), "F16 is not ternary");
    CHECK(!ciot_gguf_find_tensor(g, "nope"), "an absent tensor");
    CHECK(ciot_gguf_tensor_at(g, 0) && !strcmp(ciot_gguf_tensor_at(g, 0)->name, "token_embd.weight") &&
          !ciot_gguf_tensor_at(g, 41), "tensors in file order");
    ciot_gguf_close(g);
}

/* A parse of a changed image: OK with every known tensor inside it, or a one-line CIOT_E_FORMAT. */
static int sane(const unsigned char *img, size_t len, const char *what, size_t at) {
    ciot_gguf *g;
    char why[512] = "";
    const ciot_status s = ciot_gguf_parse(img, len, &g, why, sizeof why);
    if (s == CIOT_OK) {
        int inside = 1;
        for (int i = 0; i < ciot_gguf_tensor_count(g); i++) {
            const ciot_gguf_tensor *t = ciot_gguf_tensor_at(g, i);
            if (t->known)
                inside &= (const unsigned char *)t->data >= img && (const unsigned char *)t->data + t->bytes <= img + len;
        }
        ciot_gguf_close(g);
        if (!inside) printf("FAIL %s at %zu: a tensor outside the image\n", what, at);
        return inside ? 1 : 0;
    }
    const int ok = s == CIOT_E_FORMAT && why[0] && !strchr(why, '\n');
    if (!ok) printf("FAIL %s at %zu: status %d, why '%s'\n", what, at, s, why);
    return ok ? 2 : 0;
}

int main(int argc, char **argv) {
    char path[4096];
    const char *dir = getenv("CIOT_GGUF_DIR");
    snprintf(path, sizeof path, "%s/model-v3.gguf", dir ? dir : ".");
    size_t len = 0;
    unsigned char *img = slurp(argc > 1 ? argv[1] : path, &len);
    CHECK(img != NULL, "usage: test_gguf_reader [MODEL.gguf] (make_gguf.py's, default $CIOT_GGUF_DIR/model-v3.gguf): "
                       "cannot read %s", argc > 1 ? argv[1] : path);
    if (!img) return check_summary();
    accessors(img, len);
    ciot_gguf *g;
    char why[512];
    ciot_gguf_parse(img, len, &g, why, sizeof why);
    const size_t header = g ? (size_t)ciot_gguf_data_offset(g) : 4096;
    ciot_gguf_close(g);
    /* prefixes: every length through the header, then a sample; each a copy, so ASan sees its end */
    int bad = 0, refused = 0;
    for (size_t n = 0; n < len; n += n < header + 64 ? 1 : 997) {
        unsigned char *p = malloc(n ? n : 1);
        memcpy(p, img, n);
        const int r = sane(p, n, "prefix", n);
        bad += r == 0, refused += r == 2;
        free(p);
    }
    CHECK(bad == 0, "%d prefixes parsed wrongly", bad);
    CHECK(refused > (int)header, "only %d prefixes refused", refused);
    /* every header byte set to 0, 0xff, flipped high bit, + 1 */
    unsigned char *p = malloc(len);
    bad = 0;
    for (size_t at = 0; at < header; at++)
        for (int v = 0; v < 4; v++) {
            memcpy(p, img, len);
            p[at] = v == 0 ? 0 : v == 1 ? 0xff : v == 2 ? p[at] ^ 0x80 : (unsigned char)(p[at] + 1);
            bad += sane(p, len, "byte change", at) == 0;
        }
    free(p);
    CHECK(bad == 0, "%d byte changes parsed wrongly", bad);
    free(img);
    return check_summary();
}
