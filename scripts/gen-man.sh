#!/usr/bin/env bash
# gen-man.sh FLOE OUTDIR - man pages from the binary's own help: floe(1) from `floe --help` and
# floe-CMD(1) from `floe CMD --help` for every command it lists. The help text is the one source of
# each command's options, so a page cannot drift from the code; the build runs this after linking
# floe and `make install` puts the pages in share/man/man1.
#
# Layout: NAME (the command's summary line in `floe --help`), SYNOPSIS (the "usage:" line and the
# lines indented under it: a command's other forms, continued lines), then one section per
# "heading:" line of the help ("options:", "cat options:" ...), its lines kept as written (.nf),
# escaped for roff. The option lines come from each command's option table (src/cli/opts.h).
set -euo pipefail
floe=${1:?usage: gen-man.sh FLOE OUTDIR}
out=${2:?usage: gen-man.sh FLOE OUTDIR}
mkdir -p "$out"
version=$("$floe" version | awk '{print $2}')

# help text on stdin -> roff on stdout; $1 page name, $2 summary
to_roff() {
  awk -v name="$1" -v summary="$2" -v version="$version" '
    function esc(s) { gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s); if (s ~ /^[.\x27]/) s = "\\&" s; return s }
    function open_section(title) { if (inblock) print ".fi"; print ".SH " title; print ".nf"; inblock = 1 }
    BEGIN {
      print ".TH " toupper(name) " 1 \"\" \"floe " version "\" \"floe manual\""
      print ".SH NAME"; print esc(name) " \\- " esc(summary)
    }
    !inblock && !synopsis && /^usage: / {
      sub(/^usage: /, ""); print ".SH SYNOPSIS"; print ".nf"; print esc($0); synopsis = insyn = 1; next
    }
    insyn && /^       / { sub(/^       /, ""); print esc($0); next } # more forms, continued lines
    insyn { print ".fi"; insyn = 0 }
    !inblock && !synopsis && NR == 1 && $0 ~ / - / { next } # "floe 0.1.0 - ...": the NAME line says it
    !inblock && $0 == "" { next }
    $0 == "" { blanks++; next } # kept only between lines of a section, not before a heading
    /^[A-Za-z][^:]*:$/ { blanks = 0; t = toupper(substr($0, 1, length($0) - 1)); open_section("\"" t "\""); next }
    {
      if (!inblock) open_section("DESCRIPTION")
      for (; blanks > 0; blanks--) print ""
      print esc($0)
    }
    END {
      if (inblock || insyn) print ".fi"
      print ".SH SEE ALSO"
      print (name == "floe" ? "floe\\-sql(1), floe\\-load(1), floe\\-serve(1), floe\\-table(1)" : "floe(1)")
    }'
}

top=$("$floe" --help) # whole, before awk reads part of it (no SIGPIPE under pipefail)
to_roff floe "an open data lakehouse" <<<"$top" >"$out/floe.1"
awk '/^commands:/ { f = 1; next } f && NF == 0 { exit } f && $1 != "version" { print }' <<<"$top" |
  while read -r cmd summary; do
    help=$("$floe" "$cmd" --help)
    to_roff "floe-$cmd" "$summary" <<<"$help" >"$out/floe-$cmd.1"
  done
