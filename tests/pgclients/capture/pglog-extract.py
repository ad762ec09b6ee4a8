"""pglog-extract.py - turns a PostgreSQL 15 server log (log_statement=all) into a replay file for
tests/sql/pgcat/ (statements end with ';' at a line end). Usage:
  pglog-extract.py LOG PID [--from-line N] > statements.sql
Only the backend PID's statements are kept, in order, without duplicates. Extended-protocol executes
("execute <unnamed>: ..." + "DETAIL:  parameters: $1 = '...'") get their parameters substituted as
literals. Multi-statement simple queries (psqlODBC's "BEGIN;declare ... cursor with hold for SELECT
...;fetch 2048 in ...") are split; the cursor's query is kept and the transaction/cursor commands
(BEGIN, COMMIT, DECLARE, FETCH, CLOSE) are dropped: they are the wire server's, and the real client tests
(tests/interop/test_pg_client_*.sh) drive them."""
import re
import sys

log, pid = sys.argv[1], sys.argv[2]
start = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == '--from-line' else 0
head = re.compile(r'^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \w+ \[(\d+)\] (\w+):  (.*)$')
entries = []  # (pid, level, text)
for i, line in enumerate(open(log, encoding='utf-8', errors='replace')):
    if i < start:
        continue
    line = line.rstrip('\n')
    m = head.match(line)
    if m:
        entries.append([m.group(1), m.group(2), m.group(3)])
    elif entries:
        entries[-1][2] += '\n' + line


def split_sql(text):
    out, cur, q = [], '', None
    for ch in text:
        if q:
            cur += ch
            if ch == q:
                q = None
        elif ch in ("'", '"'):
            q = ch
            cur += ch
        elif ch == ';':
            out.append(cur)
            cur = ''
        else:
            cur += ch
    out.append(cur)
    return [s.strip() for s in out if s.strip()]


def subst(sql, params):
    vals = dict(re.findall(r"\$(\d+) = ('(?:[^']|'')*'|NULL)", params))
    return re.sub(r'\$(\d+)\b', lambda m: vals.get(m.group(1), m.group(0)), sql)


stmts = []
for i, (p, level, text) in enumerate(entries):
    if p != pid or level != 'LOG':
        continue
    m = re.match(r'(?s)statement: (.*)', text) or re.match(r'(?s)execute [^:]*: (.*)', text)
    if not m:
        continue
    sql = m.group(1)
    if text.startswith('execute') and i + 1 < len(entries) and entries[i + 1][1] == 'DETAIL' \
            and entries[i + 1][2].startswith('parameters:'):
        sql = subst(sql, entries[i + 1][2])
    for s in split_sql(sql):
        low = s.lower()
        d = re.match(r'(?is)declare\s+"?[\w]+"?\s+(?:binary\s+)?(?:no\s+)?(?:scroll\s+)?cursor\s+(?:with(?:out)?\s+hold\s+)?for\s+(.*)', s)
        if d:
            s = d.group(1)
        elif re.match(r'(begin|commit|rollback|fetch|close|start transaction|end)\b', low):
            continue
        if s not in stmts:
            stmts.append(s)
for s in stmts:
    print(s + ';\n')
