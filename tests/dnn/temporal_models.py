#!/usr/bin/env python3
"""Temporal models for the torch backend's FATE tests, and their reference.

    temporal_models.py make OUTDIR
    temporal_models.py reference MODEL IN.raw IN.crc OUT.crc MODE SCENE OUT.raw
    temporal_models.py window MODEL IN.raw IN.crc OUT.crc FRAMES WINDOW SIGMA SIGMA_PLANE OUT.raw
    temporal_models.py recurrent MODEL IN.raw IN.crc OUT.crc SCENE RESETS SIGMA OUT.raw
    temporal_models.py gflops WIDTH HEIGHT

gflops prints the GFLOPs of one output frame of IFNetBench, an IFNet sized
like RIFE 4.6 that make bench exports (tools/dnn-torch-export.py
tests/dnn/temporal_models.py:IFNetBench ... --inputs pair).

make writes ifnet.pt: a small network shaped like RIFE's IFNet (a flow
network at half resolution that sees both frames and t, warps each frame
with grid_sample along its flow and blends them with a mask), scripted to
TorchScript as forward(earlier, later, t), with fixed random weights (and
ifnet.state.pt, the same weights as a state dict, for the export tool).

reference runs MODEL in eager PyTorch as dnn_interpolate should: IN.raw
holds the rgb24 input frames, IN.crc and OUT.crc the framecrc listings of
the input and of dnn_interpolate's output (their time bases, sizes and
timestamps); MODE is "factor=N" or "fps=NUM/DEN" (other options of the
filter may follow it, ":batch=3": the reference runs one time at a time); SCENE the scene-cut
threshold (0: off), or "cuts:I,J", the pairs scdet cuts.  It writes the frames dnn_interpolate must make to
OUT.raw, and prints whether the output's timestamps are the expected ones
(exact, from fractions) and how many frames each has.

make also writes the models of a window of frames (dnn_processing's
frames, window and sigma options), with fixed random weights:
fastdvd.pt, shaped like FastDVDnet (5 frames on the channels and a noise
map: a first stage denoises each 3 neighbouring frames, a second stage the
three results); sequence.pt, shaped like EDVR's or BasicVSR's input (3
frames as 1 x N x C x H x W, a 0-D sigma: a convolution across time);
fastdvd.state.pt, its weights; dpir.pt, shaped like DPIR (one frame and a noise map); recurrent.pt, a
small recurrent 2x super-resolution net (forward(frame, state) -> (frame,
state), the state None at first; recurrent.state.pt, its weights);
recurrent-sigma.pt, the same with a 0-D noise level after the state
(recurrent-sigma.state.pt, its weights); blend-scalar-t.pt, a pair model of a
0-D t only.

window runs MODEL in eager PyTorch as dnn_processing should with
frames=FRAMES, window=WINDOW (stacked or sequence), sigma=SIGMA (-1: none)
and sigma_plane=SIGMA_PLANE: the window of each frame centred on it, the
first and last frames replicated at the edges.  It writes the frames
dnn_processing must make to OUT.raw and says whether the output has the
input's frame count and timestamps.

recurrent runs MODEL in eager PyTorch as dnn_processing should with
recurrent=1, scene=SCENE and sigma=SIGMA (-1: none, else a 0-D tensor
after the state): the state carried from frame to frame, and
None again at the frames RESETS (a comma list, "-" for none: where the
input's timestamps go back, which a framecrc listing does not show) or,
with SCENE > 0, where the frame differs from the one before by more than
SCENE.
"""
import math
import os
import sys
import warnings
from fractions import Fraction
from typing import Optional

warnings.filterwarnings("ignore")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def backward_warp(frame: torch.Tensor, flow: torch.Tensor) -> torch.Tensor:
    """frame sampled at each pixel plus flow (in pixels), as IFNet warps:
    -1 to 1 across the frame from arange and the flow as scalars, so that
    torch.export keeps the size symbolic."""
    n, _, h, w = frame.shape
    ys = torch.arange(h, device=frame.device, dtype=frame.dtype) * (2.0 / max(h - 1, 1)) - 1.0
    xs = torch.arange(w, device=frame.device, dtype=frame.dtype) * (2.0 / max(w - 1, 1)) - 1.0
    gy, gx = torch.meshgrid(ys, xs, indexing="ij")
    grid = torch.stack((gx, gy), 2).unsqueeze(0).expand(n, h, w, 2)
    shift = torch.stack((flow[:, 0] * (2.0 / max(w - 1, 1)),
                         flow[:, 1] * (2.0 / max(h - 1, 1))), 3)
    return F.grid_sample(frame, grid + shift, mode="bilinear", padding_mode="border",
                         align_corners=True)


