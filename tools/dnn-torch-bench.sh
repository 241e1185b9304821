#!/bin/sh
# Throughput of dnn_processing (LibTorch backend) on a CUDA GPU, against
# LibTorch alone:
#
#   tools/dnn-torch-bench.sh BUILDDIR
#
# For each model of the bench set of tests/dnn/gen_torch_models.py, on 1920x1080 fp32 frames:
#   bare         tools/dnn-torch-bare.cpp: the model on a tensor already on
#                the GPU, no frame handling at all (the ceiling)
#   filter CUDA  ffmpeg with CUDA frames (uploaded once, replayed by loop),
#                device=cuda
#   CPU-frames   ffmpeg with rgb24 frames in system memory, device=cuda:async=0
#                (the only way upstream has)
# then prints a table and whether the targets are met.  It is a benchmark, not
# a test: a missed target still exits 0; a failing command exits 1.
#
# Environment: TORCH_PYTHON (python3), a Python with torch, whose torch/ folder
# is LibTorch; BENCH_FRAMES (600), frames per ffmpeg run; CUDA_PATH
# (/usr/local/cuda), for the CUDA headers; BENCH_FILTER_OPTS, more
# dnn_processing options for the CUDA-frame runs (":optimize=1").
set -eu

[ $# -eq 1 ] || { echo "usage: $0 BUILDDIR" >&2; exit 1; }
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
python=${TORCH_PYTHON:-python3}
frames=${BENCH_FRAMES:-600}
cuda=${CUDA_PATH:-/usr/local/cuda}
ffmpeg=$build/ffmpeg
bench=$build/bench
bare=$bench/dnn-torch-bare
w=1920
h=1080

case $frames in
''|*[!0-9]*|0) echo "error: BENCH_FRAMES must be a positive integer" >&2; exit 1 ;;
esac
[ -x "$ffmpeg" ] || { echo "error: no $ffmpeg: build it first (make)" >&2; exit 1; }

# Two runs per ffmpeg command; their difference leaves out start-up (model
# load, cuDNN autotuning).  Fewer frames for the slow CPU-frame path.
n1=$((frames / 4)); [ "$n1" -ge 20 ] || n1=20
n2=$frames;         [ "$n2" -gt "$n1" ] || n2=$((2 * n1))
c1=$((frames / 40)); [ "$c1" -ge 4 ] || c1=4
c2=$((frames / 10)); [ "$c2" -ge 10 ] || c2=10

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# run LABEL CMD...: stdout to $tmp/out, stderr to $tmp/err; on failure say what
# failed, show the end of its stderr and exit 1
run() {
    label=$1
    shift
    "$@" >"$tmp/out" 2>"$tmp/err" || {
        rc=$?
        echo "error: $label failed (exit status $rc)" >&2
        echo "command: $*" >&2
        echo "last lines of its stderr:" >&2
        tail -n 15 "$tmp/err" | tr '\r' '\n' | tail -n 15 | sed 's/^/  | /' >&2
        exit 1
    }
}

# bare_fps MODEL: sets fps
bare_fps() {
    run "dnn-torch-bare $1" "$bare" "models/$1.pt" "$w" "$h" 3
    fps=$(sed -n 's/^fps: //p' "$tmp/out")
    [ -n "$fps" ] || { echo "error: no 'fps:' line from dnn-torch-bare $1" >&2; exit 1; }
}

# rtime N FFMPEG-ARGS...: runs ffmpeg on N frames; sets t, its real time in s
rtime() {
    n=$1
    shift
    run "ffmpeg ($n frames)" "$ffmpeg" -hide_banner -nostdin -nostats -benchmark \
        "$@" -frames:v "$n" -f null -
    t=$(sed -n 's/^bench:.* rtime=\([0-9.]*\)s.*/\1/p' "$tmp/err")
    [ -n "$t" ] || { echo "error: no 'bench: ... rtime=' line from ffmpeg" >&2; exit 1; }
}

# ffmpeg_fps N1 N2 FFMPEG-ARGS...: sets fps from runs of N1 and N2 frames
ffmpeg_fps() {
    a=$1 b=$2
    shift 2
    rtime "$a" "$@"; t1=$t
    rtime "$b" "$@"; t2=$t
    fps=$(awk -v a="$a" -v b="$b" -v t1="$t1" -v t2="$t2" \
        'BEGIN { if (t2 > t1) printf "%.1f", (b - a) / (t2 - t1); else print "n/a" }')
}

