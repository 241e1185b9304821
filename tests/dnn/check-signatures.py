#!/usr/bin/env python3
"""The words of a model's inputs (ffmpeg_dnn_inputs) in the three places
that use them, checked against one another so that they cannot drift:

  - the backend's table (th_inputs_words, dnn_backend_torch_package.cpp),
    which reads a package's metadata;
  - tools/dnn-torch-export.py, whose --inputs takes them ("stacked:5") and
    which writes the metadata;
  - tools/bench/dnn-torch-bare.cpp, which reads them (without "recurrent",
    which the bench does not run bare).

    check-signatures.py SRC_PATH

Prints what agrees, one line each; exits 1 on the first disagreement."""
import argparse
import importlib.util
import re
import sys

src = sys.argv[1]
status = 0


def say(what, ok):
    global status
    print("%s: %s" % (what, "yes" if ok else "NO"))
    status |= not ok


with open(src + "/libavfilter/dnn/dnn_backend_torch_package.cpp") as f:
    table = re.findall(r'\{ "(\w+)",\s+(DNN_FRAMES_\w+),\s+(\d+) \}', f.read())
backend = {word: int(frames) for word, _, frames in table}
print("backend words: " + " ".join("%s%s" % (w, "" if n else " N") for w, n in backend.items()))

spec = importlib.util.spec_from_file_location("export", src + "/tools/dnn-torch-export.py")
export = importlib.util.module_from_spec(spec)
spec.loader.exec_module(export)


def backend_reads(text):
    """What the backend's table makes of a metadata value: (word, frames) or None."""
    word, _, count = text.partition(" ")
    if word not in backend:
        return None
    if backend[word]:
        return (word, backend[word]) if not count else None
    if not count.isdigit() or not 1 <= int(count) <= 15 or (word == "stacked" and count == "1"):
        return None
    return word, int(count)


options = ["frame", "pair", "recurrent"] + ["%s:%d" % (w, n) for w in ("stacked", "sequence")
                                            for n in range(1, 16)]
written = set()
ok = True
for option in options:
    layout, n = export.parse_inputs(option)
    args = argparse.Namespace(inputs=(layout, n), sigma=None, t_plane=False, batch=1)
    text = export.metadata_inputs(args)["ffmpeg_dnn_inputs"]
    got = backend_reads(text)
    want = ("frame", 1) if (layout, n) == ("stacked", 1) else (layout, n)
    if got != want:
        print("export --inputs %s writes %r, which the backend reads as %r" % (option, text, got))
        ok = False
    written.add(text.partition(" ")[0])
say("every --inputs of the export tool is metadata the backend reads as it", ok)
say("the export tool writes every word of the backend's table", written == set(backend))


def refuses(option):
    try:
        export.parse_inputs(option)
    except argparse.ArgumentTypeError:
        return True
    return False


say("the export tool refuses what the backend does not read",
    all(refuses(o) for o in ("stacked:0", "stacked:16", "sequence", "frame:2", "window:3")))

with open(src + "/tools/bench/dnn-torch-bare.cpp") as f:
    bare = set(re.findall(r'sig\.layout [!=]= "(\w+)"', f.read()))
say("the bare bench reads the backend's words (%s), no other" % " ".join(sorted(bare)),
    bare == set(backend) - {"recurrent"})
sys.exit(status)
