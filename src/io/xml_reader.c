/*
 * xml_reader.c - a small, bounded XML reader for object-store responses (S3:
 * ListObjectsV2, InitiateMultipartUpload, DeleteObjects; Azure: List Blobs), and
 * the <Error> documents both stores answer with.
 *
 * It is not a general XML parser: it walks elements and reports each open and
 * close (with the element's decoded text when it had no child elements) to a
 * callback, which is all S3's flat documents need. Handled: the XML
 * declaration and processing instructions, comments, CDATA, attributes
 * (skipped, quoted values may hold '>'), self-closing tags, the five
 * predefined entities and numeric character references (emitted as UTF-8).
 * Refused with FL_ECORRUPT naming the byte offset: DOCTYPE (no entity
 * expansion, ever), mismatched or unclosed tags, text or a second element
 * after the root, bad references, NUL bytes. Limits: input 64 MiB, depth 32,
 * names 255 bytes, text 1 MiB per element (FL_ELIMIT). Element names keep
 * their prefix ("s3:Key" stays "s3:Key"); S3 does not use prefixes.
 */
#include <stdlib.h>
#include <string.h>

#include "io/common.h"

typedef struct xml_state {
    const char *s;
    size_t len, pos;
    char names[IO_XML_MAX_DEPTH][IO_XML_MAX_NAME + 1];
    bool had_child[IO_XML_MAX_DEPTH];
    unsigned depth;
    bool root_done;
    io_sb text;
    io_xml_fn fn;
    void *ctx;
    fl_error *err;
} xml_state;

static fl_status bad(xml_state *x, const char *what)
{
    return fl_errorf(x->err, FL_ECORRUPT, "XML response: %s at byte %zu", what, x->pos);
}

static bool starts(const xml_state *x, const char *lit)
{
    size_t n = strlen(lit);
    return x->len - x->pos >= n && memcmp(x->s + x->pos, lit, n) == 0;
}