run "finding LibTorch with $python" "$python" -W ignore -c \
    'import os, torch; print(os.path.dirname(torch.__file__)); print(torch.__version__)'
T=$(sed -n 1p "$tmp/out")
torch_version=$(sed -n 2p "$tmp/out")

mkdir -p "$bench"
# (find -newer: test's -nt is not in older POSIX)
if [ ! -x "$bare" ] || [ -n "$(find "$src/tools/dnn-torch-bare.cpp" -newer "$bare")" ]; then
    echo "building $bare" >&2
    run "building dnn-torch-bare" g++ -O2 -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=1 \
        "$src/tools/dnn-torch-bare.cpp" \
        -I"$T/include" -I"$T/include/torch/csrc/api/include" -I"$cuda/include" \
        -L"$T/lib" -Wl,-rpath,"$T/lib" \
        -Wl,--no-as-needed -ltorch_cuda -lc10_cuda -Wl,--as-needed \
        -ltorch -ltorch_cpu -lc10 -o "$bare"
fi
run "generating the models" "$python" "$src/tests/dnn/gen_torch_models.py" "$bench/models" bench

gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1) || :
[ -n "$gpu" ] || gpu="unknown (no nvidia-smi)"

# relative model paths: the filter graph needs no escaping whatever BUILDDIR is
cd "$bench"
: >"$tmp/table"
: >"$tmp/targets"
for m in identity conv3x3 espcn_x2; do
    echo "measuring $m: bare" >&2
    bare_fps "$m"
    bfps=$fps
    echo "measuring $m: filter, CUDA frames" >&2
    ffmpeg_fps "$n1" "$n2" -init_hw_device cuda=cu -filter_hw_device cu \
        -f lavfi -i "testsrc2=s=${w}x$h:r=25,format=rgb0" \
        -vf "hwupload,loop=loop=-1:size=1,dnn_processing=dnn_backend=torch:model=models/$m.pt:device=cuda${BENCH_FILTER_OPTS:-}"
    gfps=$fps
    echo "measuring $m: filter, CPU frames" >&2
    ffmpeg_fps "$c1" "$c2" -f lavfi -i "testsrc2=s=${w}x$h:r=25,format=rgb24" \
        -vf "loop=loop=-1:size=1,dnn_processing=dnn_backend=torch:model=models/$m.pt:device=cuda:async=0"
    cfps=$fps

    # "n/a" + 0 is 0: a failed measurement never meets a target
    awk -v m="$m" -v b="$bfps" -v g="$gfps" -v c="$cfps" 'BEGIN {
        pct = (b + 0 > 0 && g + 0 > 0) ? sprintf("%.1f%%", 100 * g / b) : "n/a"
        x   = (c + 0 > 0 && g + 0 > 0) ? sprintf("%.1fx", g / c) : "n/a"
        printf "%-10s %9s %16s %10s %15s %19s\n", m, b, g, pct, c, x
    }' >>"$tmp/table"
    if [ "$m" = identity ]; then
        ok=$(awk -v g="$gfps" 'BEGIN { print (g + 0 >= 2000) ? "yes" : "no" }')
        last="target identity: filter >= 2000 fps: $ok"
    else
        ok=$(awk -v g="$gfps" -v b="$bfps" 'BEGIN { print (b + 0 > 0 && g + 0 >= 0.9 * b) ? "yes" : "no" }')
        echo "target $m: filter >= 90% of bare: $ok" >>"$tmp/targets"
    fi
done
echo "$last" >>"$tmp/targets"

echo "machine: $gpu"
echo "torch: $torch_version ($T)"
echo "ffmpeg: $("$ffmpeg" -version | head -n 1)"
echo "frames: ${w}x$h fp32; ffmpeg runs of $n1/$n2 frames (CUDA frames), $c1/$c2 (CPU frames)"
echo
printf "%-10s %9s %16s %10s %15s %19s\n" model "bare fps" "filter CUDA fps" "% of bare" \
    "CPU-frames fps" "CUDA vs CPU-frames"
cat "$tmp/table"
echo
cat "$tmp/targets"
