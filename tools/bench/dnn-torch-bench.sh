#!/bin/sh
# Throughput of dnn_processing (LibTorch backend) on a CUDA GPU, against
# LibTorch alone:
#
#   tools/bench/dnn-torch-bench.sh BUILDDIR
#
# For each model of the bench set of tests/dnn/gen_torch_models.py, each
# precision (fp32; fp16 and bf16, channels-last) and each format (TorchScript;
# .pt2, an AOTInductor package of the same weights with dynamic height and
# width, compiled here by tools/dnn-torch-export.py the first time, then
# reused from BUILDDIR/bench/models), on 1920x1080 frames:
#   bare         tools/bench/dnn-torch-bare.cpp: the model on a tensor already on
#                the GPU, no frame handling at all (the ceiling), same precision
#                and format
#   rgb0, nv12, p010
#                ffmpeg with CUDA frames of that layout (uploaded once,
#                replayed by loop; yuv_input=rgb for the YUV ones): the median
#                of BENCH_REPEAT runs, and their spread (min-max)
#   CPU-frames   (fp32, TorchScript) ffmpeg with rgb24 frames in system
#                memory, device=cuda:async=0 (the only way upstream has)
# Each ffmpeg figure is the steady state of one run: the frames output in a
# window of BENCH_SECONDS that starts BENCH_WARMUP seconds after the first
# frame (tools/bench/dnn-torch-steady-fps.py), so start-up is left out.
# then prints a table and whether the targets are met.  It is a benchmark, not
# a test: a missed target still exits 0; a failing command exits 1.
#
# Environment: TORCH_PYTHON (python3), a Python with torch, whose torch/ folder
# is LibTorch; BENCH_SECONDS (2) and BENCH_WARMUP (1), the window measured
# in each ffmpeg run and the time before it (seconds); CUDA_INCLUDE (make
# bench: the CUDA headers ./configure found) or else CUDA_PATH
# (/usr/local/cuda), for the CUDA headers and runtime; BENCH_FILTER_OPTS, more
# dnn_processing options for the CUDA-frame runs (":optimize=1"); BENCH_REPEAT
# (3), runs per CUDA-frame measurement; BENCH_MODELS, the models measured;
# BENCH_ARCHITECTURES, community architectures (spandrel's names: Compact
# SPAN ESRGAN...; none by default) measured as doc/architectures.md gives
# them: tools/dnn-torch-architectures.py's configuration, exported to an
# fp16 .pt2 for this GPU (fp32 for one that spandrel says does not run in
# fp16); bare, and through the filter on NVDEC nv12 frames of a 1080p
# MPEG-2 clip (yuv_input=rgb, luma for a model of one channel), lines "arch
# NAME bare FPS nv12 FPS (MIN-MAX) SHARE", " fp32" after it for an fp32 one;
# an architecture under 4 fps bare is measured through the filter in a
# window of about 8 of its frames (at most 20 s, at least BENCH_SECONDS)
# after a warm-up of at least one frame time (the bare tool's own window is
# 3 s after a warm-up of 20 runs, or of 3 s for a slow one); their packages
# are compiled first, BENCH_ARCH_JOBS (4) at a time, each (its weights
# and its compile) within BENCH_ARCH_COMPILE_TIMEOUT (400) seconds ("arch
# NAME not-measured: its compile took longer than N s", or "making its
# weights took longer..."); BENCH_ARCH_STATIC (none), those of
# BENCH_ARCHITECTURES whose package is compiled for the clip's size only
# (export --static WxH; models/arch-NAME-PREC-static.pt2), for an
# architecture whose export or compile for any size takes longer than a
# machine's call: " static" ends its line; BENCH_DEADLINE (none):
# seconds from the script's start after which no compile or measurement of
# an architecture starts, and a compile or bare run still going is stopped
# ("arch NAME not-measured: out of the machine's time"), so that one run
# ends within a machine's time;
# BENCH_TEMPORAL (interpolate interpolate-graph
# interpolate-inductor-graph interpolate-static interpolate-static-graph
# interpolate-static-inductor-graph interpolate-static-gridsample-graph
# interpolate-static-autotune-graph interpolate-x4 interpolate-x4-batch
# window window-graph), models of several frames, fp16 .pt2
# packages on NVDEC nv12 frames of the 1080p clip against the same package
# bare on the same inputs: "interpolate", an IFNet sized like RIFE 4.6
# (tests/dnn/temporal_models.py IFNetBench; its GFLOPs per frame printed)
# through dnn_interpolate (factor 2: one model run per input frame, two
# output frames; "interpolate-static", its package compiled for the clip's
# size (export --static), "-autotune" with --autotune too;
# "interpolate-inductor" and "interpolate-static-inductor", exported with
# --aten-kernels none (grid_sample and bilinear resizing as Inductor's
# own kernels, not LibTorch's), "interpolate-gridsample" and
# "interpolate-static-gridsample" with --aten-kernels grid_sample
# (LibTorch's grid_sample, Inductor's bilinear resizing; the default,
# --aten-kernels grid_sample,bilinear, was the faster);
# "interpolate-x4", factor 4: three runs of one time per input frame, and "interpolate-x4-batch", the three times in one run of a
# package exported with --batch 3, batch=3; "interpolate-fps-batch", the
# same package at fps=60, runs of 1 to 3 times), and "window", FastDVDnet's
# two stages with 64 features
# through dnn_processing frames=5 (a noise plane); NAME-graph with the
# filter's cuda_graph=1 against the bare package replayed from a CUDA graph
# (dnn-torch-bare BARE_CUDA_GRAPH=1); lines "temporal NAME ...", the share
# of bare in model runs a second;
# BENCH_PRECISIONS (fp32 fp16 bf16), the precisions measured; BENCH_FORMATS
# (torchscript pt2); BENCH_LAYOUTS (rgb0 nv12 p010le), the CUDA frames' layouts
# (rgb0 first: the others are given as a share of it).  Whether
# channels_last helps: BENCH_FILTER_OPTS=:channels_last=0 BARE_CHANNELS_LAST=0
# BENCH_FORMATS=torchscript against the default (on for fp16 and bf16).
set -eu
script_start=$(date +%s)  # BENCH_DEADLINE counts from here