class IFNetTiny(torch.nn.Module):
    """IFNet's structure at a test's size: flow and mask from both frames
    and t at half resolution, backward warps of both frames, a blend."""

    def __init__(self, channels: int = 3, features: int = 16):
        super().__init__()
        self.encode = torch.nn.Sequential(
            torch.nn.Conv2d(2 * channels + 1, features, 3, 1, 1), torch.nn.PReLU(features),
            torch.nn.Conv2d(features, features, 3, 1, 1), torch.nn.PReLU(features),
            torch.nn.Conv2d(features, features, 3, 1, 1), torch.nn.PReLU(features))
        self.decode = torch.nn.Conv2d(features, 5, 3, 1, 1)

    def forward(self, earlier: torch.Tensor, later: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        n, _, h, w = earlier.shape
        # t: 0-D, or one a pair of the batch (dnn_interpolate batch=N: N x 1 x 1 x 1)
        t = t.to(earlier.dtype).reshape(-1, 1, 1, 1)
        tt = t.expand(n, 1, h, w)
        x = torch.cat((earlier, later, tt), 1)
        # at half resolution, as IFNet's blocks work at a fraction of it
        half = F.interpolate(x, scale_factor=0.5, mode="bilinear", align_corners=False)
        out = F.interpolate(self.decode(self.encode(half)), size=(h, w), mode="bilinear",
                            align_corners=False)
        flow = torch.tanh(out[:, :4]) * 4.0
        mask = torch.sigmoid(out[:, 4:5])
        warped_earlier = backward_warp(earlier, flow[:, :2] * t)
        warped_later = backward_warp(later, flow[:, 2:4] * (1 - t))
        return mask * warped_earlier + (1 - mask) * warped_later


class BlendScalarT(torch.nn.Module):
    """A pair model written for a 0-D t only (as code that reshapes t to
    one value): given a batch of times (batch=N), it fails."""

    def forward(self, earlier: torch.Tensor, later: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        w = t.reshape(1, 1, 1, 1)
        return earlier * (1 - w) + later * w


class PairLutOutOfRange(torch.nn.Module):
    """The later frame looked up in a 256-entry table at index 255, or 256
    where > 0 (gen_torch_models.py's LutOutOfRange for a pair): the all-zero
    trial of the configuration stays in range, real frames do not (a
    device-side assert on a GPU)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("lut", torch.linspace(0.0, 1.0, 256))

    def forward(self, earlier: torch.Tensor, later: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        return self.lut[(later > 0.0).long() + 255]


class IFBlockBench(torch.nn.Module):
    """One IFNet block: the input at 1/scale, two stride-2 convolutions,
    eight 3x3 convolutions with PReLU (a residual), and a transposed
    convolution and pixel shuffle back to 1/scale: flow (4) and mask (1)."""

    def __init__(self, inputs: int, c: int):
        super().__init__()
        self.down = torch.nn.Sequential(
            torch.nn.Conv2d(inputs, c // 2, 3, 2, 1), torch.nn.PReLU(c // 2),
            torch.nn.Conv2d(c // 2, c, 3, 2, 1), torch.nn.PReLU(c))
        layers = []
        for _ in range(8):
            layers += [torch.nn.Conv2d(c, c, 3, 1, 1), torch.nn.PReLU(c)]
        self.body = torch.nn.Sequential(*layers)
        self.up = torch.nn.ConvTranspose2d(c, 4 * 5, 4, 2, 1)

    def forward(self, x: torch.Tensor, scale: float):
        h, w = x.shape[2], x.shape[3]
        if scale != 1:
            x = F.interpolate(x, scale_factor=1.0 / scale, mode="bilinear", align_corners=False)
        f = self.down(x)
        f = self.body(f) + f
        # back to the frame's size, whatever it is: 4x the stride-2 outputs
        # is a multiple of 4 (every size: torch.export compiles one case)
        out = F.interpolate(F.pixel_shuffle(self.up(f), 2), size=(h, w), mode="bilinear",
                            align_corners=False)
        return out[:, :4] * scale, out[:, 4:5]


class IFNetBench(torch.nn.Module):
    """An IFNet sized like RIFE 4.6, for make bench: four blocks at 1/8,
    1/4, 1/2 and 1/1 of the frame (c = 192, 128, 96, 64), each refining the
    flow and mask of the one before from the frames warped by it; the two
    frames warped and blended.  Any size: each block resizes its input to
    its scale and its flow and mask back to the frame's size."""

    def __init__(self, channels=(192, 128, 96, 64)):
        super().__init__()
        self.blocks = torch.nn.ModuleList(
            [IFBlockBench(7, channels[0])] + [IFBlockBench(12, c) for c in channels[1:]])
        self.scales = [8.0, 4.0, 2.0, 1.0]

    def forward(self, earlier: torch.Tensor, later: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        n, _, h, w = earlier.shape
        img0, img1 = earlier, later
        # t: 0-D, or one a pair of the batch (dnn_interpolate batch=N: N x 1 x 1 x 1)
        tt = t.to(img0.dtype).reshape(-1, 1, 1, 1).expand(n, 1, h, w)
        flow, mask = self.blocks[0](torch.cat((img0, img1, tt), 1), self.scales[0])
        warped0 = backward_warp(img0, flow[:, :2])
        warped1 = backward_warp(img1, flow[:, 2:4])
        # enumerate, not a slice of the ModuleList: TorchScript compiles this
        for i, block in enumerate(self.blocks):
            if i > 0:
                d_flow, d_mask = block(torch.cat((warped0, warped1, tt, mask, flow), 1),
                                       self.scales[i])
                flow = flow + d_flow
                mask = mask + d_mask
                warped0 = backward_warp(img0, flow[:, :2])
                warped1 = backward_warp(img1, flow[:, 2:4])
        m = torch.sigmoid(mask)
        return warped0 * m + warped1 * (1 - m)


def gflops(width, height):
    """IFNetBench's GFLOPs for one output frame of width x height (one
    multiply-add = 2 FLOPs), counted by PyTorch on shapes alone."""
    from torch.utils.flop_counter import FlopCounterMode
    with torch.device("meta"):
        model = IFNetBench()
        frames = (torch.rand(1, 3, height, width), torch.rand(1, 3, height, width), torch.tensor(0.5))
    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        model(*frames)
    return counter.get_total_flops() / 1e9


def block(inputs: int, outputs: int, features: int = 16) -> torch.nn.Sequential:
    return torch.nn.Sequential(
        torch.nn.Conv2d(inputs, features, 3, 1, 1), torch.nn.ReLU(),
        torch.nn.Conv2d(features, features, 3, 1, 1), torch.nn.ReLU(),
        torch.nn.Conv2d(features, outputs, 3, 1, 1))


class DenoiseStage(torch.nn.Module):
    """One of FastDVDnet's stages: 3 frames and the noise map give the
    centre frame, less the noise the network sees."""

    def __init__(self, channels: int = 3, features: int = 16):
        super().__init__()
        self.channels = channels
        self.net = block(3 * channels + 1, channels, features)

    def forward(self, frames: torch.Tensor, noise_map: torch.Tensor) -> torch.Tensor:
        centre = frames[:, self.channels:2 * self.channels]
        return centre - self.net(torch.cat((frames, noise_map), 1))


class FastDVDTiny(torch.nn.Module):
    """FastDVDnet's two stages at a test's size: forward(window, noise_map)
    with the window 1 x 5*3 x H x W and the noise map 1 x 1 x H x W
    (make bench: 64 features)."""

    def __init__(self, channels: int = 3, features: int = 16):
        super().__init__()
        self.channels = channels
        self.stage1 = DenoiseStage(channels, features)
        self.stage2 = DenoiseStage(channels, features)

    def forward(self, window: torch.Tensor, noise_map: torch.Tensor) -> torch.Tensor:
        c = self.channels
        first = [self.stage1(window[:, k * c:(k + 3) * c], noise_map) for k in range(3)]
        return self.stage2(torch.cat(first, 1), noise_map)


class SequenceTiny(torch.nn.Module):
    """A window as a sequence, 1 x N x C x H x W, and a 0-D sigma: a
    convolution across time and space, then a residual on the centre frame."""

    def __init__(self, frames: int = 3, channels: int = 3, features: int = 8):
        super().__init__()
        self.across = torch.nn.Conv3d(channels, features, (frames, 3, 3), padding=(0, 1, 1))
        self.out = torch.nn.Conv2d(features, channels, 3, 1, 1)

    def forward(self, window: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
        x = self.across(window.permute(0, 2, 1, 3, 4)).squeeze(2)
        centre = window[:, window.shape[1] // 2]
        return centre - sigma.to(window.dtype) * self.out(torch.relu(x))


class RecurrentTiny(torch.nn.Module):
    """A recurrent 2x super-resolution net: the features of the frame and
    of the state the previous frame left give the frame and the next state."""

    def __init__(self, channels: int = 3, features: int = 8):
        super().__init__()
        self.features = features
        self.body = block(channels + features, 4 * channels + features, 16)

    def forward(self, frame: torch.Tensor, state: Optional[torch.Tensor]):
        n, _, h, w = frame.shape
        if state is None:
            state = torch.zeros(n, self.features, h, w, dtype=frame.dtype, device=frame.device)
        y = self.body(torch.cat((frame, state), 1))
        c = frame.shape[1]
        up = F.interpolate(frame, scale_factor=2.0, mode="nearest")
        out = up + 0.5 * F.pixel_shuffle(y[:, :4 * c], 2)
        return out, torch.tanh(state + y[:, 4 * c:])


class RecurrentSigmaTiny(torch.nn.Module):
    """RecurrentTiny with a 0-D noise level after the state, as a recurrent
    denoiser takes one: it weighs both the frame and the next state."""

    def __init__(self):
        super().__init__()
        self.net = RecurrentTiny()

    def forward(self, frame: torch.Tensor, state: Optional[torch.Tensor], sigma: torch.Tensor):
        y, s = self.net(frame, state)
        sigma = sigma.to(frame.dtype)
        return y * (1.0 - sigma), s * (1.0 - 2.0 * sigma)


class DPIRTiny(torch.nn.Module):
    """DPIR's input at a test's size: one frame and a noise map."""

    def __init__(self, channels: int = 3):
        super().__init__()
        self.net = block(channels + 1, channels)

    def forward(self, frame: torch.Tensor, noise_map: torch.Tensor) -> torch.Tensor:
        return frame - self.net(torch.cat((frame, noise_map), 1))


def randomised(model: torch.nn.Module, scale: float) -> torch.nn.Module:
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn_like(p) * scale)
    return model.eval()


class PairNonFinite(torch.nn.Module):
    """A blend whose frames at t >= 0.5 have 18 NaN (3x2 pixels of 3
    channels): the count of non-finite values by frame, not by run."""

    def forward(self, earlier: torch.Tensor, later: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        w = t.reshape(-1, 1, 1, 1)
        out = earlier * (1 - w) + later * w
        corner = out[:, :, :3, :2]
        out[:, :, :3, :2] = torch.where(w >= 0.5, torch.full_like(corner, float("nan")), corner)
        return out


def make(outdir):
    os.makedirs(outdir, exist_ok=True)  # as gen_torch_models.py: the README's command
    torch.manual_seed(17)
    ifnet = randomised(IFNetTiny(), 0.2)
    torch.jit.script(ifnet).save(outdir + "/ifnet.pt")
    fastdvd = randomised(FastDVDTiny(), 0.04)
    torch.jit.script(fastdvd).save(outdir + "/fastdvd.pt")
    # the same weights, for tools/dnn-torch-export.py --checkpoint
    torch.save(ifnet.state_dict(), outdir + "/ifnet.state.pt")
    torch.save(fastdvd.state_dict(), outdir + "/fastdvd.state.pt")
    torch.jit.script(randomised(SequenceTiny(), 0.1)).save(outdir + "/sequence.pt")
    torch.jit.script(randomised(DPIRTiny(), 0.05)).save(outdir + "/dpir.pt")
    recurrent = randomised(RecurrentTiny(), 0.1)
    torch.jit.script(recurrent).save(outdir + "/recurrent.pt")
    torch.save(recurrent.state_dict(), outdir + "/recurrent.state.pt")
    recurrent_sigma = randomised(RecurrentSigmaTiny(), 0.1)
    torch.jit.script(recurrent_sigma).save(outdir + "/recurrent-sigma.pt")
    torch.save(recurrent_sigma.state_dict(), outdir + "/recurrent-sigma.state.pt")
    torch.jit.script(BlendScalarT()).save(outdir + "/blend-scalar-t.pt")
    torch.jit.script(PairLutOutOfRange()).save(outdir + "/pair-lut-out-of-range.pt")
    torch.jit.script(PairNonFinite()).save(outdir + "/pair-non-finite.pt")


def read_crc(path):
    """(time base, [(pts, duration)]) of stream 0 of a framecrc listing."""
    tb, frames = None, []
    for line in open(path):
        if line.startswith("#tb 0:"):
            tb = Fraction(line.split(":", 1)[1].strip())
        elif line[:1].isdigit():
            fields = [f.strip() for f in line.split(",")]
            if fields[0] == "0":
                frames.append((int(fields[2]), int(fields[3])))
    return tb, frames


def schedule(tb_in, frames, tb_out, mode):
    """[(output pts, input index, t)] as dnn_interpolate places them: factor,
    every output time in [pts_i, pts_i+1) of each pair, the last frame for
    its duration; fps, the output times of the fps filter (the first frame's
    time and the end of the last rounded to the nearest, halves away from
    0, as its eof_action=round: its frame count and timestamps), each made
    at its own time: the first frame before it, the last after it; t as the
    fraction of the pair's interval."""
    out = []
    times = [pts for pts, _ in frames]
    last_span = frames[-1][1] if frames[-1][1] > 0 else 1
    spans = [b - a for a, b in zip(times, times[1:])] + [last_span]
    if mode.startswith("factor="):
        factor = int(mode.split("=")[1])
        for i, (start, span) in enumerate(zip(times, spans)):
            for k in range(factor):
                out.append((start * factor + k * span, i, Fraction(k, factor)))
        return out

    def near(x):
        return math.floor(x + Fraction(1, 2)) if x >= 0 else -math.floor(-x + Fraction(1, 2))

    i = 0
    end = (times[-1] + spans[-1]) * tb_in
    for n in range(near(times[0] * tb_in / tb_out), near(end / tb_out)):
        x = n * tb_out
        while i + 1 < len(times) and times[i + 1] * tb_in <= x:
            i += 1
        t0 = times[i] * tb_in
        if x <= t0:
            out.append((n, i, Fraction(0)))
        elif i + 1 == len(times):
            out.append((n, i, Fraction(1)))
        else:
            out.append((n, i, (x - t0) / (times[i + 1] * tb_in - t0)))
    return out


def reference(model_path, inp, in_crc, out_crc, mode, scene, out):
    # SCENE: the threshold of the filter's own scene score, or "cuts:I,J":
    # the pairs that scdet's marks cut (their earlier frame repeated)
    given_cuts = set()
    if scene.startswith("cuts:"):
        given_cuts = {int(i) for i in scene[5:].split(",")}
        scene = 0.0
    scene = float(scene)
    model = torch.jit.load(model_path).eval()
    mode = mode.split(":")[0]  # factor=N or fps=RATE; the filter's other options after it
    tb_in, frames_in = read_crc(in_crc)
    tb_out, frames_out = read_crc(out_crc)
    w, h = (int(v) for v in open(in_crc).read().split("#dimensions 0:")[1].split()[0].split("x"))
    data = open(inp, "rb").read()
    count = len(data) // (w * h * 3)
    assert count == len(frames_in), (count, len(frames_in))
    pictures = torch.frombuffer(bytearray(data), dtype=torch.uint8).view(count, h, w, 3)
    tensors = [p.permute(2, 0, 1).unsqueeze(0).float() / 255.0 for p in pictures]
    plan = schedule(tb_in, frames_in, tb_out, mode)
    cuts = set()
    with open(out, "wb") as f, torch.no_grad():
        for _, i, t in plan:
            earlier = tensors[i]
            if t == 0 or i + 1 == count:
                f.write(raw(pictures[i]))
                continue
            later = tensors[i + 1]
            if i in given_cuts or scene > 0 and (earlier - later).abs().mean().item() > scene:
                y = earlier
                cuts.add(i)
            else:
                y = model(earlier, later, torch.tensor(float(t)))
            y = (y.clamp(0, 1) * 255.0).round().to(torch.uint8)
            f.write(raw(y[0].permute(1, 2, 0)))
    expected = [pts for pts, _, _ in plan]
    got = [pts for pts, _ in frames_out]
    print("input frames: %d, output frames: %d (expected %d)" % (count, len(got), len(expected)))
    print("output time base: %s" % tb_out)
    if scene > 0 or given_cuts:
        print("scene cuts (pairs whose earlier frame is repeated): %s" % sorted(cuts))
    print("timestamps as expected: %s" % ("yes" if got == expected else "no"))
    if got != expected:
        for k, (g, e) in enumerate(zip(got + [None] * len(expected), expected + [None] * len(got))):
            if g != e:
                print("first difference at output %d: %s, expected %s" % (k, g, e), file=sys.stderr)
                break
        sys.exit(1)


def raw(picture):
    """A uint8 tensor's bytes, in its logical order (torch alone: no numpy)."""
    return bytes(picture.contiguous().flatten().tolist())


def read_pictures(inp, in_crc):
    """The rgb24 frames of IN.raw as uint8 H x W x 3 and as float 1 x 3 x H x W."""
    w, h = (int(v) for v in open(in_crc).read().split("#dimensions 0:")[1].split()[0].split("x"))
    data = open(inp, "rb").read()
    count = len(data) // (w * h * 3)
    pictures = torch.frombuffer(bytearray(data), dtype=torch.uint8).view(count, h, w, 3)
    return pictures, [p.permute(2, 0, 1).unsqueeze(0).float() / 255.0 for p in pictures]


def window(model_path, inp, in_crc, out_crc, frames, layout, sigma, sigma_plane, out):
    model = torch.jit.load(model_path).eval()
    tb_in, frames_in = read_crc(in_crc)
    tb_out, frames_out = read_crc(out_crc)
    pictures, tensors = read_pictures(inp, in_crc)
    count = len(tensors)
    assert count == len(frames_in), (count, len(frames_in))
    radius = frames // 2
    with open(out, "wb") as f, torch.no_grad():
        for i in range(count):
            neighbours = [tensors[min(max(i + k, 0), count - 1)] for k in range(-radius, radius + 1)]
            if layout == "stacked":
                inputs = [torch.cat(neighbours, 1)]
            else:
                inputs = [torch.stack(neighbours, 1)]
            if sigma >= 0:
                h, w = tensors[0].shape[-2:]
                inputs.append(torch.full((1, 1, h, w) if sigma_plane else (), sigma))
            y = (model(*inputs).clamp(0, 1) * 255.0).round().to(torch.uint8)
            f.write(raw(y[0].permute(1, 2, 0)))
    print("input frames: %d, output frames: %d" % (count, len(frames_out)))
    same = tb_out == tb_in and frames_out == frames_in
    print("timestamps and durations as the input's: %s" % ("yes" if same else "no"))
    if not same:
        print("input %s %s, output %s %s" % (tb_in, frames_in, tb_out, frames_out), file=sys.stderr)
        sys.exit(1)


def recurrent(model_path, inp, in_crc, out_crc, scene, resets, sigma, out):
    model = torch.jit.load(model_path).eval()
    _, frames_in = read_crc(in_crc)
    _, frames_out = read_crc(out_crc)
    _, tensors = read_pictures(inp, in_crc)
    starts = []
    state = None
    with open(out, "wb") as f, torch.no_grad():
        for i, x in enumerate(tensors):
            again = i == 0 or i in resets
            if not again and scene > 0:
                again = (tensors[i - 1] - x).abs().mean().item() > scene
            if again:
                state = None
                starts.append(i)
            y, state = model(x, state) if sigma < 0 else model(x, state, torch.tensor(sigma))
            y = (y.clamp(0, 1) * 255.0).round().to(torch.uint8)
            f.write(raw(y[0].permute(1, 2, 0)))
    print("input frames: %d, output frames: %d" % (len(tensors), len(frames_out)))
    print("frames that start from no state: %s" % starts)
    same = [p for p, _ in frames_out] == [p for p, _ in frames_in]
    print("timestamps as the input's: %s" % ("yes" if same else "no"))
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "gflops":
        print("%.1f" % gflops(int(sys.argv[2]), int(sys.argv[3])))
    elif len(sys.argv) == 3 and sys.argv[1] == "make":
        make(sys.argv[2])
    elif len(sys.argv) == 9 and sys.argv[1] == "reference":
        reference(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6],
                  sys.argv[7], sys.argv[8])
    elif len(sys.argv) == 11 and sys.argv[1] == "window":
        window(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7],
               float(sys.argv[8]), sys.argv[9] == "1", sys.argv[10])
    elif len(sys.argv) == 10 and sys.argv[1] == "recurrent":
        resets = [] if sys.argv[7] == "-" else [int(i) for i in sys.argv[7].split(",")]
        recurrent(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], float(sys.argv[6]), resets,
                  float(sys.argv[8]), sys.argv[9])
    else:
        sys.exit(__doc__)
