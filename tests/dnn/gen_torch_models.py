#!/usr/bin/env python3
"""Make the TorchScript models of the torch backend's FATE tests and benchmark.

    gen_torch_models.py OUTDIR [tests|bench]
        write the models of that set (default: tests) into OUTDIR
        (deterministic: fixed seed); the bench set, for tools/bench/dnn-torch-bench.sh,
        is identity, conv3x3 (3->16->3), espcn_x2 (ESPCN x2, 64/32 channels)
        and srvgg_x2 (SRVGGNetCompact x2, Real-ESRGAN's compact net)
    gen_torch_models.py pt2-variants PACKAGE.pt2
        write copies of a .pt2 package (tools/dnn-torch-export.py) whose
        ffmpeg_dnn_* metadata says something else, for the error tests:
        PACKAGE-fp16.pt2 (an fp16 input), PACKAGE-torch2.10.pt2 (made by
        another torch), PACKAGE-nometa.pt2 (no ffmpeg_dnn_* keys at all);
        of a CUDA package also PACKAGE-sm10.pt2 (compiled for another GPU),
        of a CPU package PACKAGE-isa.pt2 (compiled for a CPU with an
        instruction set this one lacks)
    gen_torch_models.py reference MODEL IN.raw W H PIXFMT OUT.raw
        run MODEL on one or more raw frames (rgb24 or bgr24) in PyTorch, the
        independent reference for the inexact tests; writes raw frames of the
        same pixel format

Frames enter a model as float NCHW in [0, 1], in the frame's channel order
(R, G, B for rgb24; B, G, R for bgr24), as the backend gives them.
"""
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


class Identity(torch.nn.Module):
    """No parameters at all: the backend must not need one."""

    def forward(self, x):
        return x


class SwapInvert(torch.nn.Module):
    """Reverse the channel order and invert: exact on 8-bit frames."""

    def forward(self, x):
        return 1.0 - torch.flip(x, [1])


class Mirror(torch.nn.Module):
    """Flip left-right: exact, and each output pixel comes from across the
    picture, so a model run on more (or less) than the visible picture shows."""

    def forward(self, x):
        return torch.flip(x, [3])


class Nearest2x(torch.nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2.0, mode="nearest")


class NearestWidth2x(torch.nn.Module):
    """Output size differs in one axis only."""

    def forward(self, x):
        return torch.repeat_interleave(x, 2, dim=3)


class SmallConv(torch.nn.Module):
    """Two 3x3 convolutions, C -> 8 -> C (3, or 1 for a luma model as
    FFmpeg's classic ones), fixed random weights."""

    def __init__(self, channels: int = 3):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(channels, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, channels, 3, padding=1)

    def forward(self, x):
        return torch.sigmoid(self.conv2(torch.relu(self.conv1(x))))


