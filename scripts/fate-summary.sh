#!/bin/sh
# Summarise FATE reports: fate-summary.sh BUILDDIR TARGET...
# TARGET: a group with a fate-list-NAME target (fate-dnn-torch), or one test.
# Lists every failed test with its result and ends with "N passed, N failed".
builddir=$1; shift
tests=
for target in "$@"; do
    list=$(make -s -C "$builddir" --no-print-directory "fate-list-${target#fate-}" 2>/dev/null) ||
        list=$target
    tests="$tests $list"
done
pass=0 fail=0
for t in $tests; do
    rep=$builddir/tests/data/fate/${t#fate-}.rep
    status=$(cut -d: -f2 "$rep" 2>/dev/null)
    if [ "$status" = 0 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAILED  ${t#fate-} (${status:-not run})"
    fi
done
[ $((pass + fail)) -gt 0 ] || { echo "no tests listed for $*" >&2; fail=1; }
echo "$pass passed, $fail failed"
[ $fail = 0 ]
