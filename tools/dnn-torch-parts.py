#!/usr/bin/env python3
"""Run a filtergraph over a video in parts, one ffmpeg a GPU, and join them.

    dnn-torch-parts.py [OPTION...] -i INPUT -vf FILTERS OUTPUT

INPUT is cut at times between its frames into parts of about the same
duration.  Each part runs in an ffmpeg of its own, on one GPU
(CUDA_VISIBLE_DEVICES: FILTERS and the options say cuda, as for one GPU),
given the frames around it that the filters' outputs need; it keeps the
outputs of its own times (trim) and encodes them.  The parts are then
joined without encoding again, INPUT's audio copied (its other streams
are left out).  On the CPU the frames and their timestamps are exactly
those of one ffmpeg over the whole video with the same options (make
check: fate-dnn-torch-parts-*); each part's encoding starts with a key
frame.  Each part runs its torch DNN filters with cudnn_benchmark=0 where
FILTERS do not set it.  With cuDNN's autotuner on, each process times and
chooses the convolutions' algorithms itself, and two runs of one command
on a GPU gave different frames (a FastDVDnet-shaped window model on an
H200: most frames); with it off they were bit-exact, and three parts on
one GPU joined were bit-exact with one ffmpeg over the whole video with
cudnn_benchmark=0 (parts on several GPUs of one model are expected to be
so too; not measured).

What a part needs around it, read from FILTERS: a dnn_processing window
(frames=N), N/2 frames on each side; dnn_interpolate, the next frame, and
with fps the frame before too.  A recurrent model (recurrent=1) carries its
state over every frame before: it is refused, since a part would start from
an empty state.  For other filters that look at several frames, --context
gives the frames before and after.

Options:
  --devices LIST   the GPUs, comma-separated indices (default: those
                   nvidia-smi -L lists); "cpu" runs a part with no GPU
                   (CUDA_VISIBLE_DEVICES empty)
  --parts N        the number of parts (default: one a device), given to
                   the devices in turn and run at once
  --hwaccel        decode each part with NVDEC on its GPU
                   (-hwaccel cuda -hwaccel_output_format cuda)
  --encode OPTS    the video encoder and its options, one argument
                   ("-c:v hevc_nvenc -preset p5 -bf 0"; default: the
                   codec one ffmpeg writing OUTPUT would choose, the
                   output format's default, its encoder's defaults,
                   with -bf 0)
  --context B,A    frames before and after a part that FILTERS need, at
                   least (what is read from FILTERS is added)
  --ffmpeg PATH    the ffmpeg to run (default: ffmpeg); ffprobe beside it
                   lists INPUT's frames
  --keep           keep the parts' files (OUTPUT.partK.nut) and the list
                   that joins them

Each part's encoder must not reorder frames (B-frames: -bf 0 where the
encoder has them): a part would start decoding before the previous one
ends, and the join would rewrite its decoding times; such parts are
refused.  For such an encoder, encode the parts losslessly and the joined
video once more.

Exit status 0, or 1 with an error on standard error: a part's ffmpeg
failing (its last lines are printed), FILTERS that cannot be run in parts
(a recurrent model), parts that reorder frames, an input whose video
packets carry no timestamps (a raw elementary stream: remux it first).
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile
from fractions import Fraction


def die(msg):
    sys.exit("dnn-torch-parts: error: " + msg)


def parse_args(argv):
    opts = {"devices": None, "parts": None, "hwaccel": False, "encode": [],
            "context": (0, 0), "ffmpeg": "ffmpeg", "keep": False,
            "input": None, "filters": None, "output": None}
    i = 0
    while i < len(argv):
        a = argv[i]
        value = argv[i + 1] if i + 1 < len(argv) else None
        if a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        if a in ("--hwaccel", "--keep"):
            opts[a[2:]] = True
            i += 1
            continue
        if a in ("--devices", "--parts", "--encode", "--context", "--ffmpeg", "-i", "-vf"):
            if value is None:
                die("%s needs a value" % a)
            if a == "--devices":
                opts["devices"] = [d.strip() for d in value.split(",") if d.strip()]
                for d in opts["devices"]:
                    if d != "cpu" and not d.isdigit():
                        die("--devices %s: a GPU is its index (0, 1...) or cpu" % value)
            elif a == "--parts":
                if not value.isdigit() or int(value) < 1:
                    die("--parts %s: a number of parts, 1 or more" % value)
                opts["parts"] = int(value)
            elif a == "--encode":
                opts["encode"] = shlex.split(value)
            elif a == "--context":
                m = re.fullmatch(r"(\d+),(\d+)", value)
                if not m:
                    die("--context %s: frames before and after, as B,A" % value)
                opts["context"] = (int(m.group(1)), int(m.group(2)))
            elif a == "--ffmpeg":
                opts["ffmpeg"] = value
            elif a == "-i":
                opts["input"] = value
            else:
                opts["filters"] = value
            i += 2
            continue
        if a.startswith("-") or opts["output"] is not None:
            die("unknown option or second output: %s (see --help)" % a)
        opts["output"] = a
        i += 1
    for key, name in (("input", "-i INPUT"), ("filters", "-vf FILTERS"), ("output", "OUTPUT")):
        if opts[key] is None:
            die("%s is missing (see --help)" % name)
    return opts


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


def options_of(text):
    """A filter's options text as a dict (positional ones as #N)."""
    options = {}
    for k, (start, end) in enumerate(split_unquoted(text, ":")):
        part = text[start:end]
        key, value = split_key(part)
        if key is not None:
            options[key] = value
        elif part.strip():
            options["#%d" % k] = part.strip()
    return options


