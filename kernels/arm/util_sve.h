#if !defined(__ARM_FEATURE_SVE)
#error "util_sve.h needs SVE (include it from the *_sve*.c kernel files only)"
#endif
/* Small SVE helpers the vector-length-agnostic kernels share. Nothing here assumes a length: a loop over
 * the 64 bytes of a T2P pair (or any short run) steps by svcntb() with a svwhilelt predicate, so 128, 384
 * or 2048 bits run the same code; the lengths the kernels meet are any multiple of 16 bytes. */
#ifndef CIOT_ARM_UTIL_SVE_H
#define CIOT_ARM_UTIL_SVE_H

#include <arm_sve.h>
#include "util_neon.h"

/* Unpredicated AND, ORR, ADD and SUB of two vectors, and shifts by an immediate, each with its own destination. clang 14
 * compiles svand_u8_x, svlsr_n_u8_x and the like, even under an all-true predicate, to the predicated
 * forms, which overwrite their first source: every decoded slot then costs a MOV as well. */
static inline svuint8_t ciot_and_sve(svuint8_t a, svuint8_t b) {
    svuint8_t r;
    __asm__("and %0.d, %1.d, %2.d" : "=w"(r) : "w"(a), "w"(b));
    return r;
}
static inline svint32_t ciot_add_s32_sve(svint32_t a, svint32_t b) {
    svint32_t r;
    __asm__("add %0.s, %1.s, %2.s" : "=w"(r) : "w"(a), "w"(b));
    return r;
}
static inline svuint8_t ciot_orr_sve(svuint8_t a, svuint8_t b) {
    svuint8_t r;
    __asm__("orr %0.d, %1.d, %2.d" : "=w"(r) : "w"(a), "w"(b));
    return r;
}
static inline svuint8_t ciot_sub_u8_sve(svuint8_t a, svuint8_t b) {
    svuint8_t r;
    __asm__("sub %0.b, %1.b, %2.b" : "=w"(r) : "w"(a), "w"(b));
    return r;
}
static inline svuint8_t ciot_add_u8_sve(svuint8_t a, svuint8_t b) {
    svuint8_t r;
    __asm__("add %0.b, %1.b, %2.b" : "=w"(r) : "w"(a), "w"(b));
    return r;
}
static inline svint32_t ciot_sub_s32_sve(svint32_t a, svint32_t b) {
    svint32_t r;
    __asm__("sub %0.s, %1.s, %2.s" : "=w"(r) : "w"(a), "w"(b));
    return r;
}
/* x + 4 y per 32-bit lane in one instruction: ADR's shifted add (modular), which SVE1 has where SSRA is SVE2 */
static inline svint32_t ciot_adr4_s32_sve(svint32_t x, svint32_t y) {
    svint32_t r;
    __asm__("adr %0.s, [%1.s, %2.s, lsl #2]" : "=w"(r) : "w"(x), "w"(y));
    return r;
}
/* The same, a + b and a - b, lanes 0..3 as a NEON vector: the instruction writes the Z register whose low 128 bits
 * are the NEON register (clang 14 has no svget_neonq), so the result changes register file at no cost. */
static inline int32x4_t ciot_adr4_q_sve(svint32_t x, svint32_t y) {
    int32x4_t r;
    __asm__("adr %z0.s, [%1.s, %2.s, lsl #2]" : "=w"(r) : "w"(x), "w"(y));
    return r;
}
static inline int32x4_t ciot_add_q_sve(svint32_t a, svint32_t b) {
    int32x4_t r;
    __asm__("add %z0.s, %1.s, %2.s" : "=w"(r) : "w"(a), "w"(b));
    return r;
}
static inline uint8x16_t ciot_add_u8_q_sve(svuint8_t a, svuint8_t b) {
    uint8x16_t r;
    __asm__("add %z0.b, %1.b, %2.b" : "=w"(r) : "w"(a), "w"(b));
    return r;
}
static inline int32x4_t ciot_sub_q_sve(svint32_t a, svint32_t b) {
    int32x4_t r;
    __asm__("sub %z0.s, %1.s, %2.s" : "=w"(r) : "w"(a), "w"(b));
    return r;
}
#define CIOT_SHIFT_SVE(op, type, lanes, a, n)                                \
    __extension__({                                                          \
        type r_;                                                             \
        __asm__(op " %0." lanes ", %1." lanes ", #" #n : "=w"(r_) : "w"(a)); \
        r_;                                                                  \
    })
#define CIOT_LSR_U8_SVE(a, n) CIOT_SHIFT_SVE("lsr", svuint8_t, "b", a, n)
#define CIOT_ASR_S32_SVE(a, n) CIOT_SHIFT_SVE("asr", svint32_t, "s", a, n)

#endif
