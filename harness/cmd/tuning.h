/* The tuning file `ciot tune` writes and every choosing command reads (results/SCHEMA.md: tuning.json): the
 * measured winner per source file, op, batch regime and thread count, keyed by the CPU model, its feature set
 * and ciot's commit. A file of another key, one that is not JSON, or one naming a kernel this build or CPU has
 * not, is refused in one line and ignored: the choice falls back to the static rank (choice.h). */
#ifndef CIOT_TUNING_H
#define CIOT_TUNING_H

#include <stddef.h>
#include "bench.h"
#include "choice.h"
#include "json.h"
#include "status.h"

#define CIOT_TUNING_SCHEMA "ciot-tuning-1"
enum { CIOT_TUNING_MAX = 512 };

/* What the file is keyed by: this machine's, or the file's. */
typedef struct {
    char cpu[160], features[128], commit[48];
} ciot_tuning_key;
void ciot_tuning_key_here(ciot_tuning_key *k);

/* The file: CIOT_TUNING when set ("none": no file), else $XDG_CACHE_HOME/ciot/tuning.json, else
 * $HOME/.cache/ciot/tuning.json; dir, when given, replaces the folder. "" when no folder is known. */
const char *ciot_tuning_path(const char *dir, char *buf, size_t len);

/* The winners of bench rows: per source file, op, batch and threads, the fastest by median, or among the
 * kernels within noise of it (their fastest repetition reached its slowest) the highest static rank. Batch
 * regimes run from each measured batch to the next one's below (the lowest gemm batch from 1). Returns the
 * count written to out (at most max). *margin: the widest relative spread (max - min over median) of a winner. */
int ciot_tuning_from_rows(const ciot_bench_row *rows, int n, ciot_tuned *out, int max, double *margin);

/* Opens the file for writing (its folder made when missing; a temporary file until ciot_tuning_commit), so that
a path that cannot be written is refused before anything is measured. */
ciot_status ciot_tuning_open(const char *path, ciot_json **out, char *why, size_t why_len);
/* Writes the document and commits it whole (the temporary file renamed); frees j. */
ciot_status ciot_tuning_commit(ciot_json *j, const ciot_tuning_key *key, const char *date, int quick, double margin,
                               const ciot_tuned *t, int n, char *why, size_t why_len);
/* Both in one. */
ciot_status ciot_tuning_write(const char *path, const ciot_tuning_key *key, const char *date, int quick, double margin,
                              const ciot_tuned *t, int n, char *why, size_t why_len);

/* Reads the file against key: CIOT_OK with the entries and their date; CIOT_E_IO when there is none (why ""),
 * CIOT_E_FORMAT with why one line naming what refused it. */
ciot_status ciot_tuning_read(const char *path, const ciot_tuning_key *key, ciot_tuned *out, int max, int *n,
                             char *date, size_t date_len, char *why, size_t why_len);

/* What every choosing command calls first: reads this machine's file and installs it (choice.h); a refused
 * file says so in one line "ciot CMD: ... ignored" on stderr and leaves the static rank in force. Returns the
 * entries installed. */
int ciot_tuning_use(const char *command);

#endif