def split_key(part):
    """key=value (key None for a positional value), quotes left as given."""
    pieces = split_unquoted(part, "=")
    if len(pieces) == 1:
        return None, part
    return part[:pieces[0][1]].strip(), part[pieces[1][0]:].strip().strip("'")


def filter_options(filters, name):
    """The options of each instance of filter name in filters, as dicts."""
    return [options_of(filters[a:b] if b is not None else "")
            for n, a, b in graph_filters(filters) if n == name]


def context(filters, given):
    """Frames (before, after) a part needs around it, for filters."""
    before, after = given
    for o in filter_options(filters, "dnn_processing"):
        if o.get("recurrent", "0").lower() not in ("0", "false", "no", "off", "n", "disable"):
            die("a recurrent model (recurrent=1) carries its state over every frame "
                "before: a part would start from an empty state; run it in one ffmpeg")
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


def without_autotuner(filters, default_backend):
    """filters with cudnn_benchmark=0 in each torch DNN filter that does not
    set it: every part, and so the whole, then runs the same algorithms.
    default_backend: dnn_processing's where dnn_backend (its first option)
    is left out; dnn_interpolate's is torch."""
    edits = []
    for name, start, end in graph_filters(filters):
        if name not in ("dnn_processing", "dnn_interpolate"):
            continue
        options = options_of(filters[start:end]) if end is not None else {}
        backend = "torch"
        if name == "dnn_processing":
            backend = options.get("dnn_backend", options.get("#0", default_backend))
        if "cudnn_benchmark" in options or backend != "torch":
            continue
        if end is None:
            edits.append((start, "=cudnn_benchmark=0"))
            continue
        text = filters[start:end].rstrip()
        edits.append((start + len(text), "cudnn_benchmark=0" if text.endswith(":") or not text
                      else ":cudnn_benchmark=0"))
    for at, added in sorted(edits, reverse=True):
        filters = filters[:at] + added + filters[at:]
    return filters


def ffprobe_of(ffmpeg):
    return os.path.join(os.path.dirname(ffmpeg), "ffprobe") if os.sep in ffmpeg else "ffprobe"


def probe_video(ffmpeg, path, entries):
    """ffprobe's lines of path's first video stream: a dict each."""
    ffprobe = ffprobe_of(ffmpeg)
    cmd = [ffprobe, "-v", "error", "-select_streams", "v:0", "-show_entries", entries,
           "-of", "compact=p=0:nk=0", path]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    except OSError as e:
        die("cannot run %s (it lists the input's frames): %s" % (ffprobe, e.strerror))
    except subprocess.CalledProcessError as e:
        die("%s failed on %s: %s" % (ffprobe, path, " ".join(e.stderr.strip().splitlines()[-1:])))
    return [dict(f.split("=", 1) for f in line.split("|") if "=" in f) for line in out.splitlines()]


def probe(ffmpeg, path):
    """INPUT's video frame times (seconds from the input's start, as
    ffmpeg's timeline with -copyts -start_at_zero has them), sorted, and
    that start (seconds)."""
    tb, start, pts = None, Fraction(0), []
    for fields in probe_video(ffmpeg, path, "format=start_time:packet=pts:stream=time_base"):
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
    if tb is None or not pts:
        die("%s has no video frame" % path)
    return sorted(p * tb - start for p in pts), start


