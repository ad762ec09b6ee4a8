/*
 * azure_xml.c - the List Blobs answer, on the shared XML reader:
 *
 *   <EnumerationResults ...><Prefix/><Marker/><MaxResults/>
 *     <Blobs><Blob><Name/><Properties><Content-Length/>
 *       [<ResourceType>directory</ResourceType>]...</Properties></Blob>*</Blobs>
 *     <NextMarker/></EnumerationResults>
 *
 * Positions are checked (depth and parent). A <Blob> without a Name or a
 * Content-Length, or with a bad length, is FL_ECORRUPT. ADLS Gen2
 * directories (ResourceType directory) are skipped: they are not files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io/azure_internal.h"

typedef struct list_ctx {
    azure_list_page *p;
    char *name;
    uint64_t size;
    bool has_size, is_dir, in_blobs;
    fl_error *err;
} list_ctx;

static fl_status push(list_ctx *c)
{
    azure_list_page *p = c->p;
    if (!c->name || !c->has_size)
        return fl_errorf(c->err, FL_ECORRUPT, "List Blobs response: <Blob> without %s",
                         c->name ? "<Content-Length>" : "<Name>");
    if (c->is_dir) {
        free(c->name);
        c->name = NULL;
        return FL_OK;
    }
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 256;
        char **k = realloc(p->names, nc * sizeof *k);
        if (k)
            p->names = k;
        uint64_t *s = k ? realloc(p->sizes, nc * sizeof *s) : NULL;
        if (!k || !s)
            return fl_errorf(c->err, FL_ENOMEM, "List Blobs response: out of memory");
        p->sizes = s;
        p->cap = nc;
    }
    p->names[p->n] = c->name;
    p->sizes[p->n++] = c->size;
    c->name = NULL;
    return FL_OK;
}

static fl_status on_close(list_ctx *c, unsigned depth, const char *name, const char *text,
                          size_t tl)
{
    if (depth == 2 && strcmp(name, "NextMarker") == 0) {
        free(c->p->next_marker);
        c->p->next_marker = strndup(text, tl);
        if (!c->p->next_marker)
            return fl_errorf(c->err, FL_ENOMEM, "List Blobs response: out of memory");
    } else if (depth == 3 && c->in_blobs && strcmp(name, "Blob") == 0) {
        return push(c);
    } else if (depth == 4 && c->in_blobs && strcmp(name, "Name") == 0) {
        free(c->name);
        if (!(c->name = strndup(text, tl)))
            return fl_errorf(c->err, FL_ENOMEM, "List Blobs response: out of memory");
    } else if (depth == 5 && c->in_blobs && strcmp(name, "Content-Length") == 0) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(text, &end, 10);
        if (!*text || *text == '-' || *end || errno)
            return fl_errorf(c->err, FL_ECORRUPT,
                             "List Blobs response: bad <Content-Length> '%.40s'", text);
        c->size = v;
        c->has_size = true;
    } else if (depth == 5 && c->in_blobs && strcmp(name, "ResourceType") == 0) {
        c->is_dir = strcmp(text, "directory") == 0;
    } else if (depth == 2 && strcmp(name, "Blobs") == 0) {
        c->in_blobs = false;
    }
    return FL_OK;
}

static fl_status list_event(void *ctx, int ev, unsigned depth, const char *name, const char *text,
                            size_t tl)
{
    list_ctx *c = ctx;
    if (ev == IO_XML_OPEN) {
        if (depth == 1 && strcmp(name, "EnumerationResults") != 0)
            return fl_errorf(c->err, FL_ECORRUPT, "List Blobs response: root element <%s>", name);
        if (depth == 2 && strcmp(name, "Blobs") == 0)
            c->in_blobs = true;
        if (depth == 3 && c->in_blobs && strcmp(name, "Blob") == 0) {
            free(c->name);
            c->name = NULL;
            c->has_size = c->is_dir = false;
        }
        return FL_OK;
    }
    return on_close(c, depth, name, text, tl);
}

fl_status azure_xml_parse_list(const char *xml, size_t len, azure_list_page *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    list_ctx c = {.p = out, .err = err};
    fl_status rc = xml ? io_xml_walk(xml, len, list_event, &c, err)
                       : fl_errorf(err, FL_ECORRUPT, "List Blobs response: empty");
    free(c.name);
    if (rc != FL_OK)
        azure_list_page_free(out);
    return rc;
}

void azure_list_page_free(azure_list_page *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->names[i]);
    free(p->names);
    free(p->sizes);
    free(p->next_marker);
    memset(p, 0, sizeof *p);
}
