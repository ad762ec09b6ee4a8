"""Remote signing scenarios (tests/engines/test_remote_signing.sh).

floe serve holds the S3 keys of the strict fake S3; PyIceberg holds only the catalog's
OAuth2 client credentials and asks for X-Iceberg-Access-Delegation: remote-signing. Every S3
request PyIceberg makes is signed by floe's POST .../tables/{table}/sign, and the fake S3
verifies each signature for real. Then raw sign requests check the refusals: another table's
prefix, another bucket or host, bucket-wide listings, sub-resources, bulk deletes with a key
outside, a read-only principal's writes, no token, an expired token; and that a signature
made for one table's object does not open another's, and is dated now (S3 refuses it 15
minutes later).
"""
import datetime
import decimal
import hashlib
import hmac
import json
import os
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from floe_engine import FakeS3, FloeServer, Scorecard, same_rows  # noqa: E402

import requests  # noqa: E402

for k in list(os.environ):  # the engine side must hold no storage keys at all
    if k.startswith("AWS_"):
        del os.environ[k]

import pyarrow as pa  # noqa: E402
import s3fs  # noqa: E402
from pyiceberg.catalog import load_catalog  # noqa: E402

# PyIceberg registers its signer on the botocore client of the S3FileSystem it makes; fsspec
# hands back a cached instance for equal arguments, and s3fs replaces that instance's client
# (without the handler, but still UNSIGNED) when its HTTP sessions were closed, so now and then
# a request left unsigned (the fake S3 says "request is not signed"). Fresh instances avoid it.
s3fs.S3FileSystem.cachable = False

tmp = tempfile.mkdtemp(prefix="floe-rsign-")
s3 = FakeS3(tmp, buckets=("wh", "other"))
floe = FloeServer.start(tmp, warehouse="s3://wh/lake", env=s3.server_env(), args=["--log-requests", "true"])
card = Scorecard("remote-signing")


def catalog(delegation=True, credential=None):
    props = {"type": "rest", "uri": floe.rest_uri, "credential": credential or floe.credential,
             "scope": "catalog", "py-io-impl": "pyiceberg.io.fsspec.FsspecFileIO"}
    if delegation:
        props["header.X-Iceberg-Access-Delegation"] = "remote-signing"
    return load_catalog("floe", **props)


def token(client_id, secret, server=None):
    r = requests.post((server or floe).token_uri, data={"grant_type": "client_credentials",
                                                         "client_id": client_id, "client_secret": secret,
                                                         "scope": "catalog"})
    r.raise_for_status()
    return r.json()["access_token"]


ROOT_TOKEN = None
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("amount", pa.decimal128(10, 2)),
                    ("day", pa.date32()), ("ts", pa.timestamp("us", tz="UTC"))])


def rows_of(ids):
    return [(i, "n%d" % i, decimal.Decimal("%d.25" % i), datetime.date(2026, 1, 1 + i % 28),
             datetime.datetime(2026, 1, 1, 12, i % 60, tzinfo=datetime.timezone.utc)) for i in ids]


def arrow(rows):
    cols = list(zip(*rows))
    return pa.table([pa.array(c, type=f.type) for c, f in zip(cols, SCHEMA)], schema=SCHEMA)


def floe_rows(table):
    return floe.rows("SELECT id, name, amount, day, ts FROM %s" % table)


def pyiceberg_rows(tbl):
    t = tbl.scan().to_arrow()
    return [tuple(r[c] for c in SCHEMA.names) for r in t.to_pylist()]


def s_create_append():
    cat = catalog()
    cat.create_namespace("a")
    cat.create_namespace("b")
    t = cat.create_table("a.t1", schema=SCHEMA)
    assert t.io.properties.get("s3.remote-signing-enabled") == "true", t.io.properties
    t.append(arrow(rows_of(range(1, 6))))
    same_rows(rows_of(range(1, 6)), floe_rows("a.t1"), what="floe reads PyIceberg's append")
    t2 = cat.create_table("a.t2", schema=SCHEMA)
    t2.append(arrow(rows_of(range(100, 103))))
    t3 = cat.create_table("b.t3", schema=SCHEMA)
    t3.append(arrow(rows_of(range(200, 202))))


