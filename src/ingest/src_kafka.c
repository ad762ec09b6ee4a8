/*
 * src_kafka.c - the Kafka source (include/floe/ingest.h, src/ingest/README.md).
 *
 * A librdkafka high-level consumer whose group is the pipeline name, but
 * whose offsets live in the table: enable.auto.commit is off and every
 * assignment seeks each partition to its committed sink position
 * "kafka:<topic>:<partition>" (the next offset to read), else the
 * beginning. Kafka's own committed offsets are written after each
 * successful checkpoint for lag monitoring and never read.
 *
 * Rebalances (eager protocol, "range"): on revoke the source checkpoints
 * what is buffered (dead letters, then rows) before giving the partitions
 * up, so the next owner seeks to exactly what this one committed. When that
 * checkpoint fails (fenced, I/O) nothing of the buffer commits, the error is
 * kept for the next poll to return, and the new owner re-reads from the
 * table: nothing is lost or doubled either way. Closing does NOT checkpoint
 * (the caller does first when it wants to), so a close after an error, or
 * a crash test, leaves the buffer to be re-read.
 *
 * A message older than its partition's position (a stale fetch) is
 * skipped. A value that does not convert goes to the dead-letter sink with
 * "kafka:<topic>:<partition>@<offset>"; the dead-letter sink's own position
 * "kafka:<topic>:<partition>" says up to where failures are recorded, so a
 * restart does not record one twice. Either way the partition's position
 * moves past the message.
 *
 * Ownership: the source borrows both sinks; one thread drives it (the
 * rebalance callback runs inside rd_kafka_consumer_poll on that thread).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <librdkafka/rdkafka.h>

#include "floe/ingest.h"

struct fl_ingest_kafka {
    rd_kafka_t *rk;
    fl_ingest_sink *s, *dlq;
    bool closing;
    fl_status rc; /* a failure inside the rebalance callback */
    fl_error err;
    char *buf; /* the message value being converted */
    size_t cap;
};

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The offset a position holds, or -1 when absent or not a number. */
static int64_t pos_offset(fl_ingest_sink *s, const char *key)
{
    const char *v = s ? fl_ingest_sink_position(s, key) : NULL;
    if (!v || !*v)
        return -1;
    char *end = NULL;
    long long n = strtoll(v, &end, 10);
    return *end || n < 0 ? -1 : (int64_t)n;
}

static void pos_key(char *key, size_t cap, const char *topic, int32_t partition)
{
    snprintf(key, cap, "kafka:%s:%" PRId32, topic, partition);
}

fl_status fl_ingest_kafka_checkpoint(fl_ingest_kafka *k, fl_ingest_commit *info, fl_error *err)
{
    fl_ingest_commit ci;
    if (k->dlq)
        FL_TRY(fl_ingest_sink_checkpoint(k->dlq, NULL, err));
    FL_TRY(fl_ingest_sink_checkpoint(k->s, &ci, err));
    if (info)
        *info = ci;
    if (ci.committed) /* monitoring only: the table is the truth */
        rd_kafka_commit(k->rk, NULL, 1);
    return FL_OK;
}

static void on_rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t e,
                         rd_kafka_topic_partition_list_t *parts, void *opaque)
{
    fl_ingest_kafka *k = opaque;
    if (e == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
        char key[1100];
        for (int i = 0; i < parts->cnt; i++) {
            rd_kafka_topic_partition_t *p = &parts->elems[i];
            pos_key(key, sizeof key, p->topic, p->partition);
            int64_t off = pos_offset(k->s, key);
            p->offset = off >= 0 ? off : RD_KAFKA_OFFSET_BEGINNING;
        }
        rd_kafka_assign(rk, parts);
        return;
    }
    if (!k->closing && k->rc == FL_OK)
        k->rc = fl_ingest_kafka_checkpoint(k, NULL, &k->err);
    rd_kafka_assign(rk, NULL);
}

