#!/usr/bin/env python3
"""Generates the ORC test files of tests/orc/data/ with pyarrow's ORC writer
(the Apache ORC C++ library), so floe's reader is tested against another
implementation's bytes.

Run from the repository root with the engine venv (pyarrow 26):
    . tests/engines/lib/env.sh
    $FLOE_ENGINE_VENV/bin/python tests/orc/gen_orc.py tests/orc/data

Every value is a function of the row number i; tests/orc/test_orc_read.c
recomputes the same formulas in C (keep the two in step). Files:

  prim_<codec>.orc  N_PRIM rows of every primitive type with nulls, written
                    with each compression (none, zlib, snappy, lz4, zstd),
                    a 64 KiB compression block (the smallest the writer takes),
                    a 4 KiB stripe target (3 stripes in prim_none; the
                    writer's estimate keeps the compressed ones in one) and a
                    row index stride of 1000. Strings are DIRECT (dictionary
                    threshold 0).
  dict_zlib.orc     the same rows with dictionary_key_size_threshold=1, so
                    low-cardinality strings are DICTIONARY_V2.
  nested_zstd.orc   struct, list and map columns (nulls at every level).
  long_zlib.orc     N_LONG rows in one stripe (several batches of 2048 rows,
                    long RLE runs).
  ts_edge.orc       timestamps around the epoch and 2015-01-01 (ORC's base):
                    negative seconds with nanos, +-1 ns, sub-microsecond.
"""
import datetime
import decimal
import sys

import pyarrow as pa
import pyarrow.orc as orc

N_PRIM = 600
N_LONG = 6000
N_NESTED = 300


def prim_table():
    i = range(N_PRIM)
    cols = {
        "i8": pa.array([None if k % 7 == 0 else (k % 256) - 128 for k in i], pa.int8()),
        "i16": pa.array([(k * 37 % 65536) - 32768 for k in i], pa.int16()),
        "i32": pa.array([None if k % 13 == 5 else k * 100003 - 150000000 for k in i], pa.int32()),
        # mostly an arithmetic sequence (RLE v2 DELTA), with jumps (DIRECT / PATCHED_BASE)
        "i64": pa.array([k * 1000 if k % 100 else -(k * 1234567890123) for k in i], pa.int64()),
        "f32": pa.array([None if k % 17 == 0 else k * 0.5 for k in i], pa.float32()),
        "f64": pa.array([k / 3.0 for k in i], pa.float64()),
        "s_low": pa.array([None if k % 9 == 0 else "v%d" % (k % 20) for k in i], pa.string()),
        "s_uniq": pa.array(["row-%d-%s" % (k, "x" * (k % 13)) for k in i], pa.string()),
        "bin": pa.array([None if k % 10 == 3 else bytes([k % 256, k * 7 % 256]) * (k % 4)
                         for k in i], pa.binary()),
        "flag": pa.array([None if k % 11 == 0 else k % 3 == 0 for k in i], pa.bool_()),
        "day": pa.array([None if k % 23 == 0 else k * 37 - 40000 for k in i], pa.int32()).cast(
            pa.date32()),
        "ts": pa.array([None if k % 19 == 0 else (k - 1250) * 123456789012345 + k for k in i],
                       pa.int64()).cast(pa.timestamp("ns")),
        "d64": pa.array([None if k % 29 == 0 else decimal.Decimal(k * 12345 - 10000000).scaleb(-2)
                         for k in i], pa.decimal128(10, 2)),
        "d128": pa.array([decimal.Decimal((k * 10**25 + k) * (-1) ** k).scaleb(-10) for k in i],
                         pa.decimal128(38, 10)),
    }
    return pa.table(cols)


def nested_table():
    i = range(N_NESTED)
    st = pa.array([None if k % 5 == 0 else {"a": None if k % 3 == 0 else k, "b": "b%d" % k}
                   for k in i], pa.struct([("a", pa.int32()), ("b", pa.string())]))
    lst = pa.array([None if k % 4 == 0 else [None if j == 2 else k * 10 + j for j in range(k % 5)]
                    for k in i], pa.list_(pa.int64()))
    mp = pa.array([None if k % 6 == 1 else [("k%d" % j, None if (k + j) % 4 == 0 else k + j)
                                           for j in range(k % 3)] for k in i],
                  pa.map_(pa.string(), pa.int32()))
    # a list of structs inside a struct
    deep = pa.array([{"xs": [{"p": k + j, "q": None if j else "q%d" % k} for j in range(k % 3)]}
                     for k in i],
                    pa.struct([("xs", pa.list_(pa.struct([("p", pa.int16()), ("q", pa.string())])))]))
    return pa.table({"id": pa.array(list(i), pa.int32()), "st": st, "lst": lst, "mp": mp,
                     "deep": deep})


def long_table():
    i = range(N_LONG)
    return pa.table({
        "seq": pa.array(list(i), pa.int64()),
        "m7": pa.array([None if k % 1000 == 999 else k % 7 for k in i], pa.int32()),
        "run": pa.array([k // 700 for k in i], pa.int16()),
        "odd": pa.array([k % 2 == 1 for k in i], pa.bool_()),
        "tag": pa.array(["t%d" % (k % 5) for k in i], pa.string()),
    })


TS_EDGE = [
    0, -1, 1, -1000, -999, -1_000_000_000, -1_000_000_001, -999_999_999, 1_000_000_001,
    -1_500_000_000, -86_400_000_000_123, 1_420_070_400_000_000_000, 1_420_070_399_999_999_999,
    1_420_070_400_000_000_001, -2_208_988_800_000_000_000, -2_208_988_799_500_000_000,
    253_402_300_799_999_999_999 // 1000, 123_456_789, -123_456_789, 1_000, 10, 100_000_000,
]


def main(out):
    opts = dict(compression_block_size=65536, stripe_size=4096, batch_size=200,
                row_index_stride=1000, dictionary_key_size_threshold=0.0)
    t = prim_table()
    for codec in ["uncompressed", "zlib", "snappy", "lz4", "zstd"]:
        name = "none" if codec == "uncompressed" else codec
        orc.write_table(t, "%s/prim_%s.orc" % (out, name), compression=codec, **opts)
    orc.write_table(t, out + "/dict_zlib.orc", compression="zlib",
                    **dict(opts, dictionary_key_size_threshold=1.0))
    orc.write_table(nested_table(), out + "/nested_zstd.orc", compression="zstd",
                    **dict(opts, stripe_size=4096, batch_size=100))
    orc.write_table(long_table(), out + "/long_zlib.orc", compression="zlib",
                    **dict(opts, stripe_size=1 << 20, batch_size=1024, row_index_stride=10000))
    ts = pa.table({"ts": pa.array(TS_EDGE + [None], pa.int64()).cast(pa.timestamp("ns"))})
    orc.write_table(ts, out + "/ts_edge.orc", compression="uncompressed")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/orc/data")
