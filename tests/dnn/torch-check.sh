#!/bin/sh
# Checks of the torch DNN backend that a frame checksum cannot express.
# FATE runs them from the build directory; each prints what its reference holds.
#
#   torch-check.sh error FFMPEG ARGS...
#       run ffmpeg, print its error lines (pointers stripped) and exit code
#   torch-check.sh psnr BUILDDIR PYTHON MODEL SIZE PIXFMT FRAMES MIN_DB FILTER_OPTS [LAYOUT]
#       run MODEL through dnn_processing and, independently, through PyTorch
#       (tests/dnn/gen_torch_models.py reference); print whether the PSNR
#       between them is at least MIN_DB, or with MIN_DB "exact" whether they
#       are identical.  With LAYOUT (rgb0, bgra, ...) the frames go through
#       dnn_processing as CUDA frames of that layout (hwupload/hwdownload).
#   torch-check.sh community BUILDDIR PYTHON WEIGHTS MODEL SIZE FRAMES MIN_DB
#       run MODEL, exported from the community weights WEIGHTS, through
#       dnn_processing, and spandrel's eager model of WEIGHTS through PyTorch
#       (tests/dnn/community_models.py reference) on the same rgb24 frames;
#       print whether the PSNR between them is at least MIN_DB
#   torch-check.sh interpolate BUILDDIR PYTHON MODEL SOURCE MODE SCENE MIN_DB [LAYOUT]
#       run dnn_interpolate (MODE: factor=N or fps=RATE; SCENE: its scene
#       option, or scdet:I,J: scdet before it, with scdet=1, expected to cut
#       the pairs I, J) on the rgb24 frames of the lavfi graph SOURCE, and the same
#       model in eager PyTorch as the filter should run it
#       (tests/dnn/temporal_models.py reference); print the frame counts,
#       whether the timestamps are exactly the expected ones, and whether
#       the PSNR is at least MIN_DB.  LAYOUT: as CUDA frames of that layout
#   torch-check.sh window BUILDDIR PYTHON MODEL SOURCE FRAMES WINDOW SIGMA SIGMA_PLANE MIN_DB [LAYOUT]
#       run dnn_processing with those options on the rgb24 frames of SOURCE,
#       and the same model in eager PyTorch on each frame's window
#       (tests/dnn/temporal_models.py window); print whether the output has
#       the input's frames and timestamps, and whether the PSNR is at least
#       MIN_DB.  LAYOUT: as CUDA frames of that layout
#   torch-check.sh recurrent BUILDDIR PYTHON MODEL SOURCE SCENE RESETS SIGMA MIN_DB [LAYOUT]
#       run dnn_processing recurrent=1:scene=SCENE (sigma=SIGMA, a 0-D
#       input after the state; -1: none) on the rgb24 frames of SOURCE,
#       and the same model in eager PyTorch, its state started again
#       at the frames RESETS (where SOURCE's timestamps go back; "-": none)
#       and at scene cuts (tests/dnn/temporal_models.py recurrent); print
#       the frames that start from no state, whether the timestamps are the
#       input's, and whether the PSNR is at least MIN_DB
#   torch-check.sh part BUILDDIR SOURCE FILTER START END FROM TO
#       a part of a video processed alone: FILTER on the frames of the lavfi
#       graph SOURCE from FROM to TO (seconds; trim: the part and the frames
#       around it that its outputs need), against FILTER on the whole
#       SOURCE, both outputs cut to [START, END); print the part's frame
#       count and timestamps, and whether its frames and timestamps are
#       those of the whole (framecrc), exactly
#   torch-check.sh parts BUILDDIR PYTHON INPUT FILTER PARTS
#       tools/dnn-torch-parts.py over the video file INPUT in PARTS parts
#       (each an ffmpeg of its own, on the CPU; rawvideo, joined, the audio
#       copied), against one ffmpeg over the whole (rawvideo, the audio
#       copied), both in NUT; print the frame count and timestamps of the
#       joined video, and whether its packets, video and audio, are the
#       whole's (framecrc: checksums and timestamps), exactly
#   torch-check.sh parts-fails PYTHON ARGS...
#       run tools/dnn-torch-parts.py ARGS, which must fail: print its error
#       and its exit code
#   torch-check.sh frames FFMPEG ARGS...
#       run ffmpeg ARGS (the input and filters) and print how many frames it
#       writes, and their first and last timestamps
#   torch-check.sh compare BUILDDIR MIN_DB[/BYTES] ARGS_A -- ARGS_B
#       run two ffmpeg pipelines that write the same raw format to stdout and
#       print whether their output is identical (MIN_DB "exact") or close;
#       BYTES per sample (1, or 2 for 16-bit layouts such as p010)
#   torch-check.sh log FFMPEG ARGS...
#       like error, at the info level
#   torch-check.sh warning FFMPEG ARGS...
#       like error, at the warning level
#   torch-check.sh graphs FFMPEG ARGS...
#       like error, at the verbose level, the lines of the CUDA graphs only
#       (cuda_graph=1: each capture and its inputs' shapes)
#   torch-check.sh export PYTHON ARGS...
#       run tools/dnn-torch-export.py ARGS and print its warnings and errors,
#       what LibTorch kernels its package calls (--aten-kernels), and its
#       exit code
#   torch-check.sh aten-layouts PYTHON MODULE:CLASS KERNELS WxH|any
#       tests/dnn/aten_layouts.py: whether a CUDA package of MODULE with
#       LibTorch's KERNELS reads their results with the strides they write
#       (no GPU needed); print its lines and its exit code
#   torch-check.sh compile-error PYTHON ARGS...
#       the same, with a C++ compiler that fails on every source file
#       (tests/dnn/failing-cxx.sh, for AOTInductor's compile of a .pt2), and
#       its notes too: what the tool says of a compiler's errors
#   torch-check.sh help FFMPEG FILTER OPTION...
#       print the lines of "ffmpeg -h filter=FILTER" that describe OPTIONs
#   torch-check.sh fails PATTERN FFMPEG ARGS...
#       run ffmpeg, which must fail: print whether it exited with an error
#       (not killed by a signal, as an abort is) and logged an error of the
#       filter matching the grep pattern PATTERN
#   torch-check.sh color PYTHON ARGS...
#       run tests/dnn/color_check.py ARGS with PYTHON: the conversions
#       against the float64 reference (the details on stderr)
#   torch-check.sh showinfo FFMPEG ARGS...
#       run ffmpeg, whose filter graph ends in showinfo, and print what it
#       says of each frame's colour: format, chroma location, range, matrix,
#       primaries, transfer, and side data (mastering display, light level)
#   torch-check.sh props FFMPEG ARGS...
#       run ffmpeg, whose filter graph ends in showinfo, and print the size,
#       sample aspect ratio and side data (their kinds) of the first frame
#   torch-check.sh gpu-memory FFMPEG MAX_GROWTH_MIB ARGS...
#       run ffmpeg while sampling its used GPU memory (nvidia-smi) once it
#       has output 100 frames (LibTorch loaded, cuDNN tuned: start-up takes
#       longer than the frames when other tests share the GPU); print
#       whether it grew by at most MAX_GROWTH_MIB from the second quarter of
#       those samples to the last (the peak goes to stderr)
set -u