/* Moves past the next occurrence of end; false when it never comes. */
static bool skip_past(xml_state *x, const char *end)
{
    size_t n = strlen(end);
    while (x->len - x->pos >= n) {
        if (memcmp(x->s + x->pos, end, n) == 0) {
            x->pos += n;
            return true;
        }
        x->pos++;
    }
    return false;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void put_utf8(io_sb *s, uint32_t cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    io_sb_putn(s, b, n);
}

/* At '&': decodes one reference into the text buffer. */
static fl_status reference(xml_state *x)
{
    static const struct {
        const char *name;
        char c;
    } named[] = {{"amp;", '&'}, {"lt;", '<'}, {"gt;", '>'}, {"quot;", '"'}, {"apos;", '\''}};
    x->pos++;
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        if (starts(x, named[i].name)) {
            x->pos += strlen(named[i].name);
            io_sb_putn(&x->text, &named[i].c, 1);
            return FL_OK;
        }
    }
    if (!starts(x, "#"))
        return bad(x, "unknown entity reference");
    x->pos++;
    bool hexa = x->pos < x->len && x->s[x->pos] == 'x';
    if (hexa)
        x->pos++;
    uint32_t cp = 0;
    size_t digits = 0;
    while (x->pos < x->len && x->s[x->pos] != ';') {
        char c = x->s[x->pos];
        int d = c >= '0' && c <= '9'           ? c - '0'
                : hexa && c >= 'a' && c <= 'f' ? c - 'a' + 10
                : hexa && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                               : -1;
        if (d < 0 || ++digits > 8)
            return bad(x, "bad character reference");
        cp = cp * (hexa ? 16 : 10) + (uint32_t)d;
        x->pos++;
    }
    if (x->pos >= x->len || digits == 0 || cp == 0 || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return bad(x, "bad character reference");
    x->pos++;
    put_utf8(&x->text, cp);
    return FL_OK;
}

static fl_status text_run(xml_state *x)
{
    while (x->pos < x->len && x->s[x->pos] != '<') {
        char c = x->s[x->pos];
        if (c == '\0')
            return bad(x, "NUL byte");
        if (x->depth == 0) {
            if (!is_space(c))
                return bad(x, x->root_done ? "text after the root element"
                                           : "text before the root element");
            x->pos++;
            continue;
        }
        if (c == '&') {
            FL_TRY(reference(x));
        } else {
            size_t start = x->pos;
            while (x->pos < x->len && x->s[x->pos] != '<' && x->s[x->pos] != '&' &&
                   x->s[x->pos] != '\0')
                x->pos++;
            io_sb_putn(&x->text, x->s + start, x->pos - start);
        }
        if (x->text.buf.len > IO_XML_MAX_TEXT)
            return fl_errorf(x->err, FL_ELIMIT,
                             "XML response: element text over %zu bytes at byte %zu",
                             IO_XML_MAX_TEXT, x->pos);
    }
    return x->text.oom ? fl_errorf(x->err, FL_ENOMEM, "XML response: out of memory") : FL_OK;
}

/* Reads a tag name at pos into out (NUL-terminated). */
static fl_status tag_name(xml_state *x, char *out)
{
    size_t start = x->pos;
    while (x->pos < x->len && !is_space(x->s[x->pos]) && x->s[x->pos] != '>' &&
           x->s[x->pos] != '/' && x->s[x->pos] != '<' && x->s[x->pos] != '\0')
        x->pos++;
    size_t n = x->pos - start;
    if (n == 0)
        return bad(x, "empty tag name");
    if (n > IO_XML_MAX_NAME)
        return fl_errorf(x->err, FL_ELIMIT, "XML response: tag name over %d bytes at byte %zu",
                         IO_XML_MAX_NAME, start);
    memcpy(out, x->s + start, n);
    out[n] = '\0';
    return FL_OK;
}

/* Skips attributes up to '>' or "/>"; *self_closing set for the latter. */
static fl_status attributes(xml_state *x, bool *self_closing)
{
    while (x->pos < x->len) {
        char c = x->s[x->pos];
        if (c == '>') {
            x->pos++;
            return FL_OK;
        }
        if (c == '/' && x->pos + 1 < x->len && x->s[x->pos + 1] == '>') {
            x->pos += 2;
            *self_closing = true;
            return FL_OK;
        }
        if (c == '"' || c == '\'') {
            char q = c;
            x->pos++;
            while (x->pos < x->len && x->s[x->pos] != q)
                x->pos++;
            if (x->pos >= x->len)
                break;
        } else if (c == '<' || c == '\0') {
            return bad(x, "bad character in a tag");
        }
        x->pos++;
    }
    return bad(x, "unterminated tag");
}

static fl_status open_tag(xml_state *x)
{
    if (x->root_done)
        return bad(x, "second root element");
    if (x->depth >= IO_XML_MAX_DEPTH)
        return fl_errorf(x->err, FL_ELIMIT, "XML response: nesting deeper than %d at byte %zu",
                         IO_XML_MAX_DEPTH, x->pos);
    x->pos++; /* '<' */
    char *name = x->names[x->depth];
    FL_TRY(tag_name(x, name));
    bool self_closing = false;
    FL_TRY(attributes(x, &self_closing));
    if (x->depth)
        x->had_child[x->depth - 1] = true;
    x->had_child[x->depth] = false;
    x->depth++;
    x->text.buf.len = 0;
    if (x->text.buf.data)
        x->text.buf.data[0] = '\0';
    FL_TRY(x->fn(x->ctx, IO_XML_OPEN, x->depth, name, NULL, 0));
    if (!self_closing)
        return FL_OK;
    x->depth--;
    x->root_done = x->depth == 0;
    return x->fn(x->ctx, IO_XML_CLOSE, x->depth + 1, name, "", 0);
}

static fl_status close_tag(xml_state *x)
{
    x->pos += 2; /* "</" */
    char name[IO_XML_MAX_NAME + 1];
    FL_TRY(tag_name(x, name));
    while (x->pos < x->len && is_space(x->s[x->pos]))
        x->pos++;
    if (x->pos >= x->len || x->s[x->pos] != '>')
        return bad(x, "unterminated closing tag");
    x->pos++;
    if (x->depth == 0 || strcmp(name, x->names[x->depth - 1]) != 0)
        return bad(x, "mismatched closing tag");
    x->depth--;
    x->root_done = x->depth == 0;
    bool leaf = !x->had_child[x->depth];
    const char *t = leaf && x->text.buf.data ? x->text.buf.data : "";
    size_t tl = leaf ? x->text.buf.len : 0;
    fl_status rc = x->fn(x->ctx, IO_XML_CLOSE, x->depth + 1, name, t, tl);
    x->text.buf.len = 0;
    if (x->text.buf.data)
        x->text.buf.data[0] = '\0';
    return rc;
}

static fl_status markup(xml_state *x)
{
    if (starts(x, "<?")) {
        return skip_past(x, "?>") ? FL_OK : bad(x, "unterminated processing instruction");
    }
    if (starts(x, "<!--")) {
        return skip_past(x, "-->") ? FL_OK : bad(x, "unterminated comment");
    }
    if (starts(x, "<![CDATA[")) {
        if (x->depth == 0)
            return bad(x, "CDATA outside the root element");
        x->pos += 9;
        size_t start = x->pos;
        if (!skip_past(x, "]]>"))
            return bad(x, "unterminated CDATA section");
        if (memchr(x->s + start, '\0', x->pos - 3 - start))
            return bad(x, "NUL byte in CDATA");
        io_sb_putn(&x->text, x->s + start, x->pos - 3 - start);
        if (x->text.buf.len > IO_XML_MAX_TEXT)
            return fl_errorf(x->err, FL_ELIMIT, "XML response: element text over %zu bytes",
                             IO_XML_MAX_TEXT);
        return FL_OK;
    }
    if (starts(x, "<!"))
        return bad(x, "DOCTYPE or other declaration not allowed");
    if (starts(x, "</"))
        return close_tag(x);
    return open_tag(x);
}

fl_status io_xml_walk(const char *xml, size_t len, io_xml_fn fn, void *ctx, fl_error *err)
{
    if (len > IO_XML_MAX_INPUT)
        return fl_errorf(err, FL_ELIMIT, "XML response: %zu bytes (limit %zu)", len,
                         IO_XML_MAX_INPUT);
    xml_state *x = calloc(1, sizeof *x);
    if (!x)
        return fl_errorf(err, FL_ENOMEM, "XML response: out of memory");
    x->s = xml;
    x->len = len;
    x->fn = fn;
    x->ctx = ctx;
    x->err = err;
    fl_status rc = FL_OK;
    while (rc == FL_OK && x->pos < x->len) {
        rc = x->s[x->pos] == '<' ? markup(x) : text_run(x);
        if (rc == FL_OK && x->text.oom)
            rc = fl_errorf(err, FL_ENOMEM, "XML response: out of memory");
    }
    if (rc == FL_OK && (x->depth || !x->root_done))
        rc = bad(x,
                 x->root_done || x->depth ? "unclosed element at end of input" : "no root element");
    io_sb_free(&x->text);
    free(x);
    return rc;
}

/* ---- <Error> ---- */

typedef struct err_ctx {
    io_xml_error *out;
    bool is_error;
} err_ctx;

static fl_status err_event(void *ctx, int ev, unsigned depth, const char *name, const char *text,
                           size_t tl)
{
    err_ctx *c = ctx;
    if (ev == IO_XML_OPEN && depth == 1)
        c->is_error = strcmp(name, "Error") == 0;
    if (ev != IO_XML_CLOSE || depth != 2 || !c->is_error)
        return FL_OK;
    if (strcmp(name, "Code") == 0)
        io_copy_str(c->out->code, sizeof c->out->code, text);
    else if (strcmp(name, "Message") == 0)
        io_copy_str(c->out->message, sizeof c->out->message, text);
    return FL_OK;
}

bool io_xml_parse_error(const char *xml, size_t len, io_xml_error *out)
{
    memset(out, 0, sizeof *out);
    err_ctx c = {out, false};
    fl_error e;
    if (!xml || io_xml_walk(xml, len, err_event, &c, &e) != FL_OK)
        return false;
    return c.is_error;
}
