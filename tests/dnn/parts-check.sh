#!/bin/sh
# Checks of tools/dnn-torch-parts.py (the parts of a video, on the devices of
# one machine or of a Ray cluster) for FATE (tests/fate/dnn-torch-parts.mak).
# FATE runs them from the build directory; each prints what its reference
# holds and exits non-zero when a check fails.
#
#   parts-check.sh clip BUILDDIR PYTHON OUT.mkv
#       make the tests' input: MPEG-4 video (96x64, 25 fps, 2 s, a key frame
#       every 10 frames), the AAC audio of tests/dnn/h264-aac.mp4, a SubRip
#       track and chapters (tests/dnn/subtitle_mkv.py), a title
#   parts-check.sh same BUILDDIR PYTHON INPUT FILTER TOOL_ARGS...
#       the tool (TOOL_ARGS, the video as rawvideo) against one ffmpeg over
#       the whole, both Matroska: print the parts, whether every packet of
#       every stream is the same (framecrc: checksums and timestamps) and the
#       container's duration, chapters and metadata (ffprobe)
#   parts-check.sh neighbours BUILDDIR PYTHON INPUT
#       OUTPUT in a directory whose name has a quote, a space and a newline,
#       beside files of the user's named as the tool's old temporary files
#       (OUTPUT.part0.nut, OUTPUT.parts.ffconcat) and a symlink so named:
#       print whether they are untouched, whether OUTPUT is the only new
#       file, and what SIGTERM during a run leaves (its exit code)
#   parts-check.sh corrupt BUILDDIR PYTHON INPUT
#       INPUT with its first 4 KiB overwritten: print the tool's error and
#       exit code, and the files it left next to OUTPUT
#   parts-check.sh warmup BUILDDIR PYTHON INPUT MODEL K...
#       a recurrent model in parts with --warmup K, against one run: print,
#       for each K, whether the frames are one run's, and the PSNR
#   parts-check.sh ray-local BUILDDIR PYTHON INPUT FILTER
#       the tool with --engine ray and no cluster: a Ray of this machine (2
#       CPUs), the models through the object store, the parts too
#   parts-check.sh ray-cluster BUILDDIR PYTHON INPUT MODELDIR
#       a Ray cluster on this machine: a head of 2 CPU slots and a second
#       node of 1 (ray start --address); over it, a model of one frame, a
#       window (frames=5) and an interpolation (fps=60) against one run; a
#       worker killed (SIGKILL) during a part, against one run; a part that
#       fails (its ffmpeg's error, the exit code, no files left)
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
mode=$1; shift

tool() { "$python" "$src/tools/dnn-torch-parts.py" --ffmpeg "$build/ffmpeg" "$@"; }
ffq() { "$build/ffmpeg" -nostdin -nostats -hide_banner -v error "$@"; }

# whole FILTER INPUT OUT: one ffmpeg over the whole, as the tool's parts are
# compared with
whole() {
    ffq -i "$2" -vf "$1" -map 0 -fps_mode passthrough -c:v rawvideo -c:a copy -c:s copy -y "$3"
}

# compare A B NAME: every packet (framecrc) and the container (ffprobe)
compare() {
    status=0
    for f in "$1" "$2"; do
        ffq -i "$f" -map 0 -c copy -f framecrc "$f.crc" || return 1
        "$build/ffprobe" -v error -show_entries \
            format=start_time,duration:format_tags=title:chapter=start_time,end_time:chapter_tags=title:stream=index,codec_type,start_time \
            -of compact "$f" >"$f.probe" || return 1
    done
    awk -F', *' '!/^#/ { n[$1]++ } END { printf "%s: packets:", name; for (s = 0; s in n; s++) printf " %d", n[s]; print "" }' \
        name="$3" "$1.crc"
    if cmp -s "$1.crc" "$2.crc"; then echo "$3: every packet one run's (framecrc)"
    else echo "$3: packets DIFFER from one run's:"; diff "$1.crc" "$2.crc" | head -6; status=1; fi
    if cmp -s "$1.probe" "$2.probe"; then echo "$3: duration, chapters, title one run's"
    else echo "$3: container DIFFERS:"; diff "$1.probe" "$2.probe" | head -6; status=1; fi
    rm -f "$1.crc" "$2.crc" "$1.probe" "$2.probe"
    return $status
}