fl_status fl_ingest_kafka_open(const char *brokers, const char *topics, fl_ingest_sink *s,
                               fl_ingest_sink *dlq, fl_ingest_kafka **out, fl_error *err)
{
    *out = NULL;
    if (!brokers || !*brokers || !topics || !*topics)
        return fl_errorf(err, FL_EINVAL, "kafka: brokers and topics are required");
    fl_ingest_kafka *k = calloc(1, sizeof *k);
    if (!k)
        return fl_errorf(err, FL_ENOMEM, "kafka: out of memory");
    k->s = s;
    k->dlq = dlq;
    char es[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    const char *kv[][2] = {{"bootstrap.servers", brokers},
                           {"group.id", fl_ingest_sink_name(s)},
                           {"enable.auto.commit", "false"},
                           {"auto.offset.reset", "earliest"},
                           {"partition.assignment.strategy", "range"},
                           /* a member that died unannounced holds its partitions this long */
                           {"session.timeout.ms", "10000"},
                           {"heartbeat.interval.ms", "1000"}};
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
        if (rd_kafka_conf_set(conf, kv[i][0], kv[i][1], es, sizeof es) != RD_KAFKA_CONF_OK) {
            rd_kafka_conf_destroy(conf);
            free(k);
            return fl_errorf(err, FL_EINVAL, "kafka: %s: %s", kv[i][0], es);
        }
    rd_kafka_conf_set_rebalance_cb(conf, on_rebalance);
    rd_kafka_conf_set_opaque(conf, k);
    k->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, es, sizeof es);
    if (!k->rk) {
        rd_kafka_conf_destroy(conf);
        free(k);
        return fl_errorf(err, FL_EINVAL, "kafka: %s", es);
    }
    rd_kafka_poll_set_consumer(k->rk);
    rd_kafka_topic_partition_list_t *tl = rd_kafka_topic_partition_list_new(4);
    for (const char *p = topics; *p;) {
        size_t n = strcspn(p, ",");
        char t[256];
        if (n > 0 && n < sizeof t) {
            memcpy(t, p, n);
            t[n] = 0;
            rd_kafka_topic_partition_list_add(tl, t, RD_KAFKA_PARTITION_UA);
        }
        p += n + (p[n] == ',');
    }
    rd_kafka_resp_err_t re =
        tl->cnt ? rd_kafka_subscribe(k->rk, tl) : RD_KAFKA_RESP_ERR__INVALID_ARG;
    rd_kafka_topic_partition_list_destroy(tl);
    if (re) {
        fl_ingest_kafka_close(k);
        return fl_errorf(err, FL_EINVAL, "kafka: subscribe to '%s': %s", topics,
                         rd_kafka_err2str(re));
    }
    *out = k;
    return FL_OK;
}

/* The value with CR/LF turned to blanks: raw line breaks are only ever
 * whitespace in valid JSON, so the value becomes one NDJSON line. */
static const char *one_line(fl_ingest_kafka *k, const rd_kafka_message_t *m, size_t *len)
{
    if (m->len + 1 > k->cap) {
        size_t cap = m->len + 1 > 2 * k->cap ? m->len + 1 : 2 * k->cap;
        char *b = realloc(k->buf, cap);
        if (!b)
            return NULL;
        k->buf = b;
        k->cap = cap;
    }
    if (m->len)
        memcpy(k->buf, m->payload, m->len);
    for (size_t i = 0; i < m->len; i++)
        if (k->buf[i] == '\n' || k->buf[i] == '\r')
            k->buf[i] = ' ';
    *len = m->len;
    return k->buf;
}

static fl_status dead_letter(fl_ingest_kafka *k, const rd_kafka_message_t *m, const char *key,
                             const char *why, fl_error *err)
{
    const char *topic = rd_kafka_topic_name(m->rkt);
    fprintf(stderr, "floe ingest: kafka:%s:%" PRId32 "@%" PRId64 ": %s\n", topic, m->partition,
            (int64_t)m->offset, why);
    if (!k->dlq || pos_offset(k->dlq, key) > (int64_t)m->offset)
        return FL_OK; /* no dead letters, or recorded before a restart */
    char src[1200], next[32];
    snprintf(src, sizeof src, "%s@%" PRId64, key, (int64_t)m->offset);
    snprintf(next, sizeof next, "%" PRId64, (int64_t)m->offset + 1);
    return fl_ingest_dead_letter_write(k->dlq, fl_ingest_sink_name(k->s), src, why, m->payload,
                                       m->len, key, next, err);
}

