/*
 * test_kafka_mock.c - the Kafka source (src/ingest/src_kafka.c) against
 * librdkafka's mock cluster: messages on two topics and five partitions,
 * one bad value; a run checkpoints, a second consumes more and "crashes"
 * (closes without a checkpoint), a third drains. The table then holds each
 * good message exactly once (checked through the SQL engine), each
 * partition's position equals its high watermark, and the bad value sits
 * once in the dead-letter table with its topic, partition and offset.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "floe/ice_table.h"
#include "floe/ingest.h"
#include "floe_test.h"

typedef struct env {
    char dir[256];
    fl_sql_session *sql;
    fl_fileio *io;
    fl_catalog *cat;
    fl_table_ident id;
    const char *levels[1];
    rd_kafka_t *prod; /* owns the mock cluster */
    char brokers[512];
} env;

static bool env_open(env *e)
{
    memset(e, 0, sizeof *e);
    if (!ft_tmpdir(e->dir, sizeof e->dir, "floe_kafka"))
        return false;
    e->sql = ft_open_sqlite(e->dir, NULL, NULL);
    if (!e->sql)
        return false;
    ft_expect(e->sql, "CREATE SCHEMA demo", "\n", "");
    ft_expect(e->sql, "CREATE TABLE demo.ev (id bigint NOT NULL, v varchar)", "\n", "");
    char uri[600], wh[600];
    snprintf(uri, sizeof uri, "sqlite:%s/cat.db", e->dir);
    snprintf(wh, sizeof wh, "%s/wh", e->dir);
    fl_error err = {0};
    e->io = fl_fileio_local();
    CHECK_OK(fl_catalog_open_uri(uri, NULL, wh, e->io, &e->cat, &err), &err);
    e->levels[0] = "demo";
    e->id = (fl_table_ident){.ns = {.levels = e->levels, .nlevels = 1}, .name = "ev"};
    char es[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    CHECK(rd_kafka_conf_set(conf, "test.mock.num.brokers", "3", es, sizeof es) == 0);
    e->prod = rd_kafka_new(RD_KAFKA_PRODUCER, conf, es, sizeof es);
    CHECK(e->prod != NULL);
    if (!e->prod || !e->cat)
        return false;
    rd_kafka_mock_cluster_t *mc = rd_kafka_handle_mock_cluster(e->prod);
    CHECK(mc != NULL);
    snprintf(e->brokers, sizeof e->brokers, "%s", rd_kafka_mock_cluster_bootstraps(mc));
    CHECK(rd_kafka_mock_topic_create(mc, "ta", 3, 1) == 0);
    CHECK(rd_kafka_mock_topic_create(mc, "tb", 2, 1) == 0);
    return true;
}

static void env_close(env *e)
{
    if (e->prod)
        rd_kafka_destroy(e->prod);
    fl_catalog_close(e->cat);
    fl_fileio_destroy(e->io);
    fl_sql_session_close(e->sql);
    ft_rmtree(e->dir);
}

/* ids [from, to): id i goes to topic ta (3 partitions) or tb (2) by i % 5. */
static void produce(env *e, int from, int to, int bad_at)
{
    for (int i = from; i < to; i++) {
        char v[128];
        if (i == bad_at)
            snprintf(v, sizeof v, "{\"id\": \"not a number %d\"", i);
        else
            snprintf(v, sizeof v, "{\"id\": %d,\n \"v\": \"r%d\"}", i, i);
        const char *topic = i % 5 < 3 ? "ta" : "tb";
        int32_t part = i % 5 < 3 ? i % 5 : i % 5 - 3;
        rd_kafka_resp_err_t re =
            rd_kafka_producev(e->prod, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(part),
                              RD_KAFKA_V_VALUE(v, strlen(v)),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        CHECK(re == 0);
    }
    CHECK(rd_kafka_flush(e->prod, 10000) == 0);
}

typedef struct run {
    fl_ingest_sink *s, *dlq;
    fl_ingest_kafka *k;
} run;

static bool run_open(env *e, run *r)
{
    fl_error err = {0};
    memset(r, 0, sizeof *r);
    CHECK_OK(fl_ingest_sink_open(e->cat, &e->id, "kp", NULL, &r->s, &err), &err);
    if (r->s)
        CHECK_OK(fl_ingest_dead_letter_open(e->cat, &e->id, "kp", NULL, &r->dlq, &err), &err);
    if (r->dlq)
        CHECK_OK(fl_ingest_kafka_open(e->brokers, "ta,tb", r->s, r->dlq, &r->k, &err), &err);
    return r->k != NULL;
}

static void run_close(run *r)
{
    fl_ingest_kafka_close(r->k);
    fl_ingest_sink_close(r->dlq);
    fl_ingest_sink_close(r->s);
}

/* Polls until `want` messages were consumed (or many idle polls pass). */
static uint64_t consume(run *r, uint64_t want)
{
    fl_error err = {0};
    uint64_t got = 0;
    for (int idle = 0; got < want && idle < 60;) {
        fl_ingest_kafka_stats st;
        CHECK_OK(fl_ingest_kafka_poll(r->k, 500, &st, &err), &err);
        got += st.messages;
        idle = st.messages ? 0 : idle + 1;
        if (err.code)
            break;
    }
    if (got != want)
        fprintf(stderr, "consumed %" PRIu64 " of %" PRIu64 "\n", got, want);
    return got;
}

static int64_t high_watermark(env *e, const char *topic, int32_t part)
{
    int64_t lo = -1, hi = -1;
    CHECK(rd_kafka_query_watermark_offsets(e->prod, topic, part, &lo, &hi, 5000) == 0);
    return hi;
}

static void test_crash_and_drain(void)
{
    env e;
    if (!env_open(&e))
        return env_close(&e);
    fl_error err = {0};
    produce(&e, 0, 100, 42);
    run r;
    if (run_open(&e, &r)) { /* first run: everything so far, checkpointed */
        CHECK(consume(&r, 100) == 100);
        fl_ingest_commit ci;
        CHECK_OK(fl_ingest_kafka_checkpoint(r.k, &ci, &err), &err);
        CHECK(ci.committed && ci.rows == 99);
    }
    run_close(&r);
    ft_expect(e.sql, "SELECT count(*), count(DISTINCT id) FROM demo.ev", "\n", "99|99\n");
    produce(&e, 100, 200, -1);
    if (run_open(&e, &r)) /* second run: consumes, dies before its checkpoint */
        CHECK(consume(&r, 100) == 100);
    run_close(&r);
    ft_expect(e.sql, "SELECT count(*) FROM demo.ev", "\n", "99\n");
    produce(&e, 200, 250, -1);
    if (run_open(&e, &r)) { /* third run: re-reads from the table's positions */
        CHECK(consume(&r, 150) == 150);
        CHECK_OK(fl_ingest_kafka_checkpoint(r.k, NULL, &err), &err);
        const char *tp[][2] = {{"ta", "0"}, {"ta", "1"}, {"ta", "2"}, {"tb", "0"}, {"tb", "1"}};
        for (int i = 0; i < 5; i++) {
            char key[64], want[32];
            snprintf(key, sizeof key, "kafka:%s:%s", tp[i][0], tp[i][1]);
            snprintf(want, sizeof want, "%" PRId64, high_watermark(&e, tp[i][0], atoi(tp[i][1])));
            const char *got = fl_ingest_sink_position(r.s, key);
            CHECK(got && !strcmp(got, want) && !strcmp(want, "50"));
        }
    }
    run_close(&r);
    ft_expect(e.sql, "SELECT count(*), count(DISTINCT id), sum(id), min(v) FROM demo.ev", "\n",
              "249|249|31083|r0\n");
    ft_expect(e.sql, "SELECT count(*) FROM demo.ev WHERE id = 42", "\n", "0\n");
    ft_expect(e.sql,
              "SELECT pipeline, source, payload = CAST('{\"id\": \"not a number 42\"' AS bytea) "
              "FROM demo.ev__dead_letter",
              "\n", "kp|kafka:ta:2@8|t\n");
    env_close(&e);
}

int main(void)
{
    TEST_RUN(test_crash_and_drain);
    return TEST_EXIT();
}