# same_run NAME FILTER INPUT TOOL_ARGS...: the tool against one run
same_run() {
    name=$1 filter=$2 input=$3; shift 3
    whole "$filter" "$input" "$tmp.whole.mkv" || return 1
    tool "$@" --encode "-c:v rawvideo" -i "$input" -vf "$filter" "$tmp.parts.mkv" >"$tmp.out" ||
        { echo "$name: the tool failed"; return 1; }
    sed -n '1s/^dnn-torch-parts: \(.*\): .*/'"$name"': \1/p' "$tmp.out"
    compare "$tmp.whole.mkv" "$tmp.parts.mkv" "$name"
    s=$?
    rm -f "$tmp.whole.mkv" "$tmp.parts.mkv" "$tmp.out"
    return $s
}

# left DIR: the files in DIR (none of ours may be left)
# shellcheck disable=SC2012 # names of ours and the test's, one a line
left() { (cd "$1" && ls -A | tr '\n' ' ' | sed 's/ $//'); }

case $mode in
clip)
    build=$1 python=$2 out=$3
    "$python" "$src/tests/dnn/subtitle_mkv.py" "$out.subs.mkv" || exit 1
    ffq -f lavfi -i testsrc2=s=96x64:r=25:d=2 -i "$src/tests/dnn/h264-aac.mp4" -i "$out.subs.mkv" \
        -map 0:v -map 1:a -map 2:s -map_chapters 2 -c:v mpeg4 -g 10 -q:v 4 -c:a copy -c:s copy \
        -metadata title="parts test" -fflags +bitexact -y "$out"
    status=$?
    rm -f "$out.subs.mkv"
    exit $status
    ;;
same)
    build=$1 python=$2 input=$3 filter=$4; shift 4
    tmp=tests/data/fate/dnn-torch-parts-same.$$
    same_run parts "$filter" "$input" "$@"
    ;;
neighbours)
    build=$1 python=$2 input=$3
    base=$PWD/tests/data/fate/dnn-torch-parts-neighbours.$$
    nl='
'
    dir="$base/it's a${nl}dir"
    rm -rf "$base" && mkdir -p "$dir" || exit 1
    out=$dir/out.mkv
    echo "the user's part" >"$out.part0.nut"
    echo "the user's list" >"$out.parts.ffconcat"
    echo "the user's file" >"$base/target"
    ln -s "$base/target" "$out.part1.nut"
    before=$(left "$dir")
    if ! { ffq -i "$input" -vf format=yuv420p -map 0 -fps_mode passthrough -c:v rawvideo -c:a copy -y "$base/whole.mkv" &&
           tool --devices cpu --parts 3 --encode "-c:v rawvideo" -i "$input" -vf format=yuv420p "$out" >/dev/null; }; then
        echo "the tool failed"; rm -rf "$base"; exit 1
    fi
    status=0
    check() { if [ "$2" = "$3" ]; then echo "$1: yes"; else echo "$1: NO ($2, not $3)"; status=1; fi; }
    check "the user's OUTPUT.part0.nut untouched" "$(cat "$out.part0.nut")" "the user's part"
    check "the user's OUTPUT.parts.ffconcat untouched" "$(cat "$out.parts.ffconcat")" "the user's list"
    check "the symlink OUTPUT.part1.nut still a symlink to its file" "$(readlink "$out.part1.nut")" "$base/target"
    check "the symlink's file untouched" "$(cat "$base/target")" "the user's file"
    # shellcheck disable=SC2086 # the names, none with a space
    check "the files beside OUTPUT: the user's and OUTPUT" "$(left "$dir")" "$(printf '%s\n' $before out.mkv | sort | tr '\n' ' ' | sed 's/ $//')"
    ffq -i "$base/whole.mkv" -map 0 -c copy -f framecrc "$base/whole.crc"
    ffq -i "$out" -map 0 -c copy -f framecrc "$base/parts.crc"
    check "OUTPUT is one run's (framecrc)" "$(cmp -s "$base/whole.crc" "$base/parts.crc" && echo same)" same
    # SIGTERM while the parts run: the private directory goes too
    rm -f "$out"
    "$python" "$src/tools/dnn-torch-parts.py" --ffmpeg "$build/ffmpeg" --devices cpu --parts 2 \
        --encode "-c:v rawvideo" -i "$input" -vf "format=yuv420p,scale=1920:1080:flags=lanczos,scale=96:64:flags=lanczos" "$out" >/dev/null 2>"$base/term.err" &
    pid=$!
    i=0
    while [ $i -lt 300 ] && ! ls "$dir"/.dnn-torch-parts.*/part0.nut >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
    kill -TERM $pid
    wait $pid
    check "SIGTERM during the parts: exit code" $? 143
    check "SIGTERM: its message" "$(cat "$base/term.err")" "dnn-torch-parts: interrupted (SIGTERM): the parts are removed"
    check "SIGTERM: the files beside OUTPUT" "$(left "$dir")" "$before"
    rm -rf "$base"
    exit $status
    ;;
