/* Peer modules (peers/peer_abi.h): a runtime's own kernels in a shared library, found by name or path,
 * loaded once, their table checked. */
#ifndef CIOT_PEER_H
#define CIOT_PEER_H

#include <stddef.h>
#include "peer_abi.h"
#include "kernel.h"
#include "status.h"

typedef struct ciot_peer ciot_peer;

/* Where a module is: an argument with a path separator or ending in a module suffix (.so, .dll) is a path;
 * any other is a NAME, looked up as NAME/ciot-peer.so (ciot-peer.dll on Windows: the OS's module suffix)
 * under $CIOT_PEER_DIR, then build/peers of the working folder, then the peers folder beside the ciot build
 * (scripts/peer-build writes it there). */
#define CIOT_PEER_STEM "ciot-peer"

/* Loads one module and checks its table: CIOT_E_IO when the file is missing or not a module, CIOT_E_FORMAT
 * for another ABI version or a malformed table; why names it in one line. The module's name is the folder
 * it lies in (build/peers/prism/ciot-peer.so is "prism"), or the file's name without its suffix. */
ciot_status ciot_peer_open(const char *name_or_path, ciot_peer **out, char *why, size_t why_len);
void ciot_peer_close(ciot_peer *p);

const char *ciot_peer_name(const ciot_peer *p);
const char *ciot_peer_path(const ciot_peer *p);
const ciot_peer_api *ciot_peer_api_of(const ciot_peer *p);
/* The module's index of the type named (the runtime's own name, case-insensitive), or -1. */
int ciot_peer_type_find(const ciot_peer *p, const char *type);
/* The type names as one comma-separated list, for messages. */
const char *ciot_peer_type_list(const ciot_peer *p, char *buf, size_t len);
/* Whether a type's bytes are those of a file format ciot reads (its name, block and block bytes agree:
 * the prismml fork's q2_0 is PQ2_0, ggml's tq1_0 and tq2_0 are TQ1_0 and TQ2_0); 1 and *f when they are. */
int ciot_peer_type_format(const ciot_peer *p, int type, ciot_format *f);
/* Bits per weight of a type at row length K (its row metadata included), 0 when K does not fit it. */
double ciot_peer_bits_per_weight(const ciot_peer *p, int type, int K);

#endif
