/*
 * cmd_semantic.h - what cmd_semantic.c (argument parsing, the other
 * subcommands) calls in the files of `floe semantic`'s larger subcommands.
 */
#ifndef FLOE_CLI_CMD_SEMANTIC_H
#define FLOE_CLI_CMD_SEMANTIC_H

#include "floe/semantic.h"

/* `floe semantic publish`: the model's saved queries and per-metric monthly
 * views as SQL views in namespace into (NULL = "semantic"); table names
 * resolve in ns (NULL = "default"). Returns the process exit status. */
int fl_cli_semantic_publish(const fl_sem_model *m, const char *catalog, const char *warehouse,
                            const char *ns, const char *into);

/* `floe semantic pending list|show|approve|reject` (cmd_semantic_pending.c):
 * argv[0] is "pending". Returns the process exit status. */
int fl_cli_semantic_pending(int argc, char **argv);

#endif
