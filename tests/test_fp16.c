/* fp16 conversion on all 65536 values: widening then narrowing is the identity (NaNs stay NaN with
 * sign kept), and every midpoint between neighbours rounds to the even one. */
#include <math.h>
#include <stdint.h>
#include "check.h"
#include "fp16.h"

static int is_nan16(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }

int main(void) {
    int bad_trip = 0, bad_mid = 0, bad_nan = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        const float f = ciot_fp16_to_fp32((uint16_t)h);
        const uint16_t back = ciot_fp32_to_fp16(f);
        if (is_nan16((uint16_t)h)) {
            if (!isnan(f) || !is_nan16(back) || (back & 0x8000) != (h & 0x8000)) bad_nan++;
            continue;
        }
        if (back != h && bad_trip++ < 5) printf("FAIL round trip 0x%04x -> %.9g -> 0x%04x\n", h, f, back);
        /* midpoint to the next value up in magnitude (skip the largest finite and inf) */
        if ((h & 0x7fff) >= 0x7bff) continue;
        const float up = ciot_fp16_to_fp32((uint16_t)(h + 1));
        const float mid = f + (up - f) * 0.5f; /* exact: the gap is a power of two well inside fp32 */
        const uint16_t want = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
        const uint16_t got = ciot_fp32_to_fp16(mid);
        if (got != want && bad_mid++ < 5) printf("FAIL midpoint of 0x%04x: want 0x%04x got 0x%04x\n", h, want, got);
        /* just above and below the midpoint round to the nearer neighbour */
        const uint16_t above = ciot_fp32_to_fp16(nextafterf(mid, signbit(f) ? -INFINITY : INFINITY));
        const uint16_t below = ciot_fp32_to_fp16(nextafterf(mid, 0));
        if ((above != (uint16_t)(h + 1) || below != h) && bad_mid++ < 5)
            printf("FAIL near midpoint of 0x%04x: above 0x%04x below 0x%04x\n", h, above, below);
    }
    CHECK(bad_trip == 0, "%d fp16 values do not survive the round trip", bad_trip);
    CHECK(bad_mid == 0, "%d midpoints round wrongly", bad_mid);
    CHECK(bad_nan == 0, "%d NaNs lost", bad_nan);
    /* overflow, underflow and specials */
    CHECK(ciot_fp32_to_fp16(65520.0f) == 0x7c00, "65520 rounds to inf");
    CHECK(ciot_fp32_to_fp16(65519.996f) == 0x7bff, "just below 65520 stays finite");
    CHECK(ciot_fp32_to_fp16(-INFINITY) == 0xfc00, "-inf");
    CHECK(ciot_fp32_to_fp16(ldexpf(1, -25)) == 0x0000, "2^-25 ties to even zero");
    CHECK(ciot_fp32_to_fp16(nextafterf(ldexpf(1, -25), 1)) == 0x0001, "just above 2^-25 rounds up");
    CHECK(ciot_fp32_to_fp16(ldexpf(3, -25)) == 0x0002, "1.5 x 2^-24 ties to even 2");
    CHECK(ciot_fp32_to_fp16(-0.0f) == 0x8000, "-0");
    CHECK(ciot_fp32_to_fp16(1e-30f) == 0, "tiny underflows to 0");
    CHECK(ciot_fp16_to_fp32(0x0001) == ldexpf(1, -24), "smallest subnormal");
    CHECK(ciot_fp16_to_fp32(0x7bff) == 65504.0f, "largest finite");
    return check_summary();
}
