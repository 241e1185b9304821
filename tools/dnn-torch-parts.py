#!/usr/bin/env python3
"""Run one ffmpeg command over a video in parts, on the GPUs of one machine
or of a Ray cluster, and join the parts: frame for frame one ffmpeg's.

    dnn-torch-parts [OPTION...] -i INPUT -vf FILTERS [OUTPUT_OPTION...] OUTPUT

INPUT is cut at its key frames (the packets' key flags) into parts of about
--part-seconds each, more parts than devices, so that a fast device takes
more of them.  Each part is an ffmpeg of its own on one device (one GPU:
CUDA_VISIBLE_DEVICES, so FILTERS and the options say cuda as for one GPU),
given the frames around it that the filters' outputs need; it keeps the
outputs of its own times (trim) and encodes them.  The parts are then joined
without encoding again, in one pass that takes INPUT's audio, subtitles,
attachments, chapters and metadata as they are (copied), so they have no
seams.  On the CPU the joined video is exactly one ffmpeg's over the whole
video with the same options: the same frames and timestamps (make check:
fate-dnn-torch-parts-*); on GPUs too with cudnn_benchmark=0, which each part
gets where FILTERS do not set it (cuDNN's autotuner picks its algorithms in
each process: two runs of one command differed).

Engines (--engine):
  local  the devices of this machine (--devices), a part at a time each
  ray    a Ray cluster (pip install ray; scripts/install-deps.sh --ray): each
         part is a Ray task with num_gpus=1 (CPU slots with --devices cpu)
         running ffmpeg on its worker.  Without --address (or RAY_ADDRESS) a
         Ray of this machine is started (ray.init(): its GPUs and CPUs);
         with it, the cluster of "ray start --head" and
         "ray start --address=HEAD:PORT" on the other machines.  On a
         cluster, INPUT, the models and --ffmpeg must be at the same path on
         every machine (a shared directory), and so must --work-dir, where
         the parts are written, unless --via object-store.  A lost worker's
         part is run again (--retries); the output is the same.

What a part needs around it, read from FILTERS: a dnn_processing window
(frames=N), N/2 frames on each side; dnn_interpolate, the next frame, and
with fps the frame before too.  A recurrent model (recurrent=1) carries its
state over every frame before: it is refused, or with --warmup K each part
starts its state K frames before its first frame (not exact: see --warmup).
For other filters that look at several frames, --context.

Options:
  --engine E       local (default) or ray
  --devices LIST   local: GPUs, comma-separated indices (default: those
                   nvidia-smi -L lists), or cpu (parts without a GPU,
                   CUDA_VISIBLE_DEVICES empty); cpu,cpu runs two at once.
                   ray: gpu (default: a GPU a part) or cpu (a CPU slot a part)
  --part-seconds S a part's duration, at least: it ends at the first key
                   frame S seconds or more after its start (default 30)
  --parts N        N parts of about the same duration instead, at key
                   frames where INPUT has N or more, else between any two
                   frames (a part then decodes from the key frame before it)
  --hwaccel        decode each part with NVDEC on its GPU
                   (-hwaccel cuda -hwaccel_output_format cuda)
  --encode OPTS    the video encoder and its options, one argument
                   ("-c:v hevc_nvenc -preset p5 -bf 0"); OUTPUT_OPTIONs
                   (-OPTION VALUE pairs before OUTPUT) are added to them.
                   Default: the codec one ffmpeg writing OUTPUT would
                   choose, with -bf 0
  --context B,A    frames before and after a part that FILTERS need, at
                   least (what is read from FILTERS is added)
  --warmup K       recurrent models: start each part's state K frames
                   before the part (outputs of those frames are dropped);
                   the frames then differ from one run's near each part's
                   start (measured: doc/design.md)
  --ffmpeg PATH    the ffmpeg to run (default: the ffmpeg beside this
                   program, else ffmpeg on PATH); ffprobe beside it
  --work-dir DIR   where the private directory of the parts is made (mode
                   0700, removed at the end, on failure and on SIGINT or
                   SIGTERM too; default: OUTPUT's directory).  ray on a
                   cluster: a directory every machine sees at this path
  --keep           keep that directory (its path is printed)
  --progress       print progress lines (frames, fps, ETA, parts done,
                   running, failed) every 2 s; on a terminal they are
                   printed anyway, on one line
  ray only:
  --address ADDR   the cluster's head (HOST:PORT or auto; default:
                   RAY_ADDRESS, else a Ray of this machine is started)
  --ray-cpus N     the CPUs of the Ray started here (default: all)
  --parts-per-gpu N
                   N parts at once on each GPU (each a task with
                   num_gpus=1/N; default 1): for a model too small to keep
                   one GPU busy alone
  --via V          how a part reaches the join: shared (default: written
                   in the private directory by the worker) or object-store
                   (returned through Ray's object store: no shared
                   directory for the parts; each part is held in memory)
  --ship-models    send the model files (model=...) to the workers through
                   Ray's object store instead of reading them at their path
  --retries N      times a part is run again when its worker is lost
                   (default 3)

Either way every torch filter gets model_sha256=, the SHA-256 of its model
file here (unless FILTERS set it): a worker runs that very file or fails.

Each part's encoder must not reorder frames (B-frames: -bf 0 where the
encoder has them): a part would start decoding before the previous one
ends, and the join would rewrite its decoding times; such parts are
refused, and so are parts whose first frame decodes before its time (a
delay without reordering, as mpeg2video's even with -bf 0).  For such an
encoder, encode the parts losslessly and the joined video once more.

No file next to OUTPUT is written but OUTPUT, and that at the end (joined
in the private directory, then renamed where it is on the same file
system).  Prints a summary at the end: parts, frames, fps per worker, and
the seconds of probing and planning, of the parts and of the join.

Exit status 0, or 1 with an error on standard error: a part's ffmpeg
failing (its last lines are printed; the other parts are stopped), INPUT
that cannot be read, FILTERS that cannot be run in parts (a recurrent model
without --warmup), parts that reorder frames, an input whose video packets
carry no timestamps (a raw elementary stream: remux it first); 130 or 143
when interrupted (SIGINT, SIGTERM).
"""
import hashlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from fractions import Fraction

