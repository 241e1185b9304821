#!/bin/sh
# The parts runner (tools/dnn-torch-parts.py) on one GPU against one ffmpeg
# over the whole video:
#
#   tools/bench/dnn-torch-bench-parts.sh BUILDDIR [prepare]
#
# SRVGGNetCompact x2 (tests/dnn/gen_torch_models.py, untrained weights: the
# speed is the architecture's), an fp16 .pt2 package compiled here the first
# time (BUILDDIR/bench/parts/srvgg_x2-fp16.pt2), on NVDEC nv12 frames of a
# 1080p MPEG-2 clip of BENCH_PARTS_CLIP (30) seconds at 25 fps, a key frame a
# second, made here once; the 2x output (2160p) is encoded by h264_nvenc at
# a constant quantizer, without B-frames and a key frame each 25 frames (so
# that the parts, which start at the input's key frames, encode as one run
# does) where this GPU has NVENC, else downloaded and encoded by mpeg4,
# intra-only.
#
#   one       one ffmpeg over the whole clip
#   local N   the runner's local engine with N parts at once on GPU 0
#             (--devices 0 or 0,0)
#   ray N     the Ray engine (a Ray of this machine, ray.init()), N parts at
#             once on the GPU (--parts-per-gpu N); only where BENCH_RAY_PYTHON
#             (default TORCH_PYTHON) imports ray
#
# Parts of BENCH_PARTS_SECONDS (5) seconds; each line gives the frames out a
# second over the command's whole time (start-up, planning, the parts and
# the join included), the median of BENCH_REPEAT (3) runs and their spread
# (min-max), and for the runner the median of its own times: probing and
# planning, and the join.  Every output's video packets are compared with
# one ffmpeg's (framecrc): "same" or "DIFFERENT".  "prepare" makes the
# package and the clip only.  A benchmark, not a test: it exits 0 unless a
# command fails.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 BUILDDIR [prepare]" >&2; exit 1; }
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
python=${TORCH_PYTHON:-python3}
ray_python=${BENCH_RAY_PYTHON:-$python}
repeat=${BENCH_REPEAT:-3}
clip_seconds=${BENCH_PARTS_CLIP:-30}
part_seconds=${BENCH_PARTS_SECONDS:-5}
ffmpeg=$build/ffmpeg
dir=$build/bench/parts
mkdir -p "$dir"
frames=$((clip_seconds * 25))
pt2=$dir/srvgg_x2-fp16.pt2
clip=$dir/clip-1080p-${clip_seconds}s.mkv

if [ ! -f "$pt2" ]; then
    echo "compiling $pt2" >&2
    "$python" "$src/tools/dnn-torch-export.py" "$src/tests/dnn/gen_torch_models.py:SRVGGNetCompact" \
        "$pt2.tmp.pt2" --device cuda --precision fp16 --no-check >"$dir/export.log" 2>&1 ||
        { tail -n 5 "$dir/export.log" >&2; exit 1; }
    mv "$pt2.tmp.pt2" "$pt2"
fi
if [ ! -f "$clip" ]; then
    "$ffmpeg" -nostdin -v error -f lavfi -i "testsrc2=s=1920x1080:r=25:d=$clip_seconds" \
        -c:v mpeg2video -q:v 2 -g 25 -bf 0 -y "$clip.tmp.mkv"
    mv "$clip.tmp.mkv" "$clip"
fi
[ "${2:-}" != prepare ] || exit 0

vf="dnn_processing=dnn_backend=torch:model=$pt2:precision=fp16:yuv_input=rgb:cudnn_benchmark=0"
nvenc="-c:v h264_nvenc -preset p1 -rc constqp -qp 23 -g 25 -bf 0"
# shellcheck disable=SC2086 # the encoder's options
if "$ffmpeg" -nostdin -v error -hwaccel cuda -hwaccel_output_format cuda -i "$clip" -vf "$vf" \
       -frames:v 2 $nvenc -f null - 2>/dev/null; then
    encoder="h264_nvenc"
    encode=$nvenc
else
    # intra-only, so that each part's packets are one run's (mpeg2video
    # delays its decoding times, which the runner refuses)
    encoder="mpeg4, intra-only (no NVENC on this GPU: frames downloaded)"
    vf="$vf,hwdownload,format=nv12"
    encode="-c:v mpeg4 -q:v 4 -g 1 -bf 0 -threads 8"
fi

# median and spread (min-max) of numbers, one a line
stats() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f (%.1f-%.1f)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }'; }
# packets KIND: the video packets of KIND's output (framecrc)
packets() { "$ffmpeg" -nostdin -v error -i "$dir/$1.mkv" -map 0:v -c copy -f framecrc - | grep -v '^#'; }

# measure NAME COMMAND...: BENCH_REPEAT runs, the row of NAME
measure() {
    name=$1; shift
    : >"$dir/$name.fps"; : >"$dir/$name.plan"; : >"$dir/$name.join"
    i=0
    while [ $i -lt "$repeat" ]; do
        rm -f "$dir/$name.mkv"
        t0=$(date +%s.%N)
        "$@" >"$dir/$name.log" 2>&1 || { echo "error: $name failed:" >&2; tail -n 5 "$dir/$name.log" >&2; exit 1; }
        t1=$(date +%s.%N)
        echo "$frames $t0 $t1" | awk '{ printf "%.3f\n", $1 / ($3 - $2) }' >>"$dir/$name.fps"
        sed -n 's/.*: time: probe and plan \([0-9.]*\) s, .*/\1/p' "$dir/$name.log" >>"$dir/$name.plan"
        sed -n 's/.*, join \([0-9.]*\) s$/\1/p' "$dir/$name.log" >>"$dir/$name.join"
        i=$((i + 1))
    done
    same=same
    [ "$name" = one ] || { packets "$name" | cmp -s - "$dir/one.crc" || same=DIFFERENT; }
    [ "$name" = one ] && packets one >"$dir/one.crc"
    row="$(stats <"$dir/$name.fps") fps"
    [ ! -s "$dir/$name.plan" ] || row="$row; probe and plan $(median <"$dir/$name.plan") s, join $(median <"$dir/$name.join") s"
    [ "$name" = one ] || row="$row; video packets: $same"
    printf '%-9s %s\n' "$name" "$row"
}

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
echo "parts runner: $gpu; SRVGGNetCompact x2 fp16 .pt2, ${frames} frames of 1080p MPEG-2 by NVDEC to 2160p,"
echo "encoded by $encoder; parts of ${part_seconds} s; frames/s over each whole command, median (min-max) of $repeat"
# shellcheck disable=SC2086 # the encoder's options
one() { "$ffmpeg" -nostdin -v error -hwaccel cuda -hwaccel_output_format cuda -i "$clip" -vf "$vf" $encode -y "$dir/one.mkv"; }
runner=$python
parts() {
    out=$1; shift
    "$runner" "$src/tools/dnn-torch-parts.py" --ffmpeg "$ffmpeg" --part-seconds "$part_seconds" --hwaccel \
        --encode "$encode" "$@" -i "$clip" -vf "$vf" "$dir/$out.mkv"
}
measure one one
measure local-1 parts local-1 --devices 0
measure local-2 parts local-2 --devices 0,0
if "$ray_python" -c 'import ray' 2>/dev/null; then
    runner=$ray_python
    measure ray-1 parts ray-1 --engine ray
    measure ray-2 parts ray-2 --engine ray --parts-per-gpu 2
else
    echo "ray       not measured: $ray_python cannot import ray"
fi
