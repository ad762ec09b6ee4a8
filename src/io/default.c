/*
 * default.c - fl_fileio_default / fl_fileio_routing: the FileIO that routes
 * each path by scheme.
 *
 * "s3://", "s3a://" and "s3n://" paths (and list prefixes) go to an S3
 * FileIO; "abfss://", "abfs://", "wasbs://", "wasb://" to an Azure FileIO;
 * everything else (plain paths, file: URIs) to fl_fileio_local(). Each store's
 * FileIO is created on its first path, from the config given (deep-copied)
 * or else from the environment (fl_s3_config_from_env,
 * fl_azure_config_from_env), under a mutex; a failed creation is reported to
 * that caller and retried on the next such path. Once created it is
 * published with a release store, so later lookups are one acquire load.
 * Local-only programs never touch libcurl.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "io/azure_internal.h"
#include "io/s3_internal.h"

typedef struct default_io {
    fl_fileio base;
    fl_fileio *local;
    fl_fileio *s3;    /* NULL until the first S3 path; written under lock */
    fl_fileio *azure; /* NULL until the first Azure path; written under lock */
    pthread_mutex_t lock;
    bool have_cfg, have_azure;
    fl_s3_config cfg; /* strings point into strings[] */
    char strings[FL_S3_CONFIG_STORAGE];
    fl_azure_config azure_cfg; /* strings point into azure_strings[] */
    char azure_strings[FL_AZURE_CONFIG_STORAGE];
} default_io;

static const fl_fileio_ops default_ops;

static fl_fileio *get_s3(default_io *d, fl_error *err, fl_status *rc)
{
    fl_fileio *s3 = __atomic_load_n(&d->s3, __ATOMIC_ACQUIRE);
    if (s3)
        return s3;
    pthread_mutex_lock(&d->lock);
    if (!d->s3) {
        fl_s3_config cfg;
        char *storage = malloc(FL_S3_CONFIG_STORAGE);
        *rc = storage ? FL_OK : fl_errorf(err, FL_ENOMEM, "S3: out of memory");
        if (*rc == FL_OK && !d->have_cfg)
            *rc = fl_s3_config_from_env(&cfg, storage, err);
        if (*rc == FL_OK)
            *rc = fl_fileio_s3(d->have_cfg ? &d->cfg : &cfg, &s3, err);
        if (*rc == FL_OK)
            __atomic_store_n(&d->s3, s3, __ATOMIC_RELEASE);
        free(storage); /* fl_fileio_s3 copied what it needs */
    }
    s3 = d->s3;
    pthread_mutex_unlock(&d->lock);
    return s3;
}

static fl_fileio *get_azure(default_io *d, fl_error *err, fl_status *rc)
{
    fl_fileio *az = __atomic_load_n(&d->azure, __ATOMIC_ACQUIRE);
    if (az)
        return az;
    pthread_mutex_lock(&d->lock);
    if (!d->azure) {
        fl_azure_config cfg;
        char *storage = d->have_azure ? NULL : malloc(FL_AZURE_CONFIG_STORAGE);
        *rc = d->have_azure || storage ? FL_OK : fl_errorf(err, FL_ENOMEM, "Azure: out of memory");
        if (*rc == FL_OK && !d->have_azure)
            *rc = fl_azure_config_from_env(&cfg, storage, err);
        if (*rc == FL_OK)
            *rc = fl_fileio_azure(d->have_azure ? &d->azure_cfg : &cfg, &az, err);
        if (*rc == FL_OK)
            __atomic_store_n(&d->azure, az, __ATOMIC_RELEASE);
        free(storage); /* fl_fileio_azure copied what it needs */
    }
    az = d->azure;
    pthread_mutex_unlock(&d->lock);
    return az;
}

