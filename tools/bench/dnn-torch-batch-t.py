#!/usr/bin/env python3
# What batching several output times of one pair would give (factor 4:
# t = 1/4, 1/2, 3/4 as a batch of 3) against one run per t, for
# tests/dnn/temporal_models.py's IFNetBench in fp16, channels-last, at
# 1920x1080: eager and TorchScript (frozen, optimized), each with and without
# a CUDA graph.  Needs a CUDA GPU; doc/benchmarks.md gives its figures.
#
#   python3 tools/bench/dnn-torch-batch-t.py
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "dnn"))
import temporal_models as tm  # noqa: E402

class Batched(tm.IFNetBench):
    """IFNetBench with one t per batch entry."""

    def forward(self, earlier, later, t):
        n, _, h, w = earlier.shape
        img0, img1 = earlier, later
        tt = t.to(img0.dtype).reshape(n, 1, 1, 1).expand(n, 1, h, w)
        flow, mask = self.blocks[0](torch.cat((img0, img1, tt), 1), self.scales[0])
        warped0 = tm.backward_warp(img0, flow[:, :2]); warped1 = tm.backward_warp(img1, flow[:, 2:4])
        for i, block in enumerate(self.blocks):
            if i > 0:
                d_flow, d_mask = block(torch.cat((warped0, warped1, tt, mask, flow), 1), self.scales[i])
                flow = flow + d_flow; mask = mask + d_mask
                warped0 = tm.backward_warp(img0, flow[:, :2]); warped1 = tm.backward_warp(img1, flow[:, 2:4])
        m = torch.sigmoid(mask)
        return warped0 * m + warped1 * (1 - m)

torch.backends.cudnn.benchmark = True
dev = "cuda"; h, w = 1080, 1920
model = Batched().to(dev).half().to(memory_format=torch.channels_last).eval()

def inputs(b):
    a = torch.rand(1, 3, h, w, device=dev, dtype=torch.half).to(memory_format=torch.channels_last)
    c = torch.rand(1, 3, h, w, device=dev, dtype=torch.half).to(memory_format=torch.channels_last)
    t = torch.tensor([0.25, 0.5, 0.75][:b] if b > 1 else [0.5], device=dev)
    return a.expand(b, -1, -1, -1).contiguous(memory_format=torch.channels_last), \
           c.expand(b, -1, -1, -1).contiguous(memory_format=torch.channels_last), t

def timeit(fn, secs=2.0):
    for _ in range(5): fn()
    torch.cuda.synchronize(); n = 0; s = time.perf_counter()
    while time.perf_counter() - s < secs:
        for _ in range(10): fn()
        n += 10; torch.cuda.synchronize()
    return n / (time.perf_counter() - s)

def graphed(f, args):
    for _ in range(3): f(*args)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph(); s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        with torch.cuda.graph(g): out = f(*args)
    torch.cuda.current_stream().wait_stream(s)
    return g.replay

with torch.no_grad():
    ts = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.script(model)))
    for name, f in (("eager", model), ("torchscript", ts)):
        for b in (1, 3):
            args = inputs(b)
            for graph in (0, 1):
                fn = graphed(f, args) if graph else (lambda: f(*args))
                runs = timeit(fn)
                print("%-11s batch %d graph %d: %6.1f runs/s, %6.1f output frames/s (factor 4: %6.1f input frames/s)"
                      % (name, b, graph, runs, runs * b, runs * b / 3), flush=True)
