#!/usr/bin/env bash
# test_install.sh - `make install` gives what a C program needs: the floe binary, libfloe (shared and static),
# the public headers and a relocatable pkg-config file. A program built with `pkg-config --cflags --libs floe`
# against an install in a temporary prefix creates an Iceberg table through the SQL API and reads it back.
set -uo pipefail
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
build="$(cd "$(dirname "$FLOE_BIN")" && pwd)"
# A sanitized libfloe.so needs the sanitizer runtime of the compiler that built it in every program that
# links it; the plain build (which make test also runs) checks the install.
if grep -qs '^FLOE_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then echo "skipped: sanitized build"; exit 77; fi
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-install.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }

cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
pc=$(find "$tmp/prefix" -name floe.pc | head -1)
[ -n "$pc" ] && ok "floe.pc installed (${pc#"$tmp/prefix/"})" || bad "no floe.pc under the prefix"
[ -x "$tmp/prefix/bin/floe" ] && ok "bin/floe" || bad "no bin/floe"
[ -f "$tmp/prefix/include/floe/sql.h" ] && ok "include/floe/sql.h" || bad "no include/floe/sql.h"
[ -n "$(find "$tmp/prefix" -name "libfloe.so*" -print -quit)" ] && ok "libfloe.so" || bad "no libfloe.so"
[ -n "$(find "$tmp/prefix" -name libfloe.a -print -quit)" ] && ok "libfloe.a" || bad "no libfloe.a"
# moved prefix: the pkg-config file is relocatable
mv "$tmp/prefix" "$tmp/moved"
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$(find "$tmp/moved" -name floe.pc | head -1)")
ver=$(pkg-config --modversion floe 2>&1)
[[ $ver =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] && ok "pkg-config --modversion floe: $ver" || bad "modversion: $ver"
cflags=$(pkg-config --cflags floe) libs=$(pkg-config --libs floe)
[[ $cflags == *"$tmp/moved"* ]] && ok "cflags point into the moved prefix" || bad "cflags: $cflags"

cat >"$tmp/prog.c" <<'C'
#include <floe/sql.h>
#include <stdio.h>
#include <string.h>

static int run(fl_sql_session *s, const char *sql, char *out, size_t cap)
{
    fl_error err;
    fl_sql_result *r = NULL;
    if (fl_sql_execute(s, sql, &r, &err) != FL_OK) {
        fprintf(stderr, "%s: %s\n", sql, err.msg);
        return 1;
    }
    size_t used = 0;
    for (;;) {
        const fl_batch *b = NULL;
        bool eof = false;
        if (fl_sql_result_next(r, &b, &eof, &err) != FL_OK) {
            fprintf(stderr, "%s: %s\n", sql, err.msg);
            fl_sql_result_close(r);
            return 1;
        }
        if (eof)
            break;
        for (uint32_t i = 0; i < b->nrows; i++)
            for (uint32_t c = 0; c < b->ncols && used + 2 < cap; c++) {
                used += fl_sql_format_value(&b->cols[c], i, "UTC", out + used, cap - used);
                if (used + 2 >= cap)
                    break;
                out[used++] = c + 1 < b->ncols ? '|' : ';';
                out[used] = '\0';
            }
    }
    fl_sql_result_close(r);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    fl_sql_options o;
    memset(&o, 0, sizeof o);
    o.catalog_uri = argv[1];
    o.warehouse = argv[2];
    fl_sql_session *s = NULL;
    fl_error err;
    if (fl_sql_session_open(&o, &s, &err) != FL_OK) {
        fprintf(stderr, "open: %s\n", err.msg);
        return 1;
    }
    char out[256] = "";
    int rc = run(s, "CREATE SCHEMA app", out, sizeof out) ||
             run(s, "CREATE TABLE app.t (id bigint, name varchar)", out, sizeof out) ||
             run(s, "INSERT INTO app.t VALUES (1, 'one'), (2, 'two')", out, sizeof out) ||
             run(s, "SELECT sum(id), string_agg(name, ',' ORDER BY id) FROM app.t", out, sizeof out);
    fl_sql_session_close(s);
    if (!rc)
        printf("%s\n", out);
    return rc;
}
C
# shellcheck disable=SC2086
if cc -std=c11 -Wall -Wextra -Werror $cflags "$tmp/prog.c" -o "$tmp/prog" $libs 2>"$tmp/cc.log"; then
  ok "a program compiles and links with pkg-config --cflags --libs floe"
  libdir=$(pkg-config --variable=libdir floe)
  linked=$(LD_LIBRARY_PATH="$libdir" ldd "$tmp/prog" 2>&1)
  grep -q "libfloe.so.0 => $libdir" <<<"$linked" && ok "it uses the installed libfloe.so" || bad "ldd: $linked"
  got=$(LD_LIBRARY_PATH="$libdir" "$tmp/prog" "sqlite:$tmp/cat.db" "$tmp/wh" 2>&1)
  [ "$got" = "3|one,two;" ] && ok "it writes and reads an Iceberg table: $got" || bad "program output: $got"
  ls "$tmp"/wh/app/t/metadata/*.metadata.json >/dev/null 2>&1 && ok "the table's metadata is on disk" ||
    bad "no metadata under $tmp/wh/app/t"
  # the installed floe reads what the program wrote
  got=$("$tmp/moved/bin/floe" sql -At --catalog "sqlite:$tmp/cat.db" --warehouse "$tmp/wh" -c "SELECT count(*) FROM app.t" 2>&1)
  [ "$got" = "2" ] && ok "the installed floe reads it" || bad "installed floe: $got"
else
  bad "compile/link failed: $(cat "$tmp/cc.log")"
fi
echo "install: $fails failed"
[ "$fails" -eq 0 ]
