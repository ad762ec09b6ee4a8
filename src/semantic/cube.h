/*
 * cube.h - what the files of Cube's vocabulary (cube_meta.c, cube_query.c,
 * cube_filter.c; include/floe/sem_cube.h) share: member lookup in the model
 * and Cube-style titles.
 */
#ifndef FLOE_SEMANTIC_CUBE_H
#define FLOE_SEMANTIC_CUBE_H

#include <stddef.h>

#include "floe/sem_cube.h"

/* The model's member of this kind and name, or NULL. */
const fl_sem_member_info *sem_cube_member(const fl_sem_model *m, fl_sem_member_kind kind,
                                          const char *name);
/* "net_revenue" -> "Net Revenue", "customer__region" -> "Customer Region". */
void sem_cube_title(const char *name, char *buf, size_t cap);
/* Is name a time dimension (metric_time, or a dimension of type time)? */
bool sem_cube_is_time(const fl_sem_model *m, const char *name);

#endif