src=$(cd "$(dirname "$0")/../.." && pwd)
mode=$1; shift

# compare_raw A B MIN_DB [BYTES]: print whether raw files A and B (BYTES per
# sample) are identical or close
compare_raw() {
    result=$("$build/tests/tiny_psnr" "$1" "$2" "${4:-1}")
    echo "$result" >&2
    psnr=$(echo "$result" | sed -n 's/.*PSNR: *\([0-9.]*\).*/\1/p')
    bytes=$(echo "$result" | sed -n 's/.*bytes: *\([0-9]*\).*/\1/p')
    maxdiff=$(echo "$result" | sed -n 's/.*MAXDIFF: *\([0-9]*\).*/\1/p')
    [ -n "$psnr" ] || { echo "no PSNR from tiny_psnr"; return 1; }
    size_a=$(wc -c <"$1") size_b=$(wc -c <"$2")
    if [ "$size_a" != "$size_b" ] || [ "$size_a" -eq 0 ]; then
        echo "sizes differ: $size_a and $size_b bytes"; return 1
    fi
    echo "bytes compared: $bytes"
    if [ "$3" = exact ]; then
        if [ "$maxdiff" = 0 ]; then echo "identical: yes"; else echo "identical: no (max difference $maxdiff)"; return 1; fi
    elif awk "BEGIN { exit !($psnr >= $3) }"; then
        echo "PSNR >= $3 dB: yes"
    else
        echo "PSNR >= $3 dB: no ($psnr)"
        return 1
    fi
}