def s_floe_writes():
    floe.execute("INSERT INTO a.t1 VALUES (6, 'n6', 6.25, DATE '2026-01-07', "
                 "TIMESTAMPTZ '2026-01-01 12:06:00+00')")
    t = catalog().load_table("a.t1")
    same_rows(floe_rows("a.t1"), pyiceberg_rows(t), what="PyIceberg reads floe's insert")
    same_rows(rows_of(range(1, 7)), pyiceberg_rows(t))


def s_delete_overwrite():
    t = catalog().load_table("a.t1")
    t.delete("id = 2")
    same_rows(rows_of([1, 3, 4, 5, 6]), floe_rows("a.t1"), what="after PyIceberg's delete")
    t = catalog().load_table("a.t1")
    t.overwrite(arrow(rows_of([7, 8])), overwrite_filter="id >= 5")
    same_rows(rows_of([1, 3, 4, 7, 8]), floe_rows("a.t1"), what="after PyIceberg's overwrite")
    same_rows(floe_rows("a.t1"), pyiceberg_rows(catalog().load_table("a.t1")))


def s_without_signing():
    """Control: the same client without remote signing has no way in."""
    t = catalog(delegation=False).load_table("a.t1")
    assert "s3.remote-signing-enabled" not in t.io.properties
    try:
        pyiceberg_rows(t)
    except Exception as e:  # no keys to sign with, or the fake S3 refuses unsigned requests
        msg = "%s: %s" % (type(e).__name__, e)
        assert any(w in msg for w in ("NoCredentials", "AccessDenied", "not signed", "Forbidden", "403")), msg
        return
    raise AssertionError("an unsigned read of the table succeeded")


def load(ident, tok=None):
    ns, name = ident.split(".")
    r = requests.get("%s/v1/namespaces/%s/tables/%s" % (floe.rest_uri, ns, name),
                     headers={"Authorization": "Bearer " + (tok or ROOT_TOKEN),
                              "X-Iceberg-Access-Delegation": "remote-signing"})
    r.raise_for_status()
    return r.json()


def sign(ident, method, uri, tok=None, body=None, headers=None):
    ns, name = ident.split(".")
    req = {"region": "us-east-1", "method": method, "uri": uri,
           "headers": headers or {"x-amz-content-sha256": ["UNSIGNED-PAYLOAD"]}}
    if body is not None:
        req["body"] = body
    h = {"Authorization": "Bearer " + tok} if tok else {}
    if tok is None:
        h = {"Authorization": "Bearer " + ROOT_TOKEN}
    if tok == "":
        h = {}
    return requests.post("%s/v1/namespaces/%s/tables/%s/sign" % (floe.rest_uri, ns, name),
                         json=req, headers=h)


def object_url(location):
    assert location.startswith("s3://"), location
    return "%s/%s" % (s3.endpoint, urllib.parse.quote(location[5:]))


def expect(resp, status, what):
    if resp.status_code != status:
        raise AssertionError("%s: expected %d, got %d %s" % (what, status, resp.status_code, resp.text[:300]))


def s_config_advertised():
    cfg = load("a.t1")["config"]
    assert cfg.get("s3.remote-signing-enabled") == "true", cfg
    assert cfg.get("s3.endpoint") == s3.endpoint, cfg
    assert cfg.get("s3.signer.endpoint") == "v1/namespaces/a/tables/t1/sign", cfg
    for k in cfg:
        assert "secret" not in k and "access-key" not in k, "a key is vended in config: %s" % k
    plain = requests.get("%s/v1/namespaces/a/tables/t1" % floe.rest_uri,
                         headers={"Authorization": "Bearer " + ROOT_TOKEN}).json()["config"]
    assert plain == {}, plain


