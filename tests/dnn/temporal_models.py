#!/usr/bin/env python3
"""Temporal models for the torch backend's FATE tests, and their reference.

    temporal_models.py make OUTDIR
    temporal_models.py reference MODEL IN.raw IN.crc OUT.crc MODE SCENE OUT.raw

make writes ifnet.pt: a small network shaped like RIFE's IFNet (a flow
network at half resolution that sees both frames and t, warps each frame
with grid_sample along its flow and blends them with a mask), scripted to
TorchScript as forward(earlier, later, t), with fixed random weights.

reference runs MODEL in eager PyTorch as dnn_interpolate should: IN.raw
holds the rgb24 input frames, IN.crc and OUT.crc the framecrc listings of
the input and of dnn_interpolate's output (their time bases, sizes and
timestamps); MODE is "factor=N" or "fps=NUM/DEN"; SCENE the scene-cut
threshold (0: off).  It writes the frames dnn_interpolate must make to
OUT.raw, and prints whether the output's timestamps are the expected ones
(exact, from fractions) and how many frames each has.
"""
import sys
import warnings
from fractions import Fraction

warnings.filterwarnings("ignore")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


class IFNetTiny(torch.nn.Module):
    """IFNet's structure at a test's size: flow and mask from both frames
    and t at half resolution, backward warps of both frames, a blend."""

    def __init__(self, channels: int = 3, features: int = 16):
        super().__init__()
        self.encode = torch.nn.Sequential(
            torch.nn.Conv2d(2 * channels + 1, features, 3, 2, 1), torch.nn.PReLU(features),
            torch.nn.Conv2d(features, features, 3, 1, 1), torch.nn.PReLU(features),
            torch.nn.Conv2d(features, features, 3, 1, 1), torch.nn.PReLU(features))
        self.decode = torch.nn.ConvTranspose2d(features, 5, 4, 2, 1)

    def warp(self, frame: torch.Tensor, flow: torch.Tensor) -> torch.Tensor:
        n, _, h, w = frame.shape
        ys = torch.linspace(-1.0, 1.0, h, device=frame.device, dtype=frame.dtype)
        xs = torch.linspace(-1.0, 1.0, w, device=frame.device, dtype=frame.dtype)
        gy, gx = torch.meshgrid(ys, xs, indexing="ij")
        grid = torch.stack((gx, gy), 2).unsqueeze(0).expand(n, h, w, 2)
        # flow in pixels, grid in [-1, 1]
        scale = torch.tensor([2.0 / max(w - 1, 1), 2.0 / max(h - 1, 1)],
                             device=frame.device, dtype=frame.dtype)
        grid = grid + flow.permute(0, 2, 3, 1) * scale
        return F.grid_sample(frame, grid, mode="bilinear", padding_mode="border",
                             align_corners=True)

    def forward(self, earlier: torch.Tensor, later: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        n, _, h, w = earlier.shape
        tt = t.to(earlier.dtype).reshape(1, 1, 1, 1).expand(n, 1, h, w)
        x = torch.cat((earlier, later, tt), 1)
        # even sizes for the stride-2 encoder, cropped back after
        x = F.pad(x, (0, w % 2, 0, h % 2), mode="replicate")
        out = self.decode(self.encode(x))[:, :, :h, :w]
        flow = torch.tanh(out[:, :4]) * 4.0
        mask = torch.sigmoid(out[:, 4:5])
        warped_earlier = self.warp(earlier, flow[:, :2] * t)
        warped_later = self.warp(later, flow[:, 2:4] * (1 - t))
        return mask * warped_earlier + (1 - mask) * warped_later


def make(outdir):
    torch.manual_seed(17)
    model = IFNetTiny().eval()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn_like(p) * 0.2)
    torch.jit.script(model).save(outdir + "/ifnet.pt")


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
    """[(output pts, input index, t)] as dnn_interpolate places them: every
    output time in [pts_i, pts_i+1) of each pair, the last frame for its
    duration; t as the fraction of the pair's interval."""
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
    n = None
    for i, (start, span) in enumerate(zip(times, spans)):
        t0, t1 = start * tb_in, (start + span) * tb_in
        if n is None:
            n = -((-t0) // tb_out)  # the first output time at or after the first frame
        while n * tb_out < t1:
            if n * tb_out >= t0:
                out.append((n, i, (n * tb_out - t0) / (t1 - t0)))
            n += 1
    return out


def reference(model_path, inp, in_crc, out_crc, mode, scene, out):
    model = torch.jit.load(model_path).eval()
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
                f.write(pictures[i].numpy().tobytes())
                continue
            later = tensors[i + 1]
            if scene > 0 and (earlier - later).abs().mean().item() > scene:
                y = earlier
                cuts.add(i)
            else:
                y = model(earlier, later, torch.tensor(float(t)))
            y = (y.clamp(0, 1) * 255.0).round().to(torch.uint8)
            f.write(y[0].permute(1, 2, 0).contiguous().numpy().tobytes())
    expected = [pts for pts, _, _ in plan]
    got = [pts for pts, _ in frames_out]
    print("input frames: %d, output frames: %d (expected %d)" % (count, len(got), len(expected)))
    print("output time base: %s" % tb_out)
    if scene > 0:
        print("scene cuts (pairs whose earlier frame is repeated): %s" % sorted(cuts))
    print("timestamps as expected: %s" % ("yes" if got == expected else "no"))
    if got != expected:
        for k, (g, e) in enumerate(zip(got + [None] * len(expected), expected + [None] * len(got))):
            if g != e:
                print("first difference at output %d: %s, expected %s" % (k, g, e), file=sys.stderr)
                break
        sys.exit(1)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "make":
        make(sys.argv[2])
    elif len(sys.argv) == 9 and sys.argv[1] == "reference":
        reference(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6],
                  float(sys.argv[7]), sys.argv[8])
    else:
        sys.exit(__doc__)
