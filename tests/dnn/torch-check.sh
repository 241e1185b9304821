#!/bin/sh
# Checks of the torch DNN backend that a frame checksum cannot express.
# FATE runs them from the build directory; each prints what its reference holds.
#
#   torch-check.sh error FFMPEG ARGS...
#       run ffmpeg, print its error lines (pointers stripped) and exit code
#   torch-check.sh psnr BUILDDIR PYTHON MODEL SIZE PIXFMT FRAMES MIN_DB FILTER_OPTS
#       run MODEL through dnn_processing and, independently, through PyTorch
#       (tests/dnn/gen_torch_models.py reference); print whether the PSNR
#       between them is at least MIN_DB, or with MIN_DB "exact" whether they
#       are identical
set -u

src=$(cd "$(dirname "$0")/../.." && pwd)
mode=$1; shift

case $mode in
error)
    ffmpeg=$1; shift
    log=$("$ffmpeg" -nostdin -nostats -hide_banner -v error "$@" 2>&1 >/dev/null)
    status=$?
    # keep the filter's own lines (the CLI's teardown order varies) and drop
    # what differs between machines: pointers and the build directory
    printf '%s\n' "$log" | grep -E '^\[(dnn_|Parsed_dnn_processing)' |
        sed -e 's/ @ 0x[0-9a-f]*\]/]/g' -e "s|$(pwd)/||g"
    echo "exit code: $status"
    ;;
psnr)
    build=$1 python=$2 model=$3 size=$4 pixfmt=$5 frames=$6 min_db=$7 opts=$8
    w=${size%x*} h=${size#*x}
    tmp=tests/data/fate/dnn-torch-psnr.$$
    ff="$build/ffmpeg -nostdin -nostats -hide_banner -v error"
    $ff -f lavfi -i "testsrc2=s=$size:r=25,format=rgb24" -frames:v "$frames" -vf "format=$pixfmt" \
        -f rawvideo -y "$tmp.in" || exit 1
    $ff -f rawvideo -pixel_format "$pixfmt" -video_size "$size" -i "$tmp.in" \
        -vf "dnn_processing=dnn_backend=torch:model=$model$opts" -f rawvideo -y "$tmp.out" || exit 1
    "$python" "$src/tests/dnn/gen_torch_models.py" reference "$model" "$tmp.in" "$w" "$h" "$pixfmt" "$tmp.ref" || exit 1
    result=$("$build/tests/tiny_psnr" "$tmp.ref" "$tmp.out" 1)
    echo "$result" >&2
    rm -f "$tmp.in" "$tmp.out" "$tmp.ref"
    psnr=$(echo "$result" | sed -n 's/.*PSNR: *\([0-9.]*\).*/\1/p')
    bytes=$(echo "$result" | sed -n 's/.*bytes: *\([0-9]*\).*/\1/p')
    [ -n "$psnr" ] || { echo "no PSNR from tiny_psnr"; exit 1; }
    maxdiff=$(echo "$result" | sed -n 's/.*MAXDIFF: *\([0-9]*\).*/\1/p')
    echo "frames: $frames, bytes compared: $bytes"
    if [ "$min_db" = exact ]; then
        if [ "$maxdiff" = 0 ]; then echo "identical: yes"; else echo "identical: no (max difference $maxdiff)"; exit 1; fi
    elif awk "BEGIN { exit !($psnr >= $min_db) }"; then
        echo "PSNR >= $min_db dB: yes"
    else
        echo "PSNR >= $min_db dB: no ($psnr)"
        exit 1
    fi
    ;;
*)
    echo "usage: $0 error|psnr ..." >&2; exit 2 ;;
esac
