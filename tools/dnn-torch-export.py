#!/usr/bin/env python3
"""Export a PyTorch module for FFmpeg's dnn_processing (LibTorch backend).

    dnn-torch-export.py MODULE OUTPUT [options]
    dnn-torch-export.py WEIGHTS OUTPUT [options]

MODULE is path/to/file.py:Class or package.module:Class, constructed without
arguments (--args gives them as JSON); --checkpoint loads a state_dict into
it.  WEIGHTS is a community model's .pth, .pt, .ckpt or .safetensors file:
its architecture (Real-ESRGAN's RRDBNet and Compact, SwinIR, HAT, DAT, SPAN,
OmniSR, RealPLKSR...), scale, channels and size requirements are recognised
by spandrel (scripts/install-deps.sh --spandrel).  OUTPUT is a .pt2 package
(torch.export + AOTInductor: compiled ahead of time, the faster and current
format) or, with --format torchscript, a TorchScript file.

--inputs says what forward takes: one frame (dnn_processing, the default);
pair: two frames and t (a 0-D tensor, or with --t-plane a 1x1xHxW plane),
for dnn_interpolate (--batch N: up to N output times of the pair in one
run, dnn_interpolate's batch=N: the pair repeated once for each time and t
of shape [N, 1, 1, 1] or N x 1 x H x W); stacked:N, N frames on the channels, or sequence:N, N
frames as 1 x N x C x H x W, for dnn_processing's frames=N (window=stacked
or sequence); recurrent: a frame and a state, None at first, returning
(frame, state), for recurrent=1 (a .pt2 package holds two programs of the
module: "start", compiled with the state None, for the first frame and
after a reset, and "model", with the state the frame before left).  --sigma plane|0-d
adds a noise level after the frames (sigma, sigma_plane).  The module is
run so before it is written, and an error names a signature that does not
fit; the package records the signature, which the filter checks.

A .pt2 package's compiled code does not check its input, so the package
records what it takes (metadata keys ffmpeg_dnn_*: dtype, memory format,
channels, height and width ranges, torch version); the backend checks every
frame against them and runs no package without them.  By default height and
width are dynamic (--min-size to --max-size); --static WxH compiles for one
size: a package for the video's size is the faster one on a GPU, and
--autotune picks the fastest kernels by timing them at compile time.
In a CUDA package grid_sample and bilinear resizing stay LibTorch's own
kernels (--aten-kernels): Inductor's, which it fuses into every consumer,
repeat the gathers of each sample there, and are the slower ones for flow
networks such as RIFE's IFNet (doc/benchmarks.md).  Inductor plans a
package's buffers by torch's meta functions, and torch's meta of bilinear
resizing gives a channels-last input of fewer than 16 channels on CUDA a
contiguous result, where LibTorch's kernel keeps it channels-last; the
tool makes such inputs contiguous, so that the package reads the results
with the strides the kernel writes.
CPU packages hold code for the CPU they are compiled on; CUDA ones
kernels for the GPU's architecture (its compute capability, recorded in
ffmpeg_dnn_cuda_capability and checked by the backend).

Then the result is checked against the module in eager PyTorch on a random
frame (in a separate process: some torch builds' Python loader of .pt2
packages crashes), and what it takes and the largest error are printed.
Exit status: 0, or 1 with a message.
"""
import argparse
import contextlib
import functools
import importlib
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

warnings.filterwarnings("ignore")
import torch  # noqa: E402
from torch.fx.experimental.symbolic_shapes import is_concrete_int  # noqa: E402

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
# the example's size: not 0 or 1 (torch.export specializes those), even
EXAMPLE_HW = (66, 98)


def fail(message):
    print("error: " + message, file=sys.stderr)
    sys.exit(1)


def reason(error):
    """The first line of an exception's message that says something: torch's
    messages may start with the graph or source they are about."""
    for line in str(error).splitlines():
        text = line.strip()
        if text and not line[:1].isspace() and not text.startswith(("def ", "class ", "File ")) \
           and '"f32[' not in text and '"f16[' not in text:
            return text[:300]
    return type(error).__name__


def load_class(spec):
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name:
        fail("MODULE must be file.py:Class or module:Class, not %r" % spec)
    if where.endswith(".py"):
        if not os.path.isfile(where):
            fail("no such file: %s" % where)
        module_spec = importlib.util.spec_from_file_location("exported_model", where)
        module = importlib.util.module_from_spec(module_spec)
        sys.path.insert(0, os.path.dirname(os.path.abspath(where)))
    try:
        if where.endswith(".py"):
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
    except Exception as e:
        fail("could not import %s: %s: %s" % (where, type(e).__name__, reason(e)))
    if not hasattr(module, name):
        fail("%s has no %s" % (where, name))
    return getattr(module, name)


def parse_size(text, what):
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        fail("%s must be WIDTHxHEIGHT, not %r" % (what, text))
    if w < 2 or h < 2:
        fail("%s must be at least 2x2" % what)
    return w, h


WEIGHT_SUFFIXES = (".pth", ".pt", ".ckpt", ".safetensors")
SPANDREL_HINT = ("scripts/install-deps.sh --spandrel, or pip install spandrel==0.4.2 "
                 "torchvision==0.26.0 for torch 2.11")


def is_weights(spec):
    if not spec.lower().endswith(WEIGHT_SUFFIXES):
        return False
    if not os.path.isfile(spec):
        fail("no such file: %s" % spec)
    return True


def freeze_reparameterized(module):
    """Convolutions that fold their training branches into one kernel on
    every call in eval mode (SPAN's Conv3XC, and the like: update_params()
    then eval_conv): folded once here, so that export sees weights, not
    tensors made in forward."""
    for m in module.modules():
        if callable(getattr(m, "update_params", None)) and isinstance(
                getattr(m, "eval_conv", None), torch.nn.Module):
            with torch.no_grad():
                m.update_params()
            m.update_params = lambda: None
    return module


