#!/bin/sh
# make lint: the checks a change has to pass before it is committed or sent.
#
#   1. patch series: scripts/check-series.sh (DEP-3 and FFmpeg's subject
#      style for patches/*.patch), after its own self-test, and
#      patches/our-files (scripts/our-files.sh --check);
#   2. commit messages of this repository from LINT_BASE on: a subject of at
#      most 72 characters, then a blank line;
#   3. shellcheck of our shell scripts (scripts/*.sh, .ci/run, tests/dnn/*.sh,
#      tools/*.sh, tools/bench/*.sh, configure);
#   4. git diff --check: whitespace errors in the tracked files (as they are
#      in the working tree), patches/*.patch excepted (their context lines
#      are upstream's).
#
# Every check runs; each problem is printed; the last line says
# "lint: passed" or "lint: N checks failed" (exit status 1).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

# Commits before this one predate the commit-message rule.
LINT_BASE=${LINT_BASE:-2f3cf4c3426bb57760b6ba9068c4fa712c5a7263}

failed=0
step() { echo "== $*"; }
result() {
    if [ "$1" = 0 ]; then echo "   ok"; else echo "   FAILED"; failed=$((failed + 1)); fi
}

# 1. The patch series.
step "patch series (scripts/check-series.sh, scripts/our-files.sh --check)"
scripts/test-check-series.sh >/dev/null 2>&1 ||
    { scripts/test-check-series.sh; echo "check-series.sh fails its own self-test"; }
status=0
scripts/check-series.sh || status=1
# every file of ours assigned to the patch that introduces it (patches/our-files)
scripts/our-files.sh --check || status=1
result $status

# 2. Commit messages.
step "commit messages after $(echo "$LINT_BASE" | cut -c1-7)"
status=0
if ! git rev-parse -q --verify "$LINT_BASE^{commit}" >/dev/null; then
    echo "base commit $LINT_BASE is not in this clone (shallow?); set LINT_BASE"
    status=1
else
    n=0
    for c in $(git rev-list --reverse "$LINT_BASE..HEAD"); do
        n=$((n + 1))
        subject=$(git show -s --format=%B "$c" | sed -n 1p)
        len=$(printf '%s' "$subject" | LC_ALL=C.UTF-8 wc -m)
        short=$(git rev-parse --short "$c")
        if [ "$len" -gt 72 ]; then
            echo "$short: subject has $len characters (at most 72): $subject"
            status=1
        fi
        second=$(git show -s --format=%B "$c" | sed -n 2p)
        if [ -n "$second" ]; then
            echo "$short: the second line is not blank (subject, blank line, body): $second"
            status=1
        fi
    done
    echo "   $n commits checked"
fi
result $status

# 3. shellcheck.  SC1091: the sourced UPSTREAM is found at run time ($top).
step "shellcheck"
if ! command -v shellcheck >/dev/null 2>&1; then
    echo "shellcheck not found: apt-get install shellcheck (scripts/install-deps.sh system)"
    result 1
else
    scripts=$(ls scripts/*.sh .ci/run tests/dnn/*.sh tools/*.sh tools/bench/*.sh configure 2>/dev/null)
    # shellcheck disable=SC2086  # one argument per file; no names with spaces
    shellcheck -f gcc -e SC1091 $scripts
    status=$?
    echo "   $(echo "$scripts" | wc -l) scripts checked"
    result $status
fi

# 4. Whitespace.
step "git diff --check (whitespace)"
empty=$(git hash-object -t tree /dev/null)
git diff --check "$empty" -- . ':(exclude)patches/*.patch'
result $?

if [ $failed = 0 ]; then echo "lint: passed"; else echo "lint: $failed checks failed"; fi
[ $failed = 0 ]
