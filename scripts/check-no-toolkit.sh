#!/bin/sh
# Build as on a distribution's build host, with no CUDA toolkit in reach,
# and check that the result is still the GPU-capable ffmpeg: FFmpeg's CUDA
# pieces (kernels compiled by clang, NVDEC, NVENC, scale_cuda) and LibTorch's
# CUDA library, whose CUDA headers then come from PyPI's NVIDIA packages.
#
#   scripts/check-no-toolkit.sh [--check-upstream] [CONFIGURE OPTION...]
#
# With --check-upstream, FFmpeg's own FATE suite (make check-upstream, with
# a Python without torch) then runs on that build too: CI's way to run it
# on the quick configuration (doc/testing.md says why).
#
# The toolkit ($CUDA_PATH, /usr/local/cuda and /usr/local/cuda-*) is hidden
# behind empty folders in a private mount namespace (unshare: root, or a
# kernel that lets users map themselves to root), and a copy of this
# checkout is configured (--config=quick unless told otherwise) and built
# there, with the dependencies of .deps/.  Ends "check-no-toolkit: passed
# (N checks)" or "check-no-toolkit: FAILED (N of M checks)".
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

if [ "${FORK_NO_TOOLKIT:-}" != inside ]; then
    command -v unshare >/dev/null 2>&1 || { echo "check-no-toolkit: no unshare (util-linux)" >&2; exit 1; }
    userns=; [ "$(id -u)" = 0 ] || userns=--map-root-user
    # shellcheck disable=SC2086  # $userns: an option or nothing
    FORK_NO_TOOLKIT=inside exec unshare $userns --mount "$0" "$@"
fi

fate=
if [ "${1:-}" = --check-upstream ]; then fate=1; shift; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hidden=
for d in "${CUDA_PATH:-/usr/local/cuda}" /usr/local/cuda /usr/local/cuda-*; do
    [ -d "$d" ] || continue
    d=$(cd "$d" && pwd -P)
    case " $hidden " in *" $d "*) continue ;; esac
    mkdir -p "$work/empty"
    mount --bind "$work/empty" "$d"
    hidden="$hidden $d"
done
echo "check-no-toolkit: hidden:${hidden:- nothing, there is no toolkit here}"

# the checkout as it is, tracked and untracked files, without builds
mkdir "$work/fork"
(cd "$top" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) |
    tar -xf - -C "$work/fork"
cd "$work/fork"
export FORK_CACHE_DIR="$top/.deps"
./configure --config=quick "$@" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cat "$work/configure.log"
# the build's log stays, for a failure
log=$top/build/check-no-toolkit.log
mkdir -p "$top/build"
start=$(date +%s)
if ! make build >"$log" 2>&1; then
    grep -E -m 20 'error|Error' "$log"
    echo "check-no-toolkit: FAILED (the build; its log: $log)"; exit 1
fi
echo "check-no-toolkit: built in $(($(date +%s) - start)) s"

checks=0 failed=0
check() {
    what=$1; shift
    checks=$((checks + 1))
    if "$@" >/dev/null 2>&1; then echo "  ok: $what"
    else echo "  FAILED: $what"; failed=$((failed + 1)); fi
}
ff=build/ffmpeg
check "no CUDA header of a toolkit was in reach" sh -c "! ls ${hidden:-/nonexistent}/include/cuda.h"
check "configure took the CUDA headers of LibTorch's NVIDIA packages" \
    grep -q "headers in $top/.deps/.*/nvidia/.*/include" "$work/configure.log"
check "LibTorch's CUDA library is linked" grep -q '^CONFIG_LIBTORCH_CUDA=yes' build/ffbuild/config.mak
check "the CUDA kernels are compiled by clang" grep -q '^CONFIG_CUDA_LLVM=yes' build/ffbuild/config.mak
check "ffmpeg runs" "$ff" -hide_banner -version
check "ffmpeg has the cuda hwaccel" sh -c "$ff -hide_banner -hwaccels | grep -qx cuda"
check "ffmpeg has scale_cuda and hwupload_cuda" sh -c "$ff -hide_banner -filters | grep -q ' scale_cuda ' && $ff -hide_banner -filters | grep -q ' hwupload_cuda '"
check "ffmpeg has the NVENC encoders" sh -c "$ff -hide_banner -encoders | grep -q h264_nvenc"
# LibTorch is the torch backend's module's (libavfilter/dnn/torch_module.mak)
check "the torch module needs libtorch_cuda.so" sh -c "readelf -d build/libavfilter-torch.so | grep -q 'libtorch_cuda.so'"
python=$(sed -n 's/^TORCH_PYTHON = //p' config.mk)
"$python" tests/dnn/gen_torch_models.py "$work/models" >/dev/null
"$ff" -hide_banner -v error -f lavfi -i testsrc2=s=320x240:r=25,format=rgb24 -frames:v 5 \
    -vf "dnn_processing=dnn_backend=torch:model=$work/models/swap_invert.pt" \
    -bitexact -f framecrc "$work/swap-invert.crc" || true
check "a model runs: the frames of FATE's reference" \
    diff "$work/swap-invert.crc" tests/ref/fate/dnn-torch-swap-invert-rgb24
if [ $failed = 0 ]; then echo "check-no-toolkit: passed ($checks checks)"
else echo "check-no-toolkit: FAILED ($failed of $checks checks)"; exit 1; fi
[ -z "$fate" ] || make check-upstream TORCH_PYTHON=/nonexistent/python3