[ $# -eq 1 ] || { echo "usage: $0 BUILDDIR" >&2; exit 1; }
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
python=${TORCH_PYTHON:-python3}
window=${BENCH_SECONDS:-2}
warmup=${BENCH_WARMUP:-1}
cuda=${CUDA_PATH:-/usr/local/cuda}
ffmpeg=$build/ffmpeg
bench=$build/bench
bare=$bench/dnn-torch-bare
w=1920
h=1080

repeat=${BENCH_REPEAT:-3}
models=${BENCH_MODELS:-identity conv3x3 espcn_x2 srvgg_x2}
all_precisions=${BENCH_PRECISIONS:-fp32 fp16 bf16}
formats=${BENCH_FORMATS:-torchscript pt2}
layouts=${BENCH_LAYOUTS:-rgb0 nv12 p010le}
case " $layouts " in
" rgb0 "*) ;;
*) echo "error: BENCH_LAYOUTS must start with rgb0" >&2; exit 1 ;;
esac
case $repeat in
''|*[!0-9]*|0*) echo "error: BENCH_REPEAT must be a positive integer" >&2; exit 1 ;;
esac
for v in "$window" "$warmup"; do
    case $v in
    ''|.|*[!0-9.]*|*.*.*) echo "error: BENCH_SECONDS and BENCH_WARMUP must be numbers of seconds" >&2; exit 1 ;;
    esac
done
[ -x "$ffmpeg" ] || { echo "error: no $ffmpeg: build it first (make)" >&2; exit 1; }

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

# bare_fps MODEL-FILE PRECISION: sets fps
bare_fps() {
    run "dnn-torch-bare $1 $2" "$bare" "$1" "$w" "$h" 3 "$2"
    fps=$(sed -n 's/^fps: //p' "$tmp/out")
    [ -n "$fps" ] || { echo "error: no 'fps:' line from dnn-torch-bare $1" >&2; exit 1; }
}

# ffmpeg_fps FFMPEG-ARGS...: sets fps, the steady state of one run
ffmpeg_fps() {
    run "ffmpeg" "$python" "$src/tools/bench/dnn-torch-steady-fps.py" "$warmup" "$window" \
        "$ffmpeg" -hide_banner "$@"
    fps=$(sed -n 's/^fps: //p' "$tmp/out")
    [ -n "$fps" ] || { echo "error: no 'fps:' line from dnn-torch-steady-fps.py" >&2; exit 1; }
}

run "finding LibTorch with $python" "$python" -W ignore -c \
    'import os, torch; print(os.path.dirname(torch.__file__)); print(torch.__version__)'
