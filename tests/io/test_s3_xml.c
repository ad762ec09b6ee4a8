/*
 * test_s3_xml.c - the bounded XML reader and the S3 documents built on it:
 * ListObjectsV2 pages (entities, CDATA, UTF-8 keys, paging fields),
 * InitiateMultipartUpload, <Error>, DeleteObjects results; and refusals of
 * malformed, hostile (DOCTYPE, deep nesting) and oversized input, plus every
 * truncation and single-byte corruption of a valid page (no crash, a clear
 * error or a well-formed result).
 */
#include "io/s3_internal.h"
#include "test.h"

static const char *LIST =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
    "<Name>b</Name><Prefix>dir/</Prefix><KeyCount>3</KeyCount><MaxKeys>1000</MaxKeys>"
    "<IsTruncated>true</IsTruncated>"
    "<Contents><Key>dir/a&amp;b "
    "&lt;c&gt;.bin</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified>"
    "<ETag>&quot;abc&quot;</ETag><Size>20</Size><StorageClass>STANDARD</StorageClass></Contents>"
    "<Contents><Key><![CDATA[dir/x<y>]]></Key><Size>0</Size></Contents>"
    "<!-- a comment -->"
    "<Contents><Key>dir/caf\xC3\xA9 &#43;&#x2B; "
    "&#x1F600;</Key><Size>18446744073709551615</Size></Contents>"
    "<NextContinuationToken>tok/+=</NextContinuationToken>"
    "</ListBucketResult>\n";

static void test_list_page(void)
{
    s3_list_page p;
    fl_error err;
    CHECK_OK(s3_xml_parse_list(LIST, strlen(LIST), &p, &err), &err);
    CHECK_EQ_INT(p.n, 3);
    if (p.n == 3) {
        CHECK_EQ_STR(p.keys[0], "dir/a&b <c>.bin");
        CHECK_EQ_INT(p.sizes[0], 20);
        CHECK_EQ_STR(p.keys[1], "dir/x<y>");
        CHECK_EQ_INT(p.sizes[1], 0);
        CHECK_EQ_STR(p.keys[2], "dir/caf\xC3\xA9 ++ \xF0\x9F\x98\x80");
        CHECK(p.sizes[2] == UINT64_MAX);
    }
    CHECK(p.truncated);
    CHECK_EQ_STR(p.next_token, "tok/+=");
    s3_list_page_free(&p);

    const char *last = "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>";
    CHECK_OK(s3_xml_parse_list(last, strlen(last), &p, &err), &err);
    CHECK_EQ_INT(p.n, 0);
    CHECK(!p.truncated);
    s3_list_page_free(&p);
}

static void check_list_fails(const char *xml, fl_status want, const char *msg_part)
{
    s3_list_page p;
    fl_error err = {0};
    fl_status rc = s3_xml_parse_list(xml, strlen(xml), &p, &err);
    CHECK_EQ_INT(rc, want);
    if (rc != FL_OK && !strstr(err.msg, msg_part)) {
        fprintf(stderr, "  message '%s' lacks '%s'\n", err.msg, msg_part);
        CHECK(0);
    }
    if (rc == FL_OK)
        s3_list_page_free(&p);
}

