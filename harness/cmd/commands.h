/* The ciot subcommands; each returns the process exit code. */
#ifndef CIOT_COMMANDS_H
#define CIOT_COMMANDS_H

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);   /* argv[0] is the subcommand name */
    const char *summary;
} ciot_command;

int ciot_cmd_info(int argc, char **argv);
int ciot_cmd_kernels(int argc, char **argv);
int ciot_cmd_check(int argc, char **argv);
int ciot_cmd_run(int argc, char **argv);
int ciot_cmd_bw(int argc, char **argv);
int ciot_cmd_compute(int argc, char **argv);
int ciot_cmd_suite(int argc, char **argv);
int ciot_cmd_replay(int argc, char **argv);
int ciot_cmd_gguf(int argc, char **argv);
int ciot_cmd_peers(int argc, char **argv);
int ciot_cmd_tune(int argc, char **argv);

#endif
