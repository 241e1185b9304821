#!/bin/sh
# Make the .pt2 packages (torch.export + AOTInductor, for the CPU) of the
# torch backend's FATE tests with tools/dnn-torch-export.py, compiled here
# with the host compiler:
#
#   make-torch-packages.sh PYTHON SRC_PATH OUTDIR
#
# OUTDIR holds the TorchScript models of gen_torch_models.py already (the
# conv net's weights come from its conv.state.pt).  Each package takes
# 20-40 s to compile on 2 cores; the logs go to OUTDIR/*.pt2.log.
set -eu
python=$1
src=$2
out=$3
gen=$src/tests/dnn/gen_torch_models.py
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

# dynamic height and width, checked against eager PyTorch by the tool
export_pt2 swap_invert "$gen:SwapInvert"
export_pt2 conv "$gen:SmallConv" --checkpoint "$out/conv.state.pt" --no-check
export_pt2 swap_invert_64x48 "$gen:SwapInvert" --static 64x48 --no-check
export_pt2 conv_fp16 "$gen:SmallConv" --checkpoint "$out/conv.state.pt" --precision fp16 --no-check
"$python" "$gen" pt2-variants "$out/swap_invert.pt2"
