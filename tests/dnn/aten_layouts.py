#!/usr/bin/env python3
"""Whether a CUDA package that calls LibTorch's kernels
(tools/dnn-torch-export.py --aten-kernels) reads each kernel's result with
the strides the kernel writes it in.

    aten_layouts.py MODULE.py:CLASS KERNELS WxH|any [--without-constraints]

The package's proxy executor hands on the tensor a kernel returns, and the
package's own code reads it with the strides Inductor planned from torch's
meta functions.  This runs without a GPU: a pair model (two frames and a
0-D t) is exported as the tool exports it for CUDA in fp16 (channels-last
frames and weights; for WxH, or for any size: height and width dynamic),
with fake tensors, under the tool's aten_kernels(), and lowered by
Inductor for a made-up compute capability 9.0 device, which gives the plan
of the package's buffers; no code is generated or run.  For each call of
a kernel it prints the operation, the memory format of its input in the
plan, whether the result is planned dense in the memory format the kernel
writes it in, and exits with 1 if one is not (or no kernel is called).
What LibTorch's CUDA kernels write, from ATen's sources: upsample_bilinear2d,
a result in suggest_memory_format() of its input (its structured meta
function); grid_sampler_2d, a new contiguous tensor.

--without-constraints lowers without the tool's layout constraints, to show
what they prevent."""
import importlib.util
import os
import sys
import types
import warnings

warnings.filterwarnings("ignore")
import torch  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def made_up_gpu():
    """What Inductor asks of the device while lowering, answered for an
    H200-like device: no driver is opened."""
    import torch._dynamo.device_interface as device_interface
    import torch._inductor.utils as inductor_utils
    props = types.SimpleNamespace(major=9, minor=0, multi_processor_count=132,
                                  total_memory=140 << 30, name="made-up", warp_size=32,
                                  max_threads_per_multi_processor=2048,
                                  regs_per_multiprocessor=65536,
                                  shared_memory_per_block_optin=232448,
                                  L2_cache_size=50 << 20, gcnArchName="")
    torch.cuda.get_device_properties = lambda *a, **k: props
    torch.cuda.get_device_capability = lambda *a, **k: (9, 0)
    torch.cuda.device_count = lambda: 1
    torch.cuda.current_device = lambda: 0
    device_interface.CudaInterface.get_device_properties = staticmethod(lambda *a, **k: props)
    device_interface.CudaInterface.get_compute_capability = staticmethod(lambda *a, **k: 90)
    inductor_utils.is_big_gpu = lambda *a, **k: True


def suggested_format(size, stride):
    """ATen's suggest_memory_format() of a tensor of these sizes and strides"""
    from torch._prims_common import suggest_memory_format
    format = suggest_memory_format(torch.empty_strided(size, stride, device="meta"))
    return "channels_last" if format == torch.channels_last else "contiguous"


def dense_in(size, stride, name):
    fmt = torch.channels_last if name == "channels_last" else torch.contiguous_format
    return torch.empty_strided(size, stride, device="meta").is_contiguous(memory_format=fmt)


def kernel_writes(op, input_format):
    """The memory format LibTorch's CUDA kernel writes its result in."""
    return input_format if op.startswith("upsample_bilinear2d") else "contiguous"


def plan(export_tool, module, inputs, kernels, dynamic):
    """The Inductor graph of module (fake CUDA tensors) as a package's."""
    from torch._dispatch.python import enable_python_dispatcher
    from torch._inductor.decomposition import select_decomp_table
    from torch._inductor.graph import GraphLowering
    from torch._inductor.virtualized import V
    from torch.fx.experimental.proxy_tensor import make_fx
    # as the tool exports a pair for any size: torch.export derives the
    # frames' sizes, t is 0-D
    auto = {2: torch.export.Dim.AUTO, 3: torch.export.Dim.AUTO}
    with export_tool.aten_kernels(kernels):
        program = torch.export.export(module, inputs,
                                      dynamic_shapes=(auto, auto, None) if dynamic else None)
        graph = program.graph_module
        placeholders = [n.meta["val"] for n in graph.graph.nodes if n.op == "placeholder"]
        # torch.export's own fake mode, whose shapes hold the sizes' symbols
        fake_mode = placeholders[0].fake_mode
        # as AOTInductor traces it: Inductor's decompositions, torch's own
        # Python kernels (the tool's bilinear_by_size among them)
        with fake_mode, enable_python_dispatcher():
            traced = make_fx(graph, decomposition_table=select_decomp_table())(*placeholders)
        lowered = GraphLowering(traced, example_inputs=placeholders,
                                shape_env=fake_mode.shape_env, is_inference=True,
                                aot_mode=True, cpp_wrapper=True)
        with V.set_graph_handler(lowered), V.set_fake_mode(fake_mode), \
                enable_python_dispatcher():
            lowered.run(*placeholders)
    return lowered


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 3:
        sys.exit(__doc__)
    path, cls = args[0].rsplit(":", 1)
    dynamic = args[2] == "any"
    width, height = (98, 66) if dynamic else (int(v) for v in args[2].split("x"))
    export_tool = load(os.path.join(here, "..", "..", "tools", "dnn-torch-export.py"),
                       "dnn_torch_export")
    if "--without-constraints" in sys.argv:
        export_tool.ATEN_KERNEL_LAYOUTS.clear()
    made_up_gpu()
    from torch._inductor import ir
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    fake_mode = FakeTensorMode(allow_non_fake_inputs=True, shape_env=ShapeEnv())
    with fake_mode, torch.device("cuda"):
        torch.set_default_dtype(torch.float16)
        module = getattr(load(path, "models"), cls)().eval()
        torch.set_default_dtype(torch.float32)
        # the weights channels-last, as the tool makes them (module.to()
        # cannot swap fake parameters)
        for sub in module.modules():
            for name, weight in sub._parameters.items():
                if weight is not None and weight.dim() == 4:
                    sub._parameters[name] = torch.nn.Parameter(
                        weight.detach().contiguous(memory_format=torch.channels_last),
                        requires_grad=False)
        frame = torch.empty(1, 3, height, width, dtype=torch.float16).contiguous(
            memory_format=torch.channels_last)
        inputs = (frame, torch.empty_like(frame), torch.empty((), dtype=torch.float16))
    lowered = plan(export_tool, module, inputs, args[1].split(","), dynamic)
    hints = lowered.sizevars.size_hints
    calls = wrong = 0
    for buf in lowered.buffers:
        if not isinstance(buf, ir.FallbackKernel):
            continue
        op = str(buf.op_overload).replace("aten.", "")
        given = buf.inputs[0].get_layout()
        result = next(b for b in lowered.buffers
                      if isinstance(b, ir.MultiOutput) and b.inputs and b.inputs[0] is buf)
        layout = result.get_layout()
        got = suggested_format(hints(given.size), hints(given.stride))
        writes = kernel_writes(op, got)
        same = dense_in(hints(layout.size), hints(layout.stride), writes)
        calls += 1
        wrong += not same
        print("%s: input %s, %d channels; the kernel writes %s, planned so: %s" % (
            op, got, int(given.size[1]), writes, "yes" if same else "NO"))
    if not calls:
        print("no call of LibTorch's kernels in the plan")
    sys.exit(1 if wrong or not calls else 0)


if __name__ == "__main__":
    main()
