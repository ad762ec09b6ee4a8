/*
 * s3_xml_docs.c - the S3 response documents floe reads, on top of the
 * io_xml_walk events (s3_xml.c):
 *
 *   <ListBucketResult><IsTruncated/><NextContinuationToken/>
 *       <Contents><Key/><Size/>...</Contents>*</ListBucketResult>
 *   <InitiateMultipartUploadResult><UploadId/>...</InitiateMultipartUploadResult>
 *   <DeleteResult><Deleted>...</Deleted>* <Error><Key/><Code/><Message/></Error>*</DeleteResult>
 *
 * Element positions are checked (depth and parent), so a <Key> elsewhere is
 * ignored; a <Contents> without a Key or with a bad Size is FL_ECORRUPT.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io/s3_internal.h"

/* ---- ListObjectsV2 ---- */

typedef struct list_ctx {
    s3_list_page *p;
    char *key;
    uint64_t size;
    bool has_size;
    fl_error *err;
} list_ctx;

static fl_status parse_u64(const char *t, uint64_t *out)
{
    if (!*t || *t == '-' || *t == '+')
        return FL_ECORRUPT;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(t, &end, 10);
    if (errno || *end)
        return FL_ECORRUPT;
    *out = v;
    return FL_OK;
}

static fl_status push_entry(list_ctx *c)
{
    s3_list_page *p = c->p;
    if (!c->key || !c->has_size)
        return fl_errorf(c->err, FL_ECORRUPT, "ListObjectsV2 response: <Contents> without %s",
                         c->key ? "<Size>" : "<Key>");
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 256;
        char **k = realloc(p->keys, nc * sizeof *k);
        if (k)
            p->keys = k;
        uint64_t *s = k ? realloc(p->sizes, nc * sizeof *s) : NULL;
        if (!k || !s)
            return fl_errorf(c->err, FL_ENOMEM, "ListObjectsV2 response: out of memory");
        p->sizes = s;
        p->cap = nc;
    }
    p->keys[p->n] = c->key;
    p->sizes[p->n] = c->size;
    p->n++;
    c->key = NULL;
    c->has_size = false;
    return FL_OK;
}

static fl_status list_event(void *ctx, int ev, unsigned depth, const char *name, const char *text,
                            size_t tl)
{
    list_ctx *c = ctx;
    if (depth == 1 && ev == IO_XML_OPEN && strcmp(name, "ListBucketResult") != 0)
        return fl_errorf(c->err, FL_ECORRUPT, "ListObjectsV2 response: root element <%s>", name);
    if (ev != IO_XML_CLOSE)
        return FL_OK;
    if (depth == 2 && strcmp(name, "IsTruncated") == 0) {
        c->p->truncated = strcmp(text, "true") == 0;
    } else if (depth == 2 && strcmp(name, "NextContinuationToken") == 0) {
        free(c->p->next_token);
        if (!(c->p->next_token = strdup(text)))
            return fl_errorf(c->err, FL_ENOMEM, "ListObjectsV2 response: out of memory");
    } else if (depth == 2 && strcmp(name, "Contents") == 0) {
        return push_entry(c);
    } else if (depth == 3 && strcmp(name, "Key") == 0) {
        free(c->key);
        if (!(c->key = strndup(text, tl)))
            return fl_errorf(c->err, FL_ENOMEM, "ListObjectsV2 response: out of memory");
    } else if (depth == 3 && strcmp(name, "Size") == 0) {
        if (parse_u64(text, &c->size) != FL_OK)
            return fl_errorf(c->err, FL_ECORRUPT, "ListObjectsV2 response: bad <Size> '%.40s'",
                             text);
        c->has_size = true;
    }
    return FL_OK;
}

fl_status s3_xml_parse_list(const char *xml, size_t len, s3_list_page *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    list_ctx c = {out, NULL, 0, false, err};
    fl_status rc = io_xml_walk(xml, len, list_event, &c, err);
    free(c.key);
    if (rc == FL_OK && out->truncated && (!out->next_token || !*out->next_token))
        rc = fl_errorf(err, FL_ECORRUPT,
                       "ListObjectsV2 response: truncated without a NextContinuationToken");
    if (rc != FL_OK)
        s3_list_page_free(out);
    return rc;
}

void s3_list_page_free(s3_list_page *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->keys[i]);
    free(p->keys);
    free(p->sizes);
    free(p->next_token);
    memset(p, 0, sizeof *p);
}

/* ---- InitiateMultipartUpload ---- */

typedef struct upload_ctx {
    char *id;
    fl_error *err;
} upload_ctx;

static fl_status upload_event(void *ctx, int ev, unsigned depth, const char *name, const char *text,
                              size_t tl)
{
    upload_ctx *c = ctx;
    if (ev == IO_XML_CLOSE && depth == 2 && strcmp(name, "UploadId") == 0) {
        free(c->id);
        if (!(c->id = strndup(text, tl)))
            return fl_errorf(c->err, FL_ENOMEM, "InitiateMultipartUpload: out of memory");
    }
    return FL_OK;
}

fl_status s3_xml_parse_upload_id(const char *xml, size_t len, char **upload_id, fl_error *err)
{
    upload_ctx c = {NULL, err};
    fl_status rc = io_xml_walk(xml, len, upload_event, &c, err);
    if (rc == FL_OK && (!c.id || !*c.id))
        rc = fl_errorf(err, FL_ECORRUPT, "InitiateMultipartUpload response has no <UploadId>");
    if (rc != FL_OK) {
        free(c.id);
        return rc;
    }
    *upload_id = c.id;
    return FL_OK;
}

/* ---- DeleteObjects ---- */

typedef struct del_ctx {
    fl_status (*fn)(void *ctx, const char *key, const char *code, const char *message);
    void *ctx;
    char key[1100], code[128], message[512];
} del_ctx;

static fl_status del_event(void *ctx, int ev, unsigned depth, const char *name, const char *text,
                           size_t tl)
{
    del_ctx *c = ctx;
    if (depth == 2 && ev == IO_XML_OPEN && strcmp(name, "Error") == 0)
        c->key[0] = c->code[0] = c->message[0] = '\0';
    if (ev != IO_XML_CLOSE)
        return FL_OK;
    if (depth == 2 && strcmp(name, "Error") == 0)
        return c->fn(c->ctx, c->key, c->code, c->message);
    if (depth == 3 && strcmp(name, "Key") == 0)
        io_copy_str(c->key, sizeof c->key, text);
    else if (depth == 3 && strcmp(name, "Code") == 0)
        io_copy_str(c->code, sizeof c->code, text);
    else if (depth == 3 && strcmp(name, "Message") == 0)
        io_copy_str(c->message, sizeof c->message, text);
    return FL_OK;
}

fl_status s3_xml_parse_delete_result(const char *xml, size_t len,
                                     fl_status (*fn)(void *ctx, const char *key, const char *code,
                                                     const char *message),
                                     void *ctx, fl_error *err)
{
    del_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "DeleteObjects: out of memory");
    c->fn = fn;
    c->ctx = ctx;
    fl_status rc = io_xml_walk(xml, len, del_event, c, err);
    free(c);
    return rc;
}