static void test_list_errors(void)
{
    check_list_fails("<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>",
                     FL_ECORRUPT, "without <Key>");
    check_list_fails(
        "<ListBucketResult><Contents><Key>a</Key><Size>-1</Size></Contents></ListBucketResult>",
        FL_ECORRUPT, "bad <Size>");
    check_list_fails("<ListBucketResult><Contents><Key>a</Key><Size>99999999999999999999</Size></"
                     "Contents></ListBucketResult>",
                     FL_ECORRUPT, "bad <Size>");
    check_list_fails("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
                     FL_ECORRUPT, "NextContinuationToken");
    check_list_fails("<Error><Code>x</Code></Error>", FL_ECORRUPT, "root element <Error>");
    check_list_fails("<ListBucketResult><Contents><Key>a</Key></ListBucketResult>", FL_ECORRUPT,
                     "mismatched closing tag");
    check_list_fails("<ListBucketResult>", FL_ECORRUPT, "unclosed element");
    check_list_fails("", FL_ECORRUPT, "no root element");
    check_list_fails("   ", FL_ECORRUPT, "no root element");
    check_list_fails("<ListBucketResult/><x/>", FL_ECORRUPT, "second root element");
    check_list_fails("<ListBucketResult/>junk", FL_ECORRUPT, "text after the root");
    check_list_fails("junk<ListBucketResult/>", FL_ECORRUPT, "text before the root");
    check_list_fails("<!DOCTYPE x [<!ENTITY a \"b\">]><ListBucketResult/>", FL_ECORRUPT, "DOCTYPE");
    check_list_fails("<ListBucketResult>&foo;</ListBucketResult>", FL_ECORRUPT, "unknown entity");
    check_list_fails("<ListBucketResult>&#0;</ListBucketResult>", FL_ECORRUPT,
                     "character reference");
    check_list_fails("<ListBucketResult>&#xD800;</ListBucketResult>", FL_ECORRUPT,
                     "character reference");
    check_list_fails("<ListBucketResult>&#x110000;</ListBucketResult>", FL_ECORRUPT,
                     "character reference");
    check_list_fails("<ListBucketResult>&#12a;</ListBucketResult>", FL_ECORRUPT,
                     "character reference");
    check_list_fails("<ListBucketResult>&#123</ListBucketResult>", FL_ECORRUPT,
                     "character reference");
    check_list_fails("<ListBucketResult><!-- x </ListBucketResult>", FL_ECORRUPT,
                     "unterminated comment");
    check_list_fails("<ListBucketResult><![CDATA[ x </ListBucketResult>", FL_ECORRUPT,
                     "unterminated CDATA");
    check_list_fails("<ListBucketResult a=\"x></ListBucketResult>", FL_ECORRUPT,
                     "unterminated tag");
    check_list_fails("<ListBucketResult></ >", FL_ECORRUPT, "empty tag name");
    check_list_fails("<?xml version=\"1.0\"", FL_ECORRUPT, "unterminated processing");
    /* attributes may hold '>' and '/' inside quotes */
    check_list_fails(
        "<ListBucketResult a='>/' b=\"/>\"><IsTruncated>false</IsTruncated></ListBucketResult>",
        FL_OK, "");
}

static void test_limits(void)
{
    /* nesting deeper than the limit */
    io_sb s = {0};
    io_sb_puts(&s, "<ListBucketResult>");
    for (int i = 0; i < IO_XML_MAX_DEPTH; i++)
        io_sb_puts(&s, "<a>");
    for (int i = 0; i < IO_XML_MAX_DEPTH; i++)
        io_sb_puts(&s, "</a>");
    io_sb_puts(&s, "</ListBucketResult>");
    check_list_fails(s.buf.data, FL_ELIMIT, "nesting deeper");
    io_sb_free(&s);
    /* a name over 255 bytes */
    io_sb_puts(&s, "<ListBucketResult><");
    for (int i = 0; i < 300; i++)
        io_sb_puts(&s, "n");
    io_sb_puts(&s, "/></ListBucketResult>");
    check_list_fails(s.buf.data, FL_ELIMIT, "tag name over");
    io_sb_free(&s);
    /* element text over 1 MiB, through plain text and through entities */
    for (int pass = 0; pass < 2; pass++) {
        io_sb_puts(&s, "<ListBucketResult><Contents><Key>");
        for (size_t i = 0; i < (IO_XML_MAX_TEXT >> 4) + 1; i++)
            io_sb_puts(&s, pass ? "&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&"
                                  "amp;&amp;&amp;&amp;"
                                : "0123456789abcdef");
        io_sb_puts(&s, "</Key></Contents></ListBucketResult>");
        check_list_fails(s.buf.data, FL_ELIMIT, "element text over");
        io_sb_free(&s);
    }
    /* input over the 64 MiB cap is refused before reading */
    s3_list_page p;
    fl_error err;
    CHECK_EQ_INT(s3_xml_parse_list("<a/>", IO_XML_MAX_INPUT + 1, &p, &err), FL_ELIMIT);
}

static void test_many_keys(void)
{
    io_sb s = {0};
    io_sb_puts(&s, "<ListBucketResult>");
    for (int i = 0; i < 5000; i++)
        io_sb_printf(&s, "<Contents><Key>k/%05d</Key><Size>%d</Size></Contents>", i, i);
    io_sb_puts(&s, "</ListBucketResult>");
    s3_list_page p;
    fl_error err;
    CHECK_OK(s3_xml_parse_list(s.buf.data, s.buf.len, &p, &err), &err);
    CHECK_EQ_INT(p.n, 5000);
    if (p.n == 5000) {
        CHECK_EQ_STR(p.keys[4999], "k/04999");
        CHECK_EQ_INT(p.sizes[1234], 1234);
    }
    s3_list_page_free(&p);
    io_sb_free(&s);
}

