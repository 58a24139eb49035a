/* Collects the run context once per command; git is asked at run time, in the source tree. */
#include <stdio.h>
#include <string.h>
#include "context.h"
#include "cpu.h"
#include "measure.h"
#include "os.h"
#include "registry.h"
#include "rules.h"
#include "topo.h"

static void first_line(const char *cmd, char *out, size_t n) { ciot_os_command_line(cmd, out, n); }

static void read_line(const char *path, char *out, size_t n) {
    FILE *f = fopen(path, "r");
    snprintf(out, n, "unknown");
    if (!f) return;
    if (fgets(out, (int)n, f)) out[strcspn(out, "\n")] = 0;
    fclose(f);
}

const char *ciot_version(void) { return CIOT_VERSION; }

void ciot_context_collect(ciot_context *c) {
    memset(c, 0, sizeof *c);
    if (!ciot_os_host_name(c->host, sizeof c->host)) snprintf(c->host, sizeof c->host, "unknown");
    ciot_cpu_model(c->cpu, sizeof c->cpu);
    ciot_feature_list(ciot_cpu_features(), c->features, sizeof c->features);
    ciot_feature_list(ciot_cpu_detect(), c->detected, sizeof c->detected);
    if (!ciot_os_describe(c->os, sizeof c->os)) c->os[0] = 0;
    read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", c->governor, sizeof c->governor);
    snprintf(c->compiler, sizeof c->compiler, "%s", CIOT_COMPILER);
    snprintf(c->build_type, sizeof c->build_type, "%s", CIOT_BUILD_TYPE);
    snprintf(c->flags, sizeof c->flags, "%s", CIOT_CFLAGS);
    ciot_loadavg(c->loadavg_before, sizeof c->loadavg_before);
    snprintf(c->loadavg_after, sizeof c->loadavg_after, "not recorded");
    c->llc_bytes = ciot_topo_llc_bytes(&c->llc_level);
    ciot_topo_llc_source(c->llc_source, sizeof c->llc_source);
    c->llc_plausible = ciot_llc_plausible();
    c->llc_rule_bytes = ciot_rule_llc_bytes();
    ciot_llc_rule_note(c->llc_rule, sizeof c->llc_rule);
    first_line("git -C '" CIOT_SOURCE_DIR "' rev-parse --short=12 HEAD 2>/dev/null", c->commit, sizeof c->commit);
    if (!c->commit[0]) {
        snprintf(c->commit, sizeof c->commit, "unknown");
        c->dirty = -1;
    } else {
        char status[8];
        first_line("git -C '" CIOT_SOURCE_DIR "' status --porcelain --untracked-files=no 2>/dev/null | head -c 4",
                   status, sizeof status);
        c->dirty = status[0] != 0;
    }
    ciot_os_utc_now(c->date, sizeof c->date);
    ciot_topology_read(&c->topo);
}

const char *ciot_pinning_note(int pin_requested, int pinned, int threads, char *buf, size_t len) {
    const int cores = ciot_topo_cores();
    if (!pin_requested) snprintf(buf, len, "not pinned");
    else if (!pinned) snprintf(buf, len, "pinning failed");
    else if (threads > cores) snprintf(buf, len, "%d threads on %d cores: cores shared (round-robin)", threads, cores);
    else snprintf(buf, len, "one thread per core (hwloc)");
    return buf;
}

int ciot_warn_oversubscribed(const char *cmd, int threads) {
    const int cores = ciot_topo_cores();
    if (threads <= cores) return 0;
    fprintf(stderr, "ciot %s: warning: %d threads on %d cores: threads share cores, so the figures include "
                    "time-sharing\n", cmd, threads, cores);
    return 1;
}

void ciot_context_finish(ciot_context *c) { ciot_loadavg(c->loadavg_after, sizeof c->loadavg_after); }

