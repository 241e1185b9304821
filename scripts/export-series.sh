#!/bin/sh
# Export the commits on top of the tag "upstream" of a prepared tree as a
# patch series:
#
#   export-series.sh SRCDIR OUTDIR
#
# writes OUTDIR/NNNN-*.patch (old ones removed) and OUTDIR/series.  The one
# place that holds the git format-patch flags: "make patches", "make
# check-patches" and make-dist.sh all export through it.  The flags and an
# empty git configuration (no ~/.gitconfig: diff.algorithm, format.signOff
# and the like would change the output) make the export stable: the same
# commits give the same bytes.
set -eu

[ $# = 2 ] || { echo "usage: export-series.sh SRCDIR OUTDIR" >&2; exit 2; }
src=$1
mkdir -p "$2"
out=$(cd "$2" && pwd)

rm -f "$out"/*.patch
GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
git -C "$src" format-patch --zero-commit --full-index --no-signature --no-stat \
    --no-numbered --keep-subject --no-renames --abbrev=12 --encoding=UTF-8 \
    -o "$out" upstream..HEAD >/dev/null
(cd "$out" && for p in *.patch; do [ -f "$p" ] && echo "$p"; done) >"$out/series"
