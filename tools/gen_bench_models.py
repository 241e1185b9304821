#!/usr/bin/env python3
"""Make the TorchScript models of tools/dnn-torch-bench.sh.

    gen_bench_models.py OUTDIR

Each model takes a float 1x3xHxW frame in [0, 1] (fp32, eval mode, weights from
a fixed seed so that every run benchmarks the same network):

    identity.pt   returns its input: the cost of the backend alone
    conv3x3.pt    3x3 conv 3->16, ReLU, 3x3 conv 16->3: a light network
    espcn_x2.pt   ESPCN 2x super-resolution (64/32 channels): 1x3x(2H)x(2W)
"""
import os
import sys
import warnings

# torch warns when numpy is missing; it is not needed here
warnings.filterwarnings("ignore")
import torch  # noqa: E402


class Identity(torch.nn.Module):
    """No parameters at all."""

    def forward(self, x):
        return x


class Conv3x3(torch.nn.Module):
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


MODELS = {
    "identity": Identity,
    "conv3x3": Conv3x3,
    "espcn_x2": ESPCNx2,
}


def generate(outdir):
    os.makedirs(outdir, exist_ok=True)
    for name, cls in MODELS.items():
        torch.manual_seed(0)  # same weights on every run and machine
        model = cls().float().eval()
        torch.jit.script(model).save(os.path.join(outdir, name + ".pt"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    generate(sys.argv[1])
