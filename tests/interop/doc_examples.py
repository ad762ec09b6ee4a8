#!/usr/bin/env python3
"""doc_examples.py - runs the examples of README.md and docs/*.md, so the docs match the code.

usage: doc_examples.py FLOE_BIN SRC_DIR

Every fenced block in sh, sql or psql is run; a block right after
<!-- doc-test: skip: REASON --> is listed with its reason instead, and so is
the README's set-up block (make run / make test: make test runs this test). Blocks of one
file run in order in one bash process, in a fresh sandbox holding the demo data
(scripts/demo-data.sh: ./orders.csv, ./customers.jsonl, demo.orders and
demo.customers in ./warehouse, floe's default catalog), so a later block sees
what an earlier one made and its shell variables. Other languages (python, java,
properties, ini: settings for other engines, run by tests/engines) are listed.

The rules that turn a page into a run, so the docs can be written for people:
  - `floe serve ...` starts in the background and the block goes on once the
    server answers /healthz; ports 8181 and 5433 become free ports, and
    floe-host becomes 127.0.0.1. The servers stop at the end of the file.
  - a `floe admin` line that prints client_id / client_secret exports
    <CLIENT_ID in upper case>_SECRET, CLIENT_ID and CLIENT_SECRET.
  - `tests/...` and `scripts/...` are the source tree's (run from the repository).
  - `/data/` is a folder of the sandbox, and /data/wh (catalog
    sqlite:/data/wh/catalog.db) holds the demo data too; `floe` is the
    binary under test.
  - sql blocks run through `floe sql -f -` on the sandbox's catalog.
  - psql blocks are a transcript: a first line `... psql "CONNINFO"`, then
    `floe=> ` lines run by that psql with ON_ERROR_STOP (`-- comments` after
    a backslash command are dropped).
A command that fails fails the run, naming the file and line of its block.
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile

FLOE, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
RUN = {"sh", "sql", "psql"}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def blocks(path):
    """(line, lang, text, skip_reason) of every fenced block."""
    out = []
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        prev = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        skip = re.match(r"^<!-- doc-test: skip: (.*) -->$", prev.strip())
        text = "\n".join(lines[i + 1:j])
        reason = skip.group(1) if skip else None
        if all(re.match(r"^make (run|test)\b", l) for l in text.split("\n") if l.strip()):
            reason = "the set-up commands (make test is what runs this test)"
        out.append((i + 1, m.group(1), text, reason))
        i = j + 1
    return out


def logical_lines(text):
    """Lines with backslash continuations joined (the newline kept)."""
    out, cur = [], ""
    for l in text.split("\n"):
        cur += l
        if l.endswith("\\"):
            cur += "\n"
            continue
        out.append(cur)
        cur = ""
    if cur:
        out.append(cur)
    return out


def unquoted(line):
    """The line without its '...' and "..." strings and its # comment."""
    line = re.sub(r"'[^']*'|\"(\\.|[^\"\\])*\"", "", line)
    return re.sub(r"(^|\s)#.*$", "", line)


def sh_block(text):
    out = []
    for l in logical_lines(text):
        s = l.lstrip()
        if re.search(r"&&|\|\|", unquoted(s)):
            # bash's errexit does not see a failure before && or ||: one command per line
            out.append("echo 'doc-test: && or || in an example hides failures: %s'; false"
                       % s.replace("'", "'\\''")[:200])
            continue
        if re.match(r"^(\w+=\S+\s+)*floe serve\b", s):
            out.append("doc_serve " + s)
        elif re.match(r"^floe admin\b", s):
            out.append("doc_admin " + s)
        else:
            out.append(l)
    return "\n".join(out)


def psql_block(text):
    lines = text.split("\n")
    conn = lines[0]
    stmts = []
    for l in lines[1:]:
        m = re.match(r"^floe=> ?(.*)$", l)
        if not m:
            continue
        s = m.group(1)
        if s.startswith("\\"):
            s = re.sub(r"\s+--.*$", "", s)
        stmts.append(s)
    body = "\n".join(stmts)
    return "%s -X -v ON_ERROR_STOP=1 -f - <<'DOC_PSQL'\n%s\nDOC_PSQL" % (conn, body)


