#!/bin/sh
# Build and test on a CUDA machine that reaches no package registry, from
# what scripts/prepare-carry.sh put in .carry/:
#
#   scripts/gpu-check.sh PYTHON [OUTDIR] [STEPS]
#
# PYTHON is the Python whose torch is LibTorch.  STEPS (default "check
# check-gpu bench") are make targets run after the build, or "examples" (the
# documented pipelines, memcheck) or "clang" (the colour test with the
# clang-built ffmpeg that prepare-carry.sh brought); logs go to OUTDIR.
#
# GPU_BUILD=carried builds nothing: build/ gets the clang-built ffmpeg and
# its torch module that prepare-carry.sh brought, run on PYTHON's LibTorch
# (the same torch release as here), and the steps are "clang" and "bench"
# (the default there; clang runs first).  A
# machine's call is short, and the build takes 250-320 s of it.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
python=$1
out=${2:-$top/build/gpu-logs}
if [ "${GPU_BUILD:-here}" = carried ]; then steps=${3:-clang bench}; else steps=${3:-check check-gpu bench}; fi
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1
cd "$top" || exit 1
export PATH="$top/.carry/bin:$PATH" LD_LIBRARY_PATH="$top/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The pinned files prepare-carry.sh put in .carry/, given as explicit paths
# (no network here); configure and install-deps.sh verify them against UPSTREAM.
# shellcheck disable=SC1091 source=UPSTREAM
. "$top/UPSTREAM"
tarball=$top/.carry/ffmpeg-$FFMPEG_VERSION.tar.xz
nvcodec=
for f in "$top/.carry/nv-codec-headers-$NVCODEC_VERSION.tar.gz" "$top/.carry/$NVCODEC_DEB_FILE"; do
    [ -f "$f" ] && nvcodec=$f && break
done
if [ "${GPU_BUILD:-here}" != carried ] && { [ ! -f "$tarball" ] || [ -z "$nvcodec" ]; }; then
    echo "gpu-check: .carry/ lacks ffmpeg-$FFMPEG_VERSION.tar.xz or nv-codec-headers $NVCODEC_VERSION: run scripts/prepare-carry.sh" >&2
    exit 1
fi

{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  "$python" -c 'import torch; print("torch", torch.__version__, torch.cuda.is_available())'
  for t in gcc g++ clang nvcc git; do printf '%s: ' $t; command -v $t || echo missing; done; } >"$out/machine.txt" 2>&1
cat "$out/machine.txt"

# LibTorch's libraries, of PYTHON's torch
torch_lib() {
    dir=$("$python" -c 'import os, torch; print(os.path.dirname(torch.__file__))') || return 1
    echo "$dir/lib"
}

# The kernels as clang compiles them (FFmpeg's default, cuda_llvm): the
# ffmpeg prepare-carry.sh brought, on this machine's LibTorch, through the
# colour test (every layout, matrix, range, siting, precision and size).
clang_ptx() {
    [ -x "$top/.carry/clang/ffmpeg" ] || { echo "no .carry/clang/ffmpeg: build here with clang first"; return 1; }
    models=$top/build/tests/data/dnn-torch
    # the test models, made here when no build made them
    [ -f "$models/identity.pt" ] || "$python" "$top/tests/dnn/gen_torch_models.py" "$models" tests || return 1
    lib=$(torch_lib) || return 1
    lib=$lib:$top/.carry/clang/lib
    LD_LIBRARY_PATH=$lib "$top/.carry/clang/ffmpeg" -version | head -n 1
    LD_LIBRARY_PATH=$lib timeout 300 "$python" "$top/tests/dnn/color_check.py" \
        "$top/.carry/clang/ffmpeg" "$models" "$top/build/clang-color" cuda --jobs 8
}

clang_step() {
    clang_start=$(date +%s)
    clang_ptx >"$out/clang.log" 2>&1
    clang_status=$?
    echo "clang: exit $clang_status, $(($(date +%s) - clang_start)) s"; tail -2 "$out/clang.log"
    return $clang_status
}

if [ "${GPU_BUILD:-here}" = carried ]; then
    for step in $steps; do
        case $step in bench|clang) ;; *) echo "gpu-check: GPU_BUILD=carried runs the steps bench and clang only" >&2; exit 1 ;; esac
    done
    [ -x .carry/clang/ffmpeg ] ||
        { echo "gpu-check: GPU_BUILD=carried: no .carry/clang/ffmpeg: build here with clang, then prepare-carry.sh" >&2; exit 1; }
    [ ! -f build/config.h ] || { echo "gpu-check: GPU_BUILD=carried would overwrite the build in build/" >&2; exit 1; }
    mkdir -p build && cp -f .carry/clang/ffmpeg .carry/clang/libavfilter-torch.so build/ || exit 1
    # the colour test first: its result does not wait for the bench
    clang_status=0
    case " $steps " in *" clang "*) clang_step ;; esac
    case " $steps " in *" bench "*) ;; *) exit $clang_status ;; esac
    lib=$(torch_lib) || exit 1
    LD_LIBRARY_PATH="$lib:$top/.carry/clang/lib:$LD_LIBRARY_PATH"
    export LD_LIBRARY_PATH
    start=$(date +%s)
    # make bench's recipe, on build/ as it is
    TORCH_PYTHON=$python timeout 540 tools/bench/dnn-torch-bench.sh build >build/bench.txt 2>"$out/bench.log"
    status=$?
    echo "bench: exit $status, $(($(date +%s) - start)) s"
    cp -f build/bench.txt "$out/"
    [ $status = 0 ] || { tail -n 15 "$out/bench.log"; exit $status; }
    cat build/bench.txt
    scripts/bench-doc.sh build/bench.txt && cp -f doc/benchmarks.md "$out/"
    exit $clang_status
