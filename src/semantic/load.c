/*
 * load.c - a model from YAML files: the folder walk (*.yml, *.yaml, sorted
 * by relative path), libyaml parsing of every document of every file, the
 * content hash that is the model's version, and lookups by name.
 *
 * Invariants: after fl_sem_model_load_* returns FL_OK the model is
 * validated (validate.c) and never changes; the version hashes each file's
 * relative name and bytes in sorted order, so the same folder copied
 * elsewhere has the same version.
 */
#include <dirent.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "semantic/load.h"

#define SEM_MAX_FILE (16u << 20)
#define SEM_MAX_FILES 10000u

typedef struct sem_loader {
    fl_sem_model *m;
    uint32_t cap_models, cap_metrics, cap_saved;
} sem_loader;

static fl_status grow(void **items, uint32_t n, uint32_t *cap, size_t size, fl_error *err)
{
    if (n < *cap)
        return FL_OK;
    uint32_t nc = *cap ? *cap * 2 : 16;
    void *p = realloc(*items, (size_t)nc * size);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memset((char *)p + (size_t)*cap * size, 0, (size_t)(nc - *cap) * size);
    *items = p;
    *cap = nc;
    return FL_OK;
}

static fl_status read_section(sem_loader *L, sem_doc *d, const char *key, fl_error *err)
{
    yaml_node_t *seq = sem_map_get(d, sem_doc_root(d), key);
    if (!seq)
        return FL_OK;
    if (seq->type != YAML_SEQUENCE_NODE)
        return sem_doc_error(d, seq, err, NULL, "'%s' must be a list", key);
    fl_sem_model *m = L->m;
    bool models = !strcmp(key, "semantic_models"), saved = !strcmp(key, "saved_queries");
    for (uint32_t i = 0; i < sem_seq_len(seq); i++) {
        yaml_node_t *it = sem_seq_item(d, seq, i);
        if (saved) {
            FL_TRY(grow((void **)&m->saved, m->nsaved, &L->cap_saved, sizeof *m->saved, err));
            FL_TRY(sem_read_saved(d, it, &m->saved[m->nsaved++], err));
        } else if (models) {
            FL_TRY(grow((void **)&m->models, m->nmodels, &L->cap_models, sizeof *m->models, err));
            FL_TRY(sem_read_smodel(d, it, &m->models[m->nmodels++], err));
        } else {
            FL_TRY(
                grow((void **)&m->metrics, m->nmetrics, &L->cap_metrics, sizeof *m->metrics, err));
            FL_TRY(sem_read_metric(d, it, &m->metrics[m->nmetrics++], err));
        }
    }
    return FL_OK;
}

static sem_smodel *sink_model(void *ctx, fl_error *err)
{
    sem_loader *L = ctx;
    if (grow((void **)&L->m->models, L->m->nmodels, &L->cap_models, sizeof *L->m->models, err))
        return NULL;
    return &L->m->models[L->m->nmodels++];
}

static sem_metric *sink_metric(void *ctx, fl_error *err)
{
    sem_loader *L = ctx;
    if (grow((void **)&L->m->metrics, L->m->nmetrics, &L->cap_metrics, sizeof *L->m->metrics, err))
        return NULL;
    return &L->m->metrics[L->m->nmetrics++];
}

static fl_status read_latest(sem_loader *L, sem_doc *d, fl_error *err)
{
    yaml_node_t *seq = sem_map_get(d, sem_doc_root(d), "models");
    if (!seq)
        return FL_OK;
    if (seq->type != YAML_SEQUENCE_NODE)
        return sem_doc_error(d, seq, err, NULL, "'models' must be a list");
    sem_sink sink = {L, sink_model, sink_metric};
    return sem_read_latest_models(d, seq, &sink, err);
}

static fl_status read_file(sem_loader *L, const fl_sem_file *f, fl_error *err)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)f->text, f->len);
    sem_doc d = {.file = fl_arena_strdup(&L->m->arena, f->name), .arena = &L->m->arena};
    fl_status rc = FL_OK;
    for (;;) {
        if (!yaml_parser_load(&p, &d.doc)) {
            rc = fl_errorf(err, FL_ESYNTAX, "%s:%u: YAML: %s%s%s", f->name,
                           (unsigned)p.problem_mark.line + 1, p.problem ? p.problem : "bad YAML",
                           p.context ? " " : "", p.context ? p.context : "");
            break;
        }
        yaml_node_t *root = sem_doc_root(&d);
        if (!root) {
            yaml_document_delete(&d.doc);
            break;
        }
        if (root->type != YAML_MAPPING_NODE)
            rc = sem_doc_error(&d, root, err, NULL,
                               "a model file is a mapping (semantic_models:, "
                               "metrics:)");
        if (rc == FL_OK)
            rc = read_section(L, &d, "semantic_models", err);
        if (rc == FL_OK)
            rc = read_latest(L, &d, err);
        if (rc == FL_OK)
            rc = read_section(L, &d, "metrics", err);
        if (rc == FL_OK)
            rc = read_section(L, &d, "saved_queries", err);
        yaml_document_delete(&d.doc);
        if (rc != FL_OK)
            break;
    }
    yaml_parser_delete(&p);
    return rc;
}

