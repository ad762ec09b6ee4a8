/*
 * cmd_table_ns.h - the catalog-level `floe table` subcommands (namespaces,
 * table listing, rename), cmd_table_ns.c. Each returns the exit status.
 */
#ifndef FLOE_CLI_CMD_TABLE_NS_H
#define FLOE_CLI_CMD_TABLE_NS_H

int fl_cmd_table_namespaces(int argc, char **argv);
int fl_cmd_table_create_namespace(int argc, char **argv);
int fl_cmd_table_namespace(int argc, char **argv);
int fl_cmd_table_drop_namespace(int argc, char **argv);
int fl_cmd_table_tables(int argc, char **argv);
int fl_cmd_table_rename(int argc, char **argv);

#endif
