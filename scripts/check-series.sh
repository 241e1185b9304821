#!/bin/sh
# Check that a patch series reads like a distribution's (Debian DEP-3 in
# git format-patch files, FFmpeg's subject style):
#
#   check-series.sh [PATCH...]      default: patches/series and its patches
#
# Each patch needs
#   - a "From: Name <address>" author;
#   - a subject in FFmpeg's style "path/or/component: text", whose component
#     is an FFmpeg library or directory (avfilter/dnn_backend_torch,
#     avutil/hwcontext_cuda, configure, doc/filters, tests/fate, ...; several
#     joined by ", ") and matches a file the patch changes;
#   - a body that says why;
#   - a DEP-3 "Forwarded:" line: "no", "not-needed" or the URL where it was
#     sent upstream.
# Prints one line per problem and ends with "check-series: N patches, N problems".
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
problems=0
count=0

say() { echo "$1: $2"; problems=$((problems + 1)); }

if [ $# = 0 ]; then
    cd "$top"
    series=patches/series
    [ -f "$series" ] || { echo "check-series: no $series" >&2; exit 1; }
    set --
    while read -r p; do
        case $p in ''|'#'*) continue ;; esac
        if [ -f "patches/$p" ]; then set -- "$@" "patches/$p"
        else say patches/series "lists $p, which does not exist"; fi
    done <"$series"
    for f in patches/*.patch; do
        [ -f "$f" ] || continue
        grep -qxF "${f#patches/}" "$series" || say "$f" "not listed in patches/series"
    done
fi

for f in "$@"; do
    count=$((count + 1))
    out=$(awk '
    # Components FFmpeg uses in subjects, and the paths they stand for.
    BEGIN {
        split("avcodec:libavcodec/ lavc:libavcodec/ avdevice:libavdevice/ lavd:libavdevice/ " \
              "avfilter:libavfilter/ lavfi:libavfilter/ avformat:libavformat/ lavf:libavformat/ " \
              "avutil:libavutil/ lavu:libavutil/ swscale:libswscale/ sws:libswscale/ " \
              "swresample:libswresample/ swr:libswresample/ fftools:fftools/ ffmpeg:fftools/ " \
              "ffprobe:fftools/ ffplay:fftools/ doc:doc/ tests:tests/ fate:tests/ " \
              "checkasm:tests/checkasm/ configure:configure Makefile: compat:compat/ " \
              "tools:tools/ ffbuild:ffbuild/", pairs, " ")
        for (i in pairs) { n = index(pairs[i], ":"); dir[substr(pairs[i], 1, n - 1)] = substr(pairs[i], n + 1) }
        names = "avcodec, avfilter, avutil..., fftools, doc, tests, configure..."
        part = "head"
    }
    part == "head" && NR == 1 && /^From [0-9a-f]+ / { next }
    part == "head" && /^$/ { part = "body"; next }
    part == "head" && /^[ \t]/ { if (last == "subject") subject = subject $0; next }
    part == "head" {
        last = ""
        if (/^From: /) { from = substr($0, 7) }
        else if (/^Subject: /) { subject = substr($0, 10); last = "subject" }
        next
    }
    part == "body" && (/^---$/ || /^diff --git /) { part = "diff" }
    part == "body" {
        if (/^Forwarded:/) { forwarded = forwarded (forwarded == "" ? "" : "\n") $0 }
        else if (/^(Signed-off-by|Reviewed-by|Acked-by|Tested-by|Co-authored-by|Reported-by|Suggested-by|Cc|Origin|Author|Bug|Bug-[A-Za-z]+|Applied-Upstream|Last-Update):/) { }
        else if (/[^ \t]/) { why++ }
        next
    }
    part == "diff" && /^diff --git a\// {
        file = $3; sub(/^a\//, "", file); files = files " " file
    }
    END {
        if (from == "") print "no \"From:\" author line"
        else if (from !~ /^[^<>@]+ <[^<>@ ]+@[^<>@ ]+>$/) print "author \"" from "\" is not \"Name <address>\""
        gsub(/[ \t]+/, " ", subject)
        if (subject == "") { print "no \"Subject:\" line" }
        else if (subject ~ /^\[/) { print "subject \"" subject "\" has a [PATCH]-style prefix (export with --keep-subject)" }
        else if (subject !~ /^[A-Za-z0-9_.\/+-]+(, ?[A-Za-z0-9_.\/+-]+)*: [^ ]/) {
            print "subject \"" subject "\" is not in FFmpeg'"'"'s \"path/or/component: text\" style"
        } else {
            prefix = substr(subject, 1, index(subject, ": ") - 1)
            nc = split(prefix, comps, /, ?/)
            matched = 0
            for (i = 1; i <= nc; i++) {
                c = comps[i]; head = c; sub(/\/.*/, "", head)
                if (!(head in dir)) {
                    # suggest the library of the first file changed
                    split(files, fl, " "); lib = fl[1]
                    if (lib ~ /^lib[a-z]+\//) { sub(/\/.*/, "", lib); sub(/^lib/, "", lib) } else sub(/\/.*/, "", lib)
                    print "subject prefix \"" c "\" does not start with an FFmpeg library or directory (" names "): \"" lib "/" c ": ...\"?"
                    matched = -1000
                    continue
                }
                d = dir[head]; nf = split(files, fl, " ")
                for (j = 1; j <= nf; j++) {
                    if (d == "" ? (fl[j] == "Makefile" || fl[j] ~ /\/Makefile$/) : (d ~ /\/$/ ? index(fl[j], d) == 1 : fl[j] == d)) { matched = 1; break }
                }
            }
            if (matched == 0) print "subject prefix \"" prefix "\" names none of the files the patch changes:" files
        }
        if (why == 0) print "no body: say why the change is needed"
        if (forwarded == "") print "no DEP-3 \"Forwarded:\" line (\"Forwarded: no\", or the URL of the upstream submission)"
        else {
            n = split(forwarded, fw, "\n")
            if (n > 1) print "more than one \"Forwarded:\" line"
            v = fw[1]; sub(/^Forwarded:[ \t]*/, "", v); sub(/[ \t]+$/, "", v)
            if (v != "no" && v != "not-needed" && v !~ /^https?:\/\/[^ ]+$/)
                print "\"Forwarded: " v "\" is not \"no\", \"not-needed\" or a URL"
        }
        if (part != "diff") print "no diff"
    }' "$f")
    if [ -n "$out" ]; then
        while IFS= read -r line; do say "$f" "$line"; done <<EOF
$out
EOF
    fi
done

echo "check-series: $count patches, $problems problems"
[ $problems = 0 ]
