#!/usr/bin/env python3
"""The colour math of dnn_processing's conversions, in float64, and tests of
ffmpeg against it.

    color_check.py FFMPEG MODELDIR WORKDIR SET [--jobs N]

SET names the cases (see CASE_SETS): frames of every layout, matrix, range,
chroma siting, model precision and size go through ffmpeg, and each output
frame is compared with this reference; a line per case, then exit 1 if any
case is off by more than its tolerance.

The reference is written from the specification (libavfilter/dnn/dnn_color.h)
and shares no code with it:
- code values -> Y' in [0, 1], Cb, Cr in [-0.5, 0.5] (limited or full range);
- chroma upsampled bilinearly at its siting, counted from the visible origin
  (a crop inside a chroma block moves it), R'G'B' with the frame's Kr, Kb, not
  clipped; the luma alone is v / (2^n - 1);
- the tensor rounded to the model's dtype; the model run by PyTorch;
- R'G'B' as it is (NaN, -Inf 0; +Inf 1), luma per pixel, chroma the
  tent-weighted mean around each chroma sample's siting; round half to even,
  clip the codes (packed RGB and the luma alone: clip to [0, 1]);
- a cropped CUDA frame's output: at the crop's offsets scaled by the model,
  rounded down to a chroma sample, black around it.
Tolerance: 1 code value, plus for fp16 and bf16 the dtype's step at 1.0 in
code values (float32 in the kernels vs float64 here can flip a rounding of
the tensor to the dtype: one step).
"""
import argparse
import concurrent.futures
import math
import os
import subprocess
import sys

import torch

# name: (kind, depth, shift, log2 chroma w, log2 chroma h); kinds: semi
# (Y + interleaved CbCr), planar (Y, Cb, Cr), packed RGB (channel bytes)
LAYOUTS = {
    "nv12": ("semi", 8, 0, 1, 1), "p010le": ("semi", 10, 6, 1, 1),
    "p012le": ("semi", 12, 4, 1, 1), "p016le": ("semi", 16, 0, 1, 1),
    "nv16": ("semi", 8, 0, 1, 0), "p210le": ("semi", 10, 6, 1, 0),
    "p212le": ("semi", 12, 4, 1, 0), "p216le": ("semi", 16, 0, 1, 0),
    "yuv420p": ("planar", 8, 0, 1, 1), "yuv422p": ("planar", 8, 0, 1, 0),
    "yuv444p": ("planar", 8, 0, 0, 0), "yuv410p": ("planar", 8, 0, 2, 2),
    "yuv411p": ("planar", 8, 0, 2, 0), "yuv420p10le": ("planar", 10, 0, 1, 1),
    "yuv422p10le": ("planar", 10, 0, 1, 0), "yuv444p10le": ("planar", 10, 0, 0, 0),
    "yuv444p10msble": ("planar", 10, 6, 0, 0), "yuv444p12msble": ("planar", 12, 4, 0, 0),
    "yuv444p16le": ("planar", 16, 0, 0, 0),
    "rgb0": ("packed", "rgbx"), "bgr0": ("packed", "bgrx"),
    "rgba": ("packed", "rgba"), "bgra": ("packed", "bgra"),
}

MATRICES = {  # -colorspace: (Kr, Kb)
    "bt470bg": (0.299, 0.114), "smpte170m": (0.299, 0.114), "bt709": (0.2126, 0.0722),
    "bt2020nc": (0.2627, 0.0593), "smpte240m": (0.212, 0.087), "fcc": (0.30, 0.11),
    "unknown": (0.299, 0.114),
}

SITINGS = {  # -chroma_sample_location: position in 1/256 (av_chroma_location_enum_to_pos)
    "unspecified": (0, 128), "left": (0, 128), "center": (128, 128), "topleft": (0, 0),
    "top": (128, 0), "bottomleft": (0, 256), "bottom": (128, 256),
}

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def chroma_size(size, log2):
    return -((-size) >> log2)