# against_eager TMP MIN_DB MODE ARGS...: the frames temporal_models.py MODE
# makes of TMP.in with $model in eager PyTorch against TMP.out (from
# filter_frames); exits with the result, TMP.* removed
against_eager() {
    t=$1 db=$2; shift 2
    m=$1; shift
    "$python" "$src/tests/dnn/temporal_models.py" "$m" "$model" "$t.in" "$t.in.crc" "$t.out.crc" \
        "$@" "$t.ref" || exit 1
    compare_raw "$t.ref" "$t.out" "$db"
    status=$?
    rm -f "$t.in" "$t.out" "$t.ref" "$t.in.crc" "$t.out.crc"
    exit $status
}

# the frame count and pts list of a framecrc (stream, dts, pts, duration,
# size, checksum) of FILE, or of the standard input
framecrc_pts() {
    awk -F', *' '$1 == "0" { n++; pts = pts (n > 1 ? " " : "") $3 }
                 END { print "frames: " n "; pts: " pts }' "$@"
}

# same_framecrc LABEL WHOLE OTHER: print whether framecrc listing OTHER is
# WHOLE's, exactly (the first differences go to stderr); status 0 if so
same_framecrc() {
    if cmp -s "$3" "$2"; then
        echo "$1: the whole's frames and timestamps"
        return 0
    fi
    echo "$1: not the whole's"
    diff "$2" "$3" | head -n 8 >&2
    return 1
}

# filter_frames SOURCE FILTER LAYOUT TMP: the rgb24 frames of the lavfi graph
# SOURCE into TMP.in and their framecrc listing into TMP.in.crc; through
# FILTER (LAYOUT: as CUDA frames of that layout) into TMP.out and
# TMP.out.crc; every frame as it comes, whatever its timestamp
filter_frames() {
    ff="$build/ffmpeg -nostdin -nostats -hide_banner -v error"
    hw=""
    filter=$2
    if [ -n "$3" ]; then
        hw="-init_hw_device cuda=cu -filter_hw_device cu"
        filter="format=$3,hwupload,$filter,hwdownload,format=$3,format=rgb24"
    fi
    pass="-fps_mode passthrough"
    # shellcheck disable=SC2086 # $ff, $hw and $pass are word lists
    $ff -f lavfi -i "$1,format=rgb24" $pass -f rawvideo -y "$4.in" &&
        $ff -f lavfi -i "$1,format=rgb24" $pass -c:v rawvideo -f framecrc -y "$4.in.crc" &&
        $ff $hw -f lavfi -i "$1,format=rgb24" -vf "$filter" $pass -f rawvideo -y "$4.out" &&
        $ff $hw -f lavfi -i "$1,format=rgb24" -vf "$filter" $pass -c:v rawvideo -f framecrc \
            -y "$4.out.crc"
}

case $mode in
error|warning|log|graphs)
    ffmpeg=$1; shift
    case $mode in log) level=info ;; graphs) level=verbose ;; *) level=$mode ;; esac
    only=.; [ "$mode" = graphs ] && only='\] cuda_graph'
    log=$("$ffmpeg" -nostdin -nostats -hide_banner -v "$level" "$@" 2>&1 >/dev/null)
    status=$?
    # keep the filter's own lines (the CLI's teardown order varies) and drop
    # what differs between machines: pointers and the build directory
    printf '%s\n' "$log" | grep -E '^\[(dnn_|Parsed_dnn_processing|Parsed_dnn_interpolate)' |
        grep -E "$only" | sed -e 's/ @ 0x[0-9a-f]*\]/]/g' -e "s|$(pwd)/||g"
    echo "exit code: $status"
    ;;