def s_scope():
    t1 = load("a.t1")["metadata-location"]
    t2 = load("a.t2")["metadata-location"]
    ok = sign("a.t1", "GET", object_url(t1))
    expect(ok, 200, "GET of t1's own metadata")
    expect(sign("a.t1", "GET", object_url(t2)), 403, "t1's signer on t2's metadata")
    expect(sign("a.t1", "PUT", object_url(t2.rsplit("/", 1)[0] + "/x.json")), 403, "PUT into t2 via t1")
    expect(sign("a.t1", "GET", "%s/other/lake/a/t1/metadata/x" % s3.endpoint), 403, "another bucket")
    expect(sign("a.t1", "GET", "http://203.0.113.9:9/wh/lake/a/t1/metadata/x"), 403, "another host")
    expect(sign("a.t1", "GET", "%s/wh/lake/a/t1x/data/f.parquet" % s3.endpoint), 403,
           "a sibling folder sharing the table's name as a prefix")
    expect(sign("a.t1", "GET", "%s/wh?list-type=2" % s3.endpoint), 403, "bucket-wide listing")
    expect(sign("a.t1", "GET", "%s/wh?list-type=2&prefix=lake/a/t1/data/" % s3.endpoint), 200,
           "listing inside the table")
    expect(sign("a.t1", "GET", "%s/wh?list-type=2&prefix=lake/a/" % s3.endpoint), 403,
           "listing of the namespace")
    expect(sign("a.t1", "GET", object_url(t1) + "?acl"), 403, "a sub-resource (?acl)")
    expect(sign("a.t1", "DELETE", "%s/wh" % s3.endpoint), 403, "bucket deletion")
    inside = "<Delete><Object><Key>lake/a/t1/data/x.parquet</Key></Object></Delete>"
    outside = inside.replace("</Delete>", "<Object><Key>lake/a/t2/data/y.parquet</Key></Object></Delete>")
    expect(sign("a.t1", "POST", "%s/wh?delete" % s3.endpoint, body=inside), 200, "bulk delete inside")
    expect(sign("a.t1", "POST", "%s/wh?delete" % s3.endpoint, body=outside), 403, "bulk delete with a key outside")
    expect(sign("a.t1", "POST", "%s/wh?delete" % s3.endpoint), 403, "bulk delete without its body")
    expect(sign("a.t1", "GET", object_url(t1), tok=""), 401, "no token")
    audit = open(os.path.join(tmp, "audit.log")).read()
    assert '"sign"' in audit and '"denied"' in audit, "refused signs are not audited"


def s_privileges():
    out = floe.cli("admin", "principal", "create", "reader")
    secret = [l.split(":", 1)[1].strip() for l in out.splitlines() if "client_secret:" in l][0]
    floe.cli("admin", "role", "create", "readers")
    floe.cli("admin", "role", "assign", "reader", "readers")
    floe.cli("admin", "grant", "readers", "read", "namespace", "a")
    tok = token("reader", secret)
    t1 = load("a.t1")["metadata-location"]
    expect(sign("a.t1", "GET", object_url(t1), tok=tok), 200, "reader signs a read")
    expect(sign("a.t1", "HEAD", object_url(t1), tok=tok), 200, "reader signs a HEAD")
    expect(sign("a.t1", "PUT", object_url(t1.rsplit("/", 1)[0] + "/x.json"), tok=tok), 403,
           "reader signs a write")
    expect(sign("b.t3", "GET", object_url(load("b.t3")["metadata-location"]), tok=tok), 403,
           "reader signs a read of a namespace it may not read")
    # the reader's PyIceberg reads a.t1 but cannot append to it
    cat = catalog(credential="reader:" + secret)
    t = cat.load_table("a.t1")
    same_rows(floe_rows("a.t1"), pyiceberg_rows(t), what="reader's PyIceberg read")
    try:
        t.append(arrow(rows_of([99])))
    except Exception:
        pass
    else:
        raise AssertionError("a read-only principal appended through remote signing")
    same_rows(rows_of([1, 3, 4, 7, 8]), floe_rows("a.t1"), what="a.t1 after the refused append")


