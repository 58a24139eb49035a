/* TEMPORARY STUBS (branch pools): the subcommands written on main, so ciot links here. Drop at merge. */
#include <stdio.h>
#include "commands.h"

static int not_here(const char *name) {
    fprintf(stderr, "ciot: '%s' is not built on this branch\n", name);
    return 2;
}

int ciot_cmd_info(int argc, char **argv) { (void)argc; (void)argv; return not_here("info"); }
int ciot_cmd_kernels(int argc, char **argv) { (void)argc; (void)argv; return not_here("kernels"); }
int ciot_cmd_check(int argc, char **argv) { (void)argc; (void)argv; return not_here("check"); }
int ciot_cmd_run(int argc, char **argv) { (void)argc; (void)argv; return not_here("run"); }
