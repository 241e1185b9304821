#!/bin/sh
# Self-test of scripts/check-series.sh: a hand-made patch in the expected
# form passes; each way of breaking it is reported with the right message.
# Run by "make lint"; prints "test-check-series: N cases passed" or the
# failing cases.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
check=$top/scripts/check-series.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 cases=0

# The sample: what "make patches" writes for a well-described commit.
good() {
    cat <<'PATCH'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Jane Doe <jane@example.org>
Date: Mon, 30 Nov 2026 01:47:36 +0000
Subject: avfilter/dnn_backend_torch: keep the model's device instead of
 reading a parameter's

A model without parameters (an identity, a fixed colour transform) made the
backend read past the end of its parameter list: the device came from the
first parameter.  Keep the device the model was loaded to instead.

Forwarded: no

diff --git a/libavfilter/dnn/dnn_backend_torch.cpp b/libavfilter/dnn/dnn_backend_torch.cpp
index 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 100644
--- a/libavfilter/dnn/dnn_backend_torch.cpp
+++ b/libavfilter/dnn/dnn_backend_torch.cpp
@@ -1,3 +1,3 @@
 a
-b
+c
 d
PATCH
}

# expect NAME SED-SCRIPT EXPECTED-TEXT: the sample edited by SED-SCRIPT is
# reported with EXPECTED-TEXT (passes when EXPECTED-TEXT is empty)
expect() {
    cases=$((cases + 1))
    good | sed "$2" >"$tmp/$1.patch"
    set -- "$1" "$3"
    out=$("$check" "$tmp/$1.patch" 2>&1)
    status=$?
    if [ -z "$2" ]; then
        [ $status = 0 ] || { echo "FAIL $1: should pass, got:"; echo "$out"; fails=$((fails + 1)); }
    elif [ $status = 0 ] || ! echo "$out" | grep -qF -- "$2"; then
        echo "FAIL $1: should report '$2', got:"; echo "$out"; fails=$((fails + 1))
    fi
}

expect good '' ""
expect forwarded-url 's|^Forwarded: no|Forwarded: https://ffmpeg.org/pipermail/ffmpeg-devel/2026-November/000001.html|' ""
expect forwarded-not-needed 's|^Forwarded: no|Forwarded: not-needed|' ""
expect two-components 's|^Subject: avfilter/dnn_backend_torch:|Subject: avfilter/dnn_backend_torch, doc/filters:|' ""
expect abbreviation 's|^Subject: avfilter/dnn_backend_torch:|Subject: lavfi/dnn:|' ""
expect no-author '/^From: /d' 'no "From:" author line'
expect bad-author 's|^From: .*|From: jane|' 'is not "Name <address>"'
expect no-library 's|^Subject: avfilter/|Subject: |' 'does not start with an FFmpeg library or directory'
expect no-prefix 's|^Subject: avfilter/dnn_backend_torch: keep|Subject: Keep|' "is not in FFmpeg's \"path/or/component: text\" style"
expect wrong-library 's|^Subject: avfilter/|Subject: avcodec/|' 'names none of the files the patch changes'
expect patch-prefix 's|^Subject: |Subject: [PATCH] |' '[PATCH]-style prefix'
expect no-forwarded '/^Forwarded: /d' 'no DEP-3 "Forwarded:" line'
expect bad-forwarded 's|^Forwarded: no|Forwarded: yes|' '"Forwarded: yes" is not'
expect no-body '/^A model/,/^first parameter/d' 'no body'
expect no-diff '/^diff --git/,/^ d/d' 'no diff'

if [ $fails = 0 ]; then echo "test-check-series: $cases cases passed"; else echo "test-check-series: $fails of $cases cases failed"; fi
[ $fails = 0 ]
