#!/bin/sh
# make check-upstream: FFmpeg's own FATE suite, as "make fate" runs it
# without samples, on the patched tree:
#
#   check-upstream.sh BUILDDIR [JOBS] [MAKE-VARIABLE=VALUE...]
#
# SAMPLES is set empty (FATE_SAMPLES from the environment is ignored), so
# FFmpeg leaves out the tests that need the fate-suite samples.  Our torch
# tests are part of "make fate" (tests/fate/dnn-torch.mak, included by patch
# 0002) and run too: they need TORCH_PYTHON, passed as a make variable, like
# "make check" does.  The hardware tests (FATE_HW: make check-gpu) are not
# part of "make fate".
#
# The output of "make fate" goes to BUILDDIR/check-upstream.log; the summary
# lists each failed test and ends with "N passed, N failed".
set -u

[ $# -ge 1 ] || { echo "usage: check-upstream.sh BUILDDIR [JOBS] [VAR=VALUE...]" >&2; exit 2; }
builddir=$1
jobs=${2:-2}
shift; [ $# = 0 ] || shift
make=${MAKE:-make}
log=$builddir/check-upstream.log
unset FATE_SAMPLES

# The tests "make fate" runs: FATE as tests/Makefile leaves it, less FATE_HW,
# which is added to FATE after the "fate" target took its prerequisites.
tests=$($make -s -C "$builddir" --no-print-directory -f Makefile -f - SAMPLES= "$@" fate-list-run <<'MK'
fate-list-run:
	@printf '%s\n' $(filter-out $(FATE_HW-yes),$(sort $(FATE)))
MK
) || { echo "check-upstream: cannot list the FATE tests of $builddir" >&2; exit 1; }
total=$(echo "$tests" | grep -c .)
echo "check-upstream: $total FATE tests (no samples), -j$jobs; log in $log"

start=$(date +%s)
$make -C "$builddir" fate-clear-reports >/dev/null
$make -k -C "$builddir" -j"$jobs" SAMPLES= "$@" fate >"$log" 2>&1
seconds=$(($(date +%s) - start))

pass=0 fail=0 ours_pass=0 ours_fail=0
for t in $tests; do
    name=${t#fate-}
    status=$(cut -d: -f2 "$builddir/tests/data/fate/$name.rep" 2>/dev/null)
    case $name in dnn-torch*) ours=1 ;; *) ours= ;; esac
    if [ "$status" = 0 ]; then
        pass=$((pass + 1)); [ -z "$ours" ] || ours_pass=$((ours_pass + 1))
    else
        fail=$((fail + 1)); [ -z "$ours" ] || ours_fail=$((ours_fail + 1))
        echo "FAILED  $name (${status:-not run})"
    fi
done
[ "$fail" = 0 ] || echo "(each failed test's output: $builddir/tests/data/fate/NAME.err and .diff; make's: $log)"
echo "upstream's tests: $((pass - ours_pass)) passed, $((fail - ours_fail)) failed; ours (dnn-torch): $ours_pass passed, $ours_fail failed; $((seconds / 60)) min $((seconds % 60)) s"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$total" -gt 0 ]
