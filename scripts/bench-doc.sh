#!/bin/sh
# Put what tools/dnn-torch-bench.sh printed into doc/benchmarks.md, between
# its "<!-- bench:begin -->" and "<!-- bench:end -->" lines, as it is (a
# code block): the figures of the documentation come from make bench, not
# from a hand.
#
#   scripts/bench-doc.sh BENCH_OUTPUT [DOC]
set -eu
out=$1
doc=${2:-$(cd "$(dirname "$0")/.." && pwd)/doc/benchmarks.md}
if ! grep -q '^<!-- bench:begin -->$' "$doc" || ! grep -q '^<!-- bench:end -->$' "$doc"; then
    echo "bench-doc: $doc has no bench:begin and bench:end lines" >&2
    exit 1
fi
tmp=$(mktemp)
awk -v out="$out" '
    /^<!-- bench:begin -->$/ { print; print "```"; while ((getline line < out) > 0) print line; print "```"; skip = 1; next }
    /^<!-- bench:end -->$/   { skip = 0 }
    !skip                    { print }' "$doc" >"$tmp"
mv -f "$tmp" "$doc"
echo "bench-doc: $doc now holds the table of $out"