def s_signature_bound():
    t1 = load("a.t1")["metadata-location"]
    t2 = load("a.t2")["metadata-location"]
    r = sign("a.t1", "GET", object_url(t1))
    expect(r, 200, "sign t1 metadata")
    hs = {k: ", ".join(v) for k, v in r.json()["headers"].items()}
    hs.pop("Host", None)
    good = requests.get(object_url(t1), headers=hs)
    expect(good, 200, "S3 accepts floe's signature on the object it was made for")
    assert json.loads(good.content)["format-version"] in (1, 2, 3)
    bad = requests.get(object_url(t2), headers=hs)
    expect(bad, 403, "S3 refuses t1's signature on t2's object")
    date = datetime.datetime.strptime(hs["x-amz-date"], "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
    skew = abs((datetime.datetime.now(datetime.timezone.utc) - date).total_seconds())
    assert skew < 60, "signature dated %s, %d s from now" % (hs["x-amz-date"], skew)


def sigv4_get(url, when):
    """A GET signed with the fake S3's own keys, dated `when` (to show S3 enforces the window)."""
    u = urllib.parse.urlsplit(url)
    amz = when.strftime("%Y%m%dT%H%M%SZ")
    day = amz[:8]
    canon_hdrs = "host:%s\nx-amz-content-sha256:UNSIGNED-PAYLOAD\nx-amz-date:%s\n" % (u.netloc, amz)
    signed = "host;x-amz-content-sha256;x-amz-date"
    path = "/".join(urllib.parse.quote(urllib.parse.unquote(s), safe="-_.~") for s in u.path.split("/"))
    creq = "\n".join(["GET", path, "", canon_hdrs, signed, "UNSIGNED-PAYLOAD"])
    scope = "%s/us-east-1/s3/aws4_request" % day
    sts = "\n".join(["AWS4-HMAC-SHA256", amz, scope, hashlib.sha256(creq.encode()).hexdigest()])
    k = ("AWS4" + FakeS3.SECRET).encode()
    for part in (day, "us-east-1", "s3", "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    sig = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
    auth = "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s" % (FakeS3.KEY, scope, signed, sig)
    return requests.get(url, headers={"x-amz-date": amz, "x-amz-content-sha256": "UNSIGNED-PAYLOAD",
                                      "Authorization": auth})


def s_signatures_expire():
    url = object_url(load("a.t1")["metadata-location"])
    now = datetime.datetime.now(datetime.timezone.utc)
    expect(sigv4_get(url, now), 200, "a signature dated now")
    expect(sigv4_get(url, now - datetime.timedelta(minutes=16)), 403, "a signature 16 minutes old")


class ShortTokens:
    """A second floe serve on the same store whose tokens live 1 s. floe allows 30 s of clock
    skew on exp, so the token is taken first and tried after the other scenarios."""
    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="floe-rsign-ttl-")
        self.srv = FloeServer.start(self.tmp, warehouse="s3://wh/lake2", env=s3.server_env(),
                                    args=["--token-ttl", "1"])
        self.token = token(self.srv.client_id, self.srv.secret, server=self.srv)
        self.taken = time.time()

    def sign(self, tok):
        return requests.post("%s/v1/namespaces/a/tables/t1/sign" % self.srv.rest_uri,
                             headers={"Authorization": "Bearer " + tok},
                             json={"region": "us-east-1", "method": "GET",
                                   "uri": s3.endpoint + "/wh/lake2/a/t1/x", "headers": {}})

    def check(self):
        # fresh: the token passes authentication (the table does not exist: 404)
        expect(self.sign(token(self.srv.client_id, self.srv.secret, server=self.srv)), 404,
               "a fresh token reaches the signer")
        wait = self.taken + 1 + 30 + 1.5 - time.time()
        if wait > 0:
            time.sleep(wait)
        expect(self.sign(self.token), 401, "an expired catalog token")


try:
    ROOT_TOKEN = token(floe.client_id, floe.secret)
    short = ShortTokens()
    card.run("PyIceberg creates and appends on S3 with only the catalog token", s_create_append)
    card.run("floe writes, PyIceberg reads through signed requests", s_floe_writes)
    card.run("PyIceberg deletes and overwrites through signed requests", s_delete_overwrite)
    card.run("without remote signing the same client cannot read", s_without_signing)
    card.run("load-table config advertises the signer, vends no keys", s_config_advertised)
    card.run("signing is scoped to the table's location", s_scope)
    card.run("signing needs the table privilege of the method", s_privileges)
    card.run("a signature opens only the object it was made for", s_signature_bound)
    card.run("signatures are dated now and S3 refuses them after 15 minutes", s_signatures_expire)
    card.run("an expired catalog token gets no signature", short.check)
    short.srv.stop()
finally:
    floe.stop()
    s3.stop()
sys.exit(card.finish())