static const char *hash_name(const char *name)
{
    const char *s = strrchr(name, '/');
    return s ? s + 1 : name;
}

static fl_status hash_files(fl_sem_model *m, const fl_sem_file *f, uint32_t n, fl_error *err)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    unsigned char md[32];
    unsigned int mdlen = 0;
    bool ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL);
    for (uint32_t i = 0; ok && i < n; i++) {
        const char *nm = hash_name(f[i].name);
        uint64_t len = f[i].len;
        ok = EVP_DigestUpdate(c, nm, strlen(nm) + 1) && EVP_DigestUpdate(c, &len, sizeof len) &&
             EVP_DigestUpdate(c, f[i].text, f[i].len);
    }
    ok = ok && EVP_DigestFinal_ex(c, md, &mdlen);
    EVP_MD_CTX_free(c);
    if (!ok)
        return fl_errorf(err, FL_ENOMEM, "cannot hash the model files");
    int k = snprintf(m->version, sizeof m->version, "sha256:");
    for (unsigned i = 0; i < mdlen; i++)
        k += snprintf(m->version + k, sizeof m->version - (size_t)k, "%02x", md[i]);
    return FL_OK;
}

static int file_cmp(const void *a, const void *b)
{
    return strcmp(((const fl_sem_file *)a)->name, ((const fl_sem_file *)b)->name);
}

fl_status fl_sem_model_load_files(const fl_sem_file *files, uint32_t nfiles, fl_sem_model **out,
                                  fl_error *err)
{
    *out = NULL;
    fl_sem_file *sorted = calloc(nfiles + 1, sizeof *sorted);
    fl_sem_model *m = calloc(1, sizeof *m);
    if (!sorted || !m) {
        free(sorted);
        free(m);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    fl_arena_init(&m->arena, 0);
    if (nfiles)
        memcpy(sorted, files, nfiles * sizeof *sorted);
    qsort(sorted, nfiles, sizeof *sorted, file_cmp);
    sem_loader L = {.m = m};
    fl_status rc = hash_files(m, sorted, nfiles, err);
    for (uint32_t i = 0; rc == FL_OK && i < nfiles; i++)
        rc = read_file(&L, &sorted[i], err);
    free(sorted);
    if (rc == FL_OK)
        rc = sem_validate(m, err);
    if (rc == FL_OK)
        rc = sem_build_members(m, err);
    if (rc != FL_OK) {
        fl_sem_model_free(m);
        return rc;
    }
    *out = m;
    return FL_OK;
}

/* ---- the folder ---- */

typedef struct file_list {
    fl_sem_file *f;
    uint32_t n, cap;
} file_list;

static bool is_yaml(const char *name)
{
    size_t n = strlen(name);
    return (n > 4 && !strcmp(name + n - 4, ".yml")) || (n > 5 && !strcmp(name + n - 5, ".yaml"));
}

static fl_status slurp(const char *path, fl_sem_file *f, fl_error *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return fl_errorf(err, FL_EIO, "%s: cannot open", path);
    char *buf = NULL;
    long n = -1;
    if (fseek(fp, 0, SEEK_END) == 0)
        n = ftell(fp);
    if (n >= 0 && (unsigned long)n <= SEM_MAX_FILE && fseek(fp, 0, SEEK_SET) == 0)
        buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    if (!buf)
        return fl_errorf(err, n > (long)SEM_MAX_FILE ? FL_ELIMIT : FL_EIO,
                         "%s: cannot read (at most 16 MiB)", path);
    buf[n] = 0;
    f->text = buf;
    f->len = (size_t)n;
    return FL_OK;
}

static fl_status walk(const char *dir, int depth, file_list *L, fl_error *err)
{
    if (depth > 8)
        return FL_OK;
    DIR *dp = opendir(dir);
    if (!dp)
        return fl_errorf(err, FL_ENOTFOUND, "%s: cannot open the models folder", dir);
    fl_status rc = FL_OK;
    struct dirent *e;
    while (rc == FL_OK && (e = readdir(dp))) {
        if (e->d_name[0] == '.')
            continue;
        char *path = NULL;
        if (asprintf(&path, "%s/%s", dir, e->d_name) < 0) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            break;
        }
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            rc = walk(path, depth + 1, L, err);
        } else if (is_yaml(e->d_name) && L->n < SEM_MAX_FILES) {
            rc = grow((void **)&L->f, L->n, &L->cap, sizeof *L->f, err);
            if (rc == FL_OK) {
                L->f[L->n].name = path;
                path = NULL;
                rc = slurp(L->f[L->n].name, &L->f[L->n], err);
                L->n++;
            }
        }
        free(path);
    }
    closedir(dp);
    return rc;
}

