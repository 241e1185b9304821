#!/bin/sh
# The model on the second GPU of a machine with two or more (the GPU test
# machine nvidia-h200-x2), after "make check-gpu" made the models and the
# CUDA .pt2 packages: frames uploaded to GPU 1 through a TorchScript model
# and a CUDA package, and NVDEC on GPU 1, each against the same run on the
# CPU or GPU 0.  Ends "second-gpu: passed (N checks)" or "FAILED".
#
#   tests/dnn/second-gpu.sh [BUILDDIR]
set -u
build=${1:-build}
src=$(cd "$(dirname "$0")/../.." && pwd)
models=$build/tests/data/dnn-torch
ff="$build/ffmpeg -hide_banner -nostdin -nostats"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$gpus" -lt 2 ]; then echo "second-gpu: this machine has $gpus GPU: nothing to test"; exit 1; fi

checks=0 failed=0
check() {
    checks=$((checks + 1))
    if [ "$2" = yes ]; then echo "  ok: $1"; else echo "  FAILED: $1"; failed=$((failed + 1)); fi
}
same() { if cmp -s "$1" "$2"; then echo yes; else echo no; fi; }

# rgb24 frames uploaded to GPU N as rgb0, through MODEL, back as rgb24
upload_crc() {
    $ff -v verbose -init_hw_device cuda=cu:"$1" -filter_hw_device cu \
        -f lavfi -i testsrc2=s=320x240:r=25,format=rgb24 -frames:v 5 \
        -vf "format=rgb0,hwupload,dnn_processing=dnn_backend=torch:model=$2,hwdownload,format=rgb0,format=rgb24" \
        -bitexact -f framecrc "$3" 2>"$3.log"
    grep -q "runs on their GPU $1" "$3.log" && echo yes || echo no
}
ref=$src/tests/ref/fate/dnn-torch-swap-invert-rgb24
check "TorchScript on GPU 1 says so" "$(upload_crc 1 "$models/swap_invert.pt" "$tmp/ts1.crc")"
check "TorchScript on GPU 1: the CPU's frames" "$(same "$tmp/ts1.crc" "$ref")"
check "a CUDA .pt2 package on GPU 1 says so" "$(upload_crc 1 "$models/cuda_swap_invert.pt2" "$tmp/pt1.crc")"
check "a CUDA .pt2 package on GPU 1: the CPU's frames" "$(same "$tmp/pt1.crc" "$ref")"

# NVDEC on GPU N: the H.264 clip through a model, downloaded
nvdec() {
    $ff -v verbose -hwaccel cuda -hwaccel_device "$1" -hwaccel_output_format cuda \
        -i "$src/tests/dnn/h264-aac.mp4" -an \
        -vf "dnn_processing=dnn_backend=torch:model=$models/swap_invert.pt:yuv_input=rgb,hwdownload,format=nv12" \
        -f framemd5 "$2" 2>"$2.log"
    grep -q "runs on their GPU $1" "$2.log" && echo yes || echo no
}
check "NVDEC on GPU 0 and the model there" "$(nvdec 0 "$tmp/nvdec0.md5")"
check "NVDEC on GPU 1 and the model there" "$(nvdec 1 "$tmp/nvdec1.md5")"
check "NVDEC on GPU 1: 50 frames" "$([ "$(grep -c '^0,' "$tmp/nvdec1.md5")" = 50 ] && echo yes || echo no)"
check "NVDEC on GPU 1: GPU 0's frames" "$(same "$tmp/nvdec0.md5" "$tmp/nvdec1.md5")"

if [ $failed = 0 ]; then echo "second-gpu: passed ($checks checks)"
else echo "second-gpu: FAILED ($failed of $checks checks)"; for f in "$tmp"/*.log; do tail -3 "$f"; done; exit 1; fi