PRELUDE = r'''
set -eo pipefail
doc_pids=()
trap 'for p in "${doc_pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null' EXIT
floe() { "$FLOE_BIN" "$@"; }
doc_serve() {   # floe serve ... in the background, until /healthz answers
  local log; log=$(mktemp "$DOC_SANDBOX/serve.XXXX.log")
  "$@" >"$log" 2>&1 &
  doc_pids+=($!)
  for _ in $(seq 1 300); do
    curl -sf "http://127.0.0.1:$DOC_PORT/healthz" >/dev/null 2>&1 && return 0
    kill -0 "$!" 2>/dev/null || { echo "doc-test: floe serve exited:"; cat "$log"; return 1; }
    sleep 0.1
  done
  echo "doc-test: floe serve never answered"; cat "$log"; return 1
}
doc_admin() {   # floe admin ...: exports <ID>_SECRET, CLIENT_ID, CLIENT_SECRET from what it prints
  local out; out=$("$@") || { echo "$out"; return 1; }
  echo "$out"
  local id secret
  id=$(sed -n 's/^client_id: //p' <<<"$out"); secret=$(sed -n 's/^client_secret: //p' <<<"$out")
  if [ -n "$id" ] && [ -n "$secret" ]; then
    export CLIENT_ID="$id" CLIENT_SECRET="$secret"
    export "$(tr '[:lower:]-' '[:upper:]_' <<<"$id")_SECRET=$secret"
  fi
}
doc_block() { printf '\n--- doc-test: %s\n' "$1"; }
'''


def run_file(path, counts):
    rel = os.path.relpath(path, SRC)
    bl = blocks(path)
    runnable = [b for b in bl if b[1] in RUN and b[3] is None]
    for line, lang, _, reason in bl:
        if reason is not None:
            counts["skipped"].append("%s:%d (%s)" % (rel, line, reason))
        elif lang not in RUN:
            counts["other"].append("%s:%d (%s)" % (rel, line, lang or "text"))
    if not runnable:
        return True
    box = tempfile.mkdtemp(prefix="floe-doc.")
    try:
        env = dict(os.environ, FLOE_BIN=FLOE, DOC_SANDBOX=box, HOME=box,
                   PATH=os.path.dirname(FLOE) + ":" + os.environ.get("PATH", ""))
        for k in ("FLOE_CATALOG", "FLOE_WAREHOUSE", "FLOE_REST_CREDENTIAL"):
            env.pop(k, None)
        demo = os.path.join(SRC, "scripts", "demo-data.sh")
        subprocess.run(["bash", demo, "warehouse"], cwd=box, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.copy(os.path.join(box, "warehouse", "orders.csv"), box)
        shutil.copy(os.path.join(box, "warehouse", "customers.jsonl"), box)
        wh = os.path.join(box, "data", "wh")  # /data/wh of the server examples: the demo data too
        subprocess.run(["bash", demo, wh], cwd=box, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL,
                       env=dict(env, FLOE_CATALOG="sqlite:" + wh + "/catalog.db", FLOE_WAREHOUSE=wh))
        port, pgport = free_port(), free_port()
        env.update(DOC_PORT=str(port))
        script = [PRELUDE]
        for line, lang, text, _ in runnable:
            text = text.replace("8181", str(port)).replace("5433", str(pgport))
            text = text.replace("floe-host", "127.0.0.1").replace("/data/", box + "/data/")
            text = re.sub(r"(?<=[\s'\"])(tests|scripts)/", SRC.replace("\\", "\\\\") + r"/\1/", text)
            script.append("doc_block %s" % ("%s:%d" % (rel, line)))
            if lang == "sh":
                script.append(sh_block(text))
            elif lang == "sql":
                script.append("floe sql -f - <<'DOC_SQL'\n%s\nDOC_SQL" % text)
            else:
                script.append(psql_block(text))
        p = subprocess.run(["bash", "-c", "\n".join(script)], cwd=box, env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=600)
        out = p.stdout.decode("utf-8", "replace")
        if p.returncode != 0:
            last = re.findall(r"--- doc-test: (\S+)", out)
            where = last[-1] if last else rel
            print("FAIL %s: exit %d; the block's output:" % (where, p.returncode))
            tail = out.split("--- doc-test: " + where)[-1] if last else out
            print("\n".join("    " + l for l in tail.strip().split("\n")[-40:]))
            return False
        counts["run"] += len(runnable)
        print("ok   %s: %d block(s)" % (rel, len(runnable)))
        return True
    finally:
        shutil.rmtree(box, ignore_errors=True)


def main():
    files = [os.path.join(SRC, "README.md")] + sorted(
        os.path.join(SRC, "docs", f) for f in os.listdir(os.path.join(SRC, "docs")) if f.endswith(".md"))
    counts = {"run": 0, "skipped": [], "other": []}
    failed = [f for f in files if not run_file(f, counts)]
    for s in counts["skipped"]:
        print("  skipped: " + s)
    for s in counts["other"]:
        print("  not run (settings for another engine or a format): " + s)
    print("docs: %d blocks run, %d files failed, %d skipped, %d in other languages"
          % (counts["run"], len(failed), len(counts["skipped"]), len(counts["other"])))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
