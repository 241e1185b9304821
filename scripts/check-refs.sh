#!/bin/sh
# Every FATE test of ours has the reference file it compares against:
#
#   scripts/check-refs.sh BUILDDIR TARGET...
#
# (TARGET: fate-dnn-torch, fate-dnn-torch-cuda).  The tests of CUDA frames
# run only where a GPU is, so a missing reference would show only there;
# this reads each test's reference from make's recipe (make -n: nothing is
# built or run) on any machine.  Prints the missing ones and fails.
set -u
builddir=$1; shift
tests=
for target in "$@"; do
    tests="$tests $(make -s -C "$builddir" --no-print-directory "fate-list-${target#fate-}")" || exit 1
done
[ -n "$(echo "$tests" | tr -d ' ')" ] || { echo "check-refs: no tests listed for $*" >&2; exit 1; }
srcdir=$(sed -n 's/^SRC_PATH=//p' "$builddir/ffbuild/config.mak")
# fate-run.sh's arguments: NAME SAMPLES EXEC PATH 'CMD' 'CMP' 'REF' ...
# (CMD holds no single quote: FATE quotes it so); an empty REF is
# tests/ref/fate/NAME, CMP null compares nothing; relative paths are from
# BUILDDIR
# shellcheck disable=SC2086 # $tests is a word list
make -n -C "$builddir" --no-print-directory $tests 2>/dev/null |
    awk -F"'" -v src="$srcdir" '/tests\/fate-run\.sh fate-/ {
        split($1, a, " "); for (i in a) if (a[i] ~ /^fate-/) name = a[i]
        sub(/^fate-/, "", name)
        if ($4 == "null") next
        ref = $6 != "" ? $6 : src "/tests/ref/fate/" name
        print name, ref
    }' | {
    missing=0 checked=0
    while read -r name ref; do
        checked=$((checked + 1))
        case $ref in /*) ;; *) ref=$builddir/$ref ;; esac
        [ -f "$ref" ] && continue
        echo "check-refs: $name has no reference ($ref)"
        missing=$((missing + 1))
    done
    echo "check-refs: $checked tests, $missing without a reference"
    [ "$missing" = 0 ]
}