class PadToMultiple(torch.nn.Module):
    """An architecture that takes sizes that are multiples of a number: the
    input padded to one (its edges replicated), the output cropped back."""

    def __init__(self, model, multiple, scale):
        super().__init__()
        self.model, self.multiple, self.scale = model, multiple, scale

    def forward(self, x):
        h, w = x.shape[2], x.shape[3]
        pad_h = (self.multiple - h % self.multiple) % self.multiple
        pad_w = (self.multiple - w % self.multiple) % self.multiple
        y = self.model(torch.nn.functional.pad(x, (0, pad_w, 0, pad_h), mode="replicate"))
        return y[:, :, :h * self.scale, :w * self.scale]


class SpandrelCall(torch.nn.Module):
    """An architecture whose forward returns more than the picture (FBCNN
    its quality factor too, MMRealSR its degradation estimate): the picture
    alone, taken from it as spandrel's own call of the model does."""

    def __init__(self, model, call):
        super().__init__()
        self.model, self.call = model, call

    def forward(self, x):
        return self.call(self.model, x)


def picture_only(desc, module):
    """module, or module wrapped in SpandrelCall where its output is not one
    tensor (tried on a small random picture)."""
    req = desc.size_requirements
    side = max(req.minimum, 16)
    side += (req.multiple_of - side % req.multiple_of) % req.multiple_of
    with torch.no_grad():
        y = module(torch.rand(1, desc.input_channels, side, side))
    if isinstance(y, torch.Tensor):
        return module
    call = getattr(desc, "_call_fn", None)  # spandrel 0.4.2, pinned in UPSTREAM
    if call is None:
        fail("%s returns %s, and spandrel says not which part is the picture" %
             (desc.architecture.name, type(y).__name__))
    return SpandrelCall(module, call)


def load_weights(path, args):
    """A community model's weights: the module spandrel makes of them, and
    what it says of the architecture."""
    try:
        import spandrel
    except ImportError:
        fail("%s holds weights only: recognising their architecture needs spandrel (%s)" %
             (path, SPANDREL_HINT))
    try:
        desc = spandrel.ModelLoader().load_from_file(path)
    except spandrel.UnsupportedModelError:
        fail("spandrel recognises no architecture in %s" % path)
    except Exception as e:
        fail("spandrel could not load %s: %s" % (path, reason(e)))
    name = desc.architecture.name
    if not isinstance(desc, spandrel.ImageModelDescriptor):
        fail("%s is a %s model for %s: dnn_processing takes image-to-image models" %
             (path, name, desc.purpose))
    if desc.input_channels != desc.output_channels:
        fail("%s (%s) takes %d channels and returns %d: dnn_processing needs as many out "
             "as in" % (path, name, desc.input_channels, desc.output_channels))
    if args.precision == "fp16" and not desc.supports_half or \
       args.precision == "bf16" and not desc.supports_bfloat16:
        fail("%s does not run in %s (spandrel says so): use fp32" % (name, args.precision))
    req = desc.size_requirements
    if req.square:
        fail("%s needs square input, which dnn_processing does not give" % name)
    module = picture_only(desc, freeze_reparameterized(desc.model.eval()))
    if req.multiple_of > 1:
        module = PadToMultiple(module, req.multiple_of, desc.scale)
    return module, {"name": name, "scale": desc.scale, "channels": desc.input_channels,
                    "minimum": max(req.minimum, 2), "multiple_of": req.multiple_of}


def build_module(args):
    if is_weights(args.module):
        module, args.architecture = load_weights(args.module, args)
        return module
    cls = load_class(args.module)
    try:
        given = json.loads(args.args)
    except ValueError as e:
        fail("--args is no JSON: %s" % e)
    if not isinstance(given, (list, dict)):
        fail("--args must be a JSON list of the class's arguments, or an object of its "
             "keyword arguments, not %s" % args.args)
    try:
        module = cls(*given) if isinstance(given, list) else cls(**given)
    except Exception as e:
        fail("%s(%s): %s" % (getattr(cls, "__name__", args.module), args.args, reason(e)))
    if args.checkpoint:
        if not os.path.isfile(args.checkpoint):
            fail("no such file: %s" % args.checkpoint)
        try:
            state = torch.load(args.checkpoint, map_location="cpu", weights_only=True)
        except Exception as e:
            fail("could not read the state_dict %s (a file of torch.save(module.state_dict()) "
                 "is needed): %s" % (args.checkpoint, reason(e)))
        try:
            module.load_state_dict(state)
        except Exception as e:
            # torch's first line names the class; the next, which keys differ
            lines = [line.strip() for line in str(e).splitlines() if line.strip()]
            fail("%s does not fit %s: %s" % (args.checkpoint, getattr(cls, "__name__", args.module),
                                             (lines[1] if len(lines) > 1 else reason(e))[:300]))
    return module.eval()


def size_ranges(args):
    """(min, max) of height and width, and the example's (height, width)."""
    if args.static:
        w, h = parse_size(args.static, "--static")
        return {"height": (h, h), "width": (w, w)}, (h, w)
    min_side = args.min_size
    if args.architecture:
        min_side = max(min_side, args.architecture["minimum"])
    max_w, max_h = parse_size(args.max_size, "--max-size")
    if min_side < 2 or min_side > min(max_w, max_h):
        fail("--min-size must be 2 to the smaller side of --max-size")
    example = (max(min_side, min(EXAMPLE_HW[0], max_h)), max(min_side, min(EXAMPLE_HW[1], max_w)))
    return {"height": (min_side, max_h), "width": (min_side, max_w)}, example


