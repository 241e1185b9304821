#!/usr/bin/env python3
"""Which community architectures tools/dnn-torch-export.py exports, and how
fast the exported ones run: the table of doc/architectures.md.

    dnn-torch-architectures.py survey OUT.jsonl [ARCH...]
    dnn-torch-architectures.py weights ARCH OUT.pth
    dnn-torch-architectures.py table SURVEY.jsonl [SPEED.txt]
    dnn-torch-architectures.py doc SURVEY.jsonl DOC.md [SPEED.txt]

survey builds every architecture spandrel knows (or those named) in its
default configuration, the one of its paper (or, where that cannot be
built or run, the one CONFIGS gives), with untrained weights (no
downloads), saves the state dict as a community file would hold it, and
asks of it what the export tool asks: does spandrel recognise it from the
weights alone, does torch.export take it for any frame size (.pt2), does
torch.jit.script take it (TorchScript).  One JSON object a line; each
architecture in a process of its own, killed after SURVEY_TIMEOUT seconds
(300).  It runs on the CPU: whether a module exports does not depend on
the device.

weights writes the state dict survey builds for ARCH (an architecture or
one of its classes, such as RealPLKSR), for the speed
measurement of tools/bench/dnn-torch-bench.sh (BENCH_ARCHITECTURES), and prints
"precision: fp16", or "precision: fp32" for one spandrel says does not run
in fp16: the precision the bench measures it in.  It refuses (and survey
says) a configuration that returns its input unchanged: its speed would
be that of a copy.

table prints the Markdown table from a survey and the "arch" lines of a
bench run (SPEED.txt): bare and filter fps at 1080p, fp16, per architecture
("arch NAME bare FPS nv12 FPS (MIN-MAX) SHARE", with " fp32" after it for
one measured in fp32 and " static" for a package compiled for 1080p only,
which the cells say), or why not ("arch NAME
failed: WHY", or "arch NAME not-measured: WHY" for one that exports but did
not run within the machine's time).
doc puts that table into DOC.md between its "<!-- architectures:begin -->"
and "<!-- architectures:end -->" lines (make architectures: doc/architectures.md).
"""
import contextlib
import importlib
import importlib.util
import io
import json
import os
import pkgutil
import subprocess
import sys
import tempfile
import time
import warnings

warnings.filterwarnings("ignore")
# imported by main() for the commands that build models: table and doc
# need no torch
torch = None

HERE = os.path.dirname(os.path.abspath(__file__))


