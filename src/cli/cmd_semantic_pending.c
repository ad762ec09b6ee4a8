/*
 * cmd_semantic_pending.c - `floe semantic pending list|show|approve|reject`:
 * an owner's side of MCP's propose_metric, which files each proposed metric
 * as <models>/.pending/<id>.yaml (a metrics: file whose meta.pending says
 * who proposed it, when, and how its numbers compared; docs/mcp.md).
 *
 *   list            every proposal: id, metric, type, who, when, and
 *                   whether it still loads with the folder's model
 *   show ID         the proposal's YAML
 *   approve ID      moves it into the folder as <metric>.yml (never over an
 *                   existing file) and loads the folder: a model that does
 *                   not load puts the proposal back and reports why
 *   reject ID       deletes it
 *
 * Every check is the semantic layer's loader (fl_sem_model_load_dir_with):
 * no YAML is read here. An id is a file name in .pending (no '/', no
 * leading dot), so it cannot name a file elsewhere.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_semantic.h"

typedef struct proposal {
    char path[1100];
    char *text;
    size_t len;
    fl_sem_model *with; /* the folder's model with the proposal; NULL when it does not load */
    const fl_sem_member_info *metric;
    fl_error err;
} proposal;

static bool id_ok(const char *id)
{
    if (!*id || id[0] == '.' || strlen(id) > 200)
        return false;
    for (const char *p = id; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.'))
            return false;
    return true;
}

static bool slurp(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char *b = NULL;
    size_t n = 0, cap = 0;
    char chunk[8192];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0 && n < (16u << 20)) {
        if (n + got + 1 > cap) {
            cap = (n + got + 1) * 2;
            char *nb = realloc(b, cap);
            if (!nb) {
                free(b);
                fclose(f);
                return false;
            }
            b = nb;
        }
        memcpy(b + n, chunk, got);
        n += got;
    }
    fclose(f);
    if (!b && !(b = calloc(1, 1)))
        return false;
    b[n] = 0;
    *text = b;
    *len = n;
    return true;
}

/* Reads <models>/.pending/<id>.yaml and loads it with the folder. */
static bool open_proposal(const char *models, const char *id, proposal *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->path, sizeof p->path, "%s/.pending/%s.yaml", models, id);
    if (!slurp(p->path, &p->text, &p->len))
        return false;
    fl_sem_file f = {p->path, p->text, p->len};
    if (fl_sem_model_load_dir_with(models, &f, 1, &p->with, &p->err) != FL_OK)
        return true;
    for (uint32_t i = 0; i < fl_sem_model_nmembers(p->with); i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(p->with, i);
        if (mi->kind == FL_SEM_METRIC && !strcmp(mi->file, p->path))
            p->metric = mi;
    }
    return true;
}

static void close_proposal(proposal *p)
{
    fl_sem_model_free(p->with);
    free(p->text);
}

/* meta.pending.<key> of the proposal's metric ("" when absent). */
static void pending_field(const proposal *p, const char *key, char *out, size_t cap)
{
    out[0] = 0;
    json_t *meta = p->metric ? json_loads(p->metric->meta, 0, NULL) : NULL;
    const char *v = json_string_value(json_object_get(json_object_get(meta, "pending"), key));
    snprintf(out, cap, "%s", v ? v : "");
    json_decref(meta);
}

static int cmd_list(const char *models)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/.pending", models);
    DIR *d = opendir(dir);
    if (!d) {
        printf("no pending proposals in %s\n", dir);
        return 0;
    }
    printf("%-48s %-24s %-8s %-16s %-20s %s\n", "ID", "METRIC", "TYPE", "PROPOSED_BY",
           "PROPOSED_AT", "LOADS");
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (e->d_name[0] == '.' || n < 6 || strcmp(e->d_name + n - 5, ".yaml"))
            continue;
        char id[256];
        snprintf(id, sizeof id, "%.*s", (int)(n - 5), e->d_name);
        proposal p;
        if (!open_proposal(models, id, &p))
            continue;
        char by[128], at[64];
        pending_field(&p, "proposed_by", by, sizeof by);
        pending_field(&p, "proposed_at", at, sizeof at);
        printf("%-48s %-24s %-8s %-16s %-20s %s\n", id, p.metric ? p.metric->name : "?",
               p.metric ? p.metric->type : "?", by, at, p.with ? "yes" : p.err.msg);
        close_proposal(&p);
    }
    closedir(d);
    return 0;
}