def range_text(lo_hi):
    """As the metadata says it: "N" (static) or "MIN-MAX"."""
    lo, hi = lo_hi
    return str(lo) if lo == hi else "%d-%d" % (lo, hi)


# x86 instruction sets a compiler may use for such code, as its preprocessor
# names them (__AVX2__...) and as Linux's /proc/cpuinfo does
X86_FEATURES = {
    "AVX": "avx", "AVX2": "avx2", "FMA": "fma", "F16C": "f16c", "BMI": "bmi1", "BMI2": "bmi2",
    "AVXVNNI": "avx_vnni", "AVX512F": "avx512f", "AVX512DQ": "avx512dq", "AVX512BW": "avx512bw",
    "AVX512VL": "avx512vl", "AVX512CD": "avx512cd", "AVX512VNNI": "avx512_vnni",
    "AVX512BF16": "avx512_bf16", "AVX512FP16": "avx512_fp16", "AVX512VBMI": "avx512vbmi",
    "AVX512VBMI2": "avx512_vbmi2", "AVX512IFMA": "avx512ifma", "AVX512BITALG": "avx512_bitalg",
    "AVX512VPOPCNTDQ": "avx512_vpopcntdq", "AMX_TILE": "amx_tile", "AMX_BF16": "amx_bf16",
    "AMX_INT8": "amx_int8", "AMX_FP16": "amx_fp16", "GFNI": "gfni", "VAES": "vaes",
    "VPCLMULQDQ": "vpclmulqdq",
}


def cpu_features():
    """The instruction sets AOTInductor's compiler enables with -march=native
    here: a CPU package's code may use any of them, so the filter checks
    that the CPU running it has them all."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return ""
    from torch._inductor.cpp_builder import get_cpp_compiler
    try:
        run = subprocess.run([get_cpp_compiler(), "-march=native", "-dM", "-E", "-x", "c++",
                              os.devnull], capture_output=True, text=True)
    except Exception as e:
        fail("a CPU package is compiled with a C++ compiler, and there is none (CXX): %s" %
             reason(e))
    if run.returncode != 0:
        fail("could not ask the C++ compiler what -march=native enables: %s" %
             (run.stderr.strip().splitlines() or ["no message"])[-1])
    macros = set(re.findall(r"#define __(\w+)__ 1", run.stdout))
    return " ".join(sorted(flag for macro, flag in X86_FEATURES.items() if macro in macros))


def export_program(module, inputs, sizes, args):
    """torch.export of module on the example inputs, for the size ranges (a
    community architecture: the sizes its padding allows)."""
    x = inputs[0]
    dynamic = None
    if not args.static:
        dynamic = dynamic_shapes(args, sizes, inputs)
    if dynamic and (args.architecture or args.inputs != ("frame", 1)):
        # community architectures pad to their windows inside, and models of
        # several frames tie their sizes together: torch.export derives the
        # sizes' constraints itself (below: never one size only)
        batch = torch.export.Dim("batch", min=1, max=args.batch) if args.batch > 1 else None
        dynamic = tuple(None if d is None else
                        {(0 if k == "batch" else k): batch if k == "batch" else torch.export.Dim.AUTO
                         for k in d} for d in dynamic)
    try:
        program = torch.export.export(module, tuple(inputs), dynamic_shapes=dynamic)
    except Exception as e:  # torch.export's own errors say what to change
        what = "torch.export failed"
        if args.architecture:
            what = "%s cannot be exported to .pt2: torch.export failed" % args.architecture["name"]
        fail("%s: %s" % (what, reason(e)))
    user_inputs = set(program.graph_signature.user_inputs)
    first = next(n for n in program.graph.nodes if n.op == "placeholder" and n.name in user_inputs)
    # a size torch.export specialised is a concrete int (or a SymInt of one)
    if dynamic and any(is_concrete_int(d) for d in first.meta["val"].shape[-2:]):
        fail("%s cannot be exported for any size: torch.export made it for %dx%d only "
             "(--static WxH exports it for one size)" % (
                 args.architecture["name"] if args.architecture else "the module",
                 x.shape[-1], x.shape[-2]))
    if dynamic:
        sizes_compiled(program, first.meta["val"].shape[-2:], sizes, args)
    if args.batch > 1:
        batch_compiled(program, first.meta["val"].shape[0], args)
    return program


def batch_compiled(program, dim, args):
    """A pair of --batch N: one to N times, as torch.export made it."""
    bounds = program.range_constraints.get(dim.node.expr) if not is_concrete_int(dim) else None
    if bounds is None or finite(bounds.lower, 1) > 1 or finite(bounds.upper, args.batch) < args.batch:
        fail("the module cannot be exported for 1 to %d times a run: torch.export made its "
             "batch %s (export it without --batch)" % (
                 args.batch, dim if bounds is None else "%s to %s" % (bounds.lower, bounds.upper)))


def finite(bound, otherwise):
    """A bound of torch.export's ranges as an int; otherwise where it is infinite."""
    try:
        return int(bound)
    except (TypeError, ValueError, AttributeError, OverflowError):
        return otherwise


def sizes_compiled(program, dims, sizes, args):
    """The recorded size ranges within those the program was compiled for:
    torch.export derives them itself where Dim.AUTO is given (and may
    narrow them, or take only multiples of a number, which is refused)."""
    who = args.architecture["name"] if args.architecture else "the module"
    for name, dim in zip(("height", "width"), dims):
        expr = dim.node.expr
        if not expr.is_Symbol:
            fail("%s takes only a %s of the form %s after torch.export (--static WxH exports "
                 "it for one size)" % (who, name, expr))
        bounds = program.range_constraints.get(expr)
        if bounds is None:
            continue
        lo, hi = sizes[name]
        lo = max(lo, finite(bounds.lower, lo))
        hi = min(hi, finite(bounds.upper, hi))
        if lo > hi:
            fail("%s takes no %s from %d to %d after torch.export" % (who, name, *sizes[name]))
        if (lo, hi) != tuple(sizes[name]):
            print("note: torch.export takes a %s from %d to %d: recorded so" % (name, lo, hi))
            sizes[name] = (lo, hi)


