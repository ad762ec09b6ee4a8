/*
 * azure_path.c - Azure locations:
 *
 *   abfss://<container>@<account>.dfs.core.windows.net/<path>   (ADLS Gen2, TLS)
 *   abfs://<container>@<account>.dfs.core.windows.net/<path>
 *   wasbs://<container>@<account>.blob.core.windows.net/<path>  (Blob, TLS)
 *   wasb://<container>@<account>.blob.core.windows.net/<path>
 *
 * The account is the host's first label (any suffix is accepted, so sovereign
 * clouds' hosts work too); the container follows Azure's naming rules
 * loosely (3-63 of a-z 0-9 -; "$root" and "$web" too); the blob name is
 * everything after the host's '/', at most 1024 bytes. All four schemes
 * address the same Blob REST endpoint: ADLS Gen2 accounts answer the Blob
 * API on their hierarchical namespace as well.
 */
#include <stdlib.h>
#include <string.h>

#include "io/azure_internal.h"

static size_t scheme_len_of(const char *p)
{
    static const char *const schemes[] = {"abfss://", "abfs://", "wasbs://", "wasb://"};
    for (size_t i = 0; i < 4; i++)
        if (strncmp(p, schemes[i], strlen(schemes[i])) == 0)
            return strlen(schemes[i]);
    return 0;
}

bool fl_azure_is_location(const char *path)
{
    return scheme_len_of(path) != 0;
}

static bool container_ok(const char *c, size_t n)
{
    if (n == 5 && (memcmp(c, "$root", 5) == 0 || memcmp(c, "$logs", 5) == 0))
        return true;
    if (n == 4 && memcmp(c, "$web", 4) == 0)
        return true;
    if (n < 3 || n > 63)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((c[i] >= 'a' && c[i] <= 'z') || (c[i] >= '0' && c[i] <= '9') || c[i] == '-'))
            return false;
    return true;
}

static bool account_ok(const char *a, size_t n)
{
    if (n == 0 || n > 64)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((a[i] >= 'a' && a[i] <= 'z') || (a[i] >= '0' && a[i] <= '9') ||
              (a[i] >= 'A' && a[i] <= 'Z')))
            return false;
    return true;
}

fl_status azure_parse_path(const char *path, bool require_blob, azure_path *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    size_t sl = scheme_len_of(path);
    if (!sl)
        return fl_errorf(err, FL_EINVAL,
                         "%s: not an Azure location (abfss://, abfs://, wasbs://, wasb://)", path);
    const char *c = path + sl;
    const char *at = strchr(c, '@');
    const char *slash = strchr(c, '/');
    if (!at || (slash && slash < at))
        return fl_errorf(err, FL_EINVAL,
                         "%s: expected <scheme>://<container>@<account>.<host>/<path>", path);
    if (!container_ok(c, (size_t)(at - c)))
        return fl_errorf(err, FL_EINVAL, "%s: invalid container name '%.*s' (3-63 of a-z 0-9 -)",
                         path, (int)(at - c), c);
    const char *host = at + 1;
    size_t hl = slash ? (size_t)(slash - host) : strlen(host);
    size_t al = strcspn(host, ".:/");
    if (al > hl)
        al = hl;
    if (!account_ok(host, al))
        return fl_errorf(err, FL_EINVAL, "%s: invalid storage account name '%.*s'", path, (int)al,
                         host);
    const char *b = slash ? slash + 1 : "";
    if (require_blob && !*b)
        return fl_errorf(err, FL_EINVAL, "%s: no blob name after the container", path);
    if (strlen(b) > 1024)
        return fl_errorf(err, FL_EINVAL, "%s: blob name longer than 1024 bytes", path);
    out->container = strndup(c, (size_t)(at - c));
    out->account = strndup(host, al);
    out->blob = strdup(b);
    out->prefix_len = (size_t)(b - path);
    if (!slash) /* "abfss://c@host" lists as "abfss://c@host/..." */
        out->prefix_len = strlen(path);
    if (!out->container || !out->account || !out->blob) {
        azure_path_free(out);
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    }
    return FL_OK;
}

void azure_path_free(azure_path *p)
{
    free(p->account);
    free(p->container);
    free(p->blob);
    memset(p, 0, sizeof *p);
}