corrupt)
    build=$1 python=$2 input=$3
    dir=tests/data/fate/dnn-torch-parts-corrupt.$$
    rm -rf "$dir" && mkdir -p "$dir" || exit 1
    cp "$input" "$dir/in.mkv" && chmod u+w "$dir/in.mkv" &&
        dd if=/dev/zero of="$dir/in.mkv" bs=4096 count=1 conv=notrunc 2>/dev/null || exit 1
    for engine in local ray; do
        err=$(tool --engine $engine --devices cpu -i "$dir/in.mkv" -vf format=yuv420p "$dir/out.mkv" 2>&1 >/dev/null)
        echo "$engine: exit code $?: $(printf '%s\n' "$err" | sed "s|$dir/||g")"
        echo "$engine: files left beside OUTPUT: $(left "$dir")"
    done
    rm -rf "$dir"
    ;;
warmup)
    build=$1 python=$2 input=$3 model=$4; shift 4
    tmp=tests/data/fate/dnn-torch-parts-warmup.$$
    filter="format=rgb24,dnn_processing=dnn_backend=torch:model=$model:recurrent=1,format=yuv420p"
    whole "$filter" "$input" "$tmp.whole.mkv" || exit 1
    status=0 last=
    for k do
        tool --devices cpu --part-seconds 0.8 --warmup "$k" --encode "-c:v rawvideo" \
            -i "$input" -vf "$filter" "$tmp.parts.mkv" >/dev/null 2>"$tmp.err" || { cat "$tmp.err"; exit 1; }
        psnr=$("$build/ffmpeg" -nostdin -nostats -hide_banner -i "$tmp.parts.mkv" -i "$tmp.whole.mkv" \
               -lavfi "[0:v][1:v]psnr" -an -sn -f null - 2>&1 | sed -n 's/.*PSNR .* average:\([^ ]*\) .*/\1/p')
        ffq -i "$tmp.whole.mkv" -map 0:v -c copy -f framecrc "$tmp.w.crc"
        ffq -i "$tmp.parts.mkv" -map 0:v -c copy -f framecrc "$tmp.p.crc"
        same=$(diff "$tmp.w.crc" "$tmp.p.crc" | grep -c '^>')
        echo "warmup $k: $same of 50 frames differ from one run's, PSNR $psnr dB" >&2
        echo "warmup $k: $(sed -n 1p "$tmp.err")"
        echo "warmup $k: $same of 50 frames differ from one run's"
        if [ -n "$last" ]; then
            rises=$(awk -v a="$last" -v b="$psnr" 'BEGIN { print (b > a) ? "yes" : "NO" }')
            echo "warmup $k: PSNR against one run higher than with less warm-up: $rises"
            [ "$rises" = yes ] || status=1
        fi
        last=$psnr
        rm -f "$tmp.parts.mkv" "$tmp.err" "$tmp.w.crc" "$tmp.p.crc"
    done
    rm -f "$tmp.whole.mkv"
    exit $status
    ;;
ray-local)
    build=$1 python=$2 input=$3 filter=$4
    tmp=tests/data/fate/dnn-torch-parts-ray-local.$$
    unset RAY_ADDRESS
    RAY_TMPDIR=$(mktemp -d /tmp/dnn-torch-parts-ray.XXXXXX) && export RAY_TMPDIR || exit 1
    same_run ray-local "$filter" "$input" --engine ray --ray-cpus 2 --devices cpu --part-seconds 0.4 \
        --via object-store --ship-models
    status=$?
    rm -rf "$RAY_TMPDIR"
    exit $status
    ;;