static int cmd_approve(const char *models, const char *id, proposal *p)
{
    if (!p->with || !p->metric) {
        fprintf(stderr, "floe semantic pending approve: %s does not load with %s: %s\n", id, models,
                p->with ? "no metric in it" : p->err.msg);
        return 1;
    }
    char dest[1100];
    snprintf(dest, sizeof dest, "%s/%s.yml", models, p->metric->name);
    if (link(p->path, dest) != 0) {
        fprintf(stderr, "floe semantic pending approve: cannot make %s: %s\n", dest,
                strerror(errno));
        return 1;
    }
    unlink(p->path);
    fl_sem_model *m = NULL;
    fl_error err = {0};
    if (fl_sem_model_load_dir(models, &m, &err) != FL_OK) {
        if (link(dest, p->path) == 0)
            unlink(dest);
        fprintf(stderr, "floe semantic pending approve: %s: the folder does not load with it: %s\n",
                id, err.msg);
        return 1;
    }
    printf("approved: metric %s is in %s (model %s); restart floe serve / floe mcp to serve it\n",
           p->metric->name, dest, fl_sem_model_version(m));
    fl_sem_model_free(m);
    return 0;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: floe semantic pending <list|show ID|approve ID|reject ID> [--models DIR]\n"
                 "  Proposals MCP's propose_metric filed in DIR/.pending/ (DIR: --models,\n"
                 "  default $FLOE_MODELS or ./models).\n");
}

int fl_cli_semantic_pending(int argc, char **argv)
{
    const char *action = NULL, *id = NULL, *models = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--models") && i + 1 < argc) {
            models = argv[++i];
        } else if (!strncmp(argv[i], "--models=", 9)) {
            models = argv[i] + 9;
        } else if (argv[i][0] == '-') {
            return cli_unknown_option("semantic pending", argv[i]);
        } else if (!action) {
            action = argv[i];
        } else if (!id) {
            id = argv[i];
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (!models)
        models =
            getenv("FLOE_MODELS") && *getenv("FLOE_MODELS") ? getenv("FLOE_MODELS") : "./models";
    if (!action || (strcmp(action, "list") && strcmp(action, "show") && strcmp(action, "approve") &&
                    strcmp(action, "reject"))) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(action, "list"))
        return id ? (usage(stderr), 2) : cmd_list(models);
    if (!id || !id_ok(id)) {
        fprintf(stderr, "floe semantic pending %s: %s (an id from floe semantic pending list)\n",
                action, id ? "not a proposal id" : "which proposal?");
        return 2;
    }
    proposal p;
    if (!open_proposal(models, id, &p)) {
        fprintf(stderr, "floe semantic pending %s: no proposal %s in %s/.pending\n", action, id,
                models);
        return 1;
    }
    int rc = 0;
    if (!strcmp(action, "show")) {
        fwrite(p.text, 1, p.len, stdout);
        printf("# loads with %s: %s\n", models, p.with ? "yes" : p.err.msg);
    } else if (!strcmp(action, "approve")) {
        rc = cmd_approve(models, id, &p);
    } else if (unlink(p.path) != 0) {
        fprintf(stderr, "floe semantic pending reject: %s: %s\n", p.path, strerror(errno));
        rc = 1;
    } else {
        printf("rejected: %s (deleted)\n", id);
    }
    close_proposal(&p);
    return rc;
}
