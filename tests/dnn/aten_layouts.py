#!/usr/bin/env python3
"""Whether a CUDA package that calls LibTorch's kernels
(tools/dnn-torch-export.py --aten-kernels) reads each kernel's result with
the strides the kernel writes it in.

    aten_layouts.py MODULE.py:CLASS KERNELS WxH [--without-constraints]

The package's proxy executor hands on the tensor a kernel returns, and the
package's own code reads it with the strides Inductor planned from torch's
meta functions.  This runs without a GPU: the module is exported for CUDA
in fp16, channels-last (what the tool does for a CUDA package), with fake
tensors, under the tool's aten_kernels(), and lowered by Inductor for a
made-up compute capability 9.0 device, which gives the plan of the package's
buffers; no code is generated or run.  For each call of a kernel it prints
the operation, the memory format of its input in the plan, that of its
result in the plan and that the kernel makes, and exits with 1 if any
differ.  What LibTorch's CUDA kernels make, from ATen's sources:
upsample_bilinear2d, a result in its input's memory format (its meta
function: suggest_memory_format); grid_sampler_2d, a new contiguous tensor.

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


def memory_format(size, stride):
    """contiguous, channels_last, or the strides, of an NCHW layout"""
    size, stride = [int(v) for v in size], [int(v) for v in stride]
    for name, fmt in (("contiguous", torch.contiguous_format),
                      ("channels_last", torch.channels_last)):
        if torch.empty_strided(size, stride, device="meta").is_contiguous(memory_format=fmt):
            return name
    return "strides %s" % (stride,)


def kernel_makes(op, input_format):
    """The memory format LibTorch's CUDA kernel gives its result."""
    return input_format if op.startswith("upsample_bilinear2d") else "contiguous"


def plan(export_tool, module, inputs, kernels):
    """The Inductor graph of module (fake CUDA tensors) as a package's."""
    from torch._dispatch.python import enable_python_dispatcher
    from torch._inductor.decomposition import select_decomp_table
    from torch._inductor.graph import GraphLowering
    from torch._inductor.virtualized import V
    from torch.fx.experimental.proxy_tensor import make_fx
    fake_mode = inputs[0].fake_mode
    with export_tool.aten_kernels(kernels):
        program = torch.export.export(module, inputs)
        graph = program.graph_module
        placeholders = [n.meta["val"] for n in graph.graph.nodes if n.op == "placeholder"]
        # as AOTInductor traces it: Inductor's decompositions, torch's own
        # Python kernels (the tool's bilinear_by_size among them)
        with fake_mode, enable_python_dispatcher():
            traced = make_fx(graph, decomposition_table=select_decomp_table())(*placeholders)
        lowered = GraphLowering(traced, example_inputs=placeholders, is_inference=True,
                                aot_mode=True, cpp_wrapper=True)
        with V.set_graph_handler(lowered), V.set_fake_mode(fake_mode):
            lowered.run(*placeholders)
    return lowered


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 3:
        sys.exit(__doc__)
    path, cls = args[0].rsplit(":", 1)
    width, height = (int(v) for v in args[2].split("x"))
    export_tool = load(os.path.join(here, "..", "..", "tools", "dnn-torch-export.py"),
                       "dnn_torch_export")
    if "--without-constraints" in sys.argv:
        export_tool.ATEN_KERNEL_LAYOUTS.clear()
    made_up_gpu()
    from torch._inductor import ir
    from torch._subclasses.fake_tensor import FakeTensorMode
    fake_mode = FakeTensorMode(allow_non_fake_inputs=True)
    with fake_mode, torch.device("cuda"):
        torch.set_default_dtype(torch.float16)
        module = getattr(load(path, "models"), cls)().eval()
        torch.set_default_dtype(torch.float32)
        frame = torch.empty(1, 3, height, width, dtype=torch.float16).contiguous(
            memory_format=torch.channels_last)
        inputs = (frame, torch.empty_like(frame), torch.empty((), dtype=torch.float16))
    lowered = plan(export_tool, module, inputs, args[1].split(","))
    differ = 0
    for buf in lowered.buffers:
        if not isinstance(buf, ir.FallbackKernel):
            continue
        op = str(buf.op_overload).replace("aten.", "")
        given = buf.inputs[0].get_layout()
        result = next(b for b in lowered.buffers
                      if isinstance(b, ir.MultiOutput) and b.inputs and b.inputs[0] is buf)
        layout = result.get_layout()
        got = memory_format(given.size, given.stride)
        planned = memory_format(layout.size, layout.stride)
        makes = kernel_makes(op, got)
        differ += planned != makes
        print("%s: input %s, %d channels; result planned %s, the kernel's %s: %s" % (
            op, got, int(given.size[1]), planned, makes,
            "same" if planned == makes else "DIFFERENT"))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