def export_tool():
    spec = importlib.util.spec_from_file_location("dnn_torch_export",
                                                  os.path.join(HERE, "dnn-torch-export.py"))
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def classes():
    """{architecture: [module classes]} of every architecture spandrel has."""
    import spandrel.architectures as archs
    found = {}
    for info in pkgutil.iter_modules(archs.__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module("spandrel.architectures." + info.name)
        found[info.name] = [v for v in vars(mod).values()
                            if isinstance(v, type) and issubclass(v, torch.nn.Module)]
    return found


def first_line(text):
    return (str(text).strip().splitlines() or ["?"])[0][:300]


def quietly(call):
    """call()'s result, or the message it failed with (the export tool says
    why on stderr and exits)."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            return True, call()
    except SystemExit:
        # the tool's own line (torch may have logged a graph before it)
        said = [l[len("error: "):] for l in err.getvalue().splitlines() if l.startswith("error: ")]
        return False, said[-1][:300] if said else first_line(err.getvalue())
    except Exception as e:  # noqa: BLE001 (any failure is a finding)
        return False, "%s: %s" % (type(e).__name__, first_line(e))


# Architectures whose defaults cannot be built or run (or describe no
# model the export tool can take): the smallest change from spandrel's
# defaults that their papers or published weights use.  By class name.
CONFIGS = {
    # img_size 64 with window 7 cannot be built (64 is no multiple of 7);
    # the papers' models (SwinIR-M, -S; Swin2SR) use window 8
    "SwinIR": dict(window_size=8),
    "Swin2SR": dict(window_size=8),
    # window 7 fails at run time (a shape error on a 98x66 frame: its
    # overlapping window, 7 + 3, is unfolded with uneven padding, so the
    # counts of windows differ); HAT's paper uses 16, and HAT pads its
    # input to a multiple of the window itself
    "HAT": dict(window_size=16),
    # dim has no default: SAFMN's paper uses 36 (SAFMN, not SAFMN-L)
    "SAFMN": dict(dim=36),
    # dim has no default and the code suggests none (a multiple of 4, its
    # four levels): 128, as in the one published SAFMN_BCIE.pth (the
    # checkpoint spandrel's test loads: 128 dim, 6 layers, 8 blocks, 2x
    # inside)
    "SAFMN_BCIE": dict(dim=128),
    # the default (in_nc=1, out_nc=1) leaves the picture no channel:
    # spandrel counts one input channel as the noise plane (0 in, 1 out);
    # DPIR's colour DRUNet (drunet_color.pth) takes RGB and the noise plane
    # stacked on the channels: 4 in, 3 out
    "DRUNet": dict(in_nc=4, out_nc=3),
    # the default upsampler ("") runs none of the network: forward is
    # (x - mean) * range / range + mean, the input itself; DRCT's published
    # models (DRCT_X4, DRCT-L_X4) use "pixelshuffle" at 4x
    "DRCT": dict(upscale=4, upsampler="pixelshuffle"),
}

# Why an architecture that spandrel recognises still does not export, where
# the export tool's own message does not say it.  By class name.
WHY = {
    # spandrel's call stacks a noise-level plane (15/255) on the picture's
    # channels; the export tool's module takes the picture alone, and its
    # --sigma plane is a second input of forward (dnn_processing
    # sigma/sigma_plane), not a fourth channel
    "DRUNet": "needs a noise plane stacked on its 4 input channels, which the export "
              "tool does not add (--sigma gives a second input)",
}


def default_instance(cls):
    """cls in its default configuration, or that of CONFIGS; arguments it
    has no default for are given as for RGB at 4x (SPAN: num_in_ch,
    num_out_ch)."""
    import inspect
    kwargs = dict(CONFIGS.get(cls.__name__, {}))
    for name, param in inspect.signature(cls.__init__).parameters.items():
        if name == "self" or name in kwargs or param.default is not param.empty or \
           param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if "ch" in name or name.endswith("_nc") or "channel" in name:
            kwargs[name] = 3
        elif "scale" in name:
            kwargs[name] = 4
    torch.manual_seed(0)
    return cls(**kwargs)


def returns_input(x, y):
    """Whether y, a module's output of x, is x unchanged (pixels repeated to
    its size): a configuration that runs none of its layers.  The speed of
    such a module would be the speed of a copy."""
    y = y[0] if isinstance(y, (tuple, list)) else y
    if y.dim() != 4 or y.shape[1] != x.shape[1]:
        return False
    same_size = torch.nn.functional.interpolate(x, size=y.shape[-2:], mode="nearest")
    return (y.float() - same_size).abs().max().item() < 1e-4


IDENTITY = "returns its input unchanged in this configuration (none of its layers runs)"


def load_weights(tool, weights, out):
    """The export tool's arguments for weights -> out, and (True, (module,
    architecture)) as it makes them of the weights, or (False, why)."""
    args = tool.make_parser().parse_args([weights, out])
    args.architecture = None
    return args, quietly(lambda: tool.load_weights(weights, args))


def survey_one(arch, cls_name, tmpdir):
    cls = next(c for c in classes()[arch] if c.__name__ == cls_name)
    rec = {"architecture": arch, "class": cls_name}
    ok, model = quietly(lambda: default_instance(cls))
    if not ok:
        rec["error"] = "no default configuration: " + model
        return rec
    rec["parameters"] = sum(p.numel() for p in model.parameters())
    weights = os.path.join(tmpdir, cls_name + ".pth")
    torch.save(model.state_dict(), weights)
    tool = export_tool()
    args, (ok, loaded) = load_weights(tool, weights, os.path.join(tmpdir, "out.pt2"))
    if not ok:
        rec["recognised"] = loaded.replace(weights, "the weights")
        if cls_name in WHY:
            rec["failed_with"], rec["recognised"] = rec["recognised"], WHY[cls_name]
        return rec
    module, args.architecture = loaded
    rec["recognised"] = "yes"
    rec.update({k: args.architecture[k] for k in ("name", "scale", "channels", "multiple_of")})
    args.channels = args.architecture["channels"]
    sizes, (h, w) = tool.size_ranges(args)
    x = torch.rand(1, args.channels, h, w)
    start = time.monotonic()
    ok, out = quietly(lambda: module(x))
    if not ok:
        rec["eager"] = out
        return rec
    rec["eager_s"] = round(time.monotonic() - start, 2)
    if returns_input(x, out):
        rec["identity"] = IDENTITY
        return rec
    # what is known so far, for survey to keep if the rest takes too long
    print(json.dumps(rec), flush=True)
    # (x,): what the tool gives a community architecture, one frame
    ok, program = quietly(lambda: tool.export_program(module, (x,), sizes, args))
    rec["pt2"] = "yes" if ok else program
    print(json.dumps(rec), flush=True)
    try:
        torch.jit.script(module)
        rec["torchscript"] = "yes"
    except Exception as e:  # noqa: BLE001 (any failure is a finding)
        rec["torchscript"] = "%s: %s" % (type(e).__name__, tool.reason(e))
    return rec


def survey(out, names):
    found = classes()
    todo = [(a, c.__name__) for a in sorted(found) if not names or a in names
            for c in found[a]]
    timeout = int(os.environ.get("SURVEY_TIMEOUT", "300"))
    with open(out, "w") as f:
        for arch, cls in todo:
            start = time.monotonic()
            try:
                run = subprocess.run([sys.executable, __file__, "one", arch, cls],
                                     capture_output=True, text=True, timeout=timeout)
                lines = [l for l in run.stdout.splitlines() if l.startswith("{")]
                rec = json.loads(lines[-1]) if lines else {
                    "architecture": arch, "class": cls,
                    "error": "the survey died (exit status %d): %s" % (
                        run.returncode, first_line((run.stderr.strip().splitlines() or ["?"])[-1]))}
            except subprocess.TimeoutExpired as e:
                # what it had found, and the step it was not done with
                said = e.stdout.decode() if isinstance(e.stdout, bytes) else e.stdout or ""
                lines = [l for l in said.splitlines() if l.startswith("{")]
                rec = json.loads(lines[-1]) if lines else {
                    "architecture": arch, "class": cls,
                    "error": "not done in %d s (torch.export or scripting)" % timeout}
                step = "pt2" if "pt2" not in rec else "torchscript"
                if lines:
                    rec[step] = "not done in %d s" % timeout
            rec["survey_s"] = round(time.monotonic() - start, 1)
            f.write(json.dumps(rec) + "\n")
            f.flush()
            print("%-12s %-16s %s" % (arch, cls, {k: v for k, v in rec.items()
                                                    if k in ("pt2", "torchscript", "error",
                                                             "recognised")}), flush=True)


def weights(name, out):
    """name: an architecture (its own class) or one of its classes (RealPLKSR)."""
    found = classes()
    every = [c for a in sorted(found) for c in found[a]]
    cls = next((c for c in found.get(name, []) if c.__name__ == name), None) or \
        next((c for c in every if c.__name__ == name), None) or \
        (found[name][0] if found.get(name) else None)
    if cls is None:
        sys.exit("error: spandrel has no architecture or class %s" % name)
    state = default_instance(cls).state_dict()
    torch.save(state, out)
    # a module that gives its input back would be measured as a copy
    # (a module that does not load or run: the export tool says why)
    tool = export_tool()
    args, (ok, loaded) = load_weights(tool, out, out + ".pt2")
    if ok:
        module, args.architecture = loaded
        args.channels = args.architecture["channels"]
        x = torch.rand(1, args.channels, *tool.size_ranges(args)[1])
        ok, same = quietly(lambda: returns_input(x, module(x)))
        if ok and same:
            os.unlink(out)
            sys.exit("error: %s %s" % (name, IDENTITY))
    # one that spandrel does not take back fails in the export tool, which says why
    half = True
    with contextlib.suppress(Exception):
        import spandrel
        half = spandrel.ModelLoader().load_from_state_dict(state).supports_half
    print("precision: %s" % ("fp16" if half else "fp32"))


def cell(value):
    """A table cell: yes, or no and the reason's first sentence."""
    if value == "yes":
        return "yes"
    if value is None:
        return "-"
    text = str(value).replace("|", "/").replace("\n", " ")
    text = text.split("torch.export failed: ", 1)[-1]
    for end in (". ", ": ", " (unhinted"):
        if end in text[20:]:
            text = text[:20 + text[20:].index(end)]
    return "no: " + (text if len(text) <= 140 else text[:137] + "...")