T=$(sed -n 1p "$tmp/out")
torch_version=$(sed -n 2p "$tmp/out")

mkdir -p "$bench"
# (find -newer: test's -nt is not in older POSIX)
if [ ! -x "$bare" ] || [ -n "$(find "$src/tools/bench/dnn-torch-bare.cpp" -newer "$bare")" ]; then
    echo "building $bare" >&2
    # the CUDA runtime: the headers ./configure found (a toolkit's, or those
    # PyPI's torch comes with), and its library by its path (PyPI's has no
    # libcudart.so, only libcudart.so.N)
    cudart=
    for f in "$cuda"/lib64/libcudart.so "$T"/../nvidia/*/lib/libcudart.so.*; do
        [ -f "$f" ] && cudart=$f && break
    done
    [ -n "$cudart" ] || { echo "no libcudart in $cuda/lib64 nor beside LibTorch" >&2; exit 1; }
    run "building dnn-torch-bare" g++ -O2 -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=1 \
        "$src/tools/bench/dnn-torch-bare.cpp" \
        -I"$T/include" -I"$T/include/torch/csrc/api/include" -I"${CUDA_INCLUDE:-$cuda/include}" \
        -L"$T/lib" -Wl,-rpath,"$T/lib" \
        -Wl,--no-as-needed -ltorch_cuda -lc10_cuda -Wl,--as-needed \
        -ltorch -ltorch_cpu -lc10 "$cudart" -Wl,-rpath,"$(dirname "$cudart")" -o "$bare"
fi
run "generating the models" "$python" "$src/tests/dnn/gen_torch_models.py" "$bench/models" bench

gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1) || :
[ -n "$gpu" ] || gpu="unknown (no nvidia-smi)"

# relative model paths: the filter graph needs no escaping whatever BUILDDIR is
cd "$bench"
: >"$tmp/table"
: >"$tmp/targets"

# package MODEL PRECISION: models/MODEL-PRECISION.pt2, compiled for this GPU
# unless it is there already
package() {
    pt2=models/$1-$2.pt2
    [ -f "$pt2" ] && return
    case $1 in
    conv3x3)  class=Conv3x3 ;;
    espcn_x2) class=ESPCNx2 ;;
    srvgg_x2) class=SRVGGNetCompact ;;
    *)        echo "error: no .pt2 package for the bench model $1" >&2; exit 1 ;;
    esac
    echo "compiling $pt2" >&2
    run "exporting $pt2" "$python" "$src/tools/dnn-torch-export.py" \
        "$src/tests/dnn/gen_torch_models.py:$class" "$pt2.tmp.pt2" --checkpoint "models/$1.state.pt" \
        --device cuda --precision "$2" --no-check
    mv "$pt2.tmp.pt2" "$pt2"
}

# repeated_fps FFMPEG-ARGS...: sets med and spread (min-max) of BENCH_REPEAT
# steady-state runs
repeated_fps() {
    : >"$tmp/runs"
    i=0
    while [ "$i" -lt "$repeat" ]; do
        ffmpeg_fps "$@"
        echo "$fps" >>"$tmp/runs"
        i=$((i + 1))
    done
    med=$(sort -n "$tmp/runs" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    spread=$(sort -n "$tmp/runs" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo "-" hi }')
}

# cuda_fps MODEL-FILE PRECISION LAYOUT: sets med and spread (min-max) of
# BENCH_REPEAT measurements on CUDA frames
cuda_fps() {
    yuv=; [ "$3" = rgb0 ] || yuv=:yuv_input=rgb
    repeated_fps -init_hw_device cuda=cu -filter_hw_device cu \
        -f lavfi -i "testsrc2=s=${w}x$h:r=25,format=$3" \
        -vf "hwupload,loop=loop=-1:size=1,dnn_processing=dnn_backend=torch:model=$1:precision=$2$yuv${BENCH_FILTER_OPTS:-}"
}

# ratio A B: A / B as a percentage, or n/a
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1f%%", 100 * a / b; else print "n/a" }'
}

# target TEXT A OP B: one line of whether A OP B holds ("n/a" never does)
target() {
    ok=$(awk -v a="$2" -v b="$4" -v op="$3" 'BEGIN {
        if (a + 0 <= 0 || b + 0 <= 0) { print "no"; exit }
        print ((op == ">=" ? a >= b : 0) ? "yes" : "no") }')
    echo "target $1: $ok ($2 vs $4)" >>"$tmp/targets"
}

# row MODEL PRECISION FORMAT: one line of the table
row() {
    file=models/$1.pt
    if [ "$3" = pt2 ]; then
        package "$1" "$2"
        file=$pt2
    fi
    echo "measuring $1 $2 $3: bare" >&2
    bfps=-
    # the identity returns its input: the bare loop measures nothing
    if [ "$1" != identity ]; then
        bare_fps "$file" "$2"
        bfps=$fps
    fi
    echo "measuring $1 $2 $3: CUDA frames $layouts" >&2
    label=$3; [ "$3" = torchscript ] && label=ts
    line=$(printf "%-9s %-5s %-4s %8s" "$1" "$2" "$label" "$bfps")
    for l in $layouts; do
        cuda_fps "$file" "$2" "$l"
        if [ "$l" = rgb0 ]; then
            fps_rgb0=$med
            share=$(ratio "$med" "$bfps")
        else
            share=$(ratio "$med" "$fps_rgb0")
        fi
        eval "fps_$l=\$med"
        line="$line | $(printf "%8s %-15s %7s" "$med" "($spread)" "$share")"
    done
    cfps=-
    if [ "$2" = fp32 ] && [ "$3" = torchscript ] && [ "$1" != srvgg_x2 ]; then
        echo "measuring $1: filter, CPU frames" >&2
        ffmpeg_fps -f lavfi -i "testsrc2=s=${w}x$h:r=25,format=rgb24" \
            -vf "loop=loop=-1:size=1,dnn_processing=dnn_backend=torch:model=$file:device=cuda:async=0"
        cfps=$fps
    fi
    echo "$line | $(printf "%8s" "$cfps")" >>"$tmp/table"
    tail -n 1 "$tmp/table" >&2
    if [ "$1" = identity ]; then
        [ -z "${fps_nv12:-}" ] || target "identity on nv12 >= 5000 fps" "$fps_nv12" ">=" 5000
    else
        target "$1 $2 $3: rgb0 >= 0.9 x bare" "$fps_rgb0" ">=" "$(awk -v b="$bfps" 'BEGIN { print 0.9 * b }')"
    fi
    if [ "$1" = conv3x3 ] && [ "$2" = fp32 ] && [ "$3" = torchscript ]; then
        for l in nv12 p010le; do
            eval "v=\${fps_$l:-}"
            [ -z "$v" ] || target "conv3x3 fp32: $l >= 0.95 x rgb0" "$v" ">=" "$(awk -v b="$fps_rgb0" 'BEGIN { print 0.95 * b }')"
        done
    fi
    if [ "$1" = srvgg_x2 ] && [ "$2" = fp16 ] && [ "$3" = pt2 ] && [ -n "${fps_nv12:-}" ]; then
        target "srvgg_x2 fp16 pt2: nv12 >= 100 fps" "$fps_nv12" ">=" 100
    fi
    unset fps_nv12 fps_p010le
}

# clip1080: models/clip1080.m2v, 10 s of 1080p MPEG-2 for NVDEC
clip1080() {
    [ -f models/clip1080.m2v ] ||
        run "making the 1080p clip" "$ffmpeg" -v error -f lavfi -i "testsrc2=s=${w}x$h:r=25:d=10" \
            -c:v mpeg2video -q:v 2 -y models/clip1080.m2v
}

# temporal_row NAME: a model of several frames, bare and from NVDEC (above)
temporal_row() {
    # NAME[-ts][-graph]: the model as TorchScript, not a .pt2 package;
    # with cuda_graph=1, and the bare model replayed from a CUDA graph too
    model=${1%-graph} graph=0 format=pt2
    [ "$model" != "$1" ] && graph=1
    case $model in *-ts) model=${model%-ts} format=torchscript ;; esac
    package=$model
    case $model in
    interpolate) class=IFNetBench args='[]' inputs="--inputs pair" bare_inputs=pair
                 filter="dnn_interpolate=precision=fp16" per_run=2 ;;
    # the same net compiled for the clip's size (--static), and with the
    # kernels timed at compile time (--autotune)
    interpolate-static) class=IFNetBench args='[]' inputs="--inputs pair --static ${w}x$h" bare_inputs=pair
                 filter="dnn_interpolate=precision=fp16" per_run=2 ;;
    interpolate-static-autotune) class=IFNetBench args='[]' inputs="--inputs pair --static ${w}x$h --autotune"
                 bare_inputs=pair filter="dnn_interpolate=precision=fp16" per_run=2 ;;
    # grid_sample and bilinear resizing as Inductor's own kernels, not
    # LibTorch's (export --aten-kernels none), for any size and for the clip's
    interpolate-inductor) class=IFNetBench args='[]' inputs="--inputs pair --aten-kernels none"
                 bare_inputs=pair filter="dnn_interpolate=precision=fp16" per_run=2 ;;
    interpolate-static-inductor) class=IFNetBench args='[]'
                 inputs="--inputs pair --static ${w}x$h --aten-kernels none"
                 bare_inputs=pair filter="dnn_interpolate=precision=fp16" per_run=2 ;;
    # grid_sample alone as LibTorch's kernel
    interpolate-gridsample) class=IFNetBench args='[]' inputs="--inputs pair --aten-kernels grid_sample"
                 bare_inputs=pair filter="dnn_interpolate=precision=fp16" per_run=2 ;;
    interpolate-static-gridsample) class=IFNetBench args='[]'
                 inputs="--inputs pair --static ${w}x$h --aten-kernels grid_sample"
                 bare_inputs=pair filter="dnn_interpolate=precision=fp16" per_run=2 ;;
    # factor 4: three model runs a pair, or one of the three times (batch=3)
    interpolate-x4) class=IFNetBench args='[]' inputs="--inputs pair" bare_inputs=pair package=interpolate
                 filter="dnn_interpolate=precision=fp16:factor=4" per_run=1.3333333 ;;
    interpolate-x4-batch) class=IFNetBench args='[]' inputs="--inputs pair --batch 3" bare_inputs="pair batch 3"
                 filter="dnn_interpolate=precision=fp16:factor=4:batch=3" per_run=4 ;;
    # fps=60 from the 25 fps clip, batch=3: 2.4 output frames an input
    # frame, one run a pair of 1 to 3 times (a batch size that changes
    # from run to run, which cuda_graph captures one graph each), against
    # the bare model's batch of 3
    interpolate-fps-batch) class=IFNetBench args='[]' inputs="--inputs pair --batch 3" bare_inputs="pair batch 3"
                 package=interpolate-x4-batch
                 filter="dnn_interpolate=precision=fp16:fps=60:batch=3" per_run=2.4 ;;
    window)      class=FastDVDTiny args='[3, 64]' inputs="--inputs stacked:5 --sigma plane"
                 bare_inputs="stacked 5 sigma plane"
                 filter="dnn_processing=dnn_backend=torch:precision=fp16:frames=5:sigma=0.1:yuv_input=rgb" per_run=1 ;;
    *)           echo "error: no temporal bench model $1" >&2; exit 1 ;;
    esac
    # a TorchScript file takes a batch as it is: the same file
    case $format:$model in
    torchscript:interpolate-x4-batch|torchscript:interpolate-fps-batch) package=interpolate inputs="--inputs pair" ;;
    esac
    filter="$filter:cuda_graph=$graph"
    # TorchScript as the bare tool runs it: with the graph executor's
    # optimizations (fusions), which the filter leaves off by default
    [ "$format" = torchscript ] && filter="$filter:optimize=1"
    pt2=models/temporal-$package-fp16.pt2
    [ "$format" = torchscript ] && pt2=models/temporal-$package-fp16.pt
    # made again when its options or the export tool (its defaults) change
    made_by="$inputs $format $(sha256sum <"$src/tools/dnn-torch-export.py" | cut -c1-16)"
    if [ ! -f "$pt2" ] || [ "$(cat "$pt2.made-by" 2>/dev/null)" != "$made_by" ]; then
        echo "compiling $pt2" >&2
        # shellcheck disable=SC2086  # $inputs: the tool's options
        run "exporting $pt2" "$python" "$src/tools/dnn-torch-export.py" \
            "$src/tests/dnn/temporal_models.py:$class" "$pt2.tmp.${pt2##*.}" --args "$args" $inputs \
            --format "$format" --min-size 64 --device cuda --precision fp16 --no-check
        mv "$pt2.tmp.${pt2##*.}" "$pt2"
        echo "$made_by" >"$pt2.made-by"
    fi
    # a TorchScript file says nothing of its inputs: the bare tool is told
    export BARE_INPUTS="$bare_inputs"
    clip1080
    echo "measuring $1: bare, NVDEC nv12" >&2
    export BARE_CUDA_GRAPH=$graph
    bare_fps "$pt2" fp16
    bfps=$fps
    repeated_fps -hwaccel cuda -hwaccel_output_format cuda -stream_loop -1 -i models/clip1080.m2v \
        -vf "$filter:model=$pt2"
    runs=$(awk -v f="$med" -v n="$per_run" 'BEGIN { printf "%.1f", f / n }')
    what="$class"
    what="$what, $format"
    [ "$format" = torchscript ] && what="$what, optimize=1"
    [ "$graph" = 1 ] && what="$what, cuda_graph=1"
    case $model in interpolate*) what="$what, $("$python" "$src/tests/dnn/temporal_models.py" gflops "$w" "$h") GFLOPs a frame" ;; esac
    echo "temporal $1 ($what): bare $bfps runs/s; filter $med fps ($spread) out, $runs runs/s, $(ratio "$runs" "$bfps") of bare" >>"$tmp/temporal"
    tail -n 1 "$tmp/temporal" >&2
    target "temporal $1 fp16 $format (NVDEC nv12): >= 0.9 x bare" "$runs" ">=" "$(awk -v b="$bfps" 'BEGIN { print 0.9 * b }')"
}

# arch_static ARCH: true if ARCH is compiled for the clip's size only
arch_static() {
    case " ${BENCH_ARCH_STATIC:-} " in *" $1 "*) return 0 ;; esac
    return 1
}

# arch_found ARCH: sets pt2 and prec to the package of ARCH there is
# (fp16, else fp32); false if none
arch_found() {
    kind=; arch_static "$1" && kind=-static
    for prec in fp16 fp32; do
        pt2=models/arch-$1-$prec$kind.pt2
        [ -f "$pt2" ] && return 0
    done
    return 1
}

# elapsed: seconds since this script started
elapsed() {
    echo $(($(date +%s) - script_start))
}

# arch_compile ARCH: its weights and models/arch-ARCH-PREC.pt2 (fp16, or
# fp32 where spandrel says it does not run in fp16; arch-ARCH-PREC-static.pt2
# for one of BENCH_ARCH_STATIC), unless a package is
# there already; or $tmp/arch-ARCH.why, what its "arch" line says instead.
# Several at once: each its own files
arch_compile() {
    arch_found "$1" && return 0
    log=$tmp/arch-$1.log
    # at most arch_timeout, and not past the deadline
    limit=$arch_timeout over="its compile took longer than $arch_timeout s"
    over_weights="making its weights took longer than $arch_timeout s"
    if [ -n "$arch_deadline" ]; then
        left=$((arch_deadline - $(elapsed)))
        [ "$left" -ge "$limit" ] || limit=$left over="out of the machine's time (its compile)" \
            over_weights="out of the machine's time (its weights)"
    fi
    if [ "$limit" -le 0 ]; then
        echo "not-measured: out of the machine's time" >"$tmp/arch-$1.why"
        return 0
    fi
    # the weights count against the same limit: KBNet_s's take 90 s on
    # the H200 machine's CPUs
    started=$(elapsed)
    rc=0
    timeout -k 30 "$limit" "$python" "$src/tools/dnn-torch-architectures.py" weights "$1" \
        "models/arch-$1.pth" >"$tmp/arch-$1.prec" 2>"$log" || rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "not-measured: $over_weights" >"$tmp/arch-$1.why"
        return 0
    elif [ "$rc" -ne 0 ]; then
        echo "failed: $(awk 'NF { l = $0 } END { sub(/^error: /, "", l); print l }' "$log")" \
            >"$tmp/arch-$1.why"
        return 0
    fi
    limit=$((limit - ($(elapsed) - started)))
    if [ "$limit" -le 0 ]; then
        echo "not-measured: $over_weights" >"$tmp/arch-$1.why"
        return 0
    fi
    prec=$(sed -n 's/^precision: //p' "$tmp/arch-$1.prec")
    size=; kind=
    arch_static "$1" && size="--static ${w}x$h" kind=-static
    pt2=models/arch-$1-${prec:-fp16}$kind.pt2
    echo "compiling $pt2 (at most $limit s)" >&2
    started=$(elapsed)
    rc=0
    # --no-simd: the host code of a window transformer's package (SwinIR's
    # masks from the frame's size) does not compile vectorised in torch
    # 2.11; the GPU's kernels are the same either way
    # shellcheck disable=SC2086 # $size: --static and its value, or nothing
    timeout -k 30 "$limit" "$python" "$src/tools/dnn-torch-export.py" "models/arch-$1.pth" \
        "$pt2.tmp.pt2" --device cuda --precision "${prec:-fp16}" --no-check --no-simd $size \
        >"$log" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ]; then
        mv "$pt2.tmp.pt2" "$pt2"
        echo "compiled $pt2 in $(($(elapsed) - started)) s" >&2
        return 0
    fi
    if [ $(($(elapsed) - started)) -ge "$limit" ]; then
        echo "not-measured: $over" >"$tmp/arch-$1.why"
    else
        # the tool's own message, else the last line it wrote
        why=$(sed -n 's/^error: //p' "$log" | tail -n 1)
        [ -n "$why" ] || why=$(awk 'NF { l = $0 } END { print l }' "$log")
        echo "failed: ${why:-exporting $pt2 failed (exit status $rc)}" >"$tmp/arch-$1.why"
    fi
    rm -f "$pt2.tmp.pt2"
    echo "compiling $pt2: $(cat "$tmp/arch-$1.why")" >&2
    tail -n 15 "$log" | sed 's/^/  | /' >&2
}

# arch_row ARCH: a community architecture, bare and from NVDEC (above), its
# package compiled by arch_compile
arch_row() {
    arch_found "$1" || { echo "error: no package for $1" >&2; exit 1; }
    clip1080
    echo "measuring architecture $1 ($prec): bare, NVDEC nv12" >&2
    if [ -z "$arch_deadline" ]; then
        bare_fps "$pt2" "$prec"
    else
        # the bare tool takes 3 s, 6 s and a run or two for a slow one:
        # stopped at the deadline
        left=$((arch_deadline - $(elapsed)))
        [ "$left" -ge 1 ] || left=1
        rc=0
        timeout -k 10 "$left" "$bare" "$pt2" "$w" "$h" 3 "$prec" >"$tmp/out" 2>"$tmp/err" || rc=$?
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
            echo "arch $1 not-measured: out of the machine's time (bare not done by then)" >>"$tmp/arch"
            return 0
        elif [ "$rc" -ne 0 ]; then
            echo "error: dnn-torch-bare $pt2 $prec failed (exit status $rc)" >&2
            tail -n 15 "$tmp/err" | sed 's/^/  | /' >&2
            exit 1
        fi
        fps=$(sed -n 's/^fps: //p' "$tmp/out")
        [ -n "$fps" ] || { echo "error: no 'fps:' line from dnn-torch-bare $pt2" >&2; exit 1; }
    fi
    bfps=$fps
    # a model of one channel (DnCNN...) sees the luma plane, as it was trained
    yuv=rgb; [ "$(sed -n 's/^channels: //p' "$tmp/out")" = 1 ] && yuv=luma
    mark=; [ "$prec" = fp16 ] || mark=" $prec"
    arch_static "$1" && mark="$mark static"
    if [ -n "$arch_deadline" ] && [ "$(elapsed)" -ge "$arch_deadline" ]; then
        echo "arch $1 bare $bfps nv12 not measured: out of the machine's time$mark" >>"$tmp/arch"
        return 0
    fi
    # a slow one: a window of about 8 of its frames (BENCH_SECONDS to 20 s),
    # after a warm-up of one frame time at least (this subshell's own)
    slow=$(awk -v f="$bfps" 'BEGIN { print (f + 0 > 0 && f + 0 < 4) ? "yes" : "no" }')
    if [ "$slow" = yes ]; then
        window=$(awk -v f="$bfps" -v w="$window" 'BEGIN { n = 8 / f; if (n > 20) n = 20
            if (n < w + 0) n = w; printf "%.1f", n }')
        warmup=$(awk -v f="$bfps" -v w="$warmup" 'BEGIN { n = 1 / f; if (n < w + 0) n = w
            printf "%.1f", n }')
        echo "  $bfps fps bare: filter window ${window} s after ${warmup} s" >&2
    fi
    repeated_fps -hwaccel cuda -hwaccel_output_format cuda -stream_loop -1 -i models/clip1080.m2v \
        -vf "dnn_processing=dnn_backend=torch:model=$pt2:precision=$prec:yuv_input=$yuv"
    echo "arch $1 bare $bfps nv12 $med ($spread) $(ratio "$med" "$bfps")$mark" >>"$tmp/arch"
    tail -n 1 "$tmp/arch" >&2
}

arch_jobs=${BENCH_ARCH_JOBS:-4}
arch_timeout=${BENCH_ARCH_COMPILE_TIMEOUT:-400}
arch_deadline=${BENCH_DEADLINE:-}
for v in "$arch_jobs" "$arch_timeout" "$arch_deadline"; do
    case $v in
    *[!0-9]*|0*) echo "error: BENCH_ARCH_JOBS, BENCH_ARCH_COMPILE_TIMEOUT and BENCH_DEADLINE" \
                      "must be positive integers" >&2; exit 1 ;;
    esac
done
# the packages first, arch_jobs compiles at a time (each CPU-bound for
# minutes): workers that claim the architectures in turn (mkdir is atomic)
i=0
while [ -n "${BENCH_ARCHITECTURES:-}" ] && [ "$i" -lt "$arch_jobs" ]; do
    (
        for a in $BENCH_ARCHITECTURES; do
            mkdir "$tmp/arch-$a.claim" 2>/dev/null || continue
            arch_compile "$a"
        done
    ) &
    i=$((i + 1))
done
wait

: >"$tmp/arch"
for a in ${BENCH_ARCHITECTURES:-}; do
    if [ -s "$tmp/arch-$a.why" ]; then
        echo "arch $a $(cat "$tmp/arch-$a.why")" >>"$tmp/arch"
        continue
    fi
    if [ -n "$arch_deadline" ] && [ "$(elapsed)" -ge "$arch_deadline" ]; then
        echo "arch $a not-measured: out of the machine's time" >>"$tmp/arch"
        continue
    fi
    # one that does not run is a finding, not the end
    : >"$tmp/err"
    ( arch_row "$a" ) 2>"$tmp/arch-err" || {
        why=$(sed -n 's/^  | error: //p' "$tmp/arch-err" | tail -n 1)
        # out of memory: said early in the failed command's log, not in
        # the last lines (a package names only the call that failed)
        oom=$(sed -n 's/.*CUDA out of memory\. Tried to allocate \([0-9.]* [KMGT]iB\).*/\1/p' \
              "$tmp/err" | head -n 1)
        [ -z "$oom" ] || why="out of the GPU's memory at ${w}x$h input (it asked for $oom at once)"
        echo "arch $a failed: ${why:-see the log}" >>"$tmp/arch"
    }
    cat "$tmp/arch-err" >&2