export|compile-error)
    python=$1; shift
    lines="^(warning:|error:|LibTorch's kernels )" cache=
    # torch's compiles call CC and CXX: FFmpeg's make exports its own where
    # the environment has them (an echo in front of the compiler)
    unset CC CXX
    if [ "$mode" = compile-error ]; then
        # a cache of its own: nothing compiled earlier is taken instead
        cache=$(mktemp -d)
        CXX=$src/tests/dnn/failing-cxx.sh TORCHINDUCTOR_CACHE_DIR=$cache lines='^(warning|error|note):'
        export CXX TORCHINDUCTOR_CACHE_DIR
    fi
    log=$("$python" "$src/tools/dnn-torch-export.py" "$@" 2>&1)
    status=$?
    [ -z "$cache" ] || rm -rf "$cache"
    printf '%s\n' "$log" | grep -E "$lines"
    echo "exit code: $status"
    ;;
aten-layouts)
    python=$1; shift
    log=$("$python" "$src/tests/dnn/aten_layouts.py" "$@" 2>&1)
    status=$?
    printf '%s\n' "$log" | grep -E '^([a-z_0-9]+\.[a-z]+: |no call )'
    # what went wrong, where it did
    [ "$status" = 0 ] || printf '%s\n' "$log" >&2
    echo "exit code: $status"
    ;;
help)
    ffmpeg=$1 filter=$2; shift 2
    "$ffmpeg" -hide_banner -h "filter=$filter" | grep -E "^ +($(echo "$@" | tr ' ' '|')) "
    ;;
fails)
    pattern=$1 ffmpeg=$2; shift 2
    # a run that hangs (a teardown waiting forever) is killed: ffmpeg takes
    # SIGTERM for a request to finish, which such a run never does (137)
    log=$(timeout -s KILL 120 "$ffmpeg" -nostdin -nostats -hide_banner -v error "$@" 2>&1 >/dev/null)
    status=$?
    printf '%s\n' "$log" | grep -E '^\[(dnn_|Parsed_dnn_processing|Parsed_dnn_interpolate)' >&2
    # ffmpeg exits with its error code & 255 (251 for AVERROR_EXTERNAL); the
    # shell gives 128 + N for a process killed by signal N: 132 SIGILL,
    # 134 SIGABRT (an abort, std::terminate), 135 SIGBUS, 136 SIGFPE,
    # 139 SIGSEGV
    case $status in
    0|132|134|135|136|137|139) echo "exited with an error: no ($status)" ;;
    *)                     echo "exited with an error: yes" ;;
    esac
    if printf '%s\n' "$log" | grep -E '^\[(dnn_|Parsed_dnn_processing|Parsed_dnn_interpolate)' | grep -q -- "$pattern"; then
        echo "the filter logged '$pattern': yes"
    else
        echo "the filter logged '$pattern': no"
    fi
    ;;