const char *ciot_kernel_flags(const ciot_kernel *k, char *buf, size_t len) {
    /* CIOT_ISA_FLAGS: "suffix=flags|suffix=flags|..."; a kernel's ISA is its name's last token */
    const char *suffix = strrchr(k->name, '_'), *isa = "";
    size_t isa_len = 0;
    for (const char *p = CIOT_ISA_FLAGS; suffix && *p;) {
        const char *eq = strchr(p, '='), *bar = strchr(p, '|');
        if (!eq || !bar) break;
        if ((size_t)(eq - p) == strlen(suffix + 1) && !strncmp(p, suffix + 1, (size_t)(eq - p)))
            isa = eq + 1, isa_len = (size_t)(bar - eq - 1);
        p = bar + 1;
    }
    snprintf(buf, len, "%s%s%.*s", CIOT_CFLAGS, isa_len ? " " : "", (int)isa_len, isa);
    return buf;
}

void ciot_context_write_kernel_flags(ciot_json *j, const ciot_kernel *const *kernels, int n) {
    char buf[768];
    ciot_json_key(j, "kernel_flags");
    ciot_json_begin_object(j);
    for (int i = 0; i < (kernels ? n : ciot_kernel_count()); i++) {
        const ciot_kernel *k = kernels ? kernels[i] : ciot_kernel_at(i);
        ciot_json_kv_string(j, k->name, ciot_kernel_flags(k, buf, sizeof buf));
    }
    ciot_json_end_object(j);
}

void ciot_context_write(ciot_json *j, const ciot_context *c) {
    ciot_json_kv_string(j, "host", c->host);
    ciot_json_kv_string(j, "cpu", c->cpu);
    ciot_json_kv_string(j, "features", c->features);
    ciot_json_kv_string(j, "features_detected", c->detected);
    ciot_json_kv_string(j, "os", c->os);
    ciot_json_kv_string(j, "governor", c->governor);
    ciot_json_kv_string(j, "compiler", c->compiler);
    ciot_json_kv_string(j, "build_type", c->build_type);
    ciot_json_kv_string(j, "flags", c->flags);
    ciot_json_kv_string(j, "commit", c->commit);
    if (c->dirty < 0) {
        ciot_json_key(j, "dirty");
        ciot_json_null(j);
    } else
        ciot_json_kv_bool(j, "dirty", c->dirty);
    ciot_json_kv_string(j, "date", c->date);
    ciot_json_kv_string(j, "loadavg_before", c->loadavg_before);
    ciot_json_kv_string(j, "loadavg_after", c->loadavg_after);
    ciot_json_key(j, "llc");
    ciot_json_begin_object(j);
    ciot_json_kv_int(j, "bytes", (long long)c->llc_bytes);
    ciot_json_kv_int(j, "level", c->llc_level);
    ciot_json_kv_string(j, "source", c->llc_source);
    ciot_json_kv_bool(j, "plausible", c->llc_plausible);
    ciot_json_kv_int(j, "rule_bytes", (long long)c->llc_rule_bytes);
    ciot_json_kv_string(j, "rule", c->llc_rule);
    ciot_json_end_object(j);
    ciot_json_key(j, "topology");
    ciot_json_begin_object(j);
    ciot_json_kv_int(j, "cores", c->topo.cores);
    ciot_json_kv_int(j, "pus", c->topo.pus);
    ciot_json_kv_int(j, "packages", c->topo.packages);
    ciot_json_kv_int(j, "memory_bytes", (long long)c->topo.memory_bytes);
    ciot_json_key(j, "caches");
    ciot_json_begin_array(j);
    for (int i = 0; i < c->topo.ncaches; i++) {
        ciot_json_begin_object(j);
        ciot_json_kv_int(j, "level", c->topo.caches[i].level);
        ciot_json_kv_int(j, "bytes", (long long)c->topo.caches[i].bytes);
        ciot_json_kv_int(j, "count", c->topo.caches[i].count);
        ciot_json_kv_string(j, "type", c->topo.caches[i].type);
        ciot_json_end_object(j);
    }
    ciot_json_end_array(j);
    ciot_json_end_object(j);
}
