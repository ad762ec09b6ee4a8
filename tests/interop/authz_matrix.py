#!/usr/bin/python3
"""authz_matrix.py - the privilege matrix of issue 14 against a running `floe serve`.

A corpus of statements (every statement kind, the lakehouse syntax, every table
function, views of each security mode, metadata tables, time travel, COPY,
cursors, prepared statements, transaction blocks) is run by principals holding
different grants, over the Postgres wire protocol and over POST /v1/sql. Each
statement names the privileges it needs ("needs"); an independent model of the
grant rules (src/auth/README.md: a namespace grant covers its sub-namespaces
and their tables, level by level; privileges never imply each other) says
whether the principal holds them. Checked for every cell:
  - allowed exactly when the model says so, refused with SQLSTATE 42501 (HTTP
    403) otherwise, never "does not exist" for an object the principal may not
    know;
  - pgwire and HTTP agree: same outcome, same rows for queries;
  - after each principal's pass, every fixed table and view it may not change
    is byte-for-byte unchanged (files under its folder and its catalog entry).
Plus the REST view endpoint (a view created over a table its creator cannot
read never shows it) and the register endpoint.

Usage: authz_matrix.py HTTP_HOSTPORT PG_HOSTPORT FLOE_BIN CATALOG_URI WAREHOUSE
Prints one line per failure and a summary "authz matrix: N cells, M failed".
"""
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request

import psycopg2

HTTP, PG, FLOE, CATALOG, WH = sys.argv[1:6]
PGHOST, PGPORT = PG.rsplit(':', 1)
failures = []


def fail(msg):
    failures.append(msg)
    print('FAIL: ' + msg, flush=True)


