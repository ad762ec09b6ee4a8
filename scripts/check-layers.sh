#!/usr/bin/env bash
# check-layers.sh [BUILD_DIR] - floe's walls, checked (docs/architecture.md, "Layers").
#
# 1. Includes: a file under src/<A>/ includes only src/<A>/ headers, public
#    headers (include/floe/) and system headers; a public header includes no
#    src/ header. (The build's walls make most crossings fail to compile; this
#    also catches relative paths such as "../iceberg/x.h".)
# 2. Calls: from the object files of BUILD_DIR, every symbol a subsystem uses
#    from another is defined in a subsystem it declares (BUILD_DIR/layers.txt,
#    written by CMakeLists.txt from floe_subsystem(... DEPENDS ...)).
# 3. Exports: libfloe.so defines only fl_ symbols, and exactly those its public
#    headers declare FL_API.
# Prints each offence ("file -> header", "subsystem calls symbol of other"),
# then one summary line. Exit 0 when there is none.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
python3 - "$build" <<'PY'
import glob, os, re, subprocess, sys
build = sys.argv[1]
bad = 0
inc_re = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)

def resolve(f, inc):
    for base in (os.path.dirname(f), 'src', 'include'):
        c = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(c):
            return c
    return None

files = sorted(glob.glob('src/**/*.[ch]', recursive=True) + glob.glob('include/**/*.h', recursive=True))
for f in files:
    own = f.split('/')[1] if f.startswith('src/') else None
    for inc in inc_re.findall(open(f, errors='replace').read()):
        c = resolve(f, inc)
        if c and c.startswith('src/') and c.split('/')[1] != own:
            print(f'{f} -> {c}  (include across a wall: use a public header in include/floe/)')
            bad += 1
inc_bad = bad

layers = {}
lf = os.path.join(build, 'layers.txt')
if not os.path.isfile(lf):
    print(f'{lf}: missing (configure the build first)'); sys.exit(2)
for line in open(lf):
    if line.startswith('#') or ':' not in line:
        continue
    name, deps = line.split(':', 1)
    layers[name.strip()] = set(deps.split())

def sub_of(obj):
    m = re.search(r'/src/([^/]+)/', obj)
    return m.group(1) if m else None

defs, uses = {}, []
objs = glob.glob(os.path.join(build, 'CMakeFiles/floe_*.dir/src/**/*.o'), recursive=True) + \
       glob.glob(os.path.join(build, 'CMakeFiles/floe.dir/src/cli/*.o'))
def live(o):  # skip objects a previous layout of the tree left in the build folder
    m = re.search(r'CMakeFiles/floe(?:_([a-z0-9]+))?\.dir/(src/.+)\.o$', o)
    return bool(m) and os.path.isfile(m.group(2)) and (m.group(1) or 'cli') == sub_of(o)
objs = [o for o in objs if live(o)]
if not objs:
    print(f'{build}: no object files (build first)'); sys.exit(2)
for o in objs:
    s = sub_of(o)
    for l in subprocess.run(['nm', '-P', o], capture_output=True, text=True, check=True).stdout.splitlines():
        p = l.split()
        if len(p) < 2:
            continue
        if p[1] == 'U':
            uses.append((s, p[0], o))
        elif p[1] in 'TDBRCVWG':
            defs[p[0]] = s
seen = set()
for s, sym, o in uses:
    d = defs.get(sym)
    if d and d != s and d not in layers.get(s, set()) and (s, d) not in seen:
        seen.add((s, d))
        print(f'{s} calls {sym} of {d} (and maybe more), which it does not declare '
              f'({os.path.relpath(o, build)}; CMakeLists.txt floe_subsystem({s} DEPENDS ...))')
        bad += 1
call_bad = bad - inc_bad

so = os.path.join(build, 'libfloe.so')
declared = set()
for h in glob.glob('include/floe/*.h'):
    declared |= set(re.findall(r'^FL_API [^;(]*?\b(fl_\w+)\s*\(', open(h).read(), re.M))
exported = set(l.split()[-1] for l in subprocess.run(['nm', '-D', '--defined-only', so],
               capture_output=True, text=True, check=True).stdout.splitlines())
for x in sorted(exported - declared):
    print(f'libfloe.so exports {x}, which no public header declares FL_API'); bad += 1
for x in sorted(declared - exported):
    print(f'{x} is declared FL_API but libfloe.so does not export it '
          f'(is it defined in a file that includes its public header?)'); bad += 1
exp_bad = bad - inc_bad - call_bad
print(f'layers: {inc_bad} include crossings, {call_bad} undeclared calls, '
      f'{exp_bad} export mismatches ({len(exported)} fl_ symbols exported, '
      f'{len(layers)} layers)')
sys.exit(1 if bad else 0)
PY