ray-cluster)
    build=$1 python=$2 input=$3 models=$4
    tmp=tests/data/fate/dnn-torch-parts-ray.$$
    ray=$(dirname "$python")/ray
    # a path short enough for Ray's sockets
    rt=$(mktemp -d /tmp/dnn-torch-parts-ray.XXXXXX) || exit 1
    port=$((20000 + $$ % 20000))
    unset RAY_ADDRESS
    # shellcheck disable=SC2317 # run by the trap
    stop() {
        # the processes of this cluster: those whose environment names it
        # (they rename themselves: ray::IDLE...)
        pids=$(grep -l "DNN_TORCH_PARTS_CLUSTER=$rt" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3)
        # shellcheck disable=SC2086 # a list of process ids
        [ -z "$pids" ] || kill -9 $pids 2>/dev/null
        rm -rf "$rt"
    }
    trap stop EXIT
    # the cluster's token (Ray's token authentication), for its nodes and drivers
    RAY_AUTH_MODE=token RAY_AUTH_TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    export RAY_AUTH_MODE RAY_AUTH_TOKEN
    common="--object-store-memory=100000000 --disable-usage-stats"
    # the second node says it has a GPU (Ray's resources are declared): its
    # parts get CUDA_VISIBLE_DEVICES, which the CPU filters ignore
    # shellcheck disable=SC2086 # a list of options
    if ! { DNN_TORCH_PARTS_CLUSTER=$rt "$ray" start --head --port=$port --num-cpus=2 --num-gpus=0 \
               --include-dashboard=false --temp-dir="$rt" $common >"$rt/head.log" 2>&1 &&
           DNN_TORCH_PARTS_CLUSTER=$rt "$ray" start --address=127.0.0.1:$port --num-cpus=2 --num-gpus=1 \
               $common >"$rt/node.log" 2>&1; }; then
        echo "ray start failed:"; tail -n 5 "$rt"/*.log; exit 1
    fi
    RAY_ADDRESS=127.0.0.1:$port && export RAY_ADDRESS
    nodes=$("$python" -c 'import ray, logging; ray.init(logging_level=logging.ERROR); r = ray.cluster_resources(); print(len([n for n in ray.nodes() if n["Alive"]]), int(r["CPU"]), int(r.get("GPU", 0)))')
    echo "cluster: $nodes" | sed 's/: \(.*\) \(.*\) \(.*\)/: \1 nodes, \2 CPU slots, \3 GPU/'
    status=0
    args="--engine ray --devices cpu --part-seconds 0.4"
    rgb() { echo "format=rgb24,$1,format=yuv420p"; }
    # shellcheck disable=SC2086 # a list of options
    {
        same_run one-frame "$(rgb "dnn_processing=dnn_backend=torch:model=$models/conv.pt")" "$input" $args &&
        same_run window "$(rgb "dnn_processing=dnn_backend=torch:model=$models/fastdvd.pt:frames=5:sigma=0.1")" "$input" $args &&
        same_run interpolate-fps "$(rgb "dnn_interpolate=model=$models/ifnet.pt:fps=60")" "$input" $args &&
        # two parts at once on the node's one GPU (num_gpus=0.5 each)
        same_run gpu-shared "$(rgb "dnn_processing=dnn_backend=torch:model=$models/conv.pt")" "$input" \
            --engine ray --devices gpu --parts-per-gpu 2 --part-seconds 0.4
    } || status=1
    # a worker killed during part 1 (the test hold: the part waits for it)
    filter=$(rgb "dnn_processing=dnn_backend=torch:model=$models/conv.pt")
    whole "$filter" "$input" "$tmp.whole.mkv" || exit 1
    # shellcheck disable=SC2086 # a list of options
    DNN_TORCH_PARTS_TEST_HOLD="1:$rt/hold" tool $args --encode "-c:v rawvideo" -i "$input" -vf "$filter" \
        "$tmp.parts.mkv" >/dev/null 2>"$tmp.err" &
    driver=$!
    i=0
    while [ $i -lt 600 ] && [ ! -s "$rt/hold" ]; do sleep 0.1; i=$((i + 1)); done
    worker=$(cat "$rt/hold" 2>/dev/null)
    case $(tr '\0' ' ' <"/proc/$worker/cmdline" 2>/dev/null) in
    ray::*) kill -9 "$worker" && echo "killed: the Ray worker of part 1 (SIGKILL)" ;;
    *) echo "no Ray worker held part 1"; status=1 ;;
    esac
    if wait $driver; then
        compare "$tmp.whole.mkv" "$tmp.parts.mkv" killed || status=1
    else
        echo "killed: the tool failed:"; cat "$tmp.err"; status=1
    fi
    rm -f "$tmp.whole.mkv" "$tmp.parts.mkv" "$tmp.err"
    # a part that fails: its ffmpeg's error, exit 1, nothing left
    dir=$tmp.fails
    mkdir -p "$dir"
    # shellcheck disable=SC2086 # a list of options
    err=$(tool $args -i "$input" -vf "$(rgb "dnn_processing=dnn_backend=torch:model=$models/raises_on_data.pt")" \
          "$dir/out.mkv" 2>&1 >/dev/null)
    echo "fails: exit code $?"
    # the tool's line and the cause, the first line of the part's ffmpeg
    printf '%s\n' "$err" | grep -e '^dnn-torch-parts: error:' -e 'inference failed' |
        sed -e 's/part [0-9]* (worker [^)]*)/part K (worker W)/' -e 's/ @ 0x[0-9a-f]*\]/]/g'
    files=$(left "$dir")
    echo "fails: files left beside OUTPUT: ${files:-none}"
    rm -rf "$dir"
    exit $status
    ;;
*)
    echo "parts-check.sh: unknown mode $mode" >&2
    exit 2
    ;;
esac
