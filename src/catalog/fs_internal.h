/*
 * fs_internal.h - shared pieces of the filesystem catalog (fs.c: tables and
 * versions; fs_namespace.c: namespaces; fs_util.c: paths, small files,
 * listings). The design is described at the top of fs.c.
 */
#ifndef FLOE_FS_INTERNAL_H
#define FLOE_FS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "catalog/catalog_internal.h"

#define HINT_NAME "version-hint.text"
#define NS_MARKER ".floe-namespace.json"
#define MAX_SMALL_FILE (1u << 20)

typedef struct fs_catalog {
    fl_catalog base;
    char *root; /* warehouse without trailing '/' */
} fs_catalog;

static inline fs_catalog *FS(fl_catalog *c)
{
    return (fs_catalog *)c;
}

/* Objects below a directory, as paths relative to "<dir>/" (arena strings). */
typedef struct rel_list {
    fl_arena *a;
    size_t skip; /* length of the listed prefix */
    const char **paths;
    uint32_t n, cap;
    bool stop_at_first;
    fl_error *err;
} rel_list;

fl_status fs_oom(fl_error *err);
/* <root>/<levels...>[/<name>]; FL_EINVAL for levels that cannot be directory names. */
fl_status fs_dir_of(fs_catalog *c, const fl_namespace *ns, const char *name, fl_arena *a,
                    const char **out, fl_error *err);
fl_status fs_table_dir(fs_catalog *c, const fl_table_ident *id, fl_arena *a, const char **out,
                       fl_error *err);
fl_status fs_file_exists(fl_fileio *io, const char *path, bool *yes, fl_error *err);
/* A whole file (at most limit bytes), NUL-terminated, in a. */
fl_status fs_read_all(fl_fileio *io, const char *path, size_t limit, fl_arena *a, char **buf,
                      size_t *len, fl_error *err);
fl_status fs_write_all(fl_fileio *io, const char *path, int flags, const void *data, size_t len,
                       fl_error *err);
/* Lists the objects under dir (only the first one when first_only). */
fl_status fs_list_under(fs_catalog *c, const char *dir, bool first_only, fl_arena *a, rel_list *l,
                        fl_error *err);
/* Sorted unique first path components of l that are tables (tables true) or namespaces. */
fl_status fs_first_components(const rel_list *l, bool tables, fl_arena *a, const char ***out,
                              uint32_t *n, fl_error *err);
/* The directory of ns, checked to exist (must_exist) or not (FL_ENOTFOUND / FL_EEXIST). */
fl_status fs_ns_dir_checked(fs_catalog *c, const fl_namespace *ns, bool must_exist, fl_arena *a,
                            const char **dir, fl_error *err);

/* Namespace operations (fs_namespace.c). */
fl_status fs_create_namespace(fl_catalog *cat, const fl_namespace *ns, const fl_ice_map *props,
                              fl_error *err);
fl_status fs_list_namespaces(fl_catalog *cat, const fl_namespace *parent, fl_arena *a,
                             fl_namespace **out, uint32_t *n, fl_error *err);
fl_status fs_load_namespace(fl_catalog *cat, const fl_namespace *ns, fl_arena *a, fl_ice_map *props,
                            fl_error *err);
fl_status fs_update_namespace(fl_catalog *cat, const fl_namespace *ns, const fl_ice_map *set,
                              const char *const *remove, uint32_t nremove, fl_error *err);
fl_status fs_drop_namespace(fl_catalog *cat, const fl_namespace *ns, fl_error *err);
fl_status fs_list_tables(fl_catalog *cat, const fl_namespace *ns, fl_arena *a, const char ***names,
                         uint32_t *n, fl_error *err);

#endif
