"""analyze_check.py - floe's ANALYZE statistics read by an independent implementation.

Usage: analyze_check.py METADATA_JSON_OR_- EXPECT_JSON
Reads the table metadata (a file, or '-' = a REST loadTable response on stdin), takes the
statistics entry of the current snapshot, and for every blob: the Puffin footer (parsed here,
from the spec) must list it at the same offset/length and properties as the metadata, the
Apache DataSketches library must deserialize the bytes as a compact theta sketch, and its
estimate (truncated) must equal the blob's "ndv". EXPECT_JSON maps a column's field id to
either the exact NDV or [lo, hi], and, for some, the values to feed Python's own sketch
("longs": [a, b] = range(a, b); "strings": [fmt, a, b]): the estimates must then be equal,
which checks floe's hashing (MurmurHash3_x64_128, seed 9001) byte for byte.
Prints one line per check; exits 1 on any failure.
"""
import json
import struct
import sys

import datasketches as ds

fails = 0


def check(name, ok, detail=""):
    global fails
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        fails += 1


def footer(data):
    assert data[:4] == b"PFA1" and data[-4:] == b"PFA1"
    n = struct.unpack("<i", data[-12:-8])[0]
    flags = data[-8:-4]
    assert data[-16 - n:-12 - n] == b"PFA1"
    return json.loads(data[-12 - n:-12]), flags, n + 16


def main():
    src = sys.stdin.read() if sys.argv[1] == "-" else open(sys.argv[1]).read()
    md = json.loads(src)
    md = md.get("metadata", md)
    expect = json.loads(sys.argv[2])
    cur = md["current-snapshot-id"]
    st = [s for s in md.get("statistics", []) if s["snapshot-id"] == cur]
    check("one statistics entry for the current snapshot", len(st) == 1, str(md.get("statistics")))
    if not st:
        return
    st = st[0]
    data = open(st["statistics-path"], "rb").read()
    check("file-size-in-bytes", len(data) == st["file-size-in-bytes"])
    ft, flags, fsize = footer(data)
    check("file-footer-size-in-bytes", fsize == st["file-footer-size-in-bytes"])
    check("footer flags 0 (uncompressed)", flags == b"\0\0\0\0")
    check("created-by", ft["properties"]["created-by"].startswith("floe"))
    meta = {b["fields"][0]: b for b in st["blob-metadata"]}
    for b in ft["blobs"]:
        fid = b["fields"][0]
        m = meta.get(fid)
        check(f"field {fid}: in blob-metadata", m is not None)
        if m is None:
            continue
        check(f"field {fid}: type", b["type"] == m["type"] == "apache-datasketches-theta-v1")
        check(f"field {fid}: snapshot", b["snapshot-id"] == m["snapshot-id"] == cur)
        check(f"field {fid}: properties", b["properties"] == m["properties"])
        blob = data[b["offset"]:b["offset"] + b["length"]]
        sk = ds.compact_theta_sketch.deserialize(blob)
        ndv = int(b["properties"]["ndv"])
        check(f"field {fid}: datasketches estimate {sk.get_estimate()} = ndv {ndv}",
              int(sk.get_estimate()) == ndv)
        want = expect.get(str(fid))
        if want is None:
            continue
        if isinstance(want, dict):
            own = ds.update_theta_sketch(12, 1.0, 9001)
            if "longs" in want:
                for v in range(*want["longs"]):
                    own.update(v)
            else:
                fmt, a, z = want["strings"]
                for v in range(a, z):
                    own.update(fmt % v)
            check(f"field {fid}: Python's own sketch of the values estimates the same",
                  own.get_estimate() == sk.get_estimate() and
                  own.compact().serialize() == blob,
                  f"{own.get_estimate()} vs {sk.get_estimate()}")
            want = want.get("ndv")
        if isinstance(want, list):
            check(f"field {fid}: ndv {ndv} in {want}", want[0] <= ndv <= want[1])
        elif want is not None:
            check(f"field {fid}: ndv {ndv} = {want}", ndv == want)
        check(f"field {fid}: estimation mode as expected",
              sk.is_estimation_mode() == (ndv > 7680), str(sk.is_estimation_mode()))


main()
sys.exit(1 if fails else 0)
