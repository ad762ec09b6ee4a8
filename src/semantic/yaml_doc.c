/*
 * yaml_doc.c - positioned accessors over a libyaml document (yaml_doc.h).
 */
#include "semantic/yaml_doc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "floe/buf.h"

yaml_node_t *sem_doc_root(sem_doc *d)
{
    return yaml_document_get_root_node(&d->doc);
}

yaml_node_t *sem_map_get(sem_doc *d, const yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(&d->doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE && k->data.scalar.length == strlen(key) &&
            !memcmp(k->data.scalar.value, key, k->data.scalar.length))
            return yaml_document_get_node(&d->doc, p->value);
    }
    return NULL;
}

uint32_t sem_seq_len(const yaml_node_t *seq)
{
    if (!seq || seq->type != YAML_SEQUENCE_NODE)
        return 0;
    return (uint32_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
}

yaml_node_t *sem_seq_item(sem_doc *d, const yaml_node_t *seq, uint32_t i)
{
    if (i >= sem_seq_len(seq))
        return NULL;
    return yaml_document_get_node(&d->doc, seq->data.sequence.items.start[i]);
}

bool sem_map_pair(sem_doc *d, const yaml_node_t *map, uint32_t i, const char **key,
                  yaml_node_t **value)
{
    if (!map || map->type != YAML_MAPPING_NODE ||
        i >= (uint32_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start))
        return false;
    yaml_node_pair_t *p = &map->data.mapping.pairs.start[i];
    *key = sem_scalar(d, yaml_document_get_node(&d->doc, p->key));
    *value = yaml_document_get_node(&d->doc, p->value);
    return true;
}

const char *sem_scalar(sem_doc *d, const yaml_node_t *n)
{
    if (!n || n->type != YAML_SCALAR_NODE)
        return NULL;
    return fl_arena_strndup(d->arena, (const char *)n->data.scalar.value, n->data.scalar.length);
}

fl_status sem_doc_error(sem_doc *d, const yaml_node_t *n, fl_error *err, const char *what,
                        const char *fmt, ...)
{
    char msg[FL_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (what && *what)
        return fl_errorf(err, FL_EINVAL, "%s:%u: %s: %s", d->file, sem_line(n), what, msg);
    return fl_errorf(err, FL_EINVAL, "%s:%u: %s", d->file, sem_line(n), msg);
}

fl_status sem_str(sem_doc *d, const yaml_node_t *map, const char *key, bool required,
                  const char *what, const char **out, fl_error *err)
{
    *out = NULL;
    yaml_node_t *v = sem_map_get(d, map, key);
    if (!v) {
        if (required)
            return sem_doc_error(d, map, err, what, "missing '%s'", key);
        return FL_OK;
    }
    *out = sem_scalar(d, v);
    if (!*out)
        return sem_doc_error(d, v, err, what, "'%s' must be text, not a %s", key,
                             v->type == YAML_MAPPING_NODE ? "mapping" : "list");
    if (!**out && required)
        return sem_doc_error(d, v, err, what, "'%s' is empty", key);
    return FL_OK;
}

static fl_status json_string(fl_buf *b, const unsigned char *s, size_t n, fl_error *err)
{
    FL_TRY(fl_buf_putc(b, '"', err));
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\')
            FL_TRY(fl_buf_appendf(b, err, "\\%c", c));
        else if (c < 0x20)
            FL_TRY(fl_buf_appendf(b, err, "\\u%04x", c));
        else
            FL_TRY(fl_buf_putc(b, (char)c, err));
    }
    return fl_buf_putc(b, '"', err);
}

static fl_status node_json(sem_doc *d, const yaml_node_t *n, int depth, fl_buf *b, fl_error *err)
{
    if (depth > 16)
        return fl_errorf(err, FL_ELIMIT, "%s:%u: meta nests deeper than 16 levels", d->file,
                         sem_line(n));
    if (!n)
        return fl_buf_puts(b, "null", err);
    if (n->type == YAML_SCALAR_NODE)
        return json_string(b, n->data.scalar.value, n->data.scalar.length, err);
    if (n->type == YAML_SEQUENCE_NODE) {
        FL_TRY(fl_buf_putc(b, '[', err));
        for (uint32_t i = 0; i < sem_seq_len(n); i++) {
            if (i)
                FL_TRY(fl_buf_puts(b, ", ", err));
            FL_TRY(node_json(d, sem_seq_item(d, n, i), depth + 1, b, err));
        }
        return fl_buf_putc(b, ']', err);
    }
    FL_TRY(fl_buf_putc(b, '{', err));
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(&d->doc, p->key);
        if (p != n->data.mapping.pairs.start)
            FL_TRY(fl_buf_puts(b, ", ", err));
        if (k && k->type == YAML_SCALAR_NODE)
            FL_TRY(json_string(b, k->data.scalar.value, k->data.scalar.length, err));
        else
            FL_TRY(fl_buf_puts(b, "\"\"", err));
        FL_TRY(fl_buf_puts(b, ": ", err));
        FL_TRY(node_json(d, yaml_document_get_node(&d->doc, p->value), depth + 1, b, err));
    }
    return fl_buf_putc(b, '}', err);
}

fl_status sem_doc_json(sem_doc *d, const yaml_node_t *n, const char **out, fl_error *err)
{
    fl_buf b;
    fl_buf_init(&b, 64 * 1024);
    fl_status rc = node_json(d, n, 0, &b, err);
    if (rc != FL_OK) {
        fl_buf_free(&b);
        if (rc == FL_ELIMIT && strstr(err->msg, "deeper"))
            return rc;
        return fl_errorf(err, FL_ELIMIT, "%s:%u: meta is larger than 64 KiB", d->file, sem_line(n));
    }
    *out = fl_arena_strndup(d->arena, b.data ? b.data : "", b.len);
    fl_buf_free(&b);
    return FL_OK;
}