psnr)
    build=$1 python=$2 model=$3 size=$4 pixfmt=$5 frames=$6 min_db=$7 opts=$8 layout=${9:-}
    w=${size%x*} h=${size#*x}
    filter="dnn_processing=dnn_backend=torch:model=$model$opts"
    hw=
    if [ -n "$layout" ]; then
        hw="-init_hw_device cuda=cu -filter_hw_device cu"
        filter="format=$layout,hwupload,$filter,hwdownload,format=$layout,format=$pixfmt"
    fi
    tmp=tests/data/fate/dnn-torch-psnr.$$
    ff="$build/ffmpeg -nostdin -nostats -hide_banner -v error"
    $ff -f lavfi -i "testsrc2=s=$size:r=25,format=rgb24" -frames:v "$frames" -vf "format=$pixfmt" \
        -f rawvideo -y "$tmp.in" || exit 1
    # shellcheck disable=SC2086 # $ff and $hw are word lists
    $ff $hw -f rawvideo -pixel_format "$pixfmt" -video_size "$size" -i "$tmp.in" \
        -vf "$filter" -f rawvideo -y "$tmp.out" || exit 1
    "$python" "$src/tests/dnn/gen_torch_models.py" reference "$model" "$tmp.in" "$w" "$h" "$pixfmt" "$tmp.ref" || exit 1
    echo "frames: $frames"
    compare_raw "$tmp.ref" "$tmp.out" "$min_db"
    status=$?
    rm -f "$tmp.in" "$tmp.out" "$tmp.ref"
    exit $status
    ;;
community)
    # a community model exported from its weights alone, against spandrel's
    # eager model of the same weights on the same rgb24 frames
    build=$1 python=$2 weights=$3 model=$4 size=$5 frames=$6 min_db=$7
    w=${size%x*} h=${size#*x}
    tmp=tests/data/fate/dnn-torch-community.$$
    ff="$build/ffmpeg -nostdin -nostats -hide_banner -v error"
    $ff -f lavfi -i "testsrc2=s=$size:r=25,format=rgb24" -frames:v "$frames" \
        -f rawvideo -y "$tmp.in" || exit 1
    $ff -f rawvideo -pixel_format rgb24 -video_size "$size" -i "$tmp.in" \
        -vf "dnn_processing=dnn_backend=torch:model=$model" -f rawvideo -y "$tmp.out" || exit 1
    "$python" "$src/tests/dnn/community_models.py" reference "$weights" "$tmp.in" "$w" "$h" "$tmp.ref" || exit 1
    echo "frames: $frames"
    compare_raw "$tmp.ref" "$tmp.out" "$min_db"
    status=$?
    rm -f "$tmp.in" "$tmp.out" "$tmp.ref"
    exit $status
    ;;
interpolate)
    # dnn_interpolate on rgb24 frames of SOURCE (a lavfi graph; LAYOUT: as
    # CUDA frames of that layout) against the same model in eager PyTorch
    # (tests/dnn/temporal_models.py reference): timestamps exact, PSNR
    build=$1 python=$2 model=$3 source=$4 mode=$5 scene=$6 min_db=$7 layout=${8:-}
    tmp=tests/data/fate/dnn-torch-interpolate.$$
    filter="dnn_interpolate=model=$model:$mode:scene=$scene"
    # scdet:I,J: scene cuts from scdet before the filter, at the pairs I, J
    case $scene in scdet:*) filter="scdet,dnn_interpolate=model=$model:$mode:scdet=1" scene=cuts:${scene#scdet:} ;; esac
    filter_frames "$source" "$filter" "$layout" "$tmp" || exit 1
    against_eager "$tmp" "$min_db" reference "$mode" "$scene"
    ;;
window)
    # dnn_processing with a window of frames (and sigma) on rgb24 frames of
    # SOURCE (LAYOUT: as CUDA frames of that layout) against the same model
    # in eager PyTorch (tests/dnn/temporal_models.py window): the input's
    # frame count and timestamps, PSNR
    build=$1 python=$2 model=$3 source=$4 frames=$5 window=$6 sigma=$7 plane=$8 min_db=$9 layout=${10:-}
    tmp=tests/data/fate/dnn-torch-window.$$
    given=; [ "$sigma" = -1 ] || given=":sigma=$sigma:sigma_plane=$plane"
    filter_frames "$source" \
        "dnn_processing=dnn_backend=torch:model=$model:frames=$frames:window=$window$given" \
        "$layout" "$tmp" || exit 1
    against_eager "$tmp" "$min_db" window "$frames" "$window" "$sigma" "$plane"
    ;;
recurrent)
    # dnn_processing recurrent=1 (scene=SCENE) on rgb24 frames of SOURCE
    # (LAYOUT: as CUDA frames of that layout) against the same model in
    # eager PyTorch (tests/dnn/temporal_models.py recurrent), its state
    # started again at the frames RESETS (a comma list, or -) and at scene
    # cuts: the input's frame count and timestamps, PSNR
    build=$1 python=$2 model=$3 source=$4 scene=$5 resets=$6 sigma=$7 min_db=$8 layout=${9:-}
    tmp=tests/data/fate/dnn-torch-recurrent.$$
    given=; [ "$sigma" = -1 ] || given=":sigma=$sigma:sigma_plane=0"
    filter_frames "$source" \
        "dnn_processing=dnn_backend=torch:model=$model:recurrent=1:scene=$scene$given" \
        "$layout" "$tmp" || exit 1
    against_eager "$tmp" "$min_db" recurrent "$scene" "$resets" "$sigma"
    ;;