def row_cells(row):
    """A table row's cells, or None for the header, its rule and other lines."""
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    if len(cells) != 7 or cells[0].startswith(("architecture", "---")):
        return None
    return cells


def row_names(cells):
    """(architecture, class) of a row: its first cell, "ARCH" or "ARCH (CLASS)"."""
    arch, _, cls = cells[0].partition(" (")
    return arch, cls.rstrip(")") or arch


def measured(rows):
    """{class: (bare, filter)} of the speed cells of a table's rows."""
    speeds = {}
    for row in rows:
        cells = row_cells(row)
        if cells and (cells[5] or cells[6]):
            speeds[row_names(cells)[1]] = (cells[5], cells[6])
    return speeds


def table(survey_file, speed_file, previous=None, kept=()):
    """The Markdown table, as a list of lines: the speeds of speed_file,
    else those of previous ({class: (bare, filter)}, an earlier run's).
    kept: rows of an earlier table, kept for the classes the survey has not
    (their speeds too, unless speed_file gives new ones)."""
    lines = []
    print = lines.append  # noqa: A001 (the table's lines, in order)
    speeds = {}
    if speed_file:
        for line in open(speed_file):
            # "arch NAME bare FPS nv12 FPS (MIN-MAX) SHARE[ PRECISION][ static]",
            # fp16 unless a precision is given; static: a package for 1080p only
            parts = line.split()
            if len(parts) >= 6 and parts[0] == "arch" and parts[2] == "bare":
                static = parts[-1] == "static" and parts.pop()
                prec = parts.pop() if parts[-1] in ("fp16", "fp32", "bf16") else "fp16"
                marks = ([] if prec == "fp16" else [prec]) + (["1080p package"] if static else [])
                mark = " (%s)" % ", ".join(marks) if marks else ""
                speeds[parts[1]] = (parts[3] + mark, " ".join(parts[5:]) + mark)
            elif len(parts) >= 3 and parts[0] == "arch" and parts[2] == "failed:":
                speeds[parts[1]] = ("no: " + " ".join(parts[3:]), "")
            elif len(parts) >= 3 and parts[0] == "arch" and parts[2] == "not-measured:":
                # exports, but did not run within the machine's time
                speeds[parts[1]] = ("not measured: " + " ".join(parts[3:]), "")
    # [architecture, class, the first five cells or None (an error row:
    # the three of its own), (bare, filter) an earlier run's]
    rows = []
    for line in kept:
        cells = row_cells(line)
        if cells:
            if not any(cells[3:]):
                cells[3] = cells[4] = None  # an error row
            rows.append(list(row_names(cells)) + [cells[:5], (cells[5], cells[6])])
    for line in open(survey_file):
        r = json.loads(line)
        name = r["architecture"] if r["class"] == r["architecture"] else \
            "%s (%s)" % (r["architecture"], r["class"])
        params = "%.2f M" % (r["parameters"] / 1e6) if "parameters" in r else "-"
        if "error" in r:
            five = [name, params, cell(r["error"]), None, None]
        else:
            rec = cell(r.get("recognised"))
            if r.get("recognised") == "yes":
                rec = "%dx, %d ch%s" % (r["scale"], r["channels"],
                                        ", pads to %d" % r["multiple_of"] if r["multiple_of"] > 1 else "")
            if "eager" in r:
                rec += "; eager run failed: " + r["eager"]
            if "identity" in r:
                rec += "; " + r["identity"]
            five = [name, params, rec, cell(r.get("pt2")), cell(r.get("torchscript"))]
        new = [r["architecture"], r["class"], five, (previous or {}).get(r["class"], ("", ""))]
        same = [i for i, row in enumerate(rows) if row[:2] == new[:2]]
        if same:
            rows[same[0]] = new
        else:
            rows.append(new)
    # by architecture, as the survey goes; the classes of one as they came
    rows.sort(key=lambda row: row[0])
    # a speed line's NAME is a class, or an architecture for the class the
    # bench's weights command takes for it: the one of its name, else its first
    default = {}
    for arch, cls, _, _ in rows:
        if cls == arch or arch not in default:
            default[arch] = cls
    print("| architecture (class) | parameters | recognised | torch.export (.pt2) | TorchScript | "
          "H200 1080p, fp16 unless marked: bare fps | filter, NVDEC nv12 fps |")
    print("|---|---:|---|---|---|---:|---:|")
    for arch, cls, five, earlier in rows:
        if five[3] is None:
            print("| %s | %s | %s | | | | |" % tuple(five[:3]))
            continue
        bare, filt = speeds.get(cls, speeds.get(arch) if default[arch] == cls else None) or earlier
        print("| %s | %s | %s | %s | %s | %s | %s |" % tuple(five + [bare, filt]))
    return lines


