/* ciot: benchmark and profile ternary LLM weight kernels on this CPU. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "bench.h"
#include "commands.h"
#include "context.h"
#include "cpu.h"
#include "os.h"
#include "tmpfiles.h"

static const ciot_command commands[] = {
    {"info", ciot_cmd_info, "CPU model, features, topology, and the kernel chosen per layout"},
    {"kernels", ciot_cmd_kernels, "every registered kernel and whether this CPU can run it"},
    {"check", ciot_cmd_check, "exactness oracle: every runnable kernel against its reference"},
    {"run", ciot_cmd_run, "run one kernel on weight and activation files (or a GGUF tensor)"},
    {"gguf", ciot_cmd_gguf, "what a GGUF file holds: metadata, tensors, the layouts and kernels that take them"},
    {"bw", ciot_cmd_bw, "DRAM bandwidth probe: read (the ceiling), write, copy over a thread sweep"},
    {"bench", ciot_cmd_bench, "Google Benchmark runs of every available kernel (Gweights/s, GB/s, % of ceiling)"},
    {"suite", ciot_cmd_suite, "the default suite into results/<date>-<host>-<commit>/ with a summary table"},
    {"compute", ciot_cmd_compute, "peak multiply-accumulate rate per instruction sequence (int8; the token ops' fp32) and threads"},
    {"peers", ciot_cmd_peers, "what a peer module (a runtime's own kernels, scripts/peer-build) offers"},
    {"tune", ciot_cmd_tune, "time every kernel here and keep the fastest per file, op, batch and threads"},
    {"replay", ciot_cmd_replay, "one decoded token of a model op by op: per op and thread, busy vs barrier wait"},
};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

static void usage(FILE *f) {
    fprintf(f, "usage: ciot <command> [options]   (ciot <command> --help for its options; ciot --version)\n\ncommands:\n");
    for (int i = 0; i < N_COMMANDS; i++) fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nCIOT_CPU=feature,... masks the detected CPU features down (for example CIOT_CPU=none).\n");
}

/* A closed standard descriptor gets /dev/null, so no file this process opens later takes its number (a
 * table printed into a JSON file). */
static void open_std_descriptors(void) { ciot_os_std_descriptors(); }

/* What went to stdout must have arrived: a full disk behind it is a runtime failure. */
static int finish(int rc) {
    const int flushed = fflush(stdout), e = errno;
    if ((flushed != 0 || ferror(stdout)) && rc == 0) {
        fprintf(stderr, "ciot: writing to stdout failed: %s\n", flushed != 0 ? strerror(e) : "a write was lost");
        return 1;
    }
    return rc;
}

static int run(int argc, char **argv) {
    char q[1024];   /* an argument quoted for a message (ciot_quote) */
    /* From here on, SIGINT, SIGTERM and SIGHUP remove every temporary file before the process dies. */
    if (ciot_tmpfiles_install() != CIOT_OK) {
        fprintf(stderr, "ciot: cannot install the signal handlers that remove temporary files\n");
        return 1;
    }
    if (argc < 2) {
        fprintf(stderr, "ciot: no command given (ciot --help lists them)\n");
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        if (argc > 2) {
            fprintf(stderr, "ciot: --version takes no arguments ('%s')\n", ciot_quote(argv[2], q, sizeof q));
            return 2;
        }
        ciot_context c;
        ciot_context_collect(&c);
        printf("ciot %s (commit %s%s, %s, %s)\n", ciot_version(), c.commit, c.dirty > 0 ? ", dirty" : "", c.compiler,
               c.build_type);
        return 0;
    }
    const char *bad;
    int bad_len;
    if (ciot_cpu_env_check(&bad, &bad_len) != CIOT_OK) {
        char name[256];
        snprintf(name, sizeof name, "%.*s", bad_len, bad);
        char words[256];
        fprintf(stderr, "ciot: CIOT_CPU names an unknown feature '%s' (known: %s, none)\n", ciot_quote(name, q, sizeof q),
                ciot_feature_words(words, sizeof words));
        return 2;
    }
    for (int i = 0; i < N_COMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "ciot: unknown %s '%s' (ciot --help lists the commands)\n",
            argv[1][0] == '-' ? "option" : "command", ciot_quote(argv[1], q, sizeof q));
    return 2;
}

int main(int argc, char **argv) {
    open_std_descriptors();
    return finish(run(argc, argv));
}