segments)
    # FILTER on WHOLE, a clip whose frames change size (the MPEG-2 sequences
    # FIRST then SECOND, of which the decoder gives FIRST_FRAMES frames in
    # WHOLE), against FILTER on each sequence alone, one after the other,
    # each scaled to SIZE after the filter: frame count and timestamps of
    # the whole, then the frames compared
    build=$1 filter=$2 whole=$3 first=$4 first_frames=$5 second=$6 size=$7
    tmp=tests/data/fate/dnn-torch-segments.$$
    ff="$build/ffmpeg -nostdin -nostats -hide_banner -v error"
    chain="format=rgb24,$filter,scale=$size:flags=bitexact+accurate_rnd,format=rgb24"
    pass="-fps_mode passthrough"
    # shellcheck disable=SC2086 # $ff and $pass are word lists
    {
        $ff -i "$whole" -vf "$chain" $pass -c:v rawvideo -f framecrc - |
            framecrc_pts &&
        $ff -i "$whole" -vf "$chain" $pass -f rawvideo -y "$tmp.whole" &&
        $ff -i "$first" -vf "trim=end_frame=$first_frames,$chain" $pass -f rawvideo -y "$tmp.1" &&
        $ff -i "$second" -vf "$chain" $pass -f rawvideo -y "$tmp.2"
    } || exit 1
    cat "$tmp.1" "$tmp.2" >"$tmp.parts"
    compare_raw "$tmp.parts" "$tmp.whole" exact
    status=$?
    rm -f "$tmp.whole" "$tmp.1" "$tmp.2" "$tmp.parts"
    exit $status
    ;;
part)
    build=$1 source=$2 filter=$3 start=$4 end=$5 from=$6 to=$7
    tmp=tests/data/fate/dnn-torch-part.$$
    ff="$build/ffmpeg -nostdin -nostats -hide_banner -v error"
    cut="trim=start=$start:end=$end"
    out="-fps_mode passthrough -c:v rawvideo -f framecrc"
    # shellcheck disable=SC2086 # $ff and $out are word lists
    {
        $ff -f lavfi -i "$source" -vf "$filter,$cut" $out "$tmp.whole" &&
        $ff -f lavfi -i "$source" -vf "trim=start=$from:end=$to,$filter,$cut" $out "$tmp.part"
    } || { rm -f "$tmp.whole" "$tmp.part"; exit 1; }
    framecrc_pts "$tmp.part"
    same_framecrc part "$tmp.whole" "$tmp.part"
    status=$?
    rm -f "$tmp.whole" "$tmp.part"
    exit $status
    ;;
parts)
    build=$1 python=$2 input=$3 filter=$4 parts=$5
    tmp=tests/data/fate/dnn-torch-parts.$$
    ff="$build/ffmpeg -nostdin -nostats -hide_banner -v error"
    # shellcheck disable=SC2086 # $ff is a word list
    {
        $ff -i "$input" -vf "$filter" -fps_mode passthrough -c:v rawvideo -c:a copy -f nut "$tmp.whole.nut" &&
        $ff -i "$tmp.whole.nut" -map 0 -c copy -f framecrc "$tmp.whole" &&
        "$python" "$src/tools/dnn-torch-parts.py" --ffmpeg "$build/ffmpeg" --devices cpu \
            --parts "$parts" --encode "-c:v rawvideo" -i "$input" -vf "$filter" "$tmp.nut" >/dev/null &&
        $ff -i "$tmp.nut" -map 0 -c copy -f framecrc "$tmp.parts"
    } || { rm -f "$tmp.whole" "$tmp.whole.nut" "$tmp.nut" "$tmp.parts"; exit 1; }
    framecrc_pts "$tmp.parts"
    same_framecrc parts "$tmp.whole" "$tmp.parts"
    status=$?
    rm -f "$tmp.whole" "$tmp.whole.nut" "$tmp.nut" "$tmp.parts"
    exit $status
    ;;
parts-fails)
    python=$1; shift
    log=$("$python" "$src/tools/dnn-torch-parts.py" "$@" 2>&1 >/dev/null)
    status=$?
    printf '%s\n' "$log"
    echo "exit code: $status"
    ;;
frames)
    # the frames ffmpeg ARGS writes (framecrc of the first stream): count, first and last pts
    "$@" -nostdin -nostats -hide_banner -v error -fps_mode passthrough -c:v rawvideo -f framecrc - |
        awk -F', *' '$1 == "0" { n++; if (n == 1) first = $2; last = $2 }
                     END { print "frames: " n ", pts " first " to " last }'
    ;;