def doc(survey_file, doc_file, speed_file):
    """The table into doc_file, between its architectures:begin and
    architectures:end lines: the documentation's figures come from runs
    (speed_file's, and those already in the table for the others).  The
    rows of the classes survey_file has not stay as they are."""
    text = open(doc_file).read().split("\n")
    begin, end = "<!-- architectures:begin -->", "<!-- architectures:end -->"
    if begin not in text or end not in text:
        sys.exit("error: %s has no %s and %s lines" % (doc_file, begin, end))
    old = text[text.index(begin) + 1:text.index(end)]
    # architectures this run did not measure keep the figures of an earlier one
    out = text[:text.index(begin) + 1] + table(survey_file, speed_file, measured(old), old) + \
        text[text.index(end):]
    with open(doc_file, "w") as f:
        f.write("\n".join(out))


def die(message):
    sys.exit("dnn-torch-architectures: error: " + message)


def main():
    global torch
    argv = sys.argv[1:]
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return
    if argv[:1] in (["one"], ["survey"], ["weights"]):
        import torch
        try:
            import spandrel  # noqa: F401 (what every architecture comes from)
        except ImportError:
            die("the architectures are spandrel's, which this Python lacks "
                "(scripts/install-deps.sh --spandrel)")
    for path in argv[1:2] if argv[:1] == ["table"] else argv[1:3] if argv[:1] == ["doc"] else []:
        if not os.path.isfile(path):
            die("no such file: %s" % path)
    if argv[:1] == ["survey"] and len(argv) > 2:
        unknown = sorted(set(argv[2:]) - set(classes()))
        if unknown:
            die("spandrel has no architecture %s (its names: %s)"
                % (", ".join(unknown), " ".join(sorted(classes()))))
    if argv[:1] == ["one"] and len(argv) == 3:
        with tempfile.TemporaryDirectory() as tmpdir:
            print(json.dumps(survey_one(argv[1], argv[2], tmpdir)))
    elif argv[:1] == ["survey"] and len(argv) >= 2:
        survey(argv[1], set(argv[2:]))
    elif argv[:1] == ["weights"] and len(argv) == 3:
        weights(argv[1], argv[2])
    elif argv[:1] == ["table"] and len(argv) in (2, 3):
        print("\n".join(table(argv[1], argv[2] if len(argv) == 3 else None)))
    elif argv[:1] == ["doc"] and len(argv) in (3, 4):
        doc(argv[1], argv[2], argv[3] if len(argv) == 4 else None)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
