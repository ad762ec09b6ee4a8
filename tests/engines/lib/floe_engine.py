"""Shared harness for the engine tests: a real `floe serve` with authentication on, and a
scorecard that every engine's scenarios report to.

    floe = FloeServer.start(tmp)          # warehouse + SQLite catalog under tmp, admin principal
    floe.rest_uri, floe.credential        # what an engine's REST catalog settings need
    floe.rows("SELECT ...")               # floe's own answer, over its Postgres wire port
    card = Scorecard("spark")
    card.run("merge into", fn)            # fn raises on a wrong answer
    card.unsupported("x", engine_error)   # the engine itself cannot do it: listed, not a pass
    sys.exit(card.finish())               # prints "spark: N passed, M failed"

Rows are compared cell by cell after normalizing what drivers legitimately disagree on:
timestamps with a zone become naive UTC, buffers become bytes, lists/tuples become tuples,
maps (dicts or lists of pairs) become sorted tuples of pairs. Floats compare exactly; a
scenario that needs tolerance says so.
"""
import datetime
import decimal
import os
import signal
import subprocess
import sys
import time
import traceback

FLOE_BIN = os.environ.get("FLOE_BIN", "floe")


class FloeServer:
    def __init__(self, tmp, warehouse, proc, host_port, pg_host_port, client_id, secret, log):
        self.tmp = tmp
        self.warehouse = warehouse
        self.proc = proc
        self.host, self.port = host_port.rsplit(":", 1)
        self.pg_host, self.pg_port = pg_host_port.rsplit(":", 1)
        self.client_id = client_id
        self.secret = secret
        self.log = log
        self._pg = None

    @property
    def rest_uri(self):
        return "http://%s:%s" % (self.host, self.port)

    @property
    def token_uri(self):
        return self.rest_uri + "/v1/oauth/tokens"

    @property
    def credential(self):
        return "%s:%s" % (self.client_id, self.secret)

    @classmethod
    def start(cls, tmp, warehouse=None, args=(), env=None, name="root", catalog=None):
        """Bootstraps an admin principal in a new catalog (default: SQLite at tmp/catalog.db;
        or a catalog URI such as postgresql://...) and starts floe serve on free ports (REST +
        Postgres wire). `warehouse` defaults to tmp/wh (a local folder)."""
        wh = warehouse or os.path.join(tmp, "wh")
        if "://" not in wh:
            os.makedirs(wh, exist_ok=True)
        cat = catalog or "sqlite:" + os.path.join(tmp, "catalog.db")
        e = dict(os.environ, FLOE_CATALOG=cat, FLOE_WAREHOUSE=wh)
        e.update(env or {})
        out = subprocess.run([FLOE_BIN, "admin", "bootstrap", "--name", name], env=e,
                             capture_output=True, text=True)
        secret = ""
        for line in out.stdout.splitlines():
            if line.strip().startswith("client_secret:"):
                secret = line.split(":", 1)[1].strip()
        if not secret:
            raise RuntimeError("floe admin bootstrap gave no secret: %s %s" % (out.stdout, out.stderr))
        ready = os.path.join(tmp, "ready")
        log = os.path.join(tmp, "server.log")
        proc = subprocess.Popen([FLOE_BIN, "serve", "--port", "0", "--pg-port", "0",
                                 "--ready-file", ready, "--audit-log", os.path.join(tmp, "audit.log"),
                                 *args], env=e, stdout=open(log, "ab"), stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        lines = []
        while time.time() < deadline:
            if os.path.exists(ready):
                lines = open(ready).read().split("\n")
                if any(l.startswith("pg ") for l in lines):
                    break
            if proc.poll() is not None:
                break
            time.sleep(0.05)
        rest = [l for l in lines if l and not l.startswith("pg ")]
        pg = [l[3:] for l in lines if l.startswith("pg ")]
        if not rest or not pg:
            proc.kill()
            raise RuntimeError("floe serve did not start: " + open(log).read()[-2000:])
        s = cls(tmp, wh, proc, rest[0].strip(), pg[0].strip(), name, secret, log)
        s.env = e
        return s

    def cli(self, *args, check=True):
        """Runs the floe CLI on the same catalog (for admin commands)."""
        out = subprocess.run([FLOE_BIN, *args], env=self.env, capture_output=True, text=True)
        if check and out.returncode != 0:
            raise RuntimeError("floe %s: %s%s" % (" ".join(args), out.stdout, out.stderr))
        return out.stdout

    def pg(self):
        if self._pg is None:
            import psycopg2
            self._pg = psycopg2.connect(host=self.pg_host, port=int(self.pg_port), user=self.client_id,
                                        password=self.secret, dbname="floe")
            self._pg.autocommit = True
        return self._pg

    def rows(self, sql):
        """floe's answer to a query, as a list of tuples of Python values."""
        cur = self.pg().cursor()
        try:
            cur.execute(sql)
            return [tuple(r) for r in cur.fetchall()] if cur.description else []
        finally:
            cur.close()

    def execute(self, sql):
        cur = self.pg().cursor()
        try:
            cur.execute(sql)
            return cur.rowcount
        finally:
            cur.close()

    def stop(self):
        if self._pg is not None:
            try:
                self._pg.close()
            except Exception:
                pass
            self._pg = None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


class FakeS3:
    """The strict fake S3 of tests/interop (s3rver + real SigV4 verification, conditional
    PUTs), on a free port. Its only keys are S3RVER/S3RVER: whoever lacks them must have
    floe sign for it."""
    KEY = SECRET = "S3RVER"

    def __init__(self, tmp, buckets=("wh",)):
        here = os.path.dirname(os.path.abspath(__file__))
        interop = os.path.join(here, "..", "..", "interop")
        store = os.path.join(tmp, "s3")
        os.makedirs(store, exist_ok=True)
        self.out = os.path.join(tmp, "s3.json")
        self.log = os.path.join(tmp, "s3.log")
        args = ["node", os.path.join(interop, "s3-server-consistent.mjs"), "--port=0",
                "--dir=" + store, "--strict", "--trace"] + ["--bucket=" + b for b in buckets]
        self.proc = subprocess.Popen(args, stdout=open(self.out, "wb"), stderr=open(self.log, "wb"))
        self.endpoint = None
        for _ in range(200):
            txt = open(self.out).read() if os.path.exists(self.out) else ""
            if '"endpoint"' in txt:
                import json
                self.endpoint = json.loads(txt.splitlines()[0])["endpoint"]
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        if not self.endpoint:
            raise RuntimeError("fake S3 did not start: " + open(self.log).read()[-2000:])

    def server_env(self):
        """What floe serve needs to hold the keys itself."""
        return {"AWS_ACCESS_KEY_ID": self.KEY, "AWS_SECRET_ACCESS_KEY": self.SECRET,
                "AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL": self.endpoint}

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def norm(v):
    """One canonical Python value for a cell, whatever driver produced it."""
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        return v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    if isinstance(v, (bytearray, memoryview)):
        return bytes(v)
    if isinstance(v, dict):
        return tuple(sorted((norm(k), norm(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return tuple(norm(x) for x in v)
    if hasattr(v, "asDict"):  # pyspark Row (a struct)
        return tuple(norm(x) for x in v)
    if isinstance(v, decimal.Decimal):
        return v
    return v


def _key(row):
    return tuple((x is None, repr(type(x).__name__), repr(x)) for x in row)


def same_rows(expected, actual, ordered=False, what="rows"):
    """Raises AssertionError naming the first differing row and cell."""
    exp = [tuple(norm(x) for x in r) for r in expected]
    act = [tuple(norm(x) for x in r) for r in actual]
    if not ordered:
        exp.sort(key=_key)
        act.sort(key=_key)
    if len(exp) != len(act):
        extra = [r for r in act if r not in exp][:3]
        missing = [r for r in exp if r not in act][:3]
        raise AssertionError("%s: %d rows expected, %d got; missing %r, unexpected %r"
                             % (what, len(exp), len(act), missing, extra))
    for i, (e, a) in enumerate(zip(exp, act)):
        if len(e) != len(a):
            raise AssertionError("%s: row %d has %d cells, expected %d: %r vs %r" % (what, i, len(a), len(e), a, e))
        for j, (x, y) in enumerate(zip(e, a)):
            if x != y or type(x) is not type(y) and not _numeric_pair(x, y):
                raise AssertionError("%s: row %d cell %d: expected %r (%s), got %r (%s)\n  row %r\n  vs  %r"
                                     % (what, i, j, x, type(x).__name__, y, type(y).__name__, e, a))


def _numeric_pair(x, y):
    """int/Decimal with the same value are the same cell (drivers map BIGINT or DECIMAL(p,0)
    differently); bool is never numeric here."""
    nums = (int, decimal.Decimal)
    return (isinstance(x, nums) and isinstance(y, nums) and not isinstance(x, bool)
            and not isinstance(y, bool) and x == y)


class Unsupported(Exception):
    """Raised by a scenario when the engine itself refuses something: carries its error."""


class Scorecard:
    def __init__(self, engine, unsupported_by=None):
        self.engine = engine
        self.unsupported_by = unsupported_by or engine  # "not supported by <this>"
        self.passed = []
        self.failed = []
        self.unsupported_list = []

    def run(self, name, fn, *args):
        t0 = time.time()
        try:
            fn(*args)
        except Unsupported as e:
            self.unsupported(name, str(e))
            return False
        except Exception as e:  # a scenario's failure: recorded, the next one runs
            self.failed.append((name, e))
            print("FAIL %s: %s" % (name, e), flush=True)
            traceback.print_exc(limit=-8, file=sys.stdout)
            return False
        self.passed.append(name)
        print("ok   %s (%.1fs)" % (name, time.time() - t0), flush=True)
        return True

    def unsupported(self, name, engine_error):
        first = (engine_error or "").strip().splitlines()
        self.unsupported_list.append((name, first[0] if first else ""))
        print("UNSUPPORTED %s: %s" % (name, first[0][:300] if first else ""), flush=True)

    def finish(self):
        for name, err in self.unsupported_list:
            print("  not supported by %s: %s (%s)" % (self.unsupported_by, name, err[:200]))
        by = "the engine" if self.unsupported_by == self.engine else self.unsupported_by
        extra = ", %d not supported by %s" % (len(self.unsupported_list), by) if self.unsupported_list else ""
        line = "%s: %d passed, %d failed%s" % (self.engine, len(self.passed), len(self.failed), extra)
        print(line, flush=True)
        if os.environ.get("FLOE_BUILD"):  # scripts/test.sh prints these lines at the end
            d = os.path.join(os.environ["FLOE_BUILD"], "engine-results")
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, self.engine + ".txt"), "w") as f:
                f.write(line + "\n")
        return 0 if not self.failed and self.passed else 1