compare)
    build=$1 min_db=${2%/*} bytes=1
    case $2 in */*) bytes=${2#*/} ;; esac
    shift 2
    tmp=tests/data/fate/dnn-torch-compare.$$
    ff="$build/ffmpeg -nostdin -nostats -hide_banner -v error"
    a=; while [ $# -gt 0 ] && [ "$1" != -- ]; do a="$a $1"; shift; done
    shift
    # shellcheck disable=SC2086 # the pipelines are word lists
    $ff $a -f rawvideo -y "$tmp.a" || exit 1
    $ff "$@" -f rawvideo -y "$tmp.b" || exit 1
    compare_raw "$tmp.a" "$tmp.b" "$min_db" "$bytes"
    status=$?
    rm -f "$tmp.a" "$tmp.b"
    exit $status
    ;;
color)
    python=$1; shift
    exec "$python" "$src/tests/dnn/color_check.py" "$@"
    ;;
showinfo)
    ffmpeg=$1; shift
    log=$("$ffmpeg" -nostdin -nostats -hide_banner -v info "$@" 2>&1 >/dev/null)
    status=$?
    # the first frame: its format line, colour line and side data
    printf '%s\n' "$log" | grep -E '^\[Parsed_showinfo' | sed -e 's/^\[[^]]*\] *//' |
        awk '/^n: / { if (seen++) exit; sub(/ pts:.* fmt:/, " fmt:"); sub(/ sar:[^ ]*/, "");
                      sub(/ i:.*/, ""); print; next }
             seen && (/^color_range:/ || /side data/) { print }'
    echo "exit code: $status"
    ;;
props)
    ffmpeg=$1; shift
    log=$("$ffmpeg" -nostdin -nostats -hide_banner -v info "$@" 2>&1 >/dev/null)
    status=$?
    printf '%s\n' "$log" | grep -E '^\[Parsed_showinfo' | sed -e 's/^\[[^]]*\] *//' |
        awk '/^n: / { if (seen++) exit; s = sar = $0
                      sub(/.* s:/, "", s); sub(/ .*/, "", s); sub(/.* sar:/, "", sar); sub(/ .*/, "", sar)
                      print "size " s " sar " sar; next }
             seen && /side data - / { sub(/^.*side data - /, ""); sub(/:.*/, ""); print "side data: " $0 }'
    echo "exit code: $status"
    ;;
gpu-memory)
    ffmpeg=$1 max_growth=$2; shift 2
    samples=tests/data/fate/dnn-torch-gpu-memory.$$
    progress=$samples.progress
    : >"$samples"
    : >"$progress"
    "$ffmpeg" -nostdin -nostats -hide_banner -v error -progress "$progress" -stats_period 0.05 "$@" &
    pid=$!
    while kill -0 $pid 2>/dev/null; do
        frames=$(sed -n 's/^frame=//p' "$progress" | tail -n 1)
        # this process's memory, not the GPU's: other tests may run beside it
        [ "${frames:-0}" -lt 100 ] ||
            nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits -i 0 2>/dev/null |
            awk -F', *' -v pid=$pid '$1 == pid { print $2 }' >>"$samples"
        sleep 0.05
    done
    wait $pid
    status=$?
    rm -f "$progress"
    echo "exit code: $status"
    awk -v max="$max_growth" '
        { v[NR] = $1 }
        END {
            if (NR < 8) { print "too few samples: " NR; exit 1 }
            # second quarter (warmed up) against the last: a leak grows with
            # every frame; pools settle once the pipeline is full
            q = int(NR / 4)
            for (i = 1; i <= NR; i++) {
                if (i > q && i <= 2 * q && v[i] > a) a = v[i]
                if (i > 3 * q && v[i] > b) b = v[i]
                if (v[i] > peak) peak = v[i]
            }
            printf "samples: %d, peak %d MiB, second quarter max %d MiB, last quarter max %d MiB\n", NR, peak, a, b > "/dev/stderr"
            if (b - a <= max) print "GPU memory growth <= " max " MiB: yes"
            else { print "GPU memory growth <= " max " MiB: no (" b - a ")"; exit 1 }
        }' "$samples"
    result=$?
    rm -f "$samples"
    exit $result
    ;;
*)
    echo "usage: $0 error|log|fails|psnr|compare|gpu-memory ..." >&2; exit 2 ;;
esac
