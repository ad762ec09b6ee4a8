"""transcript_diff.py - compares two client transcripts block by block: a block starts with a line
"== <label>" and holds what the client printed for that call. Usage:
  transcript_diff.py REFERENCE.txt TARGET.txt
REFERENCE is the transcript against PostgreSQL 15, TARGET against the server under test. Prints
"ok   <label>" per equal block and "FAIL <label>" with both blocks otherwise; a differing block whose
label contains a line's first field of $PGC_KNOWN_GAPS (tests/pgclients/known-gaps.txt, set by
pgc-lib.sh against floe only) prints "GAP" instead. Exit 1 when a block failed or a label is missing
on one side."""
import os
import sys


def blocks(path):
    out, order, cur = {}, [], None
    for line in open(path, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        if line.startswith('== '):
            cur = line[3:]
            order.append(cur)
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return out, order


def gaps():
    path = os.environ.get('PGC_KNOWN_GAPS')
    res = []
    if path:
        for line in open(path):
            if not line.startswith('#') and '\t' in line:
                k, why = line.rstrip('\n').split('\t', 1)
                res.append((k, why))
    return res


ref, order = blocks(sys.argv[1])
got, gorder = blocks(sys.argv[2])
known = gaps()
fails = 0
for label in order + [g for g in gorder if g not in ref]:
    a, b = ref.get(label), got.get(label)
    if a == b:
        print('ok   ' + label)
        continue
    why = next((w for k, w in known if k in label), None)
    if why:
        print('GAP  %s (known gap: %s)' % (label, why))
        continue
    fails += 1
    print('FAIL ' + label)
    print('  postgres: ' + ('(missing)' if a is None else '\n            '.join(a)))
    print('  target:   ' + ('(missing)' if b is None else '\n            '.join(b)))
print('%d blocks, %d failed' % (len(order), fails))
sys.exit(1 if fails else 0)