# --aten-kernels: the operations of each name, as torch.export and Inductor
# see them; the first is the one the package calls
ATEN_KERNELS = {
    "grid_sample": ("grid_sampler_2d.default",),
    "bilinear": ("upsample_bilinear2d.default", "upsample_bilinear2d.vec",
                 "upsample_bilinear2d.out"),
}


def parse_aten_kernels(text):
    if text == "auto":
        return None
    names = [] if text == "none" else text.split(",")
    for name in names:
        if name not in ATEN_KERNELS:
            raise argparse.ArgumentTypeError("%r is not one of %s, none or auto" % (
                name, ", ".join(ATEN_KERNELS)))
    return tuple(names)


def aten_op(name):
    packet, overload = name.split(".")
    return getattr(getattr(torch.ops.aten, packet), overload)


def bilinear_by_size(x, output_size, align_corners, scale_factors):
    """upsample_bilinear2d.vec as a call of the operation for an output
    size, the size computed as PyTorch's decomposition does."""
    from torch._decomp.decompositions import upsample_compute_output_size
    size = upsample_compute_output_size(x.size(), output_size, scale_factors)
    scales = scale_factors if scale_factors else (None, None)
    return torch.ops.aten.upsample_bilinear2d.default(x, size, align_corners, *scales)


@functools.lru_cache(maxsize=None)
def bilinear_meta_keeps_channels_last(device_type, dtype, channels):
    """Whether torch's meta of bilinear resizing, by which Inductor plans
    the buffers of a package, gives a channels-last input of these channels
    a channels-last result, as LibTorch's kernel does: torch 2.11's says
    contiguous for fewer than 16 channels on CUDA."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        x = torch.empty(1, channels, 3, 3, device=device_type, dtype=dtype).contiguous(
            memory_format=torch.channels_last)
        y = torch.ops.aten.upsample_bilinear2d.default(x, [6, 6], False)
    return y.is_contiguous(memory_format=torch.channels_last)


def bilinear_input_layout(fx_node, x, *args, **kwargs):
    """Inductor's layout constraint on the input of LibTorch's bilinear
    resizing in a package: contiguous where the meta and the kernel would
    disagree on the result's strides.  The proxy executor hands on the
    tensor the kernel returns, in the input's memory format, and the
    package's code reads it with the strides the meta gave: a channels-last
    input of few channels on CUDA would be read as a contiguous result
    (wrong frames).  A contiguous input gives a contiguous result in both."""
    from torch._inductor import ir
    channels, device = x.get_size()[1], x.get_device().type
    if isinstance(channels, int) or getattr(channels, "is_number", False):
        keep = bilinear_meta_keeps_channels_last(device, x.get_dtype(), int(channels))
    else:
        # a symbolic count on CUDA: contiguous, right whatever it is
        keep = device != "cuda"
    if not keep:
        x = ir.ExternKernel.require_contiguous(x)
    return (x, *args), kwargs


# the layout constraints of the operations a package calls (see their
# docstrings), in Inductor's form: (fx_node, *args, **kwargs) -> (args, kwargs)
ATEN_KERNEL_LAYOUTS = {torch.ops.aten.upsample_bilinear2d.default: bilinear_input_layout}


@contextlib.contextmanager
def aten_kernels(names):
    """Within it, torch.export and Inductor keep the operations of names
    as calls of LibTorch's kernels (a package runs them through its proxy
    executor): Inductor decomposes them otherwise, into loads it inlines in
    every consumer, which repeat the gathers of a sample per channel and
    per consumer.  Their entries in Inductor's decomposition table, their
    Python decompositions and Inductor's lowerings of them are put back on
    the way out."""
    from torch._C import DispatchKey
    from torch._inductor import decomposition, lowering
    ops = [aten_op(name) for kernel in names for name in ATEN_KERNELS[kernel]]
    called = [aten_op(ATEN_KERNELS[kernel][0]) for kernel in names]
    taken = {op: decomposition.decompositions.pop(op) for op in ops
             if op in decomposition.decompositions}
    keys = (DispatchKey.CompositeImplicitAutograd, DispatchKey.Autograd)
    python_kernels = [(op, key, op.py_kernels.pop(key)) for op in ops for key in keys
                      if key in op.py_kernels]
    if "bilinear" in names:
        # the size given as scale factors computed here, where it stays
        # symbolic (LibTorch's own computation would fix it to the example's)
        for key in keys:
            torch.ops.aten.upsample_bilinear2d.vec.py_kernels[key] = bilinear_by_size
    for op in ops:
        op._dispatch_cache.clear()
    decomposition.fast_random_decomps.cache_clear()
    # the lowering Inductor would make itself for an operation it has no
    # decomposition of (layout as it is), but without its check that no
    # decomposition exists anywhere, which fails where CI is set
    lowered = [(op, lowering.lowerings.get(op), op in lowering.fallbacks,
                op in lowering.needs_realized_inputs, lowering._maybe_layout_constraints.get(op))
               for op in called]
    for op in called:
        lowering.make_fallback(op, layout_constraint=ATEN_KERNEL_LAYOUTS.get(op), warn=False)
    try:
        yield
    finally:
        for op, lower, fallback, realized, layout in lowered:
            if lower is None:
                lowering.lowerings.pop(op, None)
            else:
                lowering.lowerings[op] = lower
            if layout is None:
                lowering._maybe_layout_constraints.pop(op, None)
            else:
                lowering._maybe_layout_constraints[op] = layout
            if not fallback:
                lowering.fallbacks.discard(op)
            if not realized:
                lowering.needs_realized_inputs.discard(op)
        decomposition.decompositions.update(taken)
        for key in keys:
            torch.ops.aten.upsample_bilinear2d.vec.py_kernels.pop(key, None)
        for op, key, kernel in python_kernels:
            op.py_kernels[key] = kernel
        for op in ops:
            op._dispatch_cache.clear()
        decomposition.fast_random_decomps.cache_clear()


def export_pt2(module, inputs, sizes, args, memory_format):
    with aten_kernels(args.aten_kernels):
        metadata = export_pt2_programs(module, inputs, sizes, args, memory_format)
    calls = package_aten_calls(args.output) if args.aten_kernels else {}
    # said when asked for, or where there are some (a CUDA package by default)
    if calls or args.aten_kernels_given:
        print("LibTorch's kernels the package calls (call sites): %s" % (
            ", ".join("%s x%d" % (name, calls[name]) for name in sorted(calls)) or "none"))
    return metadata


def package_aten_calls(path):
    """How many places of the package's programs call each operation of
    --aten-kernels, all programs together (their wrappers' lists of calls
    through the proxy executor)."""
    import zipfile
    wanted = {name.split(".")[0] for kernel in ATEN_KERNELS.values() for name in kernel}
    calls = {}
    with zipfile.ZipFile(path) as package:
        for entry in package.namelist():
            if not entry.endswith(".wrapper.json"):
                continue
            for node in json.loads(package.read(entry)).get("nodes", []):
                name = node.get("node", {}).get("target", "").replace("aten::", "")
                if name in wanted:
                    calls[name] = calls.get(name, 0) + 1
    return calls


def export_pt2_programs(module, inputs, sizes, args, memory_format):
    # first: torch.export may narrow the size ranges recorded below
    programs = {"model": export_program(module, inputs, sizes, args)}
    if args.inputs[0] == "recurrent":
        # the first frame's program, with no state (the backend runs it
        # after a reset), and the next frames' with the state it returns
        given = recurrent_inputs(module, inputs)
        check_state_kept(module, given)
        programs = {"start": programs["model"], "model": export_program(module, given, sizes, args)}
    metadata = {
        "ffmpeg_dnn_version": "1",
        "ffmpeg_dnn_torch": torch.__version__,
        "ffmpeg_dnn_dtype": args.precision,
        "ffmpeg_dnn_memory_format": memory_format,
        "ffmpeg_dnn_channels": str(args.channels),
        "ffmpeg_dnn_height": range_text(sizes["height"]),
        "ffmpeg_dnn_width": range_text(sizes["width"]),
    }
    metadata.update(metadata_inputs(args))
    if args.architecture:
        # what spandrel recognised, for people (the backend reads none of it)
        metadata["ffmpeg_dnn_architecture"] = args.architecture["name"]
        metadata["ffmpeg_dnn_scale"] = str(args.architecture["scale"])
    if args.device == "cuda":
        # its kernels are compiled for this GPU's architecture only
        metadata["ffmpeg_dnn_cuda_capability"] = "%d.%d" % torch.cuda.get_device_capability()
    else:
        metadata["ffmpeg_dnn_cpu_features"] = cpu_features()
    configs = {"aot_inductor.metadata": metadata, "aot_inductor.package": True}
    if args.no_simd:
        configs["cpp.simdlen"] = 1
    if args.autotune:
        configs["max_autotune"] = True
    try:
        compile_package(programs, args.output, configs)
    except Exception as e:  # a lowering or C++ compile error of this torch
        who = args.architecture["name"] if args.architecture else "the module"
        why = compile_failure(str(e))
        # a CUDA package has CPU code too (what its module computes on the
        # host, such as SwinIR's attention masks from the frame's size)
        fail("%s cannot be compiled by AOTInductor: %s%s" % (
            who, why, "" if args.no_simd or "C++ compile error" not in why else
            " (--no-simd compiles CPU code without vector instructions)"))
    return metadata


def recurrent_inputs(module, inputs, frame=None):
    """A recurrent module's inputs with the state its first frame leaves
    (a copy: a state that is its frame, or a view of it, would make
    torch.export take the two for one input), for frame (default: the
    same one)."""
    with torch.no_grad():
        _, state = module(*inputs)
    state = state.clone(memory_format=torch.preserve_format)
    return (inputs[0] if frame is None else frame, state) + tuple(inputs[2:])


def check_state_kept(module, given):
    """The state must keep its shape, dtype and strides from frame to
    frame: the program that takes it is compiled for one."""
    state = given[1]
    with torch.no_grad():
        _, after = module(*given)
    if (after.shape, after.dtype, after.stride()) != (state.shape, state.dtype, state.stride()):
        fail("the module's state changes from frame to frame (%s %s, then %s %s): a .pt2 "
             "package's program is compiled for one (--format torchscript takes it)" % (
                 tuple(state.shape), state.dtype, tuple(after.shape), after.dtype))


def compile_package(programs, path, configs):
    """AOTInductor's compile of each program ({name: ExportedProgram}) into
    one package, where LibTorch's loader finds each by its name."""
    from torch._inductor.package import package_aoti
    files = {}
    for name, program in programs.items():
        args, kwargs = program.example_inputs
        files[name] = torch._inductor.aot_compile(program.module(check_guards=False), args,
                                                  kwargs, options=dict(configs))
    package_aoti(path, files)