static fl_status take(fl_ingest_kafka *k, const rd_kafka_message_t *m, fl_ingest_kafka_stats *st,
                      fl_error *err)
{
    char key[1100], next[32];
    pos_key(key, sizeof key, rd_kafka_topic_name(m->rkt), m->partition);
    int64_t pos = pos_offset(k->s, key);
    if (pos >= 0 && (int64_t)m->offset < pos)
        return FL_OK; /* already in the table */
    size_t len = 0;
    const char *v = one_line(k, m, &len);
    if (!v)
        return fl_errorf(err, FL_ENOMEM, "kafka: out of memory for a %zu-byte message", m->len);
    const fl_schema *sch = fl_ingest_sink_schema(k->s);
    const fl_ice_schema *ice = fl_ingest_sink_ice_schema(k->s);
    uint64_t rows = 0;
    fl_error bad;
    fl_error_clear(&bad);
    fl_status rc = fl_ingest_body_write(sch, ice, FL_INGEST_BODY_NDJSON, v, len, k->s, &rows, &bad);
    if (rc != FL_OK) {
        fl_error again;
        fl_error_clear(&again);
        if (fl_ingest_body_write(sch, ice, FL_INGEST_BODY_NDJSON, v, len, NULL, &rows, &again) ==
            FL_OK) { /* the record converts: the sink failed */
            *err = bad;
            return rc;
        }
        FL_TRY(dead_letter(k, m, key, bad.msg, err));
        st->failed++;
    } else if (rows != 1) {
        FL_TRY(dead_letter(k, m, key, "not one JSON object", err));
        st->failed++;
    } else {
        st->rows++;
    }
    rd_kafka_timestamp_type_t tt;
    int64_t ts = rd_kafka_message_timestamp(m, &tt);
    if (ts >= 0 && tt != RD_KAFKA_TIMESTAMP_NOT_AVAILABLE)
        fl_ingest_sink_note_source_time(k->s, ts); /* the lag the checkpoint records */
    st->messages++;
    snprintf(next, sizeof next, "%" PRId64, (int64_t)m->offset + 1);
    return fl_ingest_sink_set_position(k->s, key, next, err);
}

fl_status fl_ingest_kafka_poll(fl_ingest_kafka *k, int timeout_ms, fl_ingest_kafka_stats *st,
                               fl_error *err)
{
    memset(st, 0, sizeof *st);
    for (uint32_t n = 0; n < 65536; n++) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(k->rk, timeout_ms);
        fl_status rc = k->rc;
        if (rc != FL_OK)
            *err = k->err;
        else if (m && m->err == RD_KAFKA_RESP_ERR_NO_ERROR)
            rc = take(k, m, st, err);
        else if (m && m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF)
            fprintf(stderr, "floe ingest: kafka: %s\n", rd_kafka_message_errstr(m));
        if (m)
            rd_kafka_message_destroy(m);
        char es[256];
        if (rc == FL_OK && rd_kafka_fatal_error(k->rk, es, sizeof es))
            rc = fl_errorf(err, FL_EIO, "kafka: %s", es);
        if (rc != FL_OK || !m)
            return rc;
        int64_t now = wall_ms();
        if (fl_ingest_sink_due(k->s, now) || (k->dlq && fl_ingest_sink_due(k->dlq, now))) {
            st->due = true;
            return FL_OK;
        }
    }
    return FL_OK;
}

void fl_ingest_kafka_close(fl_ingest_kafka *k)
{
    if (!k)
        return;
    k->closing = true; /* the revoke in close does not checkpoint */
    rd_kafka_consumer_close(k->rk);
    rd_kafka_destroy(k->rk);
    free(k->buf);
    free(k);
}
