/* Large buffers from the OS seam (os.h), aligned to 2 MiB so huge pages can back them whole. */
#include "bigbuf.h"

#include "os.h"

void *ciot_bigbuf_alloc(size_t bytes, int huge) { return ciot_os_bigbuf_alloc(bytes, huge); }
void ciot_bigbuf_free(void *p, size_t bytes) { ciot_os_bigbuf_free(p, bytes); }
double ciot_bigbuf_huge_fraction(const void *p) { return ciot_os_huge_fraction(p); }
size_t ciot_mem_available(void) { return ciot_os_memory_available(); }