COMPILER_DIAGNOSTIC = re.compile(r"^\S+?:\d+(?::\d+)?: (?:fatal )?error: (.*)")


def compile_failure(text):
    """What went wrong, in one line: a C++ compile error's message is a
    header, the command and the compiler's output; its first diagnostic
    says why (the others go to stderr as notes, the command is left out)."""
    lines = [l.strip() for l in text.splitlines() if l.strip()] or ["?"]
    headline = next((l for l in lines if "error" in l.lower()), lines[0])
    diagnostics = [m.group(1) for m in map(COMPILER_DIAGNOSTIC.match, lines) if m]
    for d in diagnostics[1:10]:
        print("note: the compiler also said: %s" % d[:300], file=sys.stderr)
    if not diagnostics:
        return headline
    return "%s: %s" % (headline.rstrip("."), diagnostics[0][:300])


CHECK_SCRIPT = r"""
import sys, torch
from torch._inductor.package import load_package
package = load_package(sys.argv[1], sys.argv[2])
inputs = torch.load(sys.argv[3])
torch.save(package(*inputs), sys.argv[4])
del package  # its destructor removes what it unpacked into /tmp
"""


def parse_inputs(text):
    """--inputs: (layout, frames)."""
    layout, _, count = text.partition(":")
    if layout in ("frame", "pair", "recurrent") and not count:
        return layout, 2 if layout == "pair" else 1
    if layout in ("stacked", "sequence") and count.isdigit() and 1 <= int(count) <= 15:
        return layout, int(count)
    raise argparse.ArgumentTypeError("%r: frame, pair, recurrent, stacked:N or sequence:N "
                                     "(N from 1 to 15)" % text)