done

: >"$tmp/temporal"
for t in ${BENCH_TEMPORAL-interpolate interpolate-graph interpolate-inductor-graph interpolate-static interpolate-static-graph interpolate-static-inductor-graph interpolate-static-gridsample-graph interpolate-static-autotune-graph interpolate-x4 interpolate-x4-batch window window-graph}; do
    temporal_row "$t"
done

for m in $models; do
    case $m in
    identity) precisions=fp32 ;;  # no weights: the precision changes nothing
    *)        precisions=$all_precisions ;;
    esac
    for p in $precisions; do
        for f in $formats; do
            # the identity has no code to compile: its package measures nothing new
            [ "$m" = identity ] && [ "$f" = pt2 ] && continue
            row "$m" "$p" "$f"
        done
    done
done

echo "machine: $gpu"
echo "torch: $torch_version ($T)"
echo "ffmpeg: $("$ffmpeg" -version | head -n 1)"
echo "frames: ${w}x$h; each ffmpeg figure: the frames output in ${window} s, from ${warmup} s after"
echo "        the first one; CUDA-frame figures: median of $repeat runs (min-max)"
echo "fps; % of bare (same format) for rgb0, % of rgb0 for the other layouts;"
echo "fmt: torchscript (ts) or pt2 (AOTInductor package, dynamic height and width)"
echo
header=$(printf "%-9s %-5s %-4s %8s" model prec fmt bare)
for l in $layouts; do
    share="%rgb0"; [ "$l" = rgb0 ] && share="%bare"
    header="$header | $(printf "%8s %-15s %7s" "$l" spread "$share")"
done
echo "$header | $(printf "%8s" CPU-frm)"
cat "$tmp/table"
if [ -s "$tmp/temporal" ]; then
    echo
    echo "models of several frames (tests/dnn/temporal_models.py), fp16, 1080p, bare and"
    echo "through the filter from NVDEC nv12 (median (min-max); model runs a second):"
    cat "$tmp/temporal"
fi
if [ -s "$tmp/arch" ]; then
    echo
    echo "community architectures (tools/dnn-torch-architectures.py), fp16 .pt2, 1080p input,"
    echo "bare and through the filter from NVDEC nv12 (median (min-max), % of bare):"
    cat "$tmp/arch"
fi
echo
cat "$tmp/targets"