static fl_fileio *route(fl_fileio *io, const char *path, fl_error *err, fl_status *rc)
{
    default_io *d = (default_io *)io;
    *rc = FL_OK;
    if (fl_azure_is_location(path))
        return get_azure(d, err, rc);
    return s3_is_s3_path(path) ? get_s3(d, err, rc) : d->local;
}

static fl_status d_open(fl_fileio *io, const char *path, fl_file **out, fl_error *err)
{
    fl_status rc;
    fl_fileio *t = route(io, path, err, &rc);
    return t ? fl_fileio_open(t, path, out, err) : rc;
}

static fl_status d_create(fl_fileio *io, const char *path, int flags, fl_output **out,
                          fl_error *err)
{
    fl_status rc;
    fl_fileio *t = route(io, path, err, &rc);
    return t ? fl_fileio_create(t, path, flags, out, err) : rc;
}

static fl_status d_remove(fl_fileio *io, const char *path, fl_error *err)
{
    fl_status rc;
    fl_fileio *t = route(io, path, err, &rc);
    return t ? fl_fileio_remove(t, path, err) : rc;
}

static fl_status d_list(fl_fileio *io, const char *prefix,
                        fl_status (*fn)(void *ctx, const char *path, uint64_t size), void *ctx,
                        fl_error *err)
{
    fl_status rc;
    fl_fileio *t = route(io, prefix, err, &rc);
    return t ? t->ops->list(t, prefix, fn, ctx, err) : rc;
}

static void d_destroy(fl_fileio *io)
{
    default_io *d = (default_io *)io;
    fl_fileio_destroy(d->local);
    fl_fileio_destroy(d->s3);
    fl_fileio_destroy(d->azure);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

static const fl_fileio_ops default_ops = {d_open, d_create, d_remove, d_list, d_destroy};

fl_fileio *s3_default_target(fl_fileio *io, fl_error *err, fl_status *rc)
{
    *rc = FL_OK;
    return io->ops == &default_ops ? get_s3((default_io *)io, err, rc) : NULL;
}

/* Copies s into d->strings at *used; NULL stays NULL. */
static const char *keep(default_io *d, size_t *used, const char *s, bool *full)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    if (n > sizeof d->strings - *used) {
        *full = true;
        return NULL;
    }
    char *p = d->strings + *used;
    memcpy(p, s, n);
    *used += n;
    return p;
}

fl_status fl_fileio_default(const fl_s3_config *s3, fl_fileio **out, fl_error *err)
{
    return fl_fileio_routing(s3, NULL, out, err);
}

fl_status fl_fileio_routing(const fl_s3_config *s3, const fl_azure_config *azure, fl_fileio **out,
                            fl_error *err)
{
    default_io *d = calloc(1, sizeof *d);
    if (!d || !(d->local = fl_fileio_local())) {
        free(d);
        return fl_errorf(err, FL_ENOMEM, "FileIO: out of memory");
    }
    d->base.ops = &default_ops;
    pthread_mutex_init(&d->lock, NULL);
    if (s3) {
        size_t used = 0;
        bool full = false;
        d->have_cfg = true;
        d->cfg = *s3;
        d->cfg.endpoint = keep(d, &used, s3->endpoint, &full);
        d->cfg.region = keep(d, &used, s3->region, &full);
        d->cfg.access_key_id = keep(d, &used, s3->access_key_id, &full);
        d->cfg.secret_access_key = keep(d, &used, s3->secret_access_key, &full);
        d->cfg.session_token = keep(d, &used, s3->session_token, &full);
        if (full) {
            d_destroy(&d->base);
            return fl_errorf(err, FL_ELIMIT, "S3 config: settings longer than %d bytes",
                             FL_S3_CONFIG_STORAGE);
        }
    }
    if (azure) {
        d->have_azure = true;
        fl_status rc = azure_config_copy(azure, &d->azure_cfg, d->azure_strings, err);
        if (rc != FL_OK) {
            d_destroy(&d->base);
            return rc;
        }
    }
    *out = &d->base;
    return FL_OK;
}