def reorder_error(ffmpeg, paths):
    """None, or why the parts cannot be joined: an encoder that reorders
    frames (B-frames) starts each part with a decoding time before its
    first frame's, at or before the previous part's last, and the join
    would rewrite it.  Such a part has a packet whose time is before that
    of the packet stored before it."""
    for k, path in enumerate(paths):
        pts = [int(f["pts"]) for f in probe_video(ffmpeg, path, "packet=pts")
               if f.get("pts", "N/A") != "N/A"]
        if any(b < a for a, b in zip(pts, pts[1:])):
            return ("part %d's encoder reorders frames (B-frames), and the parts would not "
                    "join in decoding order: encode without them (-bf 0), or losslessly "
                    "and the joined video once more" % k)
    return None


def seconds(t):
    """A time for ffmpeg's options: microseconds, exactly what ffmpeg parses."""
    us = round(t * 1000000)
    return "%s%d.%06d" % ("-" if us < 0 else "", abs(us) // 1000000, abs(us) % 1000000)


def cut_points(times, parts):
    """The frames' indices where each part starts, by duration, and the
    boundaries: halfway between two frames, in microseconds."""
    n = len(times)
    if parts > n:
        die("%d parts of %d frames" % (parts, n))
    starts = [0]
    for k in range(1, parts):
        target = times[0] + (times[-1] - times[0]) * k / parts
        i = next((j for j in range(n) if times[j] >= target), n - 1)
        # at least a frame in this part, and one for each part after it
        starts.append(min(max(i, starts[-1] + 1), n - (parts - k)))
    bounds = [Fraction(round((times[i - 1] + times[i]) / 2 * 1000000), 1000000) for i in starts[1:]]
    return starts, bounds


def part_command(opts, k, starts, bounds, times, ctx, path):
    before, after = ctx
    n = len(times)
    first = starts[k]
    last = (starts[k + 1] if k + 1 < len(starts) else n) - 1
    # one frame more on each side: a boundary lies halfway between two
    # frames, where an interpolated output can fall (it is the later
    # part's, made of the frame before the part); extra frames cost their
    # decoding only, since their outputs are cut
    lo, hi = max(first - before - 1, 0), min(last + after + 1, n - 1)
    cmd = [opts["ffmpeg"], "-nostdin", "-hide_banner", "-v", "error"]
    if opts["hwaccel"]:
        cmd += ["-hwaccel", "cuda", "-hwaccel_output_format", "cuda"]
    # read from halfway to the frame before the context (exact: ffmpeg drops
    # the decoded frames before -ss) to halfway after the context
    read = []
    if lo > 0:
        read.append("start=" + seconds((times[lo - 1] + times[lo]) / 2))
        cmd += ["-ss", seconds((times[lo - 1] + times[lo]) / 2)]
    if hi < n - 1:
        read.append("end=" + seconds((times[hi] + times[hi + 1]) / 2))
    cmd += ["-copyts", "-start_at_zero", "-i", opts["input"]]
    keep = []
    if k > 0:
        keep.append("start=" + seconds(bounds[k - 1]))
    if k < len(bounds):
        keep.append("end=" + seconds(bounds[k]))
    graph = opts["part_filters"]
    if read:
        graph = "trim=%s,%s" % (":".join(read), graph)
    if keep:
        graph = "%s,trim=%s" % (graph, ":".join(keep))
    cmd += ["-vf", graph, "-map", "0:v:0", "-an", "-sn", "-dn", "-fps_mode", "passthrough"]
    cmd += opts["encode"] + ["-f", "nut", "-y", path]
    return cmd


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


def check_output(opts):
    """Before any part runs: write one frame to a file of OUTPUT's format
    with the parts' encoder (the format's default codec when --encode is
    not given) and INPUT's audio copied, as the join will; the encoder's
    options and the audio are then known to fit.  Sets opts["encode"]."""
    ffmpeg = opts["ffmpeg"]
    with tempfile.TemporaryDirectory(prefix="dnn-torch-parts.") as tmp:
        path = os.path.join(tmp, "probe" + os.path.splitext(opts["output"])[1])
        cmd = [ffmpeg, "-nostdin", "-hide_banner", "-v", "error",
               "-f", "lavfi", "-i", "color=s=256x256:r=25,format=yuv420p", "-i", opts["input"],
               "-map", "0:v", "-map", "1:a?", "-frames:v", "1", "-t", "0.2", "-c:a", "copy"]
        cmd += opts["encode"] + ["-y", path]
        try:
            run = subprocess.run(cmd, capture_output=True, text=True)
        except OSError as e:
            die("cannot run %s: %s" % (ffmpeg, e.strerror))
        if run.returncode != 0:
            die("%s cannot be written with %s and %s's audio copied: %s"
                % (opts["output"], "--encode " + shlex.join(opts["encode"]) if opts["encode"]
                   else "its format's default video codec", opts["input"],
                   " ".join(run.stderr.strip().splitlines()[:1])))  # the cause: the first line
        if not opts["encode"]:
            found = probe_video(ffmpeg, path, "stream=codec_name")
            if not found or not found[0].get("codec_name"):
                die("%s: no video stream in a file of its format; give --encode" % opts["output"])
            codec = found[0]["codec_name"]
            # B-frames would reorder a part's frames (see reorder_error)
            opts["encode"] = ["-c:v", codec, "-bf", "0"]


def main():
    opts = parse_args(sys.argv[1:])
    devices = devices_of(opts)
    parts = opts["parts"] or len(devices)
    ctx = context(opts["filters"], opts["context"])
    opts["part_filters"] = without_autotuner(opts["filters"], processing_backend(opts["ffmpeg"]))
    times, start = probe(opts["ffmpeg"], opts["input"])
    check_output(opts)
    starts, bounds = cut_points(times, parts)
    base = opts["output"]
    paths = ["%s.part%d.nut" % (base, k) for k in range(parts)]
    running = []
    for k in range(parts):
        env = dict(os.environ)
        device = devices[k % len(devices)]
        env["CUDA_VISIBLE_DEVICES"] = "" if device == "cpu" else device
        cmd = part_command(opts, k, starts, bounds, times, ctx, paths[k])
        running.append((k, device, subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)))
    failed = False
    for k, device, proc in running:
        err = proc.communicate()[1]
        if proc.returncode != 0:
            failed = True
            sys.stderr.write("dnn-torch-parts: error: part %d (device %s) failed, exit %d:\n%s"
                             % (k, device, proc.returncode, "".join(err.splitlines(True)[-8:])))
    listing = base + ".parts.ffconcat"
    why = None if failed else reorder_error(opts["ffmpeg"], paths)
    if why:
        failed = True
        sys.stderr.write("dnn-torch-parts: error: %s\n" % why)
    if not failed:
        # each part's times are the input's (-copyts): inpoint its start and
        # duration its length give every packet its own time back
        with open(listing, "w") as f:
            f.write("ffconcat version 1.0\n")
            edges = [Fraction(0)] + bounds
            for k, path in enumerate(paths):
                f.write("file '%s'\n" % os.path.abspath(path).replace("'", "'\\''"))
                f.write("inpoint %s\n" % seconds(edges[k]))
                if k < len(bounds):
                    f.write("duration %s\n" % seconds(bounds[k] - edges[k]))
        # the parts' times as they are (-copyts: not from the first video
        # packet), the audio's from the input's start, as one run has both
        join = [opts["ffmpeg"], "-nostdin", "-hide_banner", "-v", "error", "-copyts",
                "-f", "concat", "-safe", "0", "-i", listing,
                "-itsoffset", seconds(-start), "-i", opts["input"],
                "-map", "0:v", "-map", "1:a?", "-c", "copy", "-y", opts["output"]]
        result = subprocess.run(join, stderr=subprocess.PIPE, text=True)
        if result.returncode != 0:
            failed = True
            sys.stderr.write("dnn-torch-parts: error: joining the parts failed, exit %d:\n%s"
                             % (result.returncode, result.stderr))
    if not opts["keep"]:
        for path in paths + [listing]:
            if os.path.exists(path):
                os.remove(path)
    if failed:
        sys.exit(1)
    sizes = [b - a for a, b in zip(starts, starts[1:] + [len(times)])]
    print("dnn-torch-parts: %d frames in %d parts (%s), context %d before, %d after: %s"
          % (len(times), parts, " ".join(map(str, sizes)), ctx[0], ctx[1], opts["output"]))


if __name__ == "__main__":
    main()