static void test_error_doc(void)
{
    const char *x = "<?xml version=\"1.0\"?>\n<Error><Code>SignatureDoesNotMatch</Code>"
                    "<Message>SigV4: signature mismatch</Message><RequestId>1</RequestId></Error>";
    io_xml_error e;
    CHECK(io_xml_parse_error(x, strlen(x), &e));
    CHECK_EQ_STR(e.code, "SignatureDoesNotMatch");
    CHECK_EQ_STR(e.message, "SigV4: signature mismatch");
    CHECK(!io_xml_parse_error("<Other/>", 8, &e));
    CHECK(!io_xml_parse_error("<Error>", 7, &e));
    CHECK(!io_xml_parse_error(NULL, 0, &e));
    CHECK(!io_xml_parse_error("Forbidden", 9, &e));
    /* a long message is cut, never overflowing */
    io_sb s = {0};
    io_sb_puts(&s, "<Error><Code>C</Code><Message>");
    for (int i = 0; i < 2000; i++)
        io_sb_puts(&s, "m");
    io_sb_puts(&s, "</Message></Error>");
    CHECK(io_xml_parse_error(s.buf.data, s.buf.len, &e));
    CHECK_EQ_INT(strlen(e.message), sizeof e.message - 1);
    io_sb_free(&s);
}

static void test_upload_id(void)
{
    const char *x = "<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key>"
                    "<UploadId>VXBsb2FkIElE+/=</UploadId></InitiateMultipartUploadResult>";
    char *id = NULL;
    fl_error err;
    CHECK_OK(s3_xml_parse_upload_id(x, strlen(x), &id, &err), &err);
    CHECK_EQ_STR(id, "VXBsb2FkIElE+/=");
    free(id);
    const char *none = "<InitiateMultipartUploadResult/>";
    CHECK_EQ_INT(s3_xml_parse_upload_id(none, strlen(none), &id, &err), FL_ECORRUPT);
}

typedef struct del_seen {
    int n;
    char key[64], code[64];
} del_seen;

static fl_status on_del(void *ctx, const char *key, const char *code, const char *msg)
{
    del_seen *d = ctx;
    d->n++;
    snprintf(d->key, sizeof d->key, "%s", key);
    snprintf(d->code, sizeof d->code, "%s", code);
    return FL_OK;
}

static void test_delete_result(void)
{
    const char *x = "<DeleteResult><Deleted><Key>a</Key></Deleted>"
                    "<Error><Key>b c</Key><Code>AccessDenied</Code><Message>no</Message></Error>"
                    "</DeleteResult>";
    del_seen d = {0};
    fl_error err;
    CHECK_OK(s3_xml_parse_delete_result(x, strlen(x), on_del, &d, &err), &err);
    CHECK_EQ_INT(d.n, 1);
    CHECK_EQ_STR(d.key, "b c");
    CHECK_EQ_STR(d.code, "AccessDenied");
}

static fl_status count_events(void *ctx, int ev, unsigned depth, const char *name, const char *text,
                              size_t tl)
{
    (*(int *)ctx)++;
    return FL_OK;
}

/* Every prefix and every single-byte change of a valid page: no crash, and
 * anything accepted is walked to completion. Runs under ASan in CI. */
static void test_mutations(void)
{
    size_t n = strlen(LIST);
    char *buf = malloc(n);
    fl_error err;
    int accepted = 0;
    for (size_t cut = 0; cut < n; cut++) {
        memcpy(buf, LIST, cut);
        s3_list_page p;
        if (s3_xml_parse_list(buf, cut, &p, &err) == FL_OK) {
            accepted++;
            s3_list_page_free(&p);
        }
    }
    CHECK_EQ_INT(accepted, 1); /* only the cut of the final newline keeps the root closed */
    static const char subst[] = {'<', '>', '&', '/', '\0', '"', ';', 'x', ']'};
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < sizeof subst; j++) {
            memcpy(buf, LIST, n);
            buf[i] = subst[j];
            s3_list_page p;
            if (s3_xml_parse_list(buf, n, &p, &err) == FL_OK)
                s3_list_page_free(&p);
            int events = 0;
            (void)io_xml_walk(buf, n, count_events, &events, &err);
        }
    }
    free(buf);
}

int main(void)
{
    TEST_RUN(test_list_page);
    TEST_RUN(test_list_errors);
    TEST_RUN(test_limits);
    TEST_RUN(test_many_keys);
    TEST_RUN(test_error_doc);
    TEST_RUN(test_upload_id);
    TEST_RUN(test_delete_result);
    TEST_RUN(test_mutations);
    return TEST_EXIT();
}