fi

cuda_compiler=
command -v clang >/dev/null 2>&1 ||
    cuda_compiler="--enable-cuda-nvcc --nvccflags=-gencode=arch=compute_90,code=sm_90"
start=$(date +%s)
# shellcheck disable=SC2086  # $cuda_compiler: options or nothing
scripts/install-deps.sh --nvcodec-source="$nvcodec" nvcodec >"$out/build.log" 2>&1 &&
./configure --tarball="$tarball" --python="$python" $cuda_compiler >>"$out/build.log" 2>&1 &&
make build NPROC="$(nproc)" >>"$out/build.log" 2>&1
status=$?
echo "build: $(($(date +%s) - start)) s, exit $status" >>"$out/build.log"
tail -3 "$out/build.log"
[ $status = 0 ] || exit $status
# The documented pipelines, every GPU, and memcheck on a short pipeline.
examples() {
    ff="./build/ffmpeg -hide_banner -nostdin -nostats"
    m=build/tests/data/dnn-torch
    clip=build/tests/data/dnn-torch/clip.m2v
    echo "== doc example as given (scale_cuda to rgb0, NVENC)"
    $ff -hwaccel cuda -hwaccel_output_format cuda -i "$clip" \
        -vf "scale_cuda=format=rgb0,dnn_processing=dnn_backend=torch:model=$m/conv.pt:device=cuda,scale_cuda=format=nv12" \
        -c:v h264_nvenc -y /tmp/out.mp4 2>&1 | grep -i "error\|unsupported\|fail" | head -4
    echo "== nv12 straight from NVDEC, NVENC"
    $ff -hwaccel cuda -hwaccel_output_format cuda -i "$clip" \
        -vf "dnn_processing=dnn_backend=torch:model=$m/nearest2x.pt:device=cuda" -c:v h264_nvenc -y /tmp/out.mp4 2>&1 | grep -i "error\|fail" | head -4
    echo "== nv12 straight from NVDEC, null output (frames stay on the GPU)"
    $ff -v verbose -hwaccel cuda -hwaccel_output_format cuda -i "$clip" \
        -vf "dnn_processing=dnn_backend=torch:model=$m/nearest2x.pt:device=cuda" -f null - 2>&1 | grep "dnn_base\|Output #0\|Stream #0:0: Video\|frame=" | head -6
    echo "== NVDEC, hwdownload, software encoder"
    $ff -hwaccel cuda -hwaccel_output_format cuda -i "$clip" \
        -vf "dnn_processing=dnn_backend=torch:model=$m/conv.pt:yuv_input=rgb,hwdownload,format=nv12" -c:v mpeg4 -y /tmp/out.mp4 && ls -la /tmp/out.mp4
    n=$(nvidia-smi -L | wc -l)
    echo "== every GPU ($n)"
    i=0; while [ "$i" -lt "$n" ]; do
        $ff -v verbose -init_hw_device cuda=cu:"$i" -filter_hw_device cu -f lavfi -i testsrc2=s=320x240:r=25,format=rgb24 -frames:v 5 \
            -vf "scale,format=rgb0,hwupload,dnn_processing=dnn_backend=torch:model=$m/swap_invert.pt:device=cuda,hwdownload,format=rgb0,format=rgb24" \
            -bitexact -f framecrc "/tmp/gpu$i.crc" 2>&1 | grep "model runs"
        diff -q "/tmp/gpu$i.crc" tests/ref/fate/dnn-torch-swap-invert-rgb24 && echo "GPU $i: frames identical to the CPU reference"
        i=$((i + 1))
    done
    echo "== compute-sanitizer memcheck"
    # shellcheck disable=SC2086 # $ff is a word list
    compute-sanitizer --tool memcheck $ff -v error -init_hw_device cuda=cu -filter_hw_device cu -f lavfi -i testsrc2=s=317x239:r=25,format=rgb24 -frames:v 3 \
        -vf "format=rgb0,hwupload,dnn_processing=dnn_backend=torch:model=$m/conv.pt,hwdownload,format=rgb0" -f null - 2>&1 | tail -3
    # shellcheck disable=SC2086 # $ff is a word list
    compute-sanitizer --tool memcheck $ff -v error -hwaccel cuda -hwaccel_output_format cuda -i "$clip" -frames:v 3 \
        -vf "dnn_processing=dnn_backend=torch:model=$m/nearest2x.pt,hwdownload,format=nv12" -f null - 2>&1 | tail -3
}

for step in $steps; do
    start=$(date +%s)
    if [ "$step" = examples ]; then examples >"$out/examples.log" 2>&1; cat "$out/examples.log"; continue; fi
    if [ "$step" = clang ]; then clang_step; continue; fi
    timeout 450 make "$step" >"$out/$step.log" 2>&1
    echo "$step: exit $?, $(($(date +%s) - start)) s"; tail -4 "$out/$step.log"
done
# make bench wrote its table into doc/benchmarks.md: bring it back
case " $steps " in *" bench "*) cp -f "$top/doc/benchmarks.md" "$out/" ;; esac
fate=$top/build/tests/data/fate
if [ -d "$fate" ]; then
    # what the GPU tests printed, for references
    (cd "$fate" && tar czf "$out/gpu-outputs.tgz" dnn-torch-cuda-* 2>/dev/null)
    # the failing tests' logs
    for r in "$fate"/*.rep; do
        [ -f "$r" ] || continue
        [ "$(cut -d: -f2 "$r")" = 0 ] || { t=${r%.rep}; echo "=== ${t##*/}"; tail -n 25 "$t.err"; cat "$t.diff" 2>/dev/null; }
    done >"$out/failures.txt" 2>&1
else
    echo "no FATE results in $fate: the build or the tests did not run" >"$out/failures.txt"
fi
exit 0