PROG = "dnn-torch-parts"
TORCH_FILTERS = ("dnn_processing", "dnn_interpolate")
# output options that would change what the join takes from INPUT
REFUSED_OPTIONS = ("-map", "-an", "-sn", "-dn", "-af", "-filter_complex", "-lavfi",
                   "-c:a", "-c:s", "-codec:a", "-codec:s", "-acodec", "-scodec", "-c", "-codec",
                   "-ss", "-t", "-to", "-frames:v", "-vframes")


class Failure(Exception):
    """An error said as such: the message, printed after PROG."""


class Interrupted(Exception):
    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def die(msg):
    raise Failure(msg)


def note(msg):
    sys.stderr.write("%s: %s\n" % (PROG, msg))


# ---------------------------------------------------------------------------
# The command line

def default_ffmpeg():
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ffmpeg")
    return here if os.access(here, os.X_OK) else "ffmpeg"


def parse_args(argv):
    opts = {"engine": "local", "devices": None, "parts": None, "part_seconds": None,
            "hwaccel": False, "encode": [], "context": (0, 0), "warmup": None,
            "ffmpeg": None, "work_dir": None, "keep": False, "progress": False,
            "address": None, "ray_cpus": None, "parts_per_gpu": None, "via": "shared", "ship_models": False,
            "retries": 3, "input": None, "filters": None, "output": None}
    flags = ("--hwaccel", "--keep", "--progress", "--ship-models")
    valued = ("--engine", "--devices", "--parts", "--part-seconds", "--encode", "--context",
              "--warmup", "--ffmpeg", "--work-dir", "--address", "--ray-cpus", "--parts-per-gpu", "--via",
              "--retries", "-i", "-vf", "-filter:v")
    extra = []
    i = 0
    while i < len(argv):
        a = argv[i]
        value = argv[i + 1] if i + 1 < len(argv) else None
        if a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        if a in flags:
            opts[a[2:].replace("-", "_")] = True
            i += 1
            continue
        if a == "-y":
            i += 1
            continue
        if a in valued:
            if value is None:
                die("%s needs a value" % a)
            set_option(opts, a, value)
            i += 2
            continue
        if a.startswith("--"):
            die("unknown option %s (see --help)" % a)
        if a.startswith("-") and a != "-":
            if a in REFUSED_OPTIONS or a.split(":")[0] in ("-map", "-af", "-filter"):
                die("%s: not an option of the parts (INPUT's audio, subtitles and other "
                    "streams are copied as they are; the video is all of INPUT's first)" % a)
            if value is None:
                die("%s needs a value (output options are -OPTION VALUE pairs)" % a)
            extra += [a, value]
            i += 2
            continue
        if opts["output"] is not None:
            die("a second output: %s (see --help)" % a)
        opts["output"] = a
        i += 1
    for key, name in (("input", "-i INPUT"), ("filters", "-vf FILTERS"), ("output", "OUTPUT")):
        if opts[key] is None:
            die("%s is missing (see --help)" % name)
    opts["encode"] += extra
    if opts["parts"] is None and opts["part_seconds"] is None:
        opts["part_seconds"] = Fraction(30)
    if opts["ffmpeg"] is None:
        opts["ffmpeg"] = default_ffmpeg()
    if os.sep in opts["ffmpeg"]:
        opts["ffmpeg"] = os.path.abspath(opts["ffmpeg"])
    if opts["engine"] == "ray":
        opts["devices"] = opts["devices"] or ["gpu"]
        if opts["devices"] not in (["gpu"], ["cpu"]):
            die("--devices %s: with --engine ray, gpu or cpu" % ",".join(opts["devices"]))
        if opts["parts_per_gpu"] is not None and opts["devices"] != ["gpu"]:
            die("--parts-per-gpu: with --devices gpu only")
    else:
        for name in ("address", "ray_cpus", "parts_per_gpu"):
            if opts[name] is not None:
                die("--%s: with --engine ray only" % name.replace("_", "-"))
        if opts["via"] != "shared" or opts["ship_models"]:
            die("--via and --ship-models: with --engine ray only")
    return opts


def set_option(opts, a, value):
    if a == "--engine":
        if value not in ("local", "ray"):
            die("--engine %s: local or ray" % value)
        opts["engine"] = value
    elif a == "--devices":
        opts["devices"] = [d.strip() for d in value.split(",") if d.strip()]
        for d in opts["devices"]:
            if d not in ("cpu", "gpu") and not d.isdigit():
                die("--devices %s: a GPU is its index (0, 1...), or cpu" % value)
    elif a in ("--parts", "--retries", "--ray-cpus", "--parts-per-gpu", "--warmup"):
        least = 1 if a in ("--parts", "--ray-cpus", "--parts-per-gpu") else 0
        if not value.isdigit() or int(value) < least:
            die("%s %s: a whole number, %d or more" % (a, value, least))
        opts[a[2:].replace("-", "_")] = int(value)
    elif a == "--part-seconds":
        try:
            s = Fraction(value)
        except (ValueError, ZeroDivisionError):
            s = 0
        if s <= 0:
            die("--part-seconds %s: a duration in seconds, more than 0" % value)
        opts["part_seconds"] = s
    elif a == "--encode":
        opts["encode"] = shlex.split(value)
    elif a == "--context":
        m = re.fullmatch(r"(\d+),(\d+)", value)
        if not m:
            die("--context %s: frames before and after, as B,A" % value)
        opts["context"] = (int(m.group(1)), int(m.group(2)))
    elif a == "--via":
        if value not in ("shared", "object-store"):
            die("--via %s: shared or object-store" % value)
        opts["via"] = value
    elif a == "-i":
        opts["input"] = value
    elif a in ("-vf", "-filter:v"):
        opts["filters"] = value
    else:
        opts[a[2:].replace("-", "_")] = value