def signature(args):
    """forward's signature as --inputs and --sigma give it, for messages."""
    layout, n = args.inputs
    frames = {"frame": "frame", "pair": "earlier, later, t%s" % (" plane" if args.t_plane else ""),
              "recurrent": "frame, state",
              "stacked": "window of %d frames on the channels" % n,
              "sequence": "window of %d frames, 1 x %d x C x H x W" % (n, n)}[layout]
    sigma = ", sigma %s" % args.sigma if args.sigma else ""
    return "forward(%s%s)" % (frames, sigma)


def metadata_inputs(args):
    """The signature as the backend reads it (ffmpeg_dnn_inputs, _t, _sigma)."""
    layout, n = args.inputs
    inputs = {"frame": "frame", "pair": "pair", "recurrent": "recurrent"}.get(layout, "%s %d" % (layout, n))
    if layout == "stacked" and n == 1:
        inputs = "frame"  # what dnn_processing gives with frames=1
    meta = {"ffmpeg_dnn_inputs": inputs, "ffmpeg_dnn_sigma": args.sigma or "none"}
    if layout == "pair":
        meta["ffmpeg_dnn_t"] = "plane" if args.t_plane else "0-d"
        if args.batch > 1:
            meta["ffmpeg_dnn_batch"] = str(args.batch)
    return meta


def example_inputs(args, x):
    """What forward takes, made of the example frame x, as the filter makes
    it: frames in x's memory format, a window stacked in it, a sequence
    contiguous."""
    layout, n = args.inputs
    # every frame in x's memory format: the package's code assumes its strides
    frames = [x] + [torch.rand(x.shape, generator=torch.Generator().manual_seed(i)).to(x).contiguous(
        memory_format=args.torch_format) for i in range(1, n)]
    plane = (1, 1, x.shape[2], x.shape[3])
    if layout == "pair" and args.batch > 1:
        # two times (not one: torch.export would specialise the batch to 1)
        times = torch.tensor([0.25, 0.5], dtype=x.dtype, device=x.device).view(2, 1, 1, 1)
        t = times.expand(2, 1, *(plane[2:] if args.t_plane else (1, 1))).contiguous()
        inputs = [f.expand(2, -1, -1, -1).contiguous(memory_format=args.torch_format)
                  for f in frames[:2]] + [t]
    elif layout == "pair":
        t = torch.full(plane if args.t_plane else (), 0.5, dtype=x.dtype, device=x.device)
        inputs = [frames[0], frames[1], t]
    elif layout == "stacked":
        inputs = [torch.cat(frames, 1).contiguous(memory_format=args.torch_format)]
    elif layout == "sequence":
        inputs = [torch.stack(frames, 1).contiguous()]
    elif layout == "recurrent":
        inputs = [x, None]
    else:
        inputs = [x]
    if args.sigma:
        inputs.append(torch.full(plane if args.sigma == "plane" else (), 0.1, dtype=x.dtype,
                                 device=x.device))
    return tuple(inputs)


def dynamic_shapes(args, sizes, inputs):
    """torch.export's dynamic shapes of inputs: height and width of every
    frame and plane the same two dimensions; a recurrent model's state
    (None at first) every dimension but the batch, which torch.export
    relates to the frame's itself."""
    height = torch.export.Dim("height", min=sizes["height"][0], max=sizes["height"][1])
    width = torch.export.Dim("width", min=sizes["width"][0], max=sizes["width"][1])
    layout, _ = args.inputs
    frame = {2: height, 3: width}
    if layout == "recurrent":
        state = inputs[1]
        shapes = [frame, None if state is None else {d: True for d in range(1, state.dim())}]
    else:
        shapes = {"frame": [frame], "stacked": [frame], "sequence": [{3: height, 4: width}],
                  "pair": [frame, frame, frame if args.t_plane else None]}[layout]
    if layout == "pair" and args.batch > 1:
        # the times of one run, 1 to --batch: the same batch for the pair and t
        shapes = [dict(frame, batch=True), dict(frame, batch=True),
                  dict(frame if args.t_plane else {}, batch=True)]
    if args.sigma:
        shapes.append(frame if args.sigma == "plane" else None)
    return tuple(shapes)