# ---------------------------------------------------------------- frames


def make_frame(layout, w, h, seed):
    """Code values: a smooth picture with noise, over the whole code range."""
    g = torch.Generator().manual_seed(seed)
    desc = LAYOUTS[layout]
    if desc[0] == "packed":
        planes = [torch.randint(0, 256, (h, w), generator=g, dtype=torch.int64) for _ in range(4)]
        yy, xx = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
        planes[0] = (planes[0] // 8 + xx * 200 // max(w, 1)).clamp(0, 255)
        return planes
    _, depth, _, lw, lh = desc
    top = (1 << depth) - 1
    cw, ch = chroma_size(w, lw), chroma_size(h, lh)
    planes = []
    for (pw, ph) in ((w, h), (cw, ch), (cw, ch)):
        yy, xx = torch.meshgrid(torch.arange(ph, dtype=torch.float64),
                                torch.arange(pw, dtype=torch.float64), indexing="ij")
        smooth = 0.5 + 0.45 * torch.sin(xx * 0.11 + yy * 0.07 + seed)
        noise = torch.rand((ph, pw), generator=g, dtype=torch.float64) - 0.5
        planes.append(((smooth + 0.2 * noise).clamp(0, 1) * top).round().to(torch.int64))
    return planes


def to_bytes(layout, planes, w, h):
    desc = LAYOUTS[layout]
    if desc[0] == "packed":
        order = desc[1]
        comps = {"r": planes[0], "g": planes[1], "b": planes[2], "a": planes[3], "x": planes[3]}
        px = torch.stack([comps[c] for c in order], dim=2)
        return bytes(px.to(torch.uint8).flatten().tolist())
    kind, depth, shift = desc[0], desc[1], desc[2]

    def pack(t):
        t = t << shift
        return _le16(t) if depth > 8 else bytes(t.to(torch.uint8).flatten().tolist())

    y = pack(planes[0])
    if kind == "semi":
        return y + pack(torch.stack([planes[1], planes[2]], dim=2))
    return y + pack(planes[1]) + pack(planes[2])


def _le16(t):
    t = t.flatten()
    out = torch.stack([t & 255, t >> 8], dim=1)
    return bytes(out.to(torch.uint8).flatten().tolist())


def from_bytes(layout, data, w, h):
    desc = LAYOUTS[layout]
    if desc[0] == "packed":
        px = torch.frombuffer(bytearray(data), dtype=torch.uint8).view(h, w, 4).to(torch.int64)
        order = desc[1]
        return [px[:, :, order.index(c)] for c in "rgb"] + [px[:, :, 3]]
    kind, depth, shift, lw, lh = desc
    cw, ch = chroma_size(w, lw), chroma_size(h, lh)
    if depth > 8:
        raw = torch.frombuffer(bytearray(data), dtype=torch.uint8).view(-1, 2).to(torch.int64)
        vals = (raw[:, 0] | (raw[:, 1] << 8)) >> shift
    else:
        vals = torch.frombuffer(bytearray(data), dtype=torch.uint8).to(torch.int64)
    y = vals[: w * h].view(h, w)
    rest = vals[w * h:]
    if kind == "semi":
        uv = rest[: cw * ch * 2].view(ch, cw, 2)
        return [y, uv[:, :, 0], uv[:, :, 1]]
    return [y, rest[: cw * ch].view(ch, cw), rest[cw * ch: 2 * cw * ch].view(ch, cw)]


# ---------------------------------------------------------------- the reference


class Colour:
    def __init__(self, layout, matrix, full, siting):
        desc = LAYOUTS[layout]
        self.packed = desc[0] == "packed"
        self.alpha = self.packed and "a" in desc[1]
        self.depth = 8 if self.packed else desc[1]
        self.lw, self.lh = (0, 0) if self.packed else desc[3:5]
        self.top = (1 << self.depth) - 1
        scale = 1 << (self.depth - 8)
        if full:
            self.yo, self.yq, self.co, self.cq = 0.0, self.top, float(1 << (self.depth - 1)), self.top
        else:
            self.yo, self.yq, self.co, self.cq = 16.0 * scale, 219.0 * scale, 128.0 * scale, 224.0 * scale
        self.kr, self.kb = MATRICES[matrix]
        self.kg = 1 - self.kr - self.kb
        xpos, ypos = SITINGS[siting]
        self.off_x = xpos / 256 * ((1 << self.lw) - 1)
        self.off_y = ypos / 256 * ((1 << self.lh) - 1)

    def upsample(self, plane, w, h, phase=(0, 0)):
        """Bilinear, at the siting, edges clamped: to w x h (the plane's
        first sample phase luma pixels before the origin)."""
        def axis(n, log2, off, size, ph):
            u = (torch.arange(n, dtype=torch.float64) + ph - off) / (1 << log2)
            i0 = torch.floor(u)
            f = u - i0
            i0 = i0.to(torch.int64)
            return i0.clamp(0, size - 1), (i0 + 1).clamp(0, size - 1), f
        ch, cw = plane.shape
        xa, xb, fx = axis(w, self.lw, self.off_x, cw, phase[0])
        ya, yb, fy = axis(h, self.lh, self.off_y, ch, phase[1])
        p = plane.to(torch.float64)
        top = p[ya][:, xa] * (1 - fx) + p[ya][:, xb] * fx
        bottom = p[yb][:, xa] * (1 - fx) + p[yb][:, xb] * fx
        return top * (1 - fy)[:, None] + bottom * fy[:, None]

    def to_tensor(self, planes, w, h, channels, phase=(0, 0)):
        if self.packed:
            return torch.stack([planes[i].to(torch.float64) / 255 for i in range(3)])
        if channels == 1:
            return (planes[0].to(torch.float64) / self.top)[None]
        y = (planes[0].to(torch.float64) - self.yo) / self.yq
        cb = (self.upsample(planes[1], w, h, phase) - self.co) / self.cq
        cr = (self.upsample(planes[2], w, h, phase) - self.co) / self.cq
        r = y + 2 * (1 - self.kr) * cr
        b = y + 2 * (1 - self.kb) * cb
        g = (y - self.kr * r - self.kb * b) / self.kg
        return torch.stack([r, g, b])

    def code(self, v):
        v = torch.nan_to_num(v, nan=0.0)
        return torch.round(v).clamp(0, self.top).to(torch.int64)

    def downsample(self, plane, cw, ch):
        """The tent of radius s around each chroma sample's siting, normalized inside."""
        h, w = plane.shape

        def weights(n, cn, log2, off):
            s = 1 << log2
            centre = torch.arange(cn, dtype=torch.float64) * s + off
            x = torch.arange(n, dtype=torch.float64)
            wgt = (1 - (x[None, :] - centre[:, None]).abs() / s).clamp(min=0)
            return wgt / wgt.sum(dim=1, keepdim=True)
        wx = weights(w, cw, self.lw, self.off_x)
        wy = weights(h, ch, self.lh, self.off_y)
        return wy @ plane @ wx.T

    def keep(self, plane, cw, ch, phase):
        """A luma model's chroma, of a source cropped at phase: bilinear at
        phase / s, the neighbours clamped to the plane."""
        p = plane.to(torch.float64)
        if phase == (0, 0):
            return plane[:ch, :cw]
        fx, fy = phase[0] / (1 << self.lw), phase[1] / (1 << self.lh)
        xb = (torch.arange(cw) + 1).clamp(max=p.shape[1] - 1)
        yb = (torch.arange(ch) + 1).clamp(max=p.shape[0] - 1)
        a = p[:ch, :cw]
        top = a * (1 - fx) + p[:ch][:, xb] * fx
        bottom = p[yb][:, :cw] * (1 - fx) + p[yb][:, xb] * fx
        return self.code(top * (1 - fy) + bottom * fy)

    def from_tensor(self, t, src_planes, w, h, src_w, src_h, phase=(0, 0)):
        t = torch.nan_to_num(t.to(torch.float64), nan=0.0, posinf=1.0, neginf=0.0)
        if self.packed:
            rgb = [self.code(t[i].clamp(0, 1) * 255) for i in range(3)]
            # alpha passed through when the size is kept; rgb0's padding opaque
            keep = self.alpha and (w, h) == (src_w, src_h)
            alpha = src_planes[3] if keep else torch.full((h, w), 255)
            return rgb + [alpha]
        cw, ch = chroma_size(w, self.lw), chroma_size(h, self.lh)
        if t.shape[0] == 1:
            y = self.code(t[0].clamp(0, 1) * self.top)
            if (w, h) == (src_w, src_h):
                return [y] + [self.keep(p, cw, ch, phase) for p in src_planes[1:3]]
            sw, sh = chroma_size(src_w, self.lw), chroma_size(src_h, self.lh)
            return [y] + [self.resize(p, sw, sh, cw, ch, phase) for p in src_planes[1:3]]
        rgb = t
        luma = self.kr * rgb[0] + self.kg * rgb[1] + self.kb * rgb[2]
        y = self.code(luma * self.yq + self.yo)
        r, g, b = (self.downsample(rgb[i], cw, ch) for i in range(3))
        lm = self.kr * r + self.kg * g + self.kb * b
        cb = (b - lm) / (2 * (1 - self.kb))
        cr = (r - lm) / (2 * (1 - self.kr))
        return [y, self.code(cb * self.cq + self.co), self.code(cr * self.cq + self.co)]

    def resize(self, plane, sw, sh, dw, dh, phase=(0, 0)):
        """Centre-aligned bicubic (B = 0, C = 0.6), stretched when shrinking,
        from sw x sh samples (the plane may hold one more, read past a crop's
        phase, which moves the taps by phase / s)."""
        def cubic(d, scale):
            c = 0.6
            d = d.abs() / scale
            near = ((2 - c) * d - (3 - c)) * d * d + 1
            far = ((-c * d + 5 * c) * d - 8 * c) * d + 4 * c
            return torch.where(d < 1, near, torch.where(d < 2, far, torch.zeros_like(d)))

        def weights(sn, dn, held, shift):
            ratio = sn / dn
            scale = max(ratio, 1.0)
            u = (torch.arange(dn, dtype=torch.float64) + 0.5) * ratio - 0.5 + shift
            # taps past the edges fold onto the edge samples (clamped indices)
            reach = int(2 * scale) + 3
            wgt = torch.zeros(dn, held, dtype=torch.float64)
            for k in range(-reach, held + reach):
                col = min(max(k, 0), held - 1)
                wgt[:, col] += cubic(k - u, scale)
            return wgt / wgt.sum(dim=1, keepdim=True)
        held_h, held_w = plane.shape
        wy = weights(sh, dh, held_h, phase[1] / (1 << self.lh))
        wx = weights(sw, dw, held_w, phase[0] / (1 << self.lw))
        return self.code(wy @ plane.to(torch.float64) @ wx.T)


# ---------------------------------------------------------------- cases


class Case:
    def __init__(self, layout, w, h, matrix="bt709", rng="tv", siting="unspecified",
                 precision="fp32", yuv_input="rgb", model="swap_invert", path="cuda",
                 roundtrip=None, crop=None):
        # roundtrip: "gamut" (an R'G'B' picture inside [0, 1]) or "any" (any
        # codes); crop: (w, h, x, y) of the CUDA frame, exact
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def name(self):
        return "%s %dx%d %s %s %s %s %s %s %s%s%s" % (
            self.layout, self.w, self.h, self.matrix, self.rng, self.siting,
            self.precision, self.yuv_input, self.model, self.path,
            " round trip (%s)" % self.roundtrip if self.roundtrip else "",
            " crop %dx%d+%d+%d" % self.crop if self.crop else "")


def in_gamut_frame(colour, w, h, seed):
    """A smooth R'G'B' picture well inside the gamut, made Y'CbCr by the reference."""
    yy, xx = torch.meshgrid(torch.arange(h, dtype=torch.float64),
                            torch.arange(w, dtype=torch.float64), indexing="ij")
    rgb = torch.stack([0.5 + 0.3 * torch.sin(xx * 0.05 + yy * 0.03 + seed + k) for k in range(3)])
    return colour.from_tensor(rgb, None, w, h, w, h)


def psnr(a, b, top):
    mse = float(((a - b).to(torch.float64) ** 2).mean())
    return 99.99 if mse == 0 else 10 * math.log10(top * top / mse)


def model_function(name):
    if name == "swap_invert":
        return lambda x: 1.0 - torch.flip(x, [1])
    if name == "identity":
        return lambda x: x
    if name == "nearest2x":
        return lambda x: torch.nn.functional.interpolate(x, scale_factor=2.0, mode="nearest")
    raise ValueError(name)


def scale_of(model):
    return 2 if model == "nearest2x" else 1


def run_case(ffmpeg, modeldir, workdir, case, seed):
    base = os.path.join(workdir, "c%d" % seed)
    src, out = base + ".in", base + ".out"
    colour = Colour(case.layout, case.matrix, case.rng in ("pc", "jpeg"), case.siting)
    if case.roundtrip == "gamut":
        planes = in_gamut_frame(colour, case.w, case.h, seed)
    else:
        planes = make_frame(case.layout, case.w, case.h, seed)
    with open(src, "wb") as f:
        f.write(to_bytes(case.layout, planes, case.w, case.h))
    dnn = "dnn_processing=dnn_backend=torch:model=%s:yuv_input=%s:precision=%s" % (
        os.path.join(modeldir, case.model + ".pt"), case.yuv_input, case.precision)
    if case.path == "cuda":
        crop = "crop=%d:%d:%d:%d:exact=1," % case.crop if case.crop else ""
        graph = "hwupload," + crop + dnn + ",hwdownload,format=" + case.layout
        hw = ["-init_hw_device", "cuda=gpu", "-filter_hw_device", "gpu"]
    else:
        graph = dnn + ("" if case.precision == "fp32" else ":device=cuda")
        hw = []
    cmd = [ffmpeg, "-nostdin", "-v", "error"] + hw + [
        "-f", "rawvideo", "-pix_fmt", case.layout, "-s", "%dx%d" % (case.w, case.h),
        "-color_range", case.rng, "-colorspace", case.matrix,
        "-chroma_sample_location", case.siting, "-i", src,
        "-vf", graph, "-f", "rawvideo", "-y", out]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        return case, None, "ffmpeg failed (%d): %s" % (res.returncode, res.stderr.strip()[-400:])
    k = scale_of(case.model)
    got = from_bytes(case.layout, open(out, "rb").read(), case.w * k, case.h * k)
    os.unlink(src)
    os.unlink(out)
    w, h, phase = case.w, case.h, (0, 0)
    if case.crop:
        w, h, x, y = case.crop
        planes, phase = crop_planes(colour, planes, w, h, x, y)
        got, outside = place(colour, got, w * k, h * k, x * k, y * k)
        if outside:
            return case, None, outside
    channels = 3 if colour.packed or case.yuv_input == "rgb" else 1
    tensor = colour.to_tensor(planes, w, h, channels, phase)
    dtype = DTYPES[case.precision]
    with torch.no_grad():
        result = model_function(case.model)(tensor[None].to(dtype))[0]
    want = colour.from_tensor(result, planes, w * k, h * k, w, h, phase)
    diffs = [int((a - b).abs().max()) if a.numel() else 0 for a, b in zip(got, want)]
    if case.roundtrip:
        # identity: the luma comes back within 1 code value (besides matching
        # the reference); the chroma is filtered (up, then down): its PSNR
        # against the source is reported
        chroma = [psnr(g, p, colour.top) for g, p in zip(got[1:], planes[1:])]
        print("  %s: chroma PSNR %.2f / %.2f dB" % (case.name(), chroma[0], chroma[1]), file=sys.stderr)
        luma = int((got[0] - planes[0]).abs().max())
        if luma > 1:
            return case, None, "the luma came back off by %d code values" % luma
    tol = 1
    if case.precision != "fp32":
        step = 2.0 ** (-10 if case.precision == "fp16" else -7)
        tol = 1 + math.ceil(step * colour.top)
    if case.path == "cpu" and case.yuv_input == "luma" and scale_of(case.model) != 1:
        tol = 4  # chroma resized by upstream's swscale (fixed-point bicubic) on this path
    return case, diffs, tol


def crop_planes(colour, planes, w, h, x, y):
    """The planes of a crop: the luma exactly, the chroma samples whose
    blocks hold a visible pixel, and their phase."""
    if colour.packed:
        return [p[y:y + h, x:x + w] for p in planes], (0, 0)
    sx, sy = 1 << colour.lw, 1 << colour.lh
    phase = (x % sx, y % sy)
    cw, ch = chroma_size(w + phase[0], colour.lw), chroma_size(h + phase[1], colour.lh)
    cx, cy = x >> colour.lw, y >> colour.lh
    return [planes[0][y:y + h, x:x + w]] + [p[cy:cy + ch, cx:cx + cw] for p in planes[1:]], phase


def place(colour, got, w, h, x, y):
    """The visible picture of an output frame whose crop starts at (x, y)
    rounded down to a chroma sample, and what is wrong outside it (not
    black), or None."""
    if colour.packed:
        black = [0, 0, 0, 255]
        rects = [(x, y, w, h)] * 4
    else:
        x &= ~((1 << colour.lw) - 1)
        y &= ~((1 << colour.lh) - 1)
        black = [int(colour.yo), int(colour.co), int(colour.co)]
        c = (x >> colour.lw, y >> colour.lh, chroma_size(w, colour.lw), chroma_size(h, colour.lh))
        rects = [(x, y, w, h), c, c]
    visible, wrong = [], []
    for i, (p, (rx, ry, rw, rh)) in enumerate(zip(got, rects)):
        visible.append(p[ry:ry + rh, rx:rx + rw].clone())
        outside = p.clone()
        outside[ry:ry + rh, rx:rx + rw] = black[i]
        bad = int((outside != black[i]).sum())
        if bad:
            wrong.append("plane %d: %d samples outside the crop are not black (%d)" % (i, bad, black[i]))
    return visible, "; ".join(wrong) or None


def layouts_of(path):
    if path == "cpu":  # what dnn_processing takes in system memory
        return ["yuv420p", "yuv422p", "yuv444p", "yuv410p", "yuv411p", "nv12"]
    return ["nv12", "p010le", "p012le", "p016le", "nv16", "p210le", "p212le", "p216le",
            "yuv420p", "yuv422p", "yuv444p", "yuv420p10le", "yuv422p10le", "yuv444p10le",
            "yuv444p10msble", "yuv444p12msble", "yuv444p16le", "rgb0", "bgr0", "rgba", "bgra"]


def case_set(name):
    path = "cpu" if name.startswith("cpu") else "cuda"
    layouts = layouts_of(path)
    yuv = [l for l in layouts if LAYOUTS[l][0] != "packed"]
    cases = []
    # every layout at an odd size, the matrices in turn
    mats = list(MATRICES)
    for i, l in enumerate(layouts):
        cases.append(Case(l, 317, 239, matrix=mats[i % len(mats)], rng="tv" if i % 2 else "pc", path=path))
    # every matrix x range on the 8- and 10-bit 4:2:0 layouts
    for l in ([yuv[0], "p010le"] if path == "cuda" else [yuv[0], "nv12"]):
        for m in MATRICES:
            for r in ("tv", "pc"):
                cases.append(Case(l, 64, 48, matrix=m, rng=r, path=path))
    # every siting on the subsampled layouts
    for l in [x for x in yuv if LAYOUTS[x][3] or LAYOUTS[x][4]][:6]:
        for s in SITINGS:
            cases.append(Case(l, 66, 50, siting=s, path=path))
    # luma models: chroma kept, and resized with the frame
    for l in yuv[:4]:
        cases.append(Case(l, 64, 48, yuv_input="luma", model="identity", path=path))
        cases.append(Case(l, 62, 46, yuv_input="luma", model="nearest2x", path=path))
    # identity round trips of in-gamut pictures, 8- and 10-bit, and of any
    # codes (R'G'B' beyond [0, 1]: the luma comes back all the same)
    for l in (["nv12", "p010le", "yuv420p", "p210le"] if path == "cuda" else ["nv12", "yuv420p"]):
        for m in ("bt709", "bt2020nc"):
            cases.append(Case(l, 320, 240, matrix=m, model="identity", path=path, roundtrip="gamut"))
    for l in (["nv12", "p010le", "p016le", "yuv420p10le", "p210le", "yuv444p16le"]
              if path == "cuda" else ["nv12", "yuv420p", "yuv422p", "yuv410p"]):
        for r in ("tv", "pc"):
            cases.append(Case(l, 320, 240, rng=r, model="identity", path=path, roundtrip="any"))
    if path == "cuda":
        # crops at every phase of the chroma, odd sizes: R'G'B' and luma
        # models, the same size and twice it; black around the output
        for l in ("nv12", "p010le", "yuv420p", "nv16", "yuv444p", "rgb0", "bgra"):
            for crop in ((100, 60, 13, 7), (101, 61, 13, 7), (100, 60, 12, 7), (99, 59, 14, 6)):
                cases.append(Case(l, 160, 120, path=path, crop=crop))
        for l in ("nv12", "p010le", "nv16"):
            for model in ("identity", "nearest2x"):
                cases.append(Case(l, 160, 120, yuv_input="luma", model=model, path=path,
                                  crop=(101, 61, 13, 7)))
            cases.append(Case(l, 160, 120, model="nearest2x", path=path, crop=(101, 61, 13, 7)))
            cases.append(Case(l, 160, 120, siting="topleft", path=path, crop=(100, 60, 13, 7)))
    if path == "cuda":
        for p in ("fp16", "bf16"):
            for l in ("rgb0", "nv12", "p010le", "yuv444p16le", "p216le"):
                cases.append(Case(l, 317, 239, precision=p, path=path))
        for size in ((1, 1), (2, 2), (317, 239), (641, 479), (1920, 1080)):
            for l in ("nv12", "p010le", "yuv420p", "yuv444p16le", "bgra"):
                cases.append(Case(l, size[0], size[1], path=path))
    return cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ffmpeg")
    ap.add_argument("modeldir")
    ap.add_argument("workdir")
    ap.add_argument("set", choices=["cpu", "cuda"])
    ap.add_argument("--jobs", type=int, default=4)
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    cases = case_set(args.set)
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_case, args.ffmpeg, args.modeldir, args.workdir, c, i)
                   for i, c in enumerate(cases)]
        for fut in futures:
            case, diffs, tol = fut.result()
            if diffs is None:
                print("FAIL %s: %s" % (case.name(), tol))
                failed += 1
                continue
            ok = max(diffs) <= tol
            failed += not ok
            # the details on stderr; stdout (FATE's reference) says what failed
            print("%s %s: max |diff| per plane %s (tolerance %d)" % (
                "ok  " if ok else "FAIL", case.name(), diffs, tol),
                file=sys.stderr if ok else sys.stdout)
    print("%d cases, %s" % (len(cases), "%d failed" % failed if failed else "all within tolerance"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