fl_status fl_sem_model_load_dir(const char *dir, fl_sem_model **out, fl_error *err)
{
    return fl_sem_model_load_dir_with(dir, NULL, 0, out, err);
}

fl_status fl_sem_model_load_dir_with(const char *dir, const fl_sem_file *extra, uint32_t nextra,
                                     fl_sem_model **out, fl_error *err)
{
    *out = NULL;
    file_list L = {0};
    fl_status rc = walk(dir, 0, &L, err);
    if (rc == FL_OK && !L.n)
        rc = fl_errorf(err, FL_ENOTFOUND, "%s: no .yml or .yaml files", dir);
    for (uint32_t i = 0; rc == FL_OK && i < nextra; i++) {
        rc = grow((void **)&L.f, L.n, &L.cap, sizeof *L.f, err);
        if (rc == FL_OK) {
            L.f[L.n].name = strdup(extra[i].name);
            L.f[L.n].text = malloc(extra[i].len + 1);
            L.f[L.n].len = extra[i].len;
            if (!L.f[L.n].name || !L.f[L.n].text)
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            else
                memcpy((char *)L.f[L.n].text, extra[i].text, extra[i].len);
            if (L.f[L.n].text)
                ((char *)L.f[L.n].text)[extra[i].len] = 0;
            L.n++;
        }
    }
    if (rc == FL_OK)
        rc = fl_sem_model_load_files(L.f, L.n, out, err);
    for (uint32_t i = 0; i < L.n; i++) {
        free((char *)L.f[i].name);
        free((char *)L.f[i].text);
    }
    free(L.f);
    return rc;
}

void fl_sem_model_free(fl_sem_model *m)
{
    if (!m)
        return;
    free(m->models);
    free(m->metrics);
    free(m->saved);
    free(m->members);
    fl_arena_free(&m->arena);
    free(m);
}

const char *fl_sem_model_version(const fl_sem_model *m)
{
    return m->version;
}

/* ---- lookups ---- */

const sem_smodel *sem_find_model(const fl_sem_model *m, const char *name)
{
    for (uint32_t i = 0; i < m->nmodels; i++)
        if (!strcmp(m->models[i].name, name))
            return &m->models[i];
    return NULL;
}

const sem_metric *sem_find_metric(const fl_sem_model *m, const char *name)
{
    for (uint32_t i = 0; i < m->nmetrics; i++)
        if (!strcmp(m->metrics[i].name, name))
            return &m->metrics[i];
    return NULL;
}

const sem_smodel *sem_find_measure(const fl_sem_model *m, const char *name,
                                   const sem_measure **measure)
{
    for (uint32_t i = 0; i < m->nmodels; i++)
        for (uint32_t j = 0; j < m->models[i].nmeasures; j++)
            if (!strcmp(m->models[i].measures[j].name, name)) {
                *measure = &m->models[i].measures[j];
                return &m->models[i];
            }
    *measure = NULL;
    return NULL;
}

const sem_entity *sem_model_entity(const sem_smodel *sm, const char *name)
{
    for (uint32_t i = 0; i < sm->nentities; i++)
        if (!strcmp(sm->entities[i].name, name))
            return &sm->entities[i];
    return NULL;
}

const sem_dimension *sem_model_dim(const sem_smodel *sm, const char *name)
{
    for (uint32_t i = 0; i < sm->ndims; i++)
        if (!strcmp(sm->dims[i].name, name))
            return &sm->dims[i];
    return NULL;
}

bool sem_entity_identifies(const sem_entity *e)
{
    return strcmp(e->type, "foreign") != 0;
}

const char *sem_at(const sem_where *w, char *buf, size_t cap)
{
    if (!w->file)
        return "";
    snprintf(buf, cap, "%s:%u: ", w->file, w->line);
    return buf;
}
