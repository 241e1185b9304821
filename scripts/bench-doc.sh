#!/bin/sh
# Put what tools/bench/dnn-torch-bench.sh printed into doc/benchmarks.md, between
# its "<!-- bench:begin -->" and "<!-- bench:end -->" lines, as it is (a
# code block): the figures of the documentation come from make bench, not
# from a hand.
#
#   scripts/bench-doc.sh BENCH_OUTPUT [DOC [MARK]]
#
# MARK (bench) names the lines: "bench-parts" for what
# tools/bench/dnn-torch-bench-parts.sh printed (make bench-parts).
set -eu
out=$1
doc=${2:-$(cd "$(dirname "$0")/.." && pwd)/doc/benchmarks.md}
mark=${3:-bench}
if ! grep -q "^<!-- $mark:begin -->\$" "$doc" || ! grep -q "^<!-- $mark:end -->\$" "$doc"; then
    echo "bench-doc: $doc has no $mark:begin and $mark:end lines" >&2
    exit 1
fi
# a run of some of the rows (make bench BENCH_MODELS=..., or the
# architectures alone), or of other options, would leave the documentation
# with only those: the table is the default run's rows (the settings of
# time and layouts it states).  Empty is the default, as for the bench,
# but for BENCH_TEMPORAL (empty: none)
not_default=
if [ "$mark" = bench ]; then
    for var in BENCH_MODELS BENCH_FORMATS BENCH_PRECISIONS BENCH_FILTER_OPTS BARE_CHANNELS_LAST \
               BENCH_ARCHITECTURES; do
        eval "[ -z \"\${$var:-}\" ]" || not_default=$var
    done
    eval "[ -z \"\${BENCH_TEMPORAL+set}\" ]" || not_default=BENCH_TEMPORAL
else
    for var in BENCH_PARTS_CLIP BENCH_PARTS_SECONDS; do
        eval "[ -z \"\${$var:-}\" ]" || not_default=$var
    done
fi
if [ -n "$not_default" ]; then
    echo "bench-doc: $not_default is set, so this run is not the default one: $doc left as it is"
    exit 0
fi
tmp=$(mktemp)
awk -v out="$out" -v mark="$mark" '
    $0 == "<!-- " mark ":begin -->" { print; print "```"; while ((getline line < out) > 0) print line; print "```"; skip = 1; next }
    $0 == "<!-- " mark ":end -->"   { skip = 0 }
    !skip                    { print }' "$doc" >"$tmp"
mv -f "$tmp" "$doc"
echo "bench-doc: $doc now holds the table of $out"