def check_output(module, inputs, args):
    """What the filter makes of the module's output on inputs: integer types
    are refused (no picture in [0, 1]); NaN and infinities are written as 0
    and 1, which is rarely what a model means, so say so."""
    with torch.no_grad():
        try:
            y = module(*inputs)
        except Exception as e:  # the signature first: the filter calls it so
            fail("the module does not run as %s: %s" % (signature(args), reason(e)))
    if args.inputs[0] == "recurrent":
        if not (isinstance(y, tuple) and len(y) == 2 and all(isinstance(v, torch.Tensor) for v in y)):
            fail("the module returns %s: a recurrent model returns (frame, state)" %
                 type(y).__name__)
        y = y[0]
    if not isinstance(y, torch.Tensor) or y.dim() != 4:
        fail("the module returns %s, not one 4-D NCHW tensor" %
             (type(y).__name__ if not isinstance(y, torch.Tensor) else "a %d-D tensor" % y.dim()))
    if args.inputs[0] == "pair" and y.shape[0] != inputs[0].shape[0]:
        fail("the module returns %d frames for a batch of %d times: --batch needs one a time" %
             (y.shape[0], inputs[0].shape[0]))
    if not y.is_floating_point():
        fail("the module returns %s values: dnn_processing needs floating point in [0, 1] "
             "(convert in the module, for example x.float() / 255)" % y.dtype)
    bad = int((~torch.isfinite(y)).sum())
    if bad:
        print("warning: the module's output has %d NaN or infinite values on a random frame; "
              "dnn_processing writes them as 0 (NaN, -Inf) and 1 (+Inf)" % bad)


def check(args, module, inputs):
    """Largest |package - eager| on inputs, run in another process (a
    recurrent module: its first frame, and a frame with the state it left)."""
    runs = [("model", inputs)]
    if args.inputs[0] == "recurrent":
        # the next frame another one than the state's: a program that read
        # the frame for the state would pass on the same frame
        other = torch.rand(inputs[0].shape, generator=torch.Generator().manual_seed(7)).to(
            inputs[0]).contiguous(memory_format=args.torch_format)
        runs = [("start", inputs), ("model", recurrent_inputs(module, inputs, other))]
    errors = [check_run(args, module, name, given) for name, given in runs]
    return None if None in errors else max(errors)


def check_run(args, module, name, inputs):
    """Largest |package's program name - eager| on inputs."""
    def frame(y):  # a recurrent model's (frame, state)
        return y[0] if isinstance(y, (list, tuple)) else y
    with torch.no_grad():
        expected = frame(module(*inputs)).float()
    tmpdir = tempfile.mkdtemp(prefix="check.")
    tmp = os.path.join(tmpdir, "check")
    torch.save(list(inputs), tmp + ".in")
    try:
        if args.format == "torchscript":
            got = frame(torch.jit.load(args.output, map_location=args.device)(*inputs))
        else:
            run = subprocess.run([sys.executable, "-c", CHECK_SCRIPT, args.output, name,
                                  tmp + ".in", tmp + ".out"], capture_output=True, text=True,
                                 env=dict(os.environ, TMPDIR=tmpdir))  # what it unpacks
            if run.returncode != 0:
                print("could not run the package in Python (exit status %d): %s" % (
                      run.returncode, (run.stderr.strip().splitlines() or ["no message"])[-1]))
                return None
            got = frame(torch.load(tmp + ".out"))
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    if got.shape != expected.shape:
        fail("the result is %s, the module's %s" % (tuple(got.shape), tuple(expected.shape)))
    # compared as dnn_processing writes them: NaN and infinities as 0 and 1
    written = [t.float().nan_to_num(0.0, 1.0, 0.0) for t in (got, expected)]
    return (written[0] - written[1]).abs().max().item()


def make_parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("module", help="file.py:Class, module:Class, or a community model's "
                        "weights (.pth, .pt, .ckpt, .safetensors; architecture by spandrel)")
    parser.add_argument("output", help="the .pt2 package (or TorchScript file) to write")
    parser.add_argument("--args", default="[]",
                        help="the class's arguments, as a JSON list (or an object of keyword arguments)")
    parser.add_argument("--checkpoint", help="a state_dict to load into the module")
    parser.add_argument("--format", choices=("pt2", "torchscript"), default="pt2")
    parser.add_argument("--inputs", type=parse_inputs, default=("frame", 1),
                        metavar="frame|pair|stacked:N|sequence:N|recurrent",
                        help="what forward takes: one frame (dnn_processing), two frames "
                        "and t (dnn_interpolate), a window of N frames on the channels or "
                        "as a sequence (dnn_processing frames=N), a frame and a state "
                        "(recurrent=1)")
    parser.add_argument("--t-plane", action="store_true",
                        help="--inputs pair: t as a 1x1xHxW plane (t_plane=1), not 0-D")
    parser.add_argument("--batch", type=int, default=1, metavar="N",
                        help="--inputs pair: up to N output times in one run "
                        "(dnn_interpolate batch=N; 2 to 16): the pair repeated and t "
                        "of shape [N, 1, 1, 1]")
    parser.add_argument("--sigma", choices=("plane", "0-d"),
                        help="a noise level after the frames (dnn_processing sigma; "
                        "sigma_plane=0 for 0-d)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--precision", choices=tuple(DTYPES), default="fp32")
    parser.add_argument("--channels", type=int, default=None,
                        help="of the input: 3 (RGB) or 1 (luma); default: the "
                        "architecture's, or 3")
    parser.add_argument("--channels-last", choices=("auto", "on", "off"), default="auto",
                        help="memory format of the input (auto: on for fp16/bf16 on CUDA)")
    parser.add_argument("--static", metavar="WxH", help="compile for this size only (kernels "
                        "for known sizes: often faster on a GPU)")
    parser.add_argument("--autotune", action="store_true",
                        help="time the candidate kernels of convolutions and matrix "
                        "products (Triton templates, cuDNN...) on this machine and keep the "
                        "fastest (Inductor's max_autotune): a longer compile")
    parser.add_argument("--aten-kernels", type=parse_aten_kernels, default=None,
                        metavar="LIST", help="operations a package leaves to LibTorch's "
                        "kernels: a comma list of %s, or none, or auto (the default: "
                        "grid_sample,bilinear for --device cuda, none for cpu); "
                        "Inductor's own kernels for them, fused into their consumers, are "
                        "the slower ones on a GPU for flow networks such as RIFE's IFNet"
                        % ", ".join(ATEN_KERNELS))
    parser.add_argument("--min-size", type=int, default=16,
                        help="smallest height and width (dynamic sizes)")
    parser.add_argument("--max-size", default="7680x4320", metavar="WxH",
                        help="largest width and height (dynamic sizes)")
    parser.add_argument("--no-simd", action="store_true",
                        help="compile CPU code without vector instructions: a CPU "
                        "package's (slower code), or the host part of a CUDA package's "
                        "(SwinIR's attention masks); for modules whose vectorised "
                        "compile fails or takes very long in this torch, such as the "
                        "shifted windows of SwinIR")
    parser.add_argument("--no-check", action="store_true",
                        help="skip the check against eager PyTorch")
    parser.add_argument("--tolerance", type=float, default=None,
                        help="largest error accepted in the check (default: 1e-4 for fp32, "
                             "1e-2 for fp16/bf16)")
    return parser


