#!/usr/bin/env python3
"""Community models for the torch backend's FATE tests: weights of known
architectures, as people download them, made here with random weights.

    community_models.py make OUTDIR
    community_models.py demo OUT.pth
    community_models.py reference WEIGHTS IN W H OUT

make writes state dicts of small instances of architectures that spandrel
recognises (the format people hold: .pth, .safetensors), with nothing that
says what they are: tools/dnn-torch-export.py must find the architecture,
its scale and channels from the weights alone.  reference runs spandrel's
own eager model of WEIGHTS on the rgb24 frames of IN (W x H) and writes
what dnn_processing would write for them to OUT.  demo writes the weights
make demo runs (tools/dnn-torch-demo.sh).
"""
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import torch  # noqa: E402


def instances():
    """{file name: module}: small, so that make check exports them quickly,
    yet the architecture's real structure (spandrel reads the structure's
    sizes from the weights)."""
    from spandrel.architectures.Compact import Compact
    from spandrel.architectures.SPAN import SPAN
    from spandrel.architectures.SwinIR import SwinIR
    return {
        # Real-ESRGAN's SRVGGNetCompact (realesr-general-x4v3 and the like)
        "compact.pth": Compact(num_in_ch=3, num_out_ch=3, num_feat=16, num_conv=4, upscale=2),
        # SPAN, re-parameterizable convolutions folded at export
        "span.safetensors": SPAN(num_in_ch=3, num_out_ch=3, feature_channels=16, upscale=2),
        # a transformer: shifted windows, padded to them inside
        "swinir.pth": SwinIR(img_size=16, in_chans=3, embed_dim=24, depths=[2, 2],
                             num_heads=[2, 2], window_size=4, mlp_ratio=2, upscale=2,
                             upsampler="pixelshuffledirect"),
    }


def make(outdir):
    for name, module in instances().items():
        torch.manual_seed(len(name))
        with torch.no_grad():
            # random weights of the scale trained ones have (the default
            # initialisation leaves some at zero or one)
            for p in module.parameters():
                p.copy_(torch.randn_like(p) * 0.1)
        state = {k: v.contiguous() for k, v in module.state_dict().items()}
        path = os.path.join(outdir, name)
        if name.endswith(".safetensors"):
            from safetensors.torch import save_file
            save_file(state, path)
        else:
            torch.save(state, path)


def demo(out):
    """Weights of Real-ESRGAN's Compact x2 at the size of its video models
    (64 features, 16 convolutions), as make demo exports and runs them: the
    last convolution zeroed, so that the untrained network still makes a
    picture (Compact adds its output to the nearest-upscaled input)."""
    from spandrel.architectures.Compact import Compact
    torch.manual_seed(0)
    module = Compact(num_in_ch=3, num_out_ch=3, num_feat=64, num_conv=16, upscale=2)
    last = [m for m in module.modules() if isinstance(m, torch.nn.Conv2d)][-1]
    with torch.no_grad():
        last.weight.zero_()
        last.bias.zero_()
    torch.save(module.state_dict(), out)


def reference(weights, inp, w, h, out):
    import spandrel
    model = spandrel.ModelLoader().load_from_file(weights).model.eval()
    data = open(inp, "rb").read()
    assert len(data) % (w * h * 3) == 0
    frames = torch.frombuffer(bytearray(data), dtype=torch.uint8).view(-1, h, w, 3)
    with open(out, "wb") as f, torch.no_grad():
        for frame in frames:
            x = frame.permute(2, 0, 1).unsqueeze(0).float() / 255.0
            y = (model(x).clamp(0, 1) * 255.0).round().to(torch.uint8)
            f.write(bytes(y[0].permute(1, 2, 0).flatten().tolist()))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "make":
        make(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "demo":
        demo(sys.argv[2])
    elif len(sys.argv) == 7 and sys.argv[1] == "reference":
        reference(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    else:
        sys.exit(__doc__)