# ---------------------------------------------------------------------------
# The filtergraph: what each part needs around it, and what it runs

def split_unquoted(text, separators):
    """text cut at each of separators outside quotes ('...') and not
    escaped (a backslash), as FFmpeg's parsers cut it: (start, end) each."""
    pieces, start, i, quoted = [], 0, 0, False
    while i < len(text):
        c = text[i]
        if quoted:
            quoted = c != "'"
        elif c == "\\":
            i += 1
        elif c == "'":
            quoted = True
        elif c in separators:
            pieces.append((start, i))
            start = i + 1
        i += 1
    pieces.append((start, len(text)))
    return pieces


def graph_filters(filters):
    """Each filter of the filtergraph filters: its name (without @id) and
    the span of its options' text (start, end), or (where they would go,
    None) for a filter given none."""
    found = []
    for start, end in split_unquoted(filters, ",;"):
        spec = filters[start:end]
        # link labels before it
        i = 0
        while i < len(spec) and (spec[i].isspace() or spec[i] == "["):
            i = spec.index("]", i) + 1 if spec[i] == "[" and "]" in spec[i:] else i + 1
        name_end = i
        while name_end < len(spec) and spec[name_end] not in "=[]" and not spec[name_end].isspace():
            name_end += 1
        name = spec[i:name_end].split("@", 1)[0]
        if name_end < len(spec) and spec[name_end] == "=":
            # its options: up to a link label after them
            options = split_unquoted(spec[name_end + 1:], "[]")[0]
            found.append((name, start + name_end + 1, start + name_end + 1 + options[1]))
        else:
            found.append((name, start + name_end, None))
    return found


def option_spans(text):
    """A filter's options text: (key or #N, value, value's start, end) each."""
    spans = []
    for k, (start, end) in enumerate(split_unquoted(text, ":")):
        part = text[start:end]
        pieces = split_unquoted(part, "=")
        if len(pieces) == 1:
            if part.strip():
                spans.append(("#%d" % k, part.strip(), start, end))
            continue
        key = part[:pieces[0][1]].strip()
        vstart = start + pieces[1][0]
        spans.append((key, text[vstart:end].strip().strip("'"), vstart, end))
    return spans


def options_of(text):
    """A filter's options text as a dict (positional ones as #N)."""
    return {key: value for key, value, _, _ in option_spans(text)}


def filter_options(filters, name):
    """The options of each instance of filter name in filters, as dicts."""
    return [options_of(filters[a:b] if b is not None else "")
            for n, a, b in graph_filters(filters) if n == name]


def is_on(value):
    return value.lower() not in ("0", "false", "no", "off", "n", "disable")


def context(filters, given, warmup):
    """Frames (before, after) a part needs around it, for filters."""
    before, after = given
    for o in filter_options(filters, "dnn_processing"):
        if is_on(o.get("recurrent", "0")):
            if warmup is None:
                die("a recurrent model (recurrent=1) carries its state over every frame "
                    "before: a part would start from an empty state; run it in one ffmpeg, "
                    "or give --warmup K (not exact)")
            before += warmup
        frames = o.get("frames", "1")
        if not frames.isdigit():
            die("dnn_processing frames=%s: the tool reads a number of frames" % frames)
        frames = int(frames)
        before += frames // 2
        after += frames // 2
    for o in filter_options(filters, "dnn_interpolate"):
        after += 1
        if "fps" in o:
            before += 1
    return before, after


def processing_backend(ffmpeg):
    """dnn_processing's backend where dnn_backend is left out: the build's
    default (TensorFlow or OpenVINO before torch, where they are built)."""
    try:
        text = subprocess.run([ffmpeg, "-hide_banner", "-h", "filter=dnn_processing"],
                              capture_output=True, text=True).stdout
    except OSError:
        return None
    m = re.search(r"^\s*dnn_backend\s.*\(default (\w+)\)", text, re.M)
    return m.group(1) if m else None


def torch_filters(filters, default_backend):
    """(start, end, options spans) of each torch DNN filter of filters.
    default_backend: dnn_processing's where dnn_backend (its first option)
    is left out; dnn_interpolate's is torch."""
    found = []
    for name, start, end in graph_filters(filters):
        if name not in TORCH_FILTERS:
            continue
        spans = option_spans(filters[start:end]) if end is not None else []
        options = {s[0]: s[1] for s in spans}
        if name == "dnn_processing" and \
                options.get("dnn_backend", options.get("#0", default_backend)) != "torch":
            continue
        found.append((start, end, spans))
    return found


def add_option(filters, start, end, text):
    """The edit that adds the option text to the filter at (start, end)."""
    if end is None:
        return (start, start, "=" + text)
    given = filters[start:end].rstrip()
    return (start + len(given), start + len(given),
            text if given.endswith(":") or not given else ":" + text)


