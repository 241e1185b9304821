#!/bin/sh
# Make the .pt2 packages (torch.export + AOTInductor) of the torch backend's
# FATE tests with tools/dnn-torch-export.py, compiled here:
#
#   make-torch-packages.sh PYTHON SRC_PATH OUTDIR [cpu|cuda]
#
# cpu (make check): packages for this CPU, compiled with the host compiler;
# each takes 20-40 s on 2 cores.  cuda (make check-gpu): packages for this
# machine's GPU (cuda_*.pt2), which only a machine with one can compile, and
# one CPU package to refuse on CUDA frames: about 100 s in all on the H200
# machine (16 cores).  OUTDIR holds the TorchScript
# models of gen_torch_models.py already (the conv net's weights come from its
# conv.state.pt).  The logs go to OUTDIR/*.pt2.log.
set -eu
python=$1
src=$2
out=$3
device=${4:-cpu}
gen=$src/tests/dnn/gen_torch_models.py
# FFmpeg's make exports CC and CXX with its quiet build's prefix ("@printf
# ...; gcc"), which torch's compiler search would take for the compiler
unset CC CXX
# torch's compile cache, here rather than in /tmp/torchinductor_$USER
TORCHINDUCTOR_CACHE_DIR=$(cd "$out" && pwd)/inductor-cache
export TORCHINDUCTOR_CACHE_DIR

# export NAME ARGS...: OUTDIR/NAME.pt2, or the end of its log and exit 1
export_pt2() {
    name=$1
    shift
    "$python" "$src/tools/dnn-torch-export.py" "$@" "$out/$name.pt2" >"$out/$name.pt2.log" 2>&1 || {
        echo "make-torch-packages: $name.pt2 failed:" >&2
        tail -n 5 "$out/$name.pt2.log" >&2
        exit 1
    }
}

if [ "$device" = cuda ]; then
    # The frames' checks are FATE's: the package against the TorchScript
    # model.  Each package takes 60-90 s to compile, mostly its C++ wrapper
    # on one core: all at once, on a machine with a GPU and many cores.
    pids=
    start() { export_pt2 "$@" & pids="$pids $!"; }
    start cuda_swap_invert "$gen:SwapInvert" --device cuda --no-check
    start cuda_swap_invert_320x240 "$gen:SwapInvert" --device cuda --static 320x240 --no-check
    start cuda_conv "$gen:SmallConv" --checkpoint "$out/conv.state.pt" --device cuda --no-check
    start cuda_conv_fp16 "$gen:SmallConv" --checkpoint "$out/conv.state.pt" --device cuda \
        --precision fp16 --no-check
    start cpu_swap_invert "$gen:SwapInvert" --static 64x48 --no-check
    status=0
    for pid in $pids; do
        wait "$pid" || status=1
    done
    [ $status = 0 ] || exit 1
    "$python" "$gen" pt2-variants "$out/cuda_swap_invert.pt2"
    exit 0
fi
# dynamic height and width, checked against eager PyTorch by the tool
export_pt2 swap_invert "$gen:SwapInvert"
export_pt2 conv "$gen:SmallConv" --checkpoint "$out/conv.state.pt" --no-check
export_pt2 swap_invert_64x48 "$gen:SwapInvert" --static 64x48 --no-check
export_pt2 conv_fp16 "$gen:SmallConv" --checkpoint "$out/conv.state.pt" --precision fp16 --no-check
"$python" "$gen" pt2-variants "$out/swap_invert.pt2"
# a package under another name than *.pt2: loaded only with model_format=pt2
cp -f "$out/swap_invert.pt2" "$out/swap_invert_package.pt"
# TorchScript under a package's name: model_format=auto refuses it
cp -f "$out/swap_invert.pt" "$out/torchscript_named.pt2"
