#if !defined(__ARM_FEATURE_SVE)
#error "vector_length_sve.c needs -march=armv8.2-a+sve (cmake/isa.cmake gives it to *_sve.c)"
#endif
/* The SVE vector length, for `ciot info`: cpu.c is built for every aarch64 CPU and calls this only when the
 * hardware has SVE. */
#include <arm_sve.h>

int ciot_sve_vector_bytes_sve(void) { return (int)svcntb(); }