class Conv3x3(torch.nn.Module):
    """3x3 conv 3->16, ReLU, 3x3 conv 16->3: a light network."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(16, 3, 3, padding=1)

    def forward(self, x):
        return self.conv2(torch.relu(self.conv1(x)))


class ESPCNx2(torch.nn.Module):
    """Shi et al. 2016: convolutions at low resolution, then a sub-pixel shuffle."""

    def __init__(self, scale: int = 2):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 64, 5, padding=2)
        self.conv2 = torch.nn.Conv2d(64, 32, 3, padding=1)
        self.conv3 = torch.nn.Conv2d(32, 3 * scale * scale, 3, padding=1)
        self.shuffle = torch.nn.PixelShuffle(scale)

    def forward(self, x):
        x = torch.tanh(self.conv1(x))
        x = torch.tanh(self.conv2(x))
        return torch.clamp(self.shuffle(self.conv3(x)), 0.0, 1.0)


class SRVGGNetCompact(torch.nn.Module):
    """Real-ESRGAN's compact net (realesr-general-x4v3's shape, here x2):
    conv 3->64, 16 x (conv 64->64 3x3 + PReLU), conv 64->12, pixel shuffle,
    plus the nearest-upsampled input.  Random weights: the cost is the point."""

    def __init__(self, feat: int = 64, convs: int = 16, scale: int = 2):
        super().__init__()
        layers = [torch.nn.Conv2d(3, feat, 3, padding=1), torch.nn.PReLU(feat)]
        for _ in range(convs):
            layers += [torch.nn.Conv2d(feat, feat, 3, padding=1), torch.nn.PReLU(feat)]
        layers += [torch.nn.Conv2d(feat, 3 * scale * scale, 3, padding=1)]
        self.body = torch.nn.Sequential(*layers)
        self.shuffle = torch.nn.PixelShuffle(scale)
        self.scale = scale
        with torch.no_grad():
            self.body[-1].weight.mul_(0.1)

    def forward(self, x):
        up = F.interpolate(x, scale_factor=float(self.scale), mode="nearest")
        return torch.clamp(self.shuffle(self.body(x)) + up, 0.0, 1.0)


class Raises(torch.nn.Module):
    def forward(self, x):
        if x.size(2) > 0:
            raise RuntimeError("this model always fails")
        return x


class RaisesOnData(torch.nn.Module):
    """Passes the (all-zero) dry run that sizes the output, fails on frames."""

    def forward(self, x):
        if bool(x.max() > 0):
            raise RuntimeError("this model fails on real frames")
        return x


class TrainMode(torch.nn.Module):
    """Saved in training mode: BatchNorm and Dropout act differently there.

    In eval mode (what inference must use) BatchNorm applies its running
    statistics (set to non-trivial values here) and Dropout passes through;
    in training mode BatchNorm normalises each frame by its own statistics
    and Dropout zeroes half the values at random.
    """

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 3, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(3)
        self.dropout = torch.nn.Dropout(0.5)
        with torch.no_grad():
            self.bn.running_mean.copy_(torch.tensor([0.1, -0.2, 0.3]))
            self.bn.running_var.copy_(torch.tensor([0.5, 2.0, 1.5]))

    def forward(self, x):
        return torch.sigmoid(self.dropout(self.bn(self.conv(x))))


class LutOutOfRange(torch.nn.Module):
    """Looks values up in a 256-entry table at index 255, or 256 where > 0.

    The all-zero dry run stays in range; real frames do not: on the CPU an
    IndexError (naming index 256 whichever thread finds it first), on a GPU
    a device-side assert (a fault of the kernel).
    """

    def __init__(self):
        super().__init__()
        self.register_buffer("lut", torch.linspace(0.0, 1.0, 256))

    def forward(self, x):
        return self.lut[(x > 0.0).long() + 255]


class ThreeDim(torch.nn.Module):
    """Returns CHW, not NCHW."""

    def forward(self, x):
        return x[0]


class TwoChannels(torch.nn.Module):
    def forward(self, x):
        return x[:, 0:2]


class ByteOutput(torch.nn.Module):
    """Returns 8-bit integers 0..255: no picture in [0, 1]."""

    def forward(self, x):
        return (x * 255.0).round().to(torch.uint8)


class NonFinite(torch.nn.Module):
    """NaN in the top-left 2x2 block, +Inf and -Inf in the two pixels below
    it, in every channel: 6 values a channel, each frame."""

    def forward(self, x):
        y = x.clone()
        y[:, :, 0:2, 0:2] = float("nan")
        y[:, :, 2, 0] = float("inf")
        y[:, :, 2, 1] = float("-inf")
        return y


class NonFiniteWritten(torch.nn.Module):
    """NonFinite's output as the filter writes it: NaN and -Inf as 0, +Inf
    as 1."""

    def forward(self, x):
        y = x.clone()
        y[:, :, 0:2, 0:2] = 0.0
        y[:, :, 2, 0] = 1.0
        y[:, :, 2, 1] = 0.0
        return y


class BranchOnValue(torch.nn.Module):
    """Halves a frame brighter than mid-grey, inverts a darker one: a branch
    on a tensor's value, which waits for the GPU and so cannot be captured
    in a CUDA graph."""

    def forward(self, x):
        if bool(x.mean() > 0.5):
            return x * 0.5
        return 1.0 - x


class TensorConstant(torch.nn.Module):
    """Per-channel gains as a tensor literal: traced, a tensor constant
    (constants.pkl, its storage under constants/, not data/), exact."""

    def forward(self, x):
        return 1.0 - x * torch.tensor([1.0, 0.5, 0.25]).view(1, 3, 1, 1)


class ColorMix(torch.nn.Module):
    """A fixed 3x3 colour matrix as a matrix product (cuBLAS on a GPU, where
    the convolutions are cuDNN's)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mix", torch.tensor([[0.50, 0.25, 0.25],
                                                  [0.25, 0.50, 0.25],
                                                  [0.25, 0.25, 0.50]]))

    def forward(self, x):
        return torch.matmul(x.permute(0, 2, 3, 1), self.mix).permute(0, 3, 1, 2)


MODELS = {
    "identity": Identity,
    "swap_invert": SwapInvert,
    "nearest2x": Nearest2x,
    "mirror": Mirror,
    "nearest_w2x": NearestWidth2x,
    "conv": SmallConv,
    "raises": Raises,
    "raises_on_data": RaisesOnData,
    "three_dim": ThreeDim,
    "train_mode": TrainMode,
    "lut_out_of_range": LutOutOfRange,
    "two_channels": TwoChannels,
    "luma_conv": lambda: SmallConv(1),
    "byte_output": ByteOutput,
    "non_finite": NonFinite,
    "non_finite_written": NonFiniteWritten,
    "branch_on_value": BranchOnValue,
    "tensor_constant": TensorConstant,
    "color_mix": ColorMix,
}

