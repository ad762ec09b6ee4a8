#!/usr/bin/env python3
"""orc_compare.py - floe's ORC reader against pyarrow's (the ORC C++ library)
on every value.

Writes seeded random ORC files with pyarrow (every primitive type, nested
struct/list/map, nulls, every codec, DIRECT and DICTIONARY strings, small
and large stripes), then for each of them and for the files given on the
command line runs `floe orc cat FILE --format jsonl` and compares each row
with pyarrow's reading, converted to floe's JSON conventions (cli/output.h):
INT64 and DECIMAL as exact strings, BINARY as "\\x<hex>", DATE "YYYY-MM-DD",
TIMESTAMP(ns) "YYYY-MM-DD HH:MM:SS.fffffffff", MAP as [{"key","value"}].

Each random file is also written again by floe (`floe convert x.orc y.orc`, each codec,
sometimes in stripes of a few rows): pyarrow must read floe's file to the same values, and
floe's reader must agree with pyarrow on it.

usage: orc_compare.py FLOE_BIN WORKDIR [FILE.orc ...]; exit 1 on a mismatch.
"""
import datetime
import decimal
import json
import random
import struct
import subprocess
import sys

import pyarrow as pa
import pyarrow.orc as orc

EPOCH = datetime.date(1970, 1, 1)


def fmt_ts(ns):
    secs, frac = divmod(ns, 10**9)
    t = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=secs)
    return "%04d-%02d-%02d %02d:%02d:%02d.%09d" % (t.year, t.month, t.day, t.hour, t.minute,
                                                   t.second, frac)


def expect(v, t):
    """pyarrow's python value of type t in floe's JSON form (timestamps come as int ns)."""
    if v is None:
        return None
    if pa.types.is_int64(t):
        return str(v)
    if pa.types.is_integer(t) or pa.types.is_boolean(t) or pa.types.is_floating(t):
        return v
    if pa.types.is_string(t):
        return v
    if pa.types.is_binary(t):
        return "\\x" + v.hex()
    if pa.types.is_date32(t):
        return (EPOCH + datetime.timedelta(days=v)).isoformat() if isinstance(v, int) else v.isoformat()
    if pa.types.is_timestamp(t):
        return fmt_ts(v)
    if pa.types.is_decimal(t):
        return format(v, "f")
    if pa.types.is_struct(t):
        return {t.field(i).name: expect(v[t.field(i).name], t.field(i).type)
                for i in range(t.num_fields)}
    if pa.types.is_map(t):
        return [{"key": expect(k, t.key_type), "value": expect(x, t.item_type)} for k, x in v]
    if pa.types.is_list(t):
        return [expect(x, t.value_type) for x in v]
    raise ValueError("type %s" % t)


def same(got, want, t):
    if want is None or got is None:
        return got is None and want is None
    if pa.types.is_float32(t):
        return struct.pack("<f", float(got)) == struct.pack("<f", want) or (
            isinstance(got, str) and want != want)
    if pa.types.is_float64(t):
        return float(got) == want
    if pa.types.is_struct(t):
        return all(same(got.get(t.field(i).name), want[t.field(i).name], t.field(i).type)
                   for i in range(t.num_fields)) and len(got) == t.num_fields
    if pa.types.is_map(t):
        return len(got) == len(want) and all(
            same(g["key"], w["key"], t.key_type) and same(g["value"], w["value"], t.item_type)
            for g, w in zip(got, want))
    if pa.types.is_list(t):
        return len(got) == len(want) and all(same(g, w, t.value_type) for g, w in zip(got, want))
    return got == want


def columns_as_python(table):
    """Per column, the python values; top-level timestamps as int ns (to_pylist would cut
    them to microseconds)."""
    out = []
    for i, f in enumerate(table.schema):
        col = table.column(i)
        if pa.types.is_timestamp(f.type):
            col = col.cast(pa.timestamp("ns")).cast(pa.int64())
        if pa.types.is_date32(f.type):
            col = col.cast(pa.int32())
        out.append(col.to_pylist())
    return out


def compare(floe, path):
    table = orc.ORCFile(path).read()
    res = subprocess.run([floe, "orc", "cat", path, "--format", "jsonl"], capture_output=True)
    if res.returncode != 0:
        print("FAIL %s: floe exited %d: %s" % (path, res.returncode, res.stderr.decode()))
        return 1
    lines = res.stdout.decode().splitlines()
    if len(lines) != table.num_rows:
        print("FAIL %s: %d rows, pyarrow %d" % (path, len(lines), table.num_rows))
        return 1
    cols = columns_as_python(table)
    bad = 0
    for r, line in enumerate(lines):
        row = json.loads(line)
        for i, f in enumerate(table.schema):
            want = expect(cols[i][r], f.type)
            if not same(row.get(f.name), want, f.type):
                if bad < 5:
                    print("FAIL %s row %d column %s: floe %r, pyarrow %r" % (path, r, f.name,
                                                                         row.get(f.name), want))
                bad += 1
    print("%s %s: %d rows x %d columns" % ("ok  " if not bad else "FAIL", path, table.num_rows,
                                          table.num_columns))
    return 1 if bad else 0


