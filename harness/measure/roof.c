/* The roof of a benchmark row (roof.h): the intensity, which family bounds a kernel, and the min of the
 * two roofs per repetition. */
#include "roof.h"

const char *ciot_roof_kind_name(ciot_roof_kind k) {
    return k == CIOT_ROOF_BW ? "bw" : k == CIOT_ROOF_COMPUTE ? "compute" : "none";
}

double ciot_intensity(int rows, int K, int batch, size_t matrix_bytes) {
    return matrix_bytes ? (double)rows * K * batch / (double)matrix_bytes : 0;
}

int ciot_roof_family(const ciot_kernel *k, int batch, ciot_compute_family *family, const char **why) {
    const char *none = NULL;
    const ciot_mac mac = ciot_kernel_mac(k, batch);
    if (k->op != CIOT_OP_GEMM) none = "gemv: read ceiling";
    else if (mac == CIOT_MAC_LOOKUP) none = "lookup: no multiplies";
    else if (mac == CIOT_MAC_SCALAR) none = "scalar reference";
    else if (ciot_compute_family_of(mac, family) != CIOT_OK) none = "no multiply family declared";
    if (why) *why = none;
    return none == NULL;
}

ciot_roof ciot_roof_of(int gemm, double intensity, double probe_gbs, double compute_gmacs, double kernel_gmacs,
                       double read_ratio) {
    ciot_roof r = {CIOT_ROOF_NONE, probe_gbs * intensity, compute_gmacs > 0 ? compute_gmacs : 0, 0, 0};
    if (gemm && r.compute_gmacs <= 0) return r;
    if (gemm && r.compute_gmacs < r.bw_gmacs) {
        r.kind = CIOT_ROOF_COMPUTE, r.bound_gmacs = r.compute_gmacs, r.ratio = kernel_gmacs / r.compute_gmacs;
    } else {
        r.kind = CIOT_ROOF_BW, r.bound_gmacs = r.bw_gmacs, r.ratio = read_ratio;
    }
    return r;
}