# traced, not scripted: what only tracing makes (tensor constants)
TRACED = {"tensor_constant"}

# saved as they are, not in eval mode
TRAINING_MODE = {"train_mode"}

BENCH_MODELS = {
    "identity": Identity,
    "conv3x3": Conv3x3,
    "espcn_x2": ESPCNx2,
    "srvgg_x2": SRVGGNetCompact,
}


def generate(outdir, which="tests"):
    os.makedirs(outdir, exist_ok=True)
    for name, cls in (BENCH_MODELS if which == "bench" else MODELS).items():
        torch.manual_seed(1234)
        model = cls() if name in TRAINING_MODE else cls().eval()
        if name == "conv" or which == "bench":  # for tools/dnn-torch-export.py --checkpoint
            torch.save(model.state_dict(), os.path.join(outdir, name + ".state.pt"))
        if name in TRACED:
            model = torch.jit.trace(model, torch.rand(1, 3, 8, 8))
        else:
            model = torch.jit.script(model)
        model.save(os.path.join(outdir, name + ".pt"))
    if which == "tests":
        with open(os.path.join(outdir, "corrupt.pt"), "wb") as f:
            f.write(b"PK\x03\x04 this is not a TorchScript archive" * 8)


def pt2_variants(package):
    import json
    import zipfile

    def is_metadata(info):
        return info.filename.endswith("wrapper_metadata.json")

    def variant(suffix, change):
        with zipfile.ZipFile(package) as src, \
             zipfile.ZipFile(package[:-4] + suffix + ".pt2", "w") as dst:
            for info in src.infolist():
                data = src.read(info)
                if is_metadata(info):
                    meta = json.loads(data)
                    change(meta)
                    data = json.dumps(meta).encode()
                dst.writestr(info, data)

    def no_description(meta):
        for key in [k for k in meta if k.startswith("ffmpeg_dnn_")]:
            del meta[key]

    variant("-fp16", lambda meta: meta.update(ffmpeg_dnn_dtype="fp16"))
    variant("-torch2.10", lambda meta: meta.update(ffmpeg_dnn_torch="2.10.0+cpu"))
    variant("-nometa", no_description)
    with zipfile.ZipFile(package) as src:
        meta = json.loads(src.read(next(i for i in src.infolist() if is_metadata(i))))
    if "ffmpeg_dnn_cuda_capability" in meta:
        variant("-sm10", lambda meta: meta.update(ffmpeg_dnn_cuda_capability="1.0"))
    if meta.get("AOTI_DEVICE_KEY") == "cpu":
        # one more instruction set, one that this CPU lacks
        lacks = lacking_cpu_feature()
        variant("-isa", lambda meta: meta.update(ffmpeg_dnn_cpu_features=(
            meta.get("ffmpeg_dnn_cpu_features", "") + " " + lacks).strip()))


def lacking_cpu_feature():
    """An x86 instruction set (as /proc/cpuinfo names it) this CPU lacks."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next(line for line in f if line.startswith("flags")).split(":")[1].split()
    except (OSError, StopIteration):
        flags = []
    candidates = ["amx_fp16", "avx512_fp16", "amx_tile", "avx512_vnni", "avx512f", "avx2"]
    return next((c for c in candidates if c not in flags), "x86_instructions_to_come")


def reference(model_path, inp, w, h, pixfmt, out):
    model = torch.jit.load(model_path).eval()
    data = open(inp, "rb").read()
    frame_size = w * h * 3
    frames = torch.frombuffer(bytearray(data), dtype=torch.uint8).view(-1, h, w, 3)
    with open(out, "wb") as f, torch.no_grad():
        for frame in frames:
            # the model sees the frame's own channel order (B, G, R for bgr24)
            x = frame.permute(2, 0, 1).unsqueeze(0).float() / 255.0
            y = model(x)
            y = (y.clamp(0, 1) * 255.0).round().to(torch.uint8)
            f.write(bytes(y[0].permute(1, 2, 0).flatten().tolist()))
    assert len(data) % frame_size == 0


if __name__ == "__main__":
    if len(sys.argv) in (2, 3) and sys.argv[2:] in ([], ["tests"], ["bench"]):
        generate(*sys.argv[1:])
    elif len(sys.argv) == 3 and sys.argv[1] == "pt2-variants":
        pt2_variants(sys.argv[2])
    elif len(sys.argv) == 8 and sys.argv[1] == "reference":
        reference(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]),
                  sys.argv[6], sys.argv[7])
    else:
        sys.exit(__doc__)
