/* string.c - (being written) */
#include "sql/func/func_internal.h"
const fl_func_table fl_funcs_string = {NULL, 0};
