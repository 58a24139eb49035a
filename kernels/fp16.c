/* fp32 -> fp16 with round to nearest, ties to even, done in integer arithmetic. */
#include "fp16.h"

uint16_t ciot_fp32_to_fp16(float f) {
    uint32_t x = ciot_f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t exp = (x >> 23) & 0xff, man = x & 0x7fffff;
    if (exp == 0xff) /* inf, or NaN kept quiet with its top payload bits */
        return sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0);
    int e = (int)exp - 127 + 15;
    if (e >= 0x1f) return sign | 0x7c00;
    if (e <= 0) {
        /* subnormal result: shift the full significand (with its implicit bit) down */
        if (e < -10) return sign; /* below half the smallest subnormal (ties handled: exactly half -> 0) */
        uint32_t m = man | 0x800000;
        int shift = 14 - e; /* 14..24 */
        uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1))) h++;
        return sign | (uint16_t)h;
    }
    uint32_t h = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++; /* a carry into the exponent is correct, up to inf */
    return sign | (uint16_t)h;
}
