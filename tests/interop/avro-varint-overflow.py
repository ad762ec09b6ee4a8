#!/usr/bin/env python3
"""Rewrites one long of the first record of an Avro container file (deflate or
null codec, first block) as an 11-byte varint: a value beyond 64 bits, which
no reader may turn into a number. Used by test_unreadable_metadata.sh.

    avro-varint-overflow.py FILE SKIP_STRINGS SKIP_LONGS

skips SKIP_STRINGS length-prefixed strings then SKIP_LONGS varints of the
record, then replaces the next varint."""
import sys
import zlib


def read_long(b, i):
    shift = n = 0
    while True:
        c = b[i]
        i += 1
        n |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return (n >> 1) ^ -(n & 1), i


def write_long(v):
    n = (v << 1) ^ (v >> 63)
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


path, nstr, nlong = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
b = open(path, "rb").read()
i = 4
codec = b"null"
while True:
    count, i = read_long(b, i)
    if count == 0:
        break
    if count < 0:
        count = -count
        _, i = read_long(b, i)
    for _ in range(count):
        kl, i = read_long(b, i)
        key = b[i:i + kl]
        i += kl
        vl, i = read_long(b, i)
        if key == b"avro.codec":
            codec = b[i:i + vl]
        i += vl
sync = b[i:i + 16]
head = b[:i + 16]
i += 16
records, j = read_long(b, i)
size, j = read_long(b, j)
data = b[j:j + size]
raw = zlib.decompress(data, -15) if codec == b"deflate" else data
k = 0
for _ in range(nstr):
    n, k = read_long(raw, k)
    k += n
for _ in range(nlong):
    _, k = read_long(raw, k)
_, end = read_long(raw, k)
raw = raw[:k] + b"\xff" * 10 + b"\x01" + raw[end:]
if codec == b"deflate":
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    raw = c.compress(raw) + c.flush()
open(path, "wb").write(head + write_long(records) + write_long(len(raw)) + raw + sync + b[j + size + 16:])
