#!/bin/sh
# Build and test on a CUDA machine that reaches no package registry, from
# what scripts/prepare-carry.sh put in .carry/:
#
#   scripts/gpu-check.sh PYTHON [OUTDIR] [STEPS]
#
# PYTHON is the Python whose torch is LibTorch.  STEPS (default "check
# check-gpu bench") are make targets run after the build; logs go to OUTDIR.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
python=$1
out=${2:-$top/build/gpu-logs}
steps=${3:-check check-gpu bench}
cd "$top"
mkdir -p "$out"
export PATH=$top/.carry/bin:$PATH LD_LIBRARY_PATH=$top/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NVCODEC_DEB=$(ls .carry/libffmpeg-nvenc-dev_*.deb)

{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  "$python" -c 'import torch; print("torch", torch.__version__, torch.cuda.is_available())'
  for t in gcc g++ clang nvcc git; do printf '%s: ' $t; command -v $t || echo missing; done; } >"$out/machine.txt" 2>&1
cat "$out/machine.txt"

cuda_compiler=
command -v clang >/dev/null 2>&1 ||
    cuda_compiler="--enable-cuda-nvcc --nvccflags=-gencode=arch=compute_90,code=sm_90"
scripts/install-deps.sh nvcodec &&
start=$(date +%s)
./configure --tarball=.carry/ffmpeg-9.0.2.tar.xz --python="$python" $cuda_compiler >"$out/build.log" 2>&1 &&
make build NPROC=$(nproc) >>"$out/build.log" 2>&1
status=$?
echo "build: $(($(date +%s) - start)) s, exit $status" >>"$out/build.log"
tail -3 "$out/build.log"
[ $status = 0 ] || exit $status
for step in $steps; do
    start=$(date +%s)
    timeout 300 make $step >"$out/$step.log" 2>&1
    echo "$step: exit $?, $(($(date +%s) - start)) s"; tail -4 "$out/$step.log"
done
# what the GPU tests printed, for references
(cd build/tests/data/fate && tar czf "$out/gpu-outputs.tgz" dnn-torch-cuda-* 2>/dev/null)
# the failing tests' logs
(cd build/tests/data/fate && for r in *.rep; do
    [ "$(cut -d: -f2 "$r")" = 0 ] || { t=${r%.rep}; echo "=== $t"; tail -n 25 "$t.err"; cat "$t.diff" 2>/dev/null; }
 done) >"$out/failures.txt" 2>&1
exit 0