def edited(filters, edits):
    for a, b, text in sorted(edits, reverse=True):
        filters = filters[:a] + text + filters[b:]
    return filters


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def part_filters(filters, default_backend, ship):
    """filters as each part runs them: cudnn_benchmark=0 in each torch DNN
    filter that does not set it (every part, and so the whole, then runs
    the same algorithms), its model as an absolute path (or, with ship, a
    token the worker replaces with its copy's path), and model_sha256= of
    the model file unless given.  Returns them and the models {token: path}."""
    edits, models = [], {}
    for start, end, spans in torch_filters(filters, default_backend):
        options = {s[0]: s[1] for s in spans}
        for key, value, a, b in spans:
            if key != "model":
                continue
            path = os.path.abspath(value)
            try:
                digest = sha256_of(path)
            except OSError as e:
                die("model %s: %s" % (value, e.strerror))
            token = "@@MODEL%d@@" % len(models)
            models[token] = path
            if ship:
                edits.append((start + a, start + b, token))
            elif path != value:
                # a worker's directory is not ours: the path from /
                if not re.fullmatch(r"[\w./+@%-]+", path):
                    die("model=%s: give the model's path from / (it has characters "
                        "the filtergraph would need escaped)" % value)
                edits.append((start + a, start + b, path))
            if "model_sha256" not in options:
                edits.append(add_option(filters, start, end, "model_sha256=" + digest))
        if "cudnn_benchmark" not in options:
            edits.append(add_option(filters, start, end, "cudnn_benchmark=0"))
    return edited(filters, edits), models


# ---------------------------------------------------------------------------
# The input: frames, key frames, and the parts

def ffprobe_of(ffmpeg):
    return os.path.join(os.path.dirname(ffmpeg), "ffprobe") if os.sep in ffmpeg else "ffprobe"


