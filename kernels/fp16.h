/* IEEE binary16 conversion of our own: exact widening, and narrowing with round to nearest even,
 * subnormals, infinities and NaN (quiet, sign and top payload bits kept). */
#ifndef CIOT_FP16_H
#define CIOT_FP16_H

#include <stdint.h>
#include <string.h>

static inline float ciot_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t ciot_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static inline float ciot_fp16_to_fp32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f) return ciot_bits_f32(sign | 0x7f800000u | (man << 13));
    if (exp != 0) return ciot_bits_f32(sign | ((exp + 112) << 23) | (man << 13));
    /* subnormal or zero: man * 2^-24 is exact in fp32 */
    float v = (float)man * ciot_bits_f32(0x33800000u);
    return sign ? -v : v;
}

uint16_t ciot_fp32_to_fp16(float f);

#endif
