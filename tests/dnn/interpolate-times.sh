#!/bin/sh
# The output times of dnn_interpolate, for its FATE tests: what the filter
# graph sends (showinfo at its end, then setpts=N: no muxer or ffmpeg's frame rate
# handling takes part), exact at any timestamp (framecrc's muxer keeps 48
# bits of a timestamp).
#
#   interpolate-times.sh frames FFMPEG SOURCE FILTER
#       run FILTER on the lavfi graph SOURCE and print how many frames it
#       sends and their first and last pts (as text: awk keeps them as
#       they are), then the filter's error lines and ffmpeg's exit code
#       (killed after 60 s: a hang is 137)
#   interpolate-times.sh same FFMPEG SOURCE FILTER_A FILTER_B
#       run both filters on SOURCE and print their frame counts, first
#       and last pts, and whether their pts and durations are identical
#       (the first difference goes to stderr)
#   interpolate-times.sh shifted FFMPEG SOURCE OFFSET FILTER_A FILTER_B
#       the same, FILTER_A's output OFFSET later than FILTER_B's (output
#       time base): print whether each of its pts is FILTER_B's plus OFFSET
#       (64-bit shell arithmetic, exact) with the same duration and picture
set -u

mode=$1 ffmpeg=$2 source=$3; shift 3

# out_times SOURCE FILTER: "pts duration checksum" of each frame FILTER sends,
# then "exit code: N"
out_times() {
    log=$(timeout -s KILL 60 "$ffmpeg" -nostdin -nostats -hide_banner -v info -f lavfi -i "$1" \
        -vf "$2,showinfo,setpts=N" -f null - 2>&1)
    status=$?
    printf '%s\n' "$log" | sed -n 's/^\[Parsed_showinfo_.*\] n: *[0-9]* pts: *\(-\{0,1\}[0-9]*\) .* duration: *\([0-9]*\) .* checksum:\([0-9A-F]*\) .*/\1 \2 \3/p'
    printf '%s\n' "$log" | grep -E '^\[(dnn_interpolate|Parsed_dnn_interpolate)' | grep -iE 'error|range' |
        sed -e 's/ @ 0x[0-9a-f]*\]/]/g'
    echo "exit code: $status"
}

case $mode in
frames)
    out_times "$source" "$1" | awk '/^-?[0-9]/ { n++; if (n == 1) first = $1; last = $1; next }
        n == 0 && !done { print "frames: 0"; done = 1 }
        !done { print "frames: " n ", pts " first " to " last; done = 1 } { print }'
    ;;
same)
    tmp=tests/data/fate/dnn-torch-interpolate-times.$$
    out_times "$source" "$1" | awk '/^-?[0-9]/ { print $1, $2 }' >"$tmp.a"
    out_times "$source" "$2" | awk '/^-?[0-9]/ { print $1, $2 }' >"$tmp.b"
    for f in "$tmp.a" "$tmp.b"; do
        echo "frames: $(wc -l <"$f"), pts $(head -n 1 "$f" | cut -d' ' -f1) to $(tail -n 1 "$f" | cut -d' ' -f1)"
    done
    if [ -s "$tmp.a" ] && cmp -s "$tmp.a" "$tmp.b"; then
        echo "pts and durations identical: yes"
        status=0
    else
        echo "pts and durations identical: no"
        diff "$tmp.a" "$tmp.b" | head -n 8 >&2
        status=1
    fi
    rm -f "$tmp.a" "$tmp.b"
    exit $status
    ;;
shifted)
    tmp=tests/data/fate/dnn-torch-interpolate-times.$$
    offset=$1; shift
    out_times "$source" "$1" | grep -E '^-?[0-9]' >"$tmp.a"
    out_times "$source" "$2" | grep -E '^-?[0-9]' >"$tmp.b"
    for f in "$tmp.a" "$tmp.b"; do
        echo "frames: $(wc -l <"$f"), pts $(head -n 1 "$f" | cut -d' ' -f1) to $(tail -n 1 "$f" | cut -d' ' -f1)"
    done
    # B's pts plus OFFSET, exactly (dash and bash compute in 64 bits)
    while read -r pts rest; do
        echo "$((pts + offset)) $rest"
    done <"$tmp.b" >"$tmp.c"
    if [ -s "$tmp.a" ] && cmp -s "$tmp.a" "$tmp.c"; then
        echo "pts $offset later, durations and pictures identical: yes"
        status=0
    else
        echo "pts $offset later, durations and pictures identical: no"
        diff "$tmp.a" "$tmp.c" | head -n 8 >&2
        status=1
    fi
    rm -f "$tmp.a" "$tmp.b" "$tmp.c"
    exit $status
    ;;
*)
    echo "unknown mode $mode" >&2
    exit 2
    ;;
esac
