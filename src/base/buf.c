/*
 * buf.c - fl_buf: a malloc'd byte buffer that grows geometrically up to an
 * optional ceiling (floe/buf.h). Every failure leaves the buffer unchanged.
 */
#include "floe/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FL_BUF_MIN 256

void fl_buf_init(fl_buf *b, size_t max)
{
    memset(b, 0, sizeof *b);
    b->max = max;
}

static fl_status over(const fl_buf *b, size_t extra, fl_error *err)
{
    return fl_errorf(err, FL_ELIMIT,
                     "buffer of %zu bytes cannot grow by %zu: the limit is %zu bytes", b->len,
                     extra, b->max);
}

fl_status fl_buf_reserve(fl_buf *b, size_t extra, fl_error *err)
{
    if (extra > SIZE_MAX - 1 - b->len)
        return fl_errorf(err, FL_ENOMEM, "buffer too large (%zu + %zu bytes)", b->len, extra);
    size_t need = b->len + extra + 1;
    if (b->max && need - 1 > b->max)
        return over(b, extra, err);
    if (need <= b->cap)
        return FL_OK;
    size_t ncap = b->cap ? b->cap : FL_BUF_MIN;
    while (ncap < need)
        ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
    if (b->max && ncap > b->max + 1)
        ncap = b->max + 1 > need ? b->max + 1 : need;
    char *nd = realloc(b->data, ncap);
    if (!nd)
        return fl_errorf(err, FL_ENOMEM, "out of memory (%zu bytes)", ncap);
    b->data = nd;
    b->cap = ncap;
    return FL_OK;
}

fl_status fl_buf_append(fl_buf *b, const void *p, size_t n, fl_error *err)
{
    FL_TRY(fl_buf_reserve(b, n, err));
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return FL_OK;
}

fl_status fl_buf_puts(fl_buf *b, const char *s, fl_error *err)
{
    return fl_buf_append(b, s, strlen(s), err);
}

fl_status fl_buf_putc(fl_buf *b, char c, fl_error *err)
{
    if (b->len + 1 < b->cap && (!b->max || b->len < b->max)) {
        b->data[b->len++] = c;
        b->data[b->len] = '\0';
        return FL_OK;
    }
    return fl_buf_append(b, &c, 1, err);
}

fl_status fl_buf_appendf(fl_buf *b, fl_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return fl_errorf(err, FL_EINVAL, "bad format");
    FL_TRY(fl_buf_reserve(b, (size_t)n, err));
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return FL_OK;
}

void fl_buf_reset(fl_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

char *fl_buf_detach(fl_buf *b, size_t *len)
{
    char *d = b->data;
    if (len)
        *len = b->len;
    b->data = NULL;
    b->len = b->cap = 0;
    return d;
}

void fl_buf_free(fl_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