def main():
    parser = make_parser()
    args = parser.parse_args()

    if args.device == "cuda" and not torch.cuda.is_available():
        fail("--device cuda, but this torch sees no CUDA GPU (CUDA packages are "
             "compiled on one)")
    args.architecture = None
    if not os.path.isdir(os.path.dirname(os.path.abspath(args.output))):
        fail("no such directory: %s (for %s)" % (os.path.dirname(args.output), args.output))
    if args.t_plane and args.inputs[0] != "pair":
        fail("--t-plane is for --inputs pair")
    if args.batch != 1 and (args.inputs[0] != "pair" or not 2 <= args.batch <= 16):
        fail("--batch is for --inputs pair, from 2 to 16")
    if args.batch != 1 and args.static:
        fail("--batch exports a batch of 1 to N times for dynamic sizes: leave --static out")
    if args.aten_kernels and args.format != "pt2":
        fail("--aten-kernels is for .pt2 packages (Inductor's compile)")
    args.aten_kernels_given = args.aten_kernels is not None
    if args.aten_kernels is None:
        args.aten_kernels = ("grid_sample", "bilinear") if args.device == "cuda" else ()
    if args.channels is not None and args.channels < 1:
        fail("--channels must be positive")
    dtype = DTYPES[args.precision]
    channels_last = (args.channels_last == "on" or
                     (args.channels_last == "auto" and args.device == "cuda" and
                      args.precision != "fp32"))
    memory_format = "channels_last" if channels_last else "contiguous"
    torch_format = torch.channels_last if channels_last else torch.contiguous_format
    args.torch_format = torch_format

    module = build_module(args)
    if args.architecture and args.inputs != ("frame", 1):
        fail("%s takes one frame: leave --inputs out" % args.architecture["name"])
    if args.channels is None:
        args.channels = args.architecture["channels"] if args.architecture else 3
    elif args.architecture and args.channels != args.architecture["channels"]:
        fail("--channels %d, but %s takes %d" % (args.channels, args.architecture["name"],
                                                 args.architecture["channels"]))
    if args.architecture:
        print("%s: %s, %dx, %d channels%s" % (args.module, args.architecture["name"],
                                              args.architecture["scale"], args.channels,
                                              ", sizes padded to multiples of %d inside" %
                                              args.architecture["multiple_of"]
                                              if args.architecture["multiple_of"] > 1 else ""))
    module = module.to(args.device, dtype).to(memory_format=torch_format)
    sizes, (h, w) = size_ranges(args)
    torch.manual_seed(0)
    x = torch.rand(1, args.channels, h, w, device=args.device).to(dtype).contiguous(
        memory_format=torch_format)

    inputs = example_inputs(args, x)
    check_output(module, inputs, args)
    start = time.monotonic()
    if args.format == "torchscript":
        try:
            scripted = torch.jit.script(module)
        except Exception as e:
            who = args.architecture["name"] if args.architecture else "the module"
            fail("%s cannot be made TorchScript (write a .pt2 package instead): %s" %
                 (who, reason(e)))
        scripted.save(args.output)
        print("wrote %s (TorchScript)" % args.output)
    else:
        export_pt2(module, inputs, sizes, args, memory_format)
        device = args.device
        if device == "cuda":
            device = "cuda (compute capability %d.%d)" % torch.cuda.get_device_capability()
        print("wrote %s in %.0f s: a .pt2 package for %s; input %s %s, %d channels, "
              "height %s, width %s (torch %s)" % (args.output, time.monotonic() - start,
                                                 device, args.precision, memory_format,
                                                 args.channels, range_text(sizes["height"]),
                                                 range_text(sizes["width"]),
                                                 torch.__version__))
    if args.no_check:
        return
    error = check(args, module, inputs)
    if error is None:
        return
    tolerance = args.tolerance if args.tolerance is not None else (
        1e-4 if args.precision == "fp32" else 1e-2)
    print("check against eager PyTorch on a random %dx%d frame: max |diff| %.3g "
          "(tolerance %.3g)" % (w, h, error, tolerance))
    if error > tolerance:
        fail("the result differs from the module's")


if __name__ == "__main__":
    # torch leaves unpacked packages and build files in TMPDIR: give it its own
    os.environ["TMPDIR"] = tempfile.tempdir = tempfile.mkdtemp(prefix="dnn-torch-export.")
    try:
        main()
    finally:
        shutil.rmtree(os.environ["TMPDIR"], ignore_errors=True)