def probe_video(ffmpeg, path, entries):
    """ffprobe's lines of path's first video stream: a dict each."""
    ffprobe = ffprobe_of(ffmpeg)
    cmd = [ffprobe, "-v", "error", "-select_streams", "v:0", "-show_entries", entries,
           "-of", "compact=p=0:nk=0", "file:" + os.path.abspath(path)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    except OSError as e:
        die("cannot run %s (it lists the input's frames): %s" % (ffprobe, e.strerror))
    except subprocess.CalledProcessError as e:
        last = e.stderr.strip().splitlines()[-1:]
        die("%s cannot be read: %s" % (path, " ".join(last).replace("file:" + os.path.abspath(path), path)))
    return [dict(f.split("=", 1) for f in line.split("|") if "=" in f) for line in out.splitlines()]


def probe(ffmpeg, path):
    """INPUT's video frame times (seconds from the input's start, as
    ffmpeg's timeline with -copyts -start_at_zero has them), sorted, the
    indices of its key frames among them, and that start (seconds)."""
    tb, start, pts, keys = None, Fraction(0), [], set()
    for fields in probe_video(ffmpeg, path, "format=start_time:packet=pts,flags:stream=time_base"):
        if "time_base" in fields:
            tb = Fraction(fields["time_base"])
        if fields.get("start_time", "N/A") != "N/A":
            start = Fraction(fields["start_time"])
        if "pts" in fields:
            if fields["pts"] == "N/A":
                # a raw elementary stream: its frames' times come from the
                # decoder only, and the cuts would be guesses
                die("%s has video packets without a timestamp: remux it into a "
                    "container first (ffmpeg -i IN -c copy OUT.mkv)" % path)
            pts.append(int(fields["pts"]))
            if "K" in fields.get("flags", ""):
                keys.add(int(fields["pts"]))
    if tb is None or not pts:
        die("%s has no video frame" % path)
    order = sorted(pts)
    key_index = [i for i, p in enumerate(order) if p in keys]
    return [p * tb - start for p in order], key_index, start


def cut_starts(times, key_index, parts, part_seconds):
    """The frames' indices where each part starts."""
    n = len(times)
    cuts = [i for i in key_index if i > 0]
    if part_seconds is not None:
        starts = [0]
        for i in cuts:
            if times[i] - times[starts[-1]] >= part_seconds:
                starts.append(i)
        return starts
    if parts > n:
        die("%d parts of %d frames" % (parts, n))
    if len(cuts) < parts - 1:
        cuts = list(range(1, n))  # between any two frames
    starts = [0]
    for k in range(1, parts):
        target = times[0] + (times[-1] - times[0]) * k / parts
        allowed = [c for c in cuts if c > starts[-1]]
        allowed = allowed[:len(allowed) - (parts - 1 - k)]
        starts.append(next((c for c in allowed if times[c] >= target), allowed[-1]))
    return starts


def seconds(t):
    """A time for ffmpeg's options: microseconds, exactly what ffmpeg parses."""
    us = round(t * 1000000)
    return "%s%d.%06d" % ("-" if us < 0 else "", abs(us) // 1000000, abs(us) % 1000000)


class Plan:
    """The parts of INPUT: where each starts, its boundaries (halfway
    between two frames, in microseconds) and each part's command."""

    def __init__(self, opts, times, key_index, start, ctx):
        self.times, self.start, self.ctx = times, start, ctx
        self.starts = cut_starts(times, key_index, opts["parts"] or len(opts["devices"]),
                                 opts["part_seconds"])
        self.bounds = [Fraction(round((times[i - 1] + times[i]) / 2 * 1000000), 1000000)
                       for i in self.starts[1:]]
        self.count = len(self.starts)
        self.sizes = [b - a for a, b in zip(self.starts, self.starts[1:] + [len(times)])]
        edges = [times[0]] + self.bounds + [times[-1]]
        self.spans = list(zip(edges, edges[1:]))

    def command(self, opts, k, path):
        before, after = self.ctx
        times, n = self.times, len(self.times)
        first = self.starts[k]
        last = (self.starts[k + 1] if k + 1 < self.count else n) - 1
        # one frame more on each side: a boundary lies halfway between two
        # frames, where an interpolated output can fall (it is the later
        # part's, made of the frame before the part); extra frames cost
        # their decoding only, since their outputs are cut
        lo, hi = max(first - before - 1, 0), min(last + after + 1, n - 1)
        cmd = [opts["ffmpeg"], "-nostdin", "-hide_banner", "-nostats", "-v", "error",
               "-progress", "pipe:1"]
        if opts["hwaccel"]:
            cmd += ["-hwaccel", "cuda", "-hwaccel_output_format", "cuda"]
        # read from halfway to the frame before the context (exact: ffmpeg
        # drops the decoded frames before -ss) to halfway after the context
        read = []
        if lo > 0:
            read.append("start=" + seconds((times[lo - 1] + times[lo]) / 2))
            cmd += ["-ss", seconds((times[lo - 1] + times[lo]) / 2)]
        if hi < n - 1:
            read.append("end=" + seconds((times[hi] + times[hi + 1]) / 2))
        cmd += ["-copyts", "-start_at_zero", "-i", "file:" + os.path.abspath(opts["input"])]
        keep = []
        if k > 0:
            keep.append("start=" + seconds(self.bounds[k - 1]))
        if k < len(self.bounds):
            keep.append("end=" + seconds(self.bounds[k]))
        graph = opts["part_filters"]
        if read:
            graph = "trim=%s,%s" % (":".join(read), graph)
        if keep:
            graph = "%s,trim=%s" % (graph, ":".join(keep))
        cmd += ["-vf", graph, "-map", "0:v:0", "-an", "-sn", "-dn", "-fps_mode", "passthrough"]
        return cmd + opts["encode"] + ["-f", "nut", "-y", path]


# ---------------------------------------------------------------------------
# A part: one ffmpeg (the local engine and Ray's workers run this)

def die_with_parent():
    """In the child: killed (SIGKILL) when the process that started it dies
    (Linux), so that a lost worker leaves no ffmpeg behind."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def run_ffmpeg(cmd, env, report=None, started=None):
    """Run a part's ffmpeg; report(frames, out_time_us) as it goes.
    Returns (exit status, the last lines of its errors, frames)."""
    # PR_SET_PDEATHSIG fires when the thread that started the child ends:
    # only from the main thread is that the process's end
    main = threading.current_thread() is threading.main_thread()
    with tempfile.TemporaryFile(mode="w+") as err:
        try:
            proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=err, text=True,
                                    preexec_fn=die_with_parent if main else None)
        except OSError as e:
            return 127, "cannot run %s: %s\n" % (cmd[0], e.strerror), 0
        if started:
            started(proc)
        frames = 0
        for line in proc.stdout:
            key, _, value = line.strip().partition("=")
            if key == "frame" and value.isdigit():
                frames = int(value)
            elif key == "out_time_us" and value.lstrip("-").isdigit() and report:
                report(frames, int(value))
        proc.wait()
        err.seek(0)
        return proc.returncode, "".join(err.read().splitlines(True)[-8:]), frames


def part_env(device):
    env = dict(os.environ)
    if device == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""
    elif device != "gpu":  # an index of the local engine; ray sets its own
        env["CUDA_VISIBLE_DEVICES"] = device
    return env


def test_hold(hold, k):
    """Test only (DNN_TORCH_PARTS_TEST_HOLD=K:FILE): the first try of part
    K writes its process id to FILE and waits to be killed."""
    if not hold or hold[0] != k or os.path.exists(hold[1]):
        return
    with open(hold[1] + ".new", "w") as f:
        f.write("%d\n" % os.getpid())
    os.replace(hold[1] + ".new", hold[1])
    time.sleep(120)
    raise RuntimeError("part %d was not killed (%s)" % (k, hold[1]))


# ---------------------------------------------------------------------------
# Progress and the summary

class Progress:
    """Parts done, running and failed, frames and video seconds made; a line
    now and then, and the summary at the end."""

    def __init__(self, plan, show):
        self.plan, self.show = plan, show
        self.lock = threading.Lock()
        self.state = {}     # part: "running", "done" or "failed"
        self.frames = {}    # part: output frames so far
        self.made = {}      # part: seconds of video made
        self.workers = {}   # worker: [parts, frames, seconds of ffmpeg]
        self.t0 = time.monotonic()
        self.last = 0
        self.tty = show and sys.stderr.isatty()

    def update(self, k, state, frames=None, out_us=None):
        with self.lock:
            self.state[k] = state
            if frames is not None:
                self.frames[k] = frames
            if out_us is not None:
                a, b = self.plan.spans[k]
                t = Fraction(out_us, 1000000)
                self.made[k] = min(max(t - a, 0), b - a)
            if state == "done":
                a, b = self.plan.spans[k]
                self.made[k] = b - a

    def finished(self, k, worker, frames, secs):
        self.update(k, "done", frames)
        with self.lock:
            w = self.workers.setdefault(worker, [0, 0, 0.0])
            w[0] += 1
            w[1] += frames
            w[2] += secs

    def line(self):
        with self.lock:
            states = list(self.state.values())
            frames = sum(self.frames.values())
            made = sum(self.made.values())
        elapsed = time.monotonic() - self.t0
        total = self.plan.times[-1] - self.plan.times[0]
        eta = "--:--"
        if made > 0 and total > 0:
            left = int(float(total - made) * elapsed / float(made))
            eta = "%d:%02d:%02d" % (left // 3600, left // 60 % 60, left % 60)
        return ("frames %d, %.1f fps, %d%%, ETA %s; parts %d done, %d running, %d failed, of %d"
                % (frames, frames / elapsed if elapsed > 0 else 0,
                   int(100 * made / total) if total > 0 else 100, eta,
                   states.count("done"), states.count("running"), states.count("failed"),
                   self.plan.count))

    def tick(self, force=False):
        if not self.show:
            return
        now = time.monotonic()
        if not force and now - self.last < (0.5 if self.tty else 2):
            return
        self.last = now
        if self.tty:
            sys.stderr.write("\r%s: %s\033[K" % (PROG, self.line()))
        else:
            note(self.line())
        sys.stderr.flush()

    def end(self):
        if self.tty:
            sys.stderr.write("\n")

    def summary(self, opts, steps):
        plan = self.plan
        elapsed = time.monotonic() - self.t0
        print("%s: %d frames in %d parts (%s), context %d before, %d after: %s"
              % (PROG, len(plan.times), plan.count, " ".join(map(str, plan.sizes)),
                 plan.ctx[0], plan.ctx[1], opts["output"]))
        frames = 0
        for worker in sorted(self.workers):
            n, f, secs = self.workers[worker]
            frames += f
            print("%s: worker %s: %d parts, %d frames, %.1f fps" % (PROG, worker, n, f,
                                                                   f / secs if secs else 0))
        print("%s: total: %d frames out in %.1f s, %.1f fps" % (PROG, frames, elapsed,
                                                              frames / elapsed if elapsed else 0))
        # what the parts cost beyond the runs themselves
        print("%s: time: %s" % (PROG, ", ".join("%s %.2f s" % step for step in steps)))


# ---------------------------------------------------------------------------
# The local engine: a part at a time on each device

def run_local(opts, plan, private, progress):
    paths = [os.path.join(private, "part%d.nut" % k) for k in range(plan.count)]
    queue = list(range(plan.count))
    lock = threading.Lock()
    procs, errors = {}, []
    stop = threading.Event()

    def device_loop(slot, device):
        while not stop.is_set():
            with lock:
                if not queue:
                    return
                k = queue.pop(0)
            progress.update(k, "running")
            t = time.monotonic()

            def started(proc):
                with lock:
                    procs[k] = proc
                    if stop.is_set():
                        proc.terminate()
            status, err, frames = run_ffmpeg(plan.command(opts, k, paths[k]), part_env(device),
                                     lambda f, us: progress.update(k, "running", f, us), started)
            with lock:
                procs.pop(k, None)
            if status != 0:
                progress.update(k, "failed")
                if not stop.is_set():
                    errors.append("part %d (device %s) failed, exit %d:\n%s" % (k, device, status, err))
                stop.set()
                with lock:
                    for p in procs.values():
                        p.terminate()
                return
            progress.finished(k, "%s device %s (slot %d)" % (os.uname().nodename, device, slot), frames,
                              time.monotonic() - t)

    threads = [threading.Thread(target=device_loop, args=(i, d), daemon=True)
               for i, d in enumerate(opts["devices"])]
    for t in threads:
        t.start()
    try:
        while any(t.is_alive() for t in threads):
            progress.tick()
            time.sleep(0.1)
    finally:
        stop.set()
        with lock:
            for p in procs.values():
                p.terminate()
        for t in threads:
            t.join()
    if errors:
        die(errors[0].rstrip("\n"))
    return paths


# ---------------------------------------------------------------------------
# The Ray engine: a task a part

def ray_part(spec, models, progress):
    """A Ray task: part spec["k"] on this worker.  Returns a dict: ok,
    error, frames, seconds, worker, and with --via object-store data."""
    import ray
    k, local = spec["k"], None
    cmd = list(spec["cmd"])
    try:
        if models:
            local = tempfile.mkdtemp(prefix="dnn-torch-parts-model.")
            for i, (token, (name, data)) in enumerate(sorted(models.items())):
                path = os.path.join(local, "model%d%s" % (i, os.path.splitext(name)[1]))
                with open(path, "wb") as f:
                    f.write(data)
                cmd = [a.replace(token, path) for a in cmd]
        if spec["via"] == "object-store":
            local = local or tempfile.mkdtemp(prefix="dnn-torch-parts-part.")
            out = os.path.join(local, "part.nut")
        else:
            # a try of its own: a lost worker's ffmpeg may still be writing its file
            out = "%s.%s.nut" % (spec["path"][:-4], uuid.uuid4().hex)
        cmd[-1] = out
        worker = "%s pid %d" % (ray.util.get_node_ip_address(), os.getpid())
        last = [0.0]

        def report(frames, us):
            now = time.monotonic()
            if now - last[0] >= 0.5:
                last[0] = now
                progress.update.remote(k, "running", frames, us)
        progress.update.remote(k, "running")
        t = time.monotonic()
        held = []
        status, err, frames = run_ffmpeg(cmd, part_env(spec["device"]), report,
                                 lambda proc: held.append(test_hold(spec["hold"], k)))
        result = {"ok": status == 0, "frames": frames, "seconds": time.monotonic() - t, "worker": worker,
                  "error": "part %d (worker %s) failed, exit %d:\n%s" % (k, worker, status, err)}
        if status != 0:
            return result
        if spec["via"] == "object-store":
            with open(out, "rb") as f:
                result["data"] = f.read()
        else:
            os.replace(out, spec["path"])
        return result
    finally:
        if local:
            shutil.rmtree(local, ignore_errors=True)


def ray_progress_actor(ray):
    @ray.remote(num_cpus=0)
    class ProgressActor:
        def __init__(self):
            self.updates = []

        def update(self, k, state, frames=None, us=None):
            self.updates.append((k, state, frames, us))

        def take(self):
            updates, self.updates = self.updates, []
            return updates
    return ProgressActor.remote()


def ray_start(opts):
    try:
        import ray
    except ImportError:
        die("--engine ray needs Ray (pip install ray; scripts/install-deps.sh --ray)")
    import logging
    address = opts["address"] or os.environ.get("RAY_ADDRESS")
    kwargs = {"logging_level": logging.WARNING, "log_to_driver": False}
    if address:
        kwargs["address"] = address
    else:
        # a Ray of its own, not one that "ray start" left running here
        kwargs.update(address="local", include_dashboard=False, object_store_memory=200 * 1024 * 1024)
        if opts["ray_cpus"]:
            kwargs["num_cpus"] = opts["ray_cpus"]
    try:
        ray.init(**kwargs)
    except Exception as e:  # Ray's errors have no common class
        die("cannot %s Ray: %s" % ("reach the cluster at %s:" % address if address else "start",
                                   str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__))
    return ray


def run_ray(opts, plan, private, progress):
    ray = ray_start(opts)
    try:
        return ray_parts(ray, opts, plan, private, progress)
    finally:
        ray.shutdown()


def ray_parts(ray, opts, plan, private, progress):
    from ray.exceptions import RayError
    paths = [os.path.join(private, "part%d.nut" % k) for k in range(plan.count)]
    device = opts["devices"][0]
    resources = {"num_gpus": 1 / (opts["parts_per_gpu"] or 1)} if device == "gpu" else {"num_cpus": 1}
    if device == "gpu" and not ray.cluster_resources().get("GPU"):
        die("the Ray cluster has no GPU: give --devices cpu for parts on CPU slots")
    task = ray.remote(ray_part).options(max_retries=opts["retries"], retry_exceptions=False, **resources)
    models = {}
    for token, path in opts["models"].items():
        with open(path, "rb") as f:
            models[token] = (os.path.basename(path), f.read())
    models_ref = ray.put(models)
    actor = ray_progress_actor(ray)
    hold = os.environ.get("DNN_TORCH_PARTS_TEST_HOLD")
    hold = (int(hold.split(":", 1)[0]), hold.split(":", 1)[1]) if hold else None
    refs = {}
    for k in range(plan.count):
        spec = {"k": k, "cmd": plan.command(opts, k, paths[k]), "path": paths[k],
                "via": opts["via"], "device": device, "hold": hold}
        refs[task.remote(spec, models_ref, actor)] = k
    pending = list(refs)
    try:
        while pending:
            done, pending = ray.wait(pending, timeout=0.5)
            for u in ray.get(actor.take.remote()):
                progress.update(*u)
            for ref in done:
                k = refs[ref]
                try:
                    result = ray.get(ref)
                except RayError as e:
                    progress.update(k, "failed")
                    die("part %d failed on Ray (%d retries): %s" % (
                        k, opts["retries"], str(e).strip().splitlines()[0]))
                if not result["ok"]:
                    progress.update(k, "failed")
                    die(result["error"].rstrip("\n"))
                if "data" in result:
                    with open(paths[k], "wb") as f:
                        f.write(result["data"])
                progress.finished(k, result["worker"], result["frames"], result["seconds"])
            progress.tick()
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
    return paths


# ---------------------------------------------------------------------------
# The join

def ffconcat_quote(path):
    """path as one token of an ffconcat file (av_get_token: literal inside
    '...', a quote as '\\''); a line holds no newline, so none is refused."""
    if "\n" in path or "\r" in path:
        die("%r: a file name with a newline cannot be listed in an ffconcat file" % path)
    return "'" + path.replace("'", "'\\''") + "'"


def write_listing(plan, paths, listing):
    """The concat demuxer's list, its files relative to it: each part's
    times are the input's (-copyts), inpoint its start and duration its
    length give every packet its own time back."""
    with open(listing, "x") as f:
        f.write("ffconcat version 1.0\n")
        edges = [Fraction(0)] + plan.bounds
        for k, path in enumerate(paths):
            f.write("file %s\n" % ffconcat_quote(os.path.basename(path)))
            f.write("inpoint %s\n" % seconds(edges[k]))
            if k < len(plan.bounds):
                f.write("duration %s\n" % seconds(plan.bounds[k] - edges[k]))


def reorder_error(ffmpeg, paths):
    """None, or why the parts cannot be joined: an encoder that reorders
    frames (B-frames) starts each part with a decoding time before its
    first frame's, at or before the previous part's last, and the join
    would rewrite it.  Such a part has a packet whose time is before that
    of the packet stored before it."""
    for k, path in enumerate(paths):
        packets = [f for f in probe_video(ffmpeg, path, "packet=pts,dts")
                   if f.get("pts", "N/A") != "N/A"]
        pts = [int(f["pts"]) for f in packets]
        if any(b < a for a, b in zip(pts, pts[1:])):
            return ("part %d's encoder reorders frames (B-frames), and the parts would not "
                    "join in decoding order: encode without them (-bf 0), or losslessly "
                    "and the joined video once more" % k)
        # a decoding delay without reordering (mpeg2video's, even with -bf
        # 0: each packet decodes at the time of the frame before it): the
        # concat demuxer would move a part by it, off its times
        if any(f.get("dts", "N/A") != "N/A" and int(f["dts"]) < int(f["pts"]) for f in packets):
            return ("part %d's encoder gives frames decoding times before their "
                    "presentation times (a delay, as mpeg2video's even with -bf 0), and the "
                    "parts would not join at their times: encode them with one without "
                    "(mpeg4 or libx264 with -bf 0, NVENC with -bf 0), or losslessly and the "
                    "joined video once more" % k)
    return None


def join_command(opts, listing, start, out):
    # the parts' times as they are (-copyts: not from the first video
    # packet), the other streams' from the input's start, as one run has
    # them; INPUT's metadata, chapters and every stream but its video (the
    # parts' video streams have its tags, as one run's)
    return [opts["ffmpeg"], "-nostdin", "-hide_banner", "-nostats", "-v", "error", "-copyts",
            "-f", "concat", "-safe", "0", "-i", "file:" + listing,
            "-itsoffset", seconds(-start), "-i", "file:" + os.path.abspath(opts["input"]),
            "-map", "0:v", "-map", "1:a?", "-map", "1:s?", "-map", "1:t?",
            "-map_metadata", "1", "-map_chapters", "1",
            "-c", "copy", "-y", out]


def join(opts, plan, paths, private):
    why = reorder_error(opts["ffmpeg"], paths)
    if why:
        die(why)
    listing = os.path.join(private, "parts.ffconcat")
    write_listing(plan, paths, listing)
    out = os.path.join(private, "joined" + os.path.splitext(opts["output"])[1])
    run = subprocess.run(join_command(opts, listing, plan.start, "file:" + out),
                         stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        die("joining the parts failed, exit %d:\n%s" % (run.returncode, run.stderr.rstrip("\n")))
    try:
        os.replace(out, opts["output"])
    except OSError:
        # another file system (--work-dir): copied, then the copy renamed
        tmp = place_beside(opts["output"])
        try:
            shutil.copyfile(out, tmp)
            os.replace(tmp, opts["output"])
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise


def place_beside(output):
    fd, path = tempfile.mkstemp(prefix=".%s." % os.path.basename(output),
                                dir=os.path.dirname(os.path.abspath(output)))
    os.close(fd)
    return path


# ---------------------------------------------------------------------------
# Before the parts

def devices_of(opts):
    if opts["devices"]:
        return opts["devices"]
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout
    except FileNotFoundError:
        out = ""
    gpus = [str(i) for i, line in enumerate(l for l in out.splitlines() if l.startswith("GPU "))]
    if not gpus:
        die("no GPU listed by nvidia-smi -L: give --devices (cpu for parts without one)")
    return gpus


def check_output(opts, private):
    """Before any part runs: write one frame to a file of OUTPUT's format
    with the parts' encoder (the format's default codec when --encode is
    not given) and INPUT's other streams copied, as the join will; the
    encoder's options and the streams are then known to fit.  Sets
    opts["encode"]."""
    ffmpeg = opts["ffmpeg"]
    path = os.path.join(private, "probe" + os.path.splitext(opts["output"])[1])
    cmd = [ffmpeg, "-nostdin", "-hide_banner", "-v", "error",
           "-f", "lavfi", "-i", "color=s=256x256:r=25,format=yuv420p",
           "-i", "file:" + os.path.abspath(opts["input"]),
           "-map", "0:v", "-map", "1:a?", "-map", "1:s?", "-map", "1:t?",
           "-frames:v", "1", "-t", "0.2", "-c:a", "copy", "-c:s", "copy", "-c:t", "copy"]
    cmd += opts["encode"] + ["-y", "file:" + path]
    try:
        run = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    except OSError as e:
        die("cannot run %s: %s" % (ffmpeg, e.strerror))
    if run.returncode != 0:
        first = " ".join(run.stderr.strip().splitlines()[:1])  # the cause: the first line
        die("%s cannot be written with %s and %s's other streams copied: %s"
            % (opts["output"], "--encode " + shlex.join(opts["encode"]) if opts["encode"]
               else "its format's default video codec", opts["input"],
               first.replace("file:" + os.path.abspath(opts["input"]), opts["input"])))
    if not opts["encode"]:
        found = probe_video(ffmpeg, path, "stream=codec_name")
        if not found or not found[0].get("codec_name"):
            die("%s: no video stream in a file of its format; give --encode" % opts["output"])
        # B-frames would reorder a part's frames (see reorder_error)
        opts["encode"] = ["-c:v", found[0]["codec_name"], "-bf", "0"]
    os.remove(path)


def private_dir(opts):
    """The parts' directory: made by mkdtemp (mode 0700, a name of its own:
    no file of the user's is written or followed)."""
    where = opts["work_dir"] or os.path.dirname(os.path.abspath(opts["output"]))
    try:
        return tempfile.mkdtemp(prefix=".%s." % PROG, dir=where)
    except OSError as e:
        die("cannot make a directory for the parts in %s: %s" % (where, e.strerror))


def run(opts):
    if opts["engine"] == "local":
        opts["devices"] = devices_of(opts)
    ctx = context(opts["filters"], opts["context"], opts["warmup"])
    if opts["warmup"] is not None and any(is_on(o.get("recurrent", "0")) for o in
                                          filter_options(opts["filters"], "dnn_processing")):
        note("a recurrent model's state starts %d frames before each part: the frames "
             "near each part's start are not exactly one run's" % opts["warmup"])
    opts["part_filters"], opts["models"] = part_filters(
        opts["filters"], processing_backend(opts["ffmpeg"]), opts["ship_models"])
    t0 = time.monotonic()
    times, key_index, start = probe(opts["ffmpeg"], opts["input"])
    private = private_dir(opts)
    try:
        check_output(opts, private)
        plan = Plan(opts, times, key_index, start, ctx)
        t1 = time.monotonic()
        progress = Progress(plan, opts["progress"] or sys.stderr.isatty())
        engine = run_ray if opts["engine"] == "ray" else run_local
        try:
            paths = engine(opts, plan, private, progress)
        finally:
            progress.tick(force=True)
            progress.end()
        t2 = time.monotonic()
        join(opts, plan, paths, private)
        t3 = time.monotonic()
        progress.summary(opts, [("probe and plan", t1 - t0),
                                ("parts (%s engine)" % opts["engine"], t2 - t1), ("join", t3 - t2)])
    finally:
        if opts["keep"]:
            note("the parts are kept in %s" % private)
        else:
            shutil.rmtree(private, ignore_errors=True)


def main():
    def interrupted(signum, frame):
        raise Interrupted(signum)
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)
    try:
        run(parse_args(sys.argv[1:]))
    except Failure as e:
        sys.stderr.write("%s: error: %s\n" % (PROG, e))
        sys.exit(1)
    except Interrupted as e:
        sys.stderr.write("%s: interrupted (%s): the parts are removed\n"
                         % (PROG, signal.Signals(e.signum).name))
        sys.exit(128 + e.signum)


if __name__ == "__main__":
    main()