def roundtrip(floe, work, path, codec, stripe_rows):
    """floe's ORC writer: `floe convert` the file to ORC; pyarrow must read floe's file to the
    values it reads from the original, and floe's reader must agree with pyarrow on it."""
    out = "%s/%s.floe-%s.orc" % (work, path.rsplit("/", 1)[-1], codec)
    cmd = [floe, "convert", path, out, "--codec", codec, "--quiet"]
    if stripe_rows:
        cmd += ["--row-group-rows", str(stripe_rows)]
    res = subprocess.run(cmd, capture_output=True)
    if res.returncode != 0:
        print("FAIL write %s: floe exited %d: %s" % (path, res.returncode, res.stderr.decode()))
        return 1
    want, got = orc.ORCFile(path).read(), orc.ORCFile(out)
    if stripe_rows and want.num_rows and got.nstripes != -(-want.num_rows // stripe_rows):
        print("FAIL write %s: %d stripes for %d rows of %d" % (path, got.nstripes, want.num_rows,
                                                            stripe_rows))
        return 1
    got = got.read()
    if got.schema.names != want.schema.names or columns_as_python(got) != columns_as_python(want):
        print("FAIL write %s (%s): pyarrow reads other values from floe's file" % (path, codec))
        return 1
    print("ok   write %s (%s, stripes of %s rows): pyarrow reads it back" % (path, codec,
                                                                         stripe_rows or "any"))
    return compare(floe, out)


def rand_table(rng):
    n = rng.choice([0, 1, 7, 100, 2047, 2048, 2049, 5000])
    pnull = rng.choice([0.0, 0.1, 0.5, 1.0])

    def maybe(gen):
        return [None if rng.random() < pnull else gen() for _ in range(n)]

    def rstr():
        return "".join(rng.choice("abcxyz\u00e9\u4e2d\U0001f600 ,\"\n")
                       for _ in range(rng.randint(0, 12)))

    low = ["red", "green", "blue", "", "\u00e9t\u00e9"]
    p = rng.randint(1, 38)
    s = rng.randint(0, p)
    cols = {
        "b": pa.array(maybe(lambda: rng.random() < 0.5), pa.bool_()),
        "i8": pa.array(maybe(lambda: rng.randint(-128, 127)), pa.int8()),
        "i16": pa.array(maybe(lambda: rng.randint(-2**15, 2**15 - 1)), pa.int16()),
        "i32": pa.array(maybe(lambda: rng.choice([rng.randint(-2**31, 2**31 - 1),
                                                  rng.randint(-5, 5)])), pa.int32()),
        "i64": pa.array(maybe(lambda: rng.choice([rng.randint(-2**63, 2**63 - 1),
                                                  rng.randint(0, 1000), 2**40 + rng.randint(0, 9)])),
                        pa.int64()),
        "f32": pa.array(maybe(lambda: rng.uniform(-1e6, 1e6)), pa.float32()),
        "f64": pa.array(maybe(lambda: rng.choice([rng.uniform(-1e300, 1e300), rng.random(), 0.0])),
                        pa.float64()),
        "s": pa.array(maybe(rstr), pa.string()),
        "s_low": pa.array(maybe(lambda: rng.choice(low)), pa.string()),
        "bin": pa.array(maybe(lambda: bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 9)))),
                        pa.binary()),
        "d": pa.array(maybe(lambda: rng.randint(-100000, 100000)), pa.int32()).cast(pa.date32()),
        "ts": pa.array(maybe(lambda: rng.randint(-2**62, 2**62)), pa.int64()).cast(
            pa.timestamp("ns")),
        "dec": pa.array(maybe(lambda: decimal.Decimal(rng.randint(-10**p + 1, 10**p - 1)).scaleb(-s)),
                        pa.decimal128(p, s)),
        "st": pa.array(maybe(lambda: {"x": rng.choice([None, rng.randint(-9, 9)]),
                                      "y": rng.choice([None, rstr()])}),
                       pa.struct([("x", pa.int32()), ("y", pa.string())])),
        "l": pa.array(maybe(lambda: [rng.choice([None, rng.randint(-2**63, 2**63 - 1)])
                                     for _ in range(rng.randint(0, 4))]), pa.list_(pa.int64())),
        "m": pa.array(maybe(lambda: [(str(k), rng.choice([None, rng.random()]))
                                     for k in range(rng.randint(0, 3))]),
                      pa.map_(pa.string(), pa.float64())),
    }
    return pa.table(cols)


def main():
    floe, work = sys.argv[1], sys.argv[2]
    rng = random.Random(20261203)
    fails = 0
    codecs = ["uncompressed", "zlib", "snappy", "lz4", "zstd"]
    for k in range(15):
        t = rand_table(rng)
        path = "%s/random_%02d.orc" % (work, k)
        orc.write_table(t, path, compression=codecs[k % len(codecs)],
                        stripe_size=rng.choice([4096, 1 << 20, 64 << 20]),
                        batch_size=rng.choice([100, 1024]),
                        dictionary_key_size_threshold=rng.choice([0.0, 0.5, 1.0]))
        fails += compare(floe, path)
        fails += roundtrip(floe, work, path, ["none", "gzip", "snappy", "lz4", "zstd"][k % 5],
                           rng.choice([0, 0, 100, 2048]))
    for path in sys.argv[3:]:
        fails += compare(floe, path)
    print("%d file(s) differ" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