def admin_cli(*args):
    out = subprocess.run([FLOE, 'admin', '--catalog', CATALOG, *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f'floe admin {" ".join(args)}: {out.stderr}')
    return out.stdout


def secret_of(text):
    for line in text.splitlines():
        if line.startswith('client_secret:'):
            return line.split(':', 1)[1].strip()
    raise SystemExit('no secret in: ' + text)


# ---- principals and the grant model ----

# name -> list of (privilege, namespace levels, table or None); None = admin
GRANTS = {
    'p_none': [],
    'p_reader': [('read', ['pub'], None)],
    'p_pubfull': [(p, ['pub'], None) for p in ('read', 'write', 'create', 'drop')],
    'p_sandbox': [(p, ['sandbox'], None) for p in ('read', 'write', 'create', 'drop')],
    'p_writeonly': [('write', ['pub'], None), ('write', ['sandbox'], None)],
    'p_tablegrant': [('read', ['secret'], 't'), ('read', ['pub'], 'p')],
    'p_deep': [('read', ['secret', 'deep'], None), ('create', ['secret', 'deep'], None),
               ('write', ['secret', 'deep'], None), ('drop', ['secret', 'deep'], None)],
    'admin': None,
}
# the principal that creates pub.v_rest through REST (create + read on pub, nothing on secret)
VIEWMAKER = 'p_viewmaker'


def covers(grant, priv, levels, table):
    gp, glv, gt = grant
    if gp != priv or len(glv) > len(levels) or levels[:len(glv)] != glv:
        return False
    if gt is None:
        return True
    return len(glv) == len(levels) and table == gt


def holds(principal, need):
    """need: ('read'|'write'|'create'|'drop', levels, table|None) | 'admin' | 'deny' | 'ok'."""
    if need == 'ok':
        return True
    if need == 'deny':
        return False
    grants = GRANTS[principal]
    if grants is None:
        return True
    if need == 'admin':
        return False
    priv, levels, table = need
    return any(covers(g, priv, levels, table) for g in grants)


def parse_need(tok, subst):
    """'r:pub.p' 'rw:a.b.t' 'c:ns:sandbox' 'c:catalog' 'd:ns:a.b' 'admin' 'deny' 'ok'."""
    tok = tok.format(**subst)
    if tok in ('admin', 'deny', 'ok'):
        return [tok]
    if tok == 'c:catalog':
        return [('create', [], None)]
    letters, rest = tok.split(':', 1)
    names = {'r': 'read', 'w': 'write', 'c': 'create', 'd': 'drop'}
    out = []
    for ch in letters:
        if rest.startswith('ns:'):
            out.append((names[ch], rest[3:].split('.'), None))
        else:
            parts = rest.split('.')
            out.append((names[ch], parts[:-1], parts[-1]))
    return out


# ---- the corpus ----
# Each entry: sql (with {u} unique per run, {X} etc.), needs (tokens), kind
# 'query' (rows compared across paths) or 'change', optional setup (as admin),
# pg_only (COPY, cursors, blocks: no HTTP form), ns (default namespace).

READ_TARGETS = {  # fixed tables every principal reads: (qualified, namespace, name)
    'pub.p': ('pub', 'p'), 'secret.t': ('secret', 't'), 'sandbox.s': ('sandbox', 's'),
    'secret.deep.d': ('secret.deep', 'd'),
}
NAMESPACES = ['pub', 'secret', 'sandbox', 'secret.deep']


def corpus():
    C = []

    def add(sql, needs, kind='query', **kw):
        C.append(dict(sql=sql, needs=needs, kind=kind, **kw))

    for T, (ns, name) in READ_TARGETS.items():
        r = 'r:' + T
        add(f'SELECT * FROM {T} ORDER BY 1', [r])
        add(f'SELECT count(*) FROM {T}', [r])
        add(f"SELECT * FROM {T} FOR VERSION AS OF 'main' ORDER BY 1", [r])
        add(f'SELECT count(*) FROM {T} FOR VERSION AS OF {{sid_{name}}}', [r])
        add(f"SELECT count(*) FROM {T} FOR TIMESTAMP AS OF TIMESTAMP '2999-01-01 00:00:00'", [r])
        for mt in ('snapshots', 'history', 'refs', 'manifests', 'all_manifests', 'files',
                   'data_files', 'delete_files', 'entries', 'partitions'):
            add(f'SELECT count(*) FROM {ns}."{name}${mt}"', [r])
        add(f'SELECT * FROM (SELECT id FROM {T}) x ORDER BY 1', [r])
        add(f'WITH c AS (SELECT id FROM {T}) SELECT count(*) FROM c', [r])
        add(f'SELECT count(*) FROM pub.p WHERE id IN (SELECT id FROM {T})', [r, 'r:pub.p'])
        add(f'SELECT count(*) FROM pub.p p WHERE EXISTS (SELECT 1 FROM {T} x WHERE x.id = p.id)',
            [r, 'r:pub.p'])
        add(f'SELECT (SELECT max(id) FROM {T})', [r])
        add(f'SELECT count(*) FROM pub.p p, LATERAL (SELECT * FROM {T} x WHERE x.id = p.id) l',
            [r, 'r:pub.p'])
        add(f'SELECT id FROM pub.p UNION SELECT id FROM {T} ORDER BY 1', [r, 'r:pub.p'])
        add(f'SELECT count(*) FROM pub.p JOIN {T} x USING (id)', [r, 'r:pub.p'])
        add(f'SELECT row_number() OVER (ORDER BY id) FROM {T} ORDER BY 1', [r])
        add(f'EXPLAIN SELECT * FROM {T}', [r], kind='change')
        add(f'EXPLAIN ANALYZE SELECT count(*) FROM {T}', [r], kind='change')
        add(f'INSERT INTO sandbox.s SELECT id, \'copied\' FROM {T} WHERE false', [r, 'w:sandbox.s'],
            kind='change')
        add(f'CREATE TABLE sandbox.c{{u}} AS SELECT * FROM {T}', [r, 'c:ns:sandbox'], kind='change')
        add(f'CREATE VIEW sandbox.v{{u}} AS SELECT id FROM {T}', [r, 'c:ns:sandbox'], kind='change')
        add(f'MERGE INTO sandbox.w_{{pp}} t USING {T} s ON t.id = s.id WHEN MATCHED THEN UPDATE SET '
            f'v = \'m\' WHEN NOT MATCHED THEN INSERT VALUES (s.id, \'m\')',
            [r, 'rw:sandbox.w_{pp}'], kind='change')
        add(f'UPDATE sandbox.w_{{pp}} SET v = \'u\' FROM {T} s WHERE w_{{pp}}.id = s.id',
            [r, 'rw:sandbox.w_{pp}'], kind='change')
        add(f'DELETE FROM sandbox.w_{{pp}} USING {T} s WHERE w_{{pp}}.id = s.id AND false',
            [r, 'rw:sandbox.w_{pp}'], kind='change')
        add(f"COPY {T} TO STDOUT", [r], kind='change', pg_only=True)
        add(f"COPY (SELECT id FROM {T}) TO STDOUT (FORMAT csv)", [r], kind='change', pg_only=True)
        add(f'DECLARE cur{{u}} CURSOR WITH HOLD FOR SELECT * FROM {T}; CLOSE cur{{u}}', [r],
            kind='change', pg_only=True)
        add(f'PREPARE st{{u}} AS SELECT * FROM {T}; EXECUTE st{{u}}; DEALLOCATE st{{u}}', [r],
            kind='change', pg_only=True)

    for ns in NAMESPACES:
        X = f'{ns}.w_{{pp}}'  # a table per namespace, principal and path (made before the pass)
        rw, w = 'rw:' + X, 'w:' + X
        add(f"INSERT INTO {X} VALUES (100, 'n')", [w], kind='change')
        add(f'INSERT INTO {X} SELECT * FROM {X}', [rw], kind='change')
        add(f"INSERT INTO {X} VALUES (101, 'n') RETURNING id", [rw], kind='change')
        add(f"INSERT INTO {X} SELECT id, v FROM pub.p FOR VERSION AS OF 'main'", [w, 'r:pub.p'],
            kind='change')
        add(f"UPDATE {X} SET v = 'u' WHERE id = 1", [rw], kind='change')
        add(f'DELETE FROM {X} WHERE id = 2', [rw], kind='change')
        add(f'MERGE INTO {X} t USING pub.p s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v '
            f'WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)', [rw, 'r:pub.p'], kind='change')
        add(f'ANALYZE {X}', [rw], kind='change')
        add(f'ANALYZE {X} (v)', [rw], kind='change')
        add(f'ALTER TABLE {X} EXECUTE optimize', [w], kind='change')
        add(f"ALTER TABLE {X} EXECUTE expire_snapshots(retention_threshold => '7d')", [w],
            kind='change')
        add(f"ALTER TABLE {X} EXECUTE remove_orphan_files(retention_threshold => '7d')", [w],
            kind='change')
        add(f'ALTER TABLE {X} EXECUTE rewrite_manifests', [w], kind='change')
        add(f'ALTER TABLE {X} ADD COLUMN z{{u}} int', [w], kind='change')
        add(f'BEGIN; INSERT INTO {X} VALUES (7, \'blk\'); COMMIT', [w], kind='change', pg_only=True)
        # destructive ones on a table of their own
        Y = f'{ns}.y{{u}}'
        setup = [f'CREATE TABLE {Y} (id int, v text)', f"INSERT INTO {Y} VALUES (1, 'a'), (2, 'b')"]
        add(f"COPY {Y} FROM STDIN", ['rw:' + Y], kind='change', pg_only=True, setup=setup,
            copy_in='5\tcp\n')
        add(f"COPY {Y} (id) FROM STDIN (FORMAT csv)", ['rw:' + Y], kind='change', pg_only=True,
            setup=setup, copy_in='6\n')
        add(f'TRUNCATE {Y}', ['w:' + Y], kind='change', setup=setup)
        add(f'DELETE FROM {Y}', ['rw:' + Y], kind='change', setup=setup)
        add(f'ALTER TABLE {Y} RENAME COLUMN v TO v2', ['w:' + Y], kind='change', setup=setup)
        add(f'ALTER TABLE {Y} DROP COLUMN v', ['w:' + Y], kind='change', setup=setup)
        add(f'ALTER TABLE {Y} RENAME TO z{{u}}', ['d:' + Y, f'c:ns:{ns}'], kind='change',
            setup=setup)
        add(f'DROP TABLE {Y}', ['d:' + Y], kind='change', setup=setup)
        add(f'DROP TABLE IF EXISTS {Y}', ['d:' + Y], kind='change', setup=setup)
        # creation
        add(f'CREATE TABLE {ns}.n{{u}} (id int, ts timestamptz)', [f'c:ns:{ns}'], kind='change')
        add(f"CREATE TABLE {ns}.n{{u}} (id int) WITH (partitioning = ARRAY['bucket(4, id)'])",
            [f'c:ns:{ns}'], kind='change')
        add(f'CREATE TABLE {ns}.n{{u}} AS SELECT 1 AS id', [f'c:ns:{ns}'], kind='change')
        add(f'CREATE TABLE IF NOT EXISTS {ns}.w_{{pp}} (id int)', [f'c:ns:{ns}'], kind='change')
        add(f'CREATE VIEW {ns}.nv{{u}} AS SELECT 1 AS x', [f'c:ns:{ns}'], kind='change')
        add(f'CREATE VIEW {ns}.nv{{u}} AS SELECT id FROM pub.p', [f'c:ns:{ns}', 'r:pub.p'],
            kind='change')
        add(f'CREATE VIEW {ns}.nv{{u}} WITH (security_invoker = true) AS SELECT id FROM secret.t',
            [f'c:ns:{ns}', 'r:secret.t'], kind='change')
        V = f'{ns}.vv{{u}}'
        add(f'CREATE OR REPLACE VIEW {V} AS SELECT 2 AS x', [f'c:ns:{ns}', 'w:' + V],
            kind='change', setup=[f'CREATE VIEW {V} AS SELECT 1 AS x'])
        add(f'DROP VIEW {V}', ['d:' + V], kind='change', setup=[f'CREATE VIEW {V} AS SELECT 1 AS x'])
        add(f'CREATE SCHEMA "{ns}.k{{u}}"', [f'c:ns:{ns}'], kind='change')
        add(f'DROP SCHEMA "{ns}.e{{u}}"', [f'd:ns:{ns}.e{{u}}'], kind='change',
            setup=[f'CREATE SCHEMA "{ns}.e{{u}}"'])
        add(f'DROP SCHEMA "{ns}.e{{u}}" CASCADE', [f'd:ns:{ns}.e{{u}}'], kind='change',
            setup=[f'CREATE SCHEMA "{ns}.e{{u}}"', f'CREATE TABLE "{ns}.e{{u}}".t (id int)'])

    # views: a view and what it reads are one decision each
    add('SELECT * FROM pub.v ORDER BY 1', ['r:pub.v'])
    add('SELECT * FROM pub.v_secret ORDER BY 1', ['r:pub.v_secret'])  # definer admin
    add('SELECT * FROM pub.v_chain ORDER BY 1', ['r:pub.v_chain'])    # over v_secret
    add('SELECT * FROM pub.v_inv ORDER BY 1', ['r:pub.v_inv', 'r:secret.t'])
    add('SELECT * FROM pub.v_rest ORDER BY 1', ['deny'])  # REST-made by a non-reader of secret.t
    add('SELECT count(*) FROM pub.v_rest', ['deny'])
    add('SELECT * FROM pub.v_nodefiner ORDER BY 1', ['r:pub.v_nodefiner', 'r:secret.t'])
    add('SELECT count(*) FROM pub.p JOIN pub.v_secret USING (id)', ['r:pub.p', 'r:pub.v_secret'])
    add('CREATE VIEW sandbox.vs{u} AS SELECT * FROM pub.v_secret',
        ['c:ns:sandbox', 'r:pub.v_secret'], kind='change')
    # unqualified names resolve in the default namespace, pg_ names included
    add('SELECT * FROM pg_payroll', ['r:secret.pg_payroll'], ns='secret')
    add('SELECT * FROM t ORDER BY 1', ['r:secret.t'], ns='secret')
    add('SELECT count(*) FROM "t$snapshots"', ['r:secret.t'], ns='secret')
    add('SELECT * FROM p ORDER BY 1', ['r:pub.p'], ns='pub')
    add('SELECT * FROM secret.pg_payroll', ['r:secret.pg_payroll'])
    # table functions: files need the admin role; the others nothing
    add("SELECT count(*) FROM read_parquet('{secret_t_file}')", ['admin'])
    add("SELECT count(*) FROM read_parquet('{secret_t_file}') JOIN pub.p FOR VERSION AS OF "
        "'main' USING (id)", ['admin', 'r:pub.p'])
    add("SELECT count(*) FROM read_csv('{csv_file}')", ['admin'])
    add("SELECT count(*) FROM read_json('{json_file}')", ['admin'])
    add("SELECT count(*) FROM iceberg_scan('{secret_t_location}')", ['admin'])
    add("CREATE TABLE sandbox.f{u} AS SELECT * FROM read_parquet('{secret_t_file}')",
        ['admin', 'c:ns:sandbox'], kind='change')
    add('SELECT * FROM generate_series(1, 3) g ORDER BY 1', ['ok'])
    add('SELECT count(*) FROM generate_series(1, 10) a, generate_series(1, 10) b', ['ok'])
    add('SELECT * FROM unnest(ARRAY[3, 1, 2]) u ORDER BY 1', ['ok'])
    add('SELECT unnest(ARRAY[1, 2]) ORDER BY 1', ['ok'])
    add('SELECT 1 + 1', ['ok'])
    add('VALUES (1), (2)', ['ok'])
    # catalogs: always allowed, filtered (content checked separately)
    add("SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema NOT IN "
        "('pg_catalog', 'information_schema') ORDER BY 1, 2", ['ok'], visible=True)
    add('SELECT nspname FROM pg_namespace ORDER BY 1', ['ok'], visible=True)
    add("SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON c.relnamespace = n.oid "
        "WHERE c.relkind IN ('r', 'v') AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
        "ORDER BY 1, 2", ['ok'], visible=True)
    add("SELECT table_schema, table_name, column_name FROM information_schema.columns WHERE "
        "table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2, 3", ['ok'],
        visible=True)
    add('SELECT schemaname, tablename FROM pg_tables WHERE schemaname NOT IN (\'pg_catalog\', '
        '\'information_schema\') ORDER BY 1, 2', ['ok'], visible=True)
    add("SELECT schema_name FROM information_schema.schemata ORDER BY 1", ['ok'], visible=True)
    # the privilege functions answer what the authorizer would (pgprivs.c)
    add("SELECT c.relname, has_table_privilege(c.oid, 'SELECT') AS r, has_table_privilege(c.oid, "
        "'INSERT, UPDATE') AS w FROM pg_class c JOIN pg_namespace n ON c.relnamespace = n.oid WHERE "
        "n.nspname = 'pub' AND c.relname IN ('p', 'q') ORDER BY 1", ['ok'],
        expect=lambda who: [[t, norm(holds(who, ('read', ['pub'], t))),
                             norm(holds(who, ('write', ['pub'], t)))]
                            for t in ('p', 'q') if visible_table(who, ['pub'], t)])
    add("SELECT n.nspname, has_schema_privilege(n.oid, 'USAGE') AS u, has_schema_privilege(n.oid, "
        "'CREATE') AS c FROM pg_namespace n WHERE n.nspname IN ('pub', 'sandbox', 'secret') ORDER BY 1",
        ['ok'], expect=lambda who: [[ns, 'true', norm(holds(who, ('create', [ns], None)))]
                                    for ns in ('pub', 'sandbox', 'secret')
                                    if visible_ns(who, [ns])])
    add('SELECT current_user', ['ok'])
    add('SHOW search_path', ['ok'], kind='change')  # a fresh HTTP session starts in pub
    add("SET statement_timeout = '5min'", ['ok'], kind='change')
    # schemas at the top need CREATE on the catalog
    add('CREATE SCHEMA top{u}', ['c:catalog'], kind='change')
    return C


# ---- running ----

def connect(principal, secret):
    c = psycopg2.connect(host=PGHOST, port=int(PGPORT), user=principal, password=secret,
                         dbname='floe')
    c.autocommit = True
    return c


def token(principal, secret):
    data = f'grant_type=client_credentials&client_id={principal}&client_secret={secret}'.encode()
    with urllib.request.urlopen(urllib.request.Request(f'http://{HTTP}/v1/oauth/tokens', data=data)) as r:
        return json.load(r)['access_token']


def norm(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return 'true' if v else 'false'
    return str(v)


class Outcome:
    def __init__(self, ok, state='', rows=None, msg=''):
        self.ok, self.state, self.rows, self.msg = ok, state, rows, msg

    def label(self):
        return 'ok' if self.ok else 'error ' + self.state


def run_pg(conn, sql, ns, copy_in=None):
    cur = conn.cursor()
    try:
        if ns:
            cur.execute(f'SET search_path = {ns}')
        if sql.startswith('COPY') and 'FROM STDIN' in sql:
            import io
            cur.copy_expert(sql, io.StringIO(copy_in or ''))
            return Outcome(True)
        if sql.startswith('COPY') and 'TO STDOUT' in sql:
            import io
            buf = io.StringIO()
            cur.copy_expert(sql, buf)
            return Outcome(True)
        cur.execute(sql)
        rows = None
        if cur.description:
            rows = [[norm(x) for x in r] for r in cur.fetchall()]
        return Outcome(True, rows=rows)
    except psycopg2.Error as e:
        try:  # a failed explicit block stays open and aborted, as in PostgreSQL
            cur.execute('ROLLBACK')
        except psycopg2.Error:
            pass
        return Outcome(False, e.pgcode or '?', msg=str(e).split('\n')[0])
    finally:
        try:
            cur.execute('RESET search_path')
        except psycopg2.Error:
            pass
        cur.close()


def run_http(tok, sql, ns):
    body = json.dumps({'sql': sql, 'namespace': ns or 'pub'}).encode()
    req = urllib.request.Request(f'http://{HTTP}/v1/sql', data=body, headers={
        'Authorization': 'Bearer ' + tok, 'Content-Type': 'application/json',
        'Accept': 'application/x-ndjson'})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            lines = [json.loads(x) for x in r.read().decode().splitlines() if x.strip()]
    except urllib.error.HTTPError as e:
        try:
            j = json.loads(e.read().decode())['error']
            return Outcome(False, j.get('sqlstate', '?'), msg=f'HTTP {e.code}: {j.get("message")}')
        except Exception:  # noqa: BLE001 - any unparsable error body is a failure to report
            return Outcome(False, '?', msg=f'HTTP {e.code}')
    last = lines[-1] if lines else {}
    if '$error' in last:
        return Outcome(False, last['$error'].get('sqlstate', '?'), msg=last['$error'].get('message'))
    cols = [c['name'] for c in last.get('$done', {}).get('columns', [])]
    rows = [[norm(r.get(c)) for c in cols] for r in lines[:-1]]
    return Outcome(True, rows=rows if cols else None)


def fmt_sql(sql, subst):
    return sql.format(**subst)


def protected_state(principal):
    """Files and catalog entries of the fixed objects principal may not change."""
    state = {}
    db = sqlite3.connect(CATALOG[len('sqlite:'):])
    rows = {(r[0], r[1]): r[2] for r in db.execute(
        'SELECT table_namespace, table_name, metadata_location FROM iceberg_tables')}
    db.close()
    for (ns, name), loc in rows.items():
        if (ns, name) not in FIXED:
            continue
        levels = ns.split('.')
        if holds(principal, ('write', levels, name)) or holds(principal, ('drop', levels, name)):
            continue
        state[(ns, name)] = ('meta', loc)
        folder = FIXED[(ns, name)]
        digest = hashlib.sha256()
        for root, _, files in sorted(os.walk(folder)):
            for f in sorted(files):
                p = os.path.join(root, f)
                digest.update(p.encode())
                with open(p, 'rb') as fh:
                    digest.update(hashlib.sha256(fh.read()).digest())
        state[(ns, name, 'files')] = digest.hexdigest()
    return state


# ---- fixtures ----

secrets = {}
secrets['admin'] = secret_of(admin_cli('bootstrap', '--name', 'admin'))
for name, grants in GRANTS.items():
    if name == 'admin':
        continue
    secrets[name] = secret_of(admin_cli('principal', 'create', name))
    admin_cli('role', 'create', 'r_' + name)
    admin_cli('role', 'assign', name, 'r_' + name)
    for priv, levels, table in grants:
        if table:
            admin_cli('grant', 'r_' + name, priv, 'table', '.'.join(levels + [table]))
        else:
            admin_cli('grant', 'r_' + name, priv, 'namespace', '.'.join(levels))
secrets[VIEWMAKER] = secret_of(admin_cli('principal', 'create', VIEWMAKER))
admin_cli('role', 'create', 'r_viewmaker')
admin_cli('role', 'assign', VIEWMAKER, 'r_viewmaker')
admin_cli('grant', 'r_viewmaker', 'create,read', 'namespace', 'pub')

A = connect('admin', secrets['admin'])
for s in [
    'CREATE SCHEMA pub', 'CREATE SCHEMA secret', 'CREATE SCHEMA sandbox', 'CREATE SCHEMA "secret.deep"',
    'CREATE TABLE pub.p (id int, v text)', "INSERT INTO pub.p VALUES (1, 'a'), (2, 'b'), (3, 'c')",
    'CREATE TABLE pub.q (id int, w int)', 'INSERT INTO pub.q VALUES (1, 10)',
    'CREATE TABLE secret.t (id int, s text)', "INSERT INTO secret.t VALUES (1, 'TOPSECRET'), (2, 'x')",
    'CREATE TABLE secret.pg_payroll (id int, salary int)', 'INSERT INTO secret.pg_payroll VALUES (1, 999)',
    'CREATE TABLE secret.deep.d (id int, x text)', "INSERT INTO secret.deep.d VALUES (1, 'deep')",
    'CREATE TABLE sandbox.s (id int, v text)', "INSERT INTO sandbox.s VALUES (1, 'sand')",
    'CREATE VIEW pub.v AS SELECT id, v FROM pub.p',
    'CREATE VIEW pub.v_secret AS SELECT id FROM secret.t',
    'CREATE VIEW pub.v_chain AS SELECT id FROM pub.v_secret',
    'CREATE VIEW pub.v_inv WITH (security_invoker = true) AS SELECT id FROM secret.t',
]:
    run = run_pg(A, s, None)
    if not run.ok:
        raise SystemExit(f'fixture {s}: {run.msg}')


def admin_rows(sql):
    r = run_pg(A, sql, None)
    if not r.ok:
        raise SystemExit(f'{sql}: {r.msg}')
    return r.rows


SUBST = {}
for T, (ns, name) in READ_TARGETS.items():
    SUBST['sid_' + name] = admin_rows(f'SELECT snapshot_id FROM {ns}."{name}$snapshots" LIMIT 1')[0][0]
SUBST['secret_t_file'] = admin_rows('SELECT file_path FROM secret."t$files" LIMIT 1')[0][0]
SUBST['secret_t_location'] = os.path.dirname(os.path.dirname(SUBST['secret_t_file']))
SUBST['csv_file'] = os.path.join(os.path.dirname(WH.rstrip('/')), 'm.csv')
SUBST['json_file'] = os.path.join(os.path.dirname(WH.rstrip('/')), 'm.jsonl')
with open(SUBST['csv_file'], 'w') as f:
    f.write('id,v\n1,a\n')
with open(SUBST['json_file'], 'w') as f:
    f.write('{"id": 1}\n')

# a view created through REST by a principal that cannot read what it reads
vt = token(VIEWMAKER, secrets[VIEWMAKER])
view_body = {
    'name': 'v_rest', 'schema': {'type': 'struct', 'schema-id': 0, 'fields': [
        {'id': 1, 'name': 'id', 'required': False, 'type': 'int'}]},
    'view-version': {'version-id': 1, 'timestamp-ms': 0, 'schema-id': 0,
                     # a client claiming someone else's rights: the server must record the sender
                     'summary': {'engine-name': 'test', 'floe.definer': 'admin'},
                     'representations': [{'type': 'sql', 'sql': 'SELECT id FROM secret.t',
                                          'dialect': 'spark'}],
                     'default-namespace': ['pub']}, 'properties': {}}


def rest(method, path, tok, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f'http://{HTTP}{path}', data=data, method=method, headers={
        'Authorization': 'Bearer ' + tok, 'Content-Type': 'application/json'})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.loads(r.read().decode() or 'null')
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


# creating a definer view over what the sender cannot read is refused at once ...
st, body = rest('POST', '/v1/namespaces/pub/views', vt, view_body)
if st != 403 or 'definer' not in str(body):
    fail(f'REST view over secret.t by {VIEWMAKER} (no read on it): want 403, got {st} {str(body)[:200]}')
# ... and one whose definer loses the right afterwards reads nothing, for anyone
admin_cli('grant', 'r_viewmaker', 'read', 'table', 'secret.t')
st, body = rest('POST', '/v1/namespaces/pub/views', vt, view_body)
admin_cli('revoke', 'r_viewmaker', 'read', 'table', 'secret.t')
if st != 200:
    raise SystemExit(f'REST view create: {st} {body}')
summary = body['metadata']['versions'][0]['summary']
if summary.get('floe.definer') != VIEWMAKER:
    fail(f'REST view records definer {summary.get("floe.definer")!r}, not the sender {VIEWMAKER}')
# a view with no recorded definer (as a foreign writer leaves it): invoker rights
nb = json.loads(json.dumps(view_body))
nb['name'] = 'v_nodefiner'
st, body = rest('POST', '/v1/namespaces/pub/views', token('admin', secrets['admin']), nb)
if st != 200:
    raise SystemExit(f'REST view create: {st} {body}')
db = sqlite3.connect(CATALOG[len('sqlite:'):])
loc = db.execute("SELECT metadata_location FROM iceberg_tables WHERE table_name = 'v_nodefiner'").fetchone()[0]
db.close()
with open(loc) as f:
    meta = json.load(f)
for v in meta['versions']:
    v['summary'].pop('floe.definer', None)
with open(loc, 'w') as f:
    json.dump(meta, f)

FIXED = {}
db = sqlite3.connect(CATALOG[len('sqlite:'):])
for ns, name, loc in db.execute('SELECT table_namespace, table_name, metadata_location FROM iceberg_tables'):
    FIXED[(ns, name)] = os.path.dirname(os.path.dirname(loc))
db.close()

def visible_ns(principal, levels):
    """The model of fl_auth_visible for a namespace: a grant on it, above it or inside it."""
    grants = GRANTS[principal]
    if grants is None:
        return True
    for _, glv, gt in grants:
        if len(levels) <= len(glv) and glv[:len(levels)] == levels:
            return True  # on the path to the grant (or the granted namespace itself)
        if gt is None and levels[:len(glv)] == glv:
            return True  # inside a granted namespace
    return False


def visible_table(principal, levels, table):
    grants = GRANTS[principal]
    return grants is None or any(
        covers((p, glv, gt), p, levels, table) for p, glv, gt in grants)


def check_visible(principal, sql, rows):
    """Catalog listings show exactly what the principal may see: first column a schema
    (dotted levels), second (if any) a table."""
    for row in rows:
        if row[0] == 'information_schema' or row[0].startswith('pg_'):
            continue  # the system's own schemas: everyone sees them, as in PostgreSQL
        levels = row[0].split('.')
        if len(row) >= 2 and row[1] is not None:
            ok = visible_table(principal, levels, row[1])
        else:
            ok = visible_ns(principal, levels)
        if not ok:
            fail(f'[{principal}] {sql}: lists {row}, which it may not see')
            return
    schemas = {r[0] for r in rows}
    for ns in ('pub', 'secret', 'sandbox', 'secret.deep'):
        if 'schema_name' in sql or 'nspname FROM pg_namespace' in sql:
            want = visible_ns(principal, ns.split('.'))
            if want != (ns in schemas):
                fail(f'[{principal}] {sql}: schema {ns} listed={ns in schemas}, visible={want}')


# ---- the matrix ----

CORPUS = corpus()
cells = 0
order = ['p_none', 'p_reader', 'p_tablegrant', 'p_writeonly', 'p_deep', 'p_sandbox', 'p_pubfull',
         'admin']
for principal in order:
    conn = connect(principal, secrets[principal])
    tok = token(principal, secrets[principal])
    before = protected_state(principal)
    for path in ('pg', 'http'):
        pp = f'{principal}_{path}'
        for ns in NAMESPACES:  # the shared write targets of this pass
            for s in (f'CREATE TABLE {ns}.w_{pp} (id int, v text)',
                      f"INSERT INTO {ns}.w_{pp} VALUES (1, 'a'), (2, 'b')"):
                r = run_pg(A, s, None)
                if not r.ok:
                    raise SystemExit(f'{s}: {r.msg}')
    results = {}
    for i, e in enumerate(CORPUS):
        for path in ('pg', 'http'):
            if path == 'http' and e.get('pg_only'):
                continue
            subst = dict(SUBST, u=f'{principal[2:]}_{path}_{i}', pp=f'{principal}_{path}')
            for s in e.get('setup', []):
                r = run_pg(A, fmt_sql(s, subst), None)
                if not r.ok:
                    raise SystemExit(f'setup {fmt_sql(s, subst)}: {r.msg}')
            needs = [n for tok_ in e['needs'] for n in parse_need(tok_, subst)]
            allowed = all(holds(principal, n) for n in needs)
            sql = fmt_sql(e['sql'], subst)
            out = (run_pg(conn, sql, e.get('ns'), e.get('copy_in')) if path == 'pg'
                   else run_http(tok, sql, e.get('ns')))
            cells += 1
            where = f'[{principal} {path}] {sql}'
            if allowed and not out.ok:
                fail(f'{where}: should be allowed, got {out.state} {out.msg}')
            elif not allowed and out.ok:
                fail(f'{where}: should be refused (needs {e["needs"]}), but ran')
            elif not allowed and out.state != '42501':
                fail(f'{where}: refused with {out.state}, not 42501: {out.msg}')
            results[(i, path)] = out
        pg, http = results.get((i, 'pg')), results.get((i, 'http'))
        if pg and http:
            if pg.ok != http.ok or (not pg.ok and pg.state != http.state):
                fail(f'[{principal}] {e["sql"]}: pgwire {pg.label()} but HTTP {http.label()}')
            elif pg.ok and e['kind'] == 'query' and pg.rows != http.rows:
                fail(f'[{principal}] {e["sql"]}: pgwire rows {pg.rows} != HTTP rows {http.rows}')
        if e.get('visible') and pg and pg.ok and principal != 'admin':
            check_visible(principal, e['sql'], pg.rows)
        if e.get('expect') and pg and pg.ok and pg.rows != e['expect'](principal):
            fail(f'[{principal}] {e["sql"]}: rows {pg.rows}, the grants say {e["expect"](principal)}')
    after = protected_state(principal)
    for k, v in before.items():
        if after.get(k) != v:
            fail(f'[{principal}] {k} changed though the principal may not change it')
    conn.close()

# REST: register another namespace's metadata into a namespace the principal may create in
st_tok = token('p_sandbox', secrets['p_sandbox'])
db = sqlite3.connect(CATALOG[len('sqlite:'):])
sec_meta = db.execute("SELECT metadata_location FROM iceberg_tables WHERE table_namespace = 'secret' "
                      "AND table_name = 't'").fetchone()[0]
db.close()
st, body = rest('POST', '/v1/namespaces/sandbox/register', st_tok,
                {'name': 'stolen', 'metadata-location': sec_meta})
cells += 1
if st != 403:
    fail(f'register of secret.t metadata into sandbox: want 403, got {st} {str(body)[:200]}')
st, body = rest('POST', '/v1/namespaces/secret/register', st_tok,
                {'name': 'stolen', 'metadata-location': sec_meta})
cells += 1
if st != 403:
    fail(f'register into secret without CREATE: want 403, got {st} {str(body)[:200]}')
# REST view over secret.t by the viewmaker shows nothing, to anyone
for who in ('p_reader', 'admin', VIEWMAKER):
    c = connect(who, secrets[who])
    r = run_pg(c, 'SELECT * FROM pub.v_rest', None)
    cells += 1
    if r.ok or r.state != '42501':
        fail(f'[{who}] pub.v_rest (definer {VIEWMAKER}) over secret.t: {r.label()} {r.msg}')
    c.close()

print(f'authz matrix: {len(CORPUS)} statements, {cells} cells, {len(failures)} failed')
sys.exit(1 if failures else 0)
