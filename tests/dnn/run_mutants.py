#!/usr/bin/env python3
"""Malformed model files through dnn_processing: each must end in a clean
error, or give the right frames, in bounded time, memory and disk.

    run_mutants.py FFMPEG BASEDIR WORKDIR [--fork-server LIB] [options]
    run_mutants.py FFMPEG BASEDIR WORKDIR --known [...]

Makes the corpus of tests/dnn/mutate_models.py from the models in BASEDIR
(swap_invert.pt, conv.pt, tensor_constant.pt, swap_invert.pt2,
swap_invert_64x48.pt2, conv.pt2)
in WORKDIR/mutants, runs each file through

    ffmpeg -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 2
           -vf dnn_processing=dnn_backend=torch:model=FILE -f framecrc -

and sorts the outcomes:

  clean error    exit status non-zero (not a signal) and the filter logged
                 an error
  accepted       exit 0 with the frames of the unmutated model
  crash          killed by a signal (SIGSEGV, SIGABRT, ...)
  hang           still running after --timeout seconds (killed)
  memory blow    peak resident memory above --max-rss-mib
  disk blow      a file larger than --max-file-mib written (SIGXFSZ), or
                 more than that left behind in /tmp
  wrong output   exit 0 with other frames than the unmutated model's
  silent error   exit non-zero without an error of the filter
  escape         a file written outside LibTorch's extraction folder

The first two are the clean ends; any other fails the test (exit 1).
stdout, FATE's reference, holds what does not depend on the machine or its
speed: the count per kind of mutation and per failure class; stderr the
details (clean errors against accepted files per kind, peak memory, time).
WORKDIR is removed when all ends cleanly, kept otherwise (the mutants are
there to rerun by hand).

With --fork-server (tests/dnn/fork-server.c, preloaded into ffmpeg) each
run is a child forked from one started ffmpeg: about 0.1 s a file instead
of 1 s.  Children get a /tmp of their own (a mount namespace, as root or
where user namespaces are allowed) so that what LibTorch's package loader
leaves behind, or writes through a name that climbs out of its folder, is
seen.  Without it, or where preloading fails, each file is a plain ffmpeg
process (--jobs at a time), and /tmp is not watched.
"""
import argparse
import collections
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate_models  # noqa: E402

FAILURES = ["crash", "hang", "memory blow", "disk blow", "wrong output", "silent error", "escape"]
# the filter's own error lines, as torch-check.sh keeps them
FILTER_ERROR = re.compile(r"^\[(dnn_|Parsed_dnn_processing)", re.M)
ESCAPE_PREFIX = "ffmpeg-dnn-mutant-"


def ffmpeg_args(model):
    return ["-nostdin", "-nostats", "-hide_banner", "-v", "error",
            "-f", "lavfi", "-i", "testsrc2=s=64x48:r=25,format=rgb24", "-frames:v", "2",
            "-vf", "dnn_processing=dnn_backend=torch:model=" + model, "-f", "framecrc", "-"]


class Run:
    """One ffmpeg run's outcome."""

    def __init__(self, name, how, code, rss_kib, wall_ms, out, err, tmp_dir):
        self.name, self.how, self.code = name, how, code
        self.rss_kib, self.wall_ms = rss_kib, wall_ms
        self.out, self.err = out, err
        self.tmp_dir = tmp_dir


def tree_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def run_forked(ffmpeg, server, jobs, work, args):
    """Run jobs [(name, argv)] as children of one ffmpeg; [Run], or None when
    the server did not start (no preloading here)."""
    # a child's /tmp hides the real one: nothing it reads may lie there
    private = not any(os.path.realpath(p).startswith("/tmp/")
                      for p in (work, ffmpeg, args.basedir))
    job_file = os.path.join(work, "jobs.tsv")
    result_file = os.path.join(work, "results.tsv")
    logs = os.path.join(work, "logs")
    os.makedirs(logs, exist_ok=True)
    with open(job_file, "w") as f:
        for name, argv in jobs:
            tmp = "-"
            if private:
                tmp = os.path.join(work, "tmp", name)
                os.makedirs(tmp, exist_ok=True)
            f.write("\t".join([name, os.path.join(logs, name + ".out"),
                               os.path.join(logs, name + ".err"), tmp] + argv) + "\n")
    env = dict(os.environ, LD_PRELOAD=os.path.abspath(server), DNN_FORK_JOBS=job_file,
               DNN_FORK_RESULTS=result_file, DNN_FORK_PARALLEL=str(args.jobs),
               DNN_FORK_TIMEOUT=str(args.timeout), DNN_FORK_FSIZE_MIB=str(args.max_file_mib),
               DNN_FORK_AS_MIB=str(args.address_space_mib))
    if os.path.exists(result_file):
        os.remove(result_file)
    subprocess.run([ffmpeg], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    try:
        with open(result_file) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    if not lines or not lines[0].startswith("#tmp "):
        return None
    private = private and lines[0] == "#tmp private"
    runs = {}
    for line in lines[1:]:
        name, how, code, rss, wall = line.split("\t")
        out = read(os.path.join(logs, name + ".out"))
        err = read(os.path.join(logs, name + ".err"))
        runs[name] = Run(name, how, int(code), int(rss), int(wall), out, err,
                         os.path.join(work, "tmp", name) if private else None)
    return [runs[name] for name, _ in jobs], private


def run_plain(ffmpeg, jobs, work, args):
    """Run jobs as plain processes, --jobs at a time."""
    runs = {}
    pending = list(jobs)
    active = {}
    while pending or active:
        while pending and len(active) < args.jobs:
            name, argv = pending.pop(0)
            out = tempfile.TemporaryFile(dir=work)
            err = tempfile.TemporaryFile(dir=work)
            p = subprocess.Popen([ffmpeg] + argv, stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=err, start_new_session=True,
                                 preexec_fn=lambda: limits(args))
            active[p.pid] = (name, p, out, err, time.monotonic(), [False])
        time.sleep(0.005)
        for pid in list(active):
            name, p, out, err, start, killed = active[pid]
            # wait4: this child's own peak memory
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if not done:
                if time.monotonic() - start > args.timeout and not killed[0]:
                    killed[0] = True
                    os.killpg(pid, signal.SIGKILL)
                continue
            p.returncode = 0  # reaped here, not by Popen
            if killed[0]:
                how, code = "timeout", signal.SIGKILL
            elif os.WIFSIGNALED(status):
                how, code = "signal", os.WTERMSIG(status)
            else:
                how, code = "exit", os.WEXITSTATUS(status)
            try:
                os.killpg(pid, signal.SIGKILL)  # what it started
            except OSError:
                pass
            out.seek(0)
            err.seek(0)
            runs[name] = Run(name, how, code, usage.ru_maxrss,
                             int((time.monotonic() - start) * 1000),
                             out.read().decode(errors="replace"),
                             err.read().decode(errors="replace"), None)
            out.close()
            err.close()
            del active[pid]
    return [runs[name] for name, _ in jobs], False


def limits(args):
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (args.max_file_mib << 20,) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if args.address_space_mib:
        resource.setrlimit(resource.RLIMIT_AS, (args.address_space_mib << 20,) * 2)


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def classify(run, reference, args):
    """The class of a run, and a word on why."""
    leaked = 0
    if run.tmp_dir:
        for entry in os.listdir(run.tmp_dir):
            if entry.startswith(ESCAPE_PREFIX):
                return "escape", "wrote /tmp/" + entry
        leaked = tree_size(run.tmp_dir)
    if run.how == "timeout":
        return "hang", "killed after %d s" % args.timeout
    if run.how == "signal":
        if run.code == signal.SIGXFSZ:
            return "disk blow", "a file over %d MiB" % args.max_file_mib
        return "crash", signal.Signals(run.code).name if run.code in signal.valid_signals() \
            else "signal %d" % run.code
    if run.rss_kib > args.max_rss_mib * 1024:
        return "memory blow", "peak %d MiB" % (run.rss_kib // 1024)
    if leaked > args.max_file_mib << 20:
        return "disk blow", "%d MiB left in /tmp" % (leaked >> 20)
    if run.code == 0:
        if run.out == reference:
            return "accepted", ""
        return "wrong output", "frames differ from the unmutated model's"
    if not FILTER_ERROR.search(run.err):
        return "silent error", "exit %d, no error of the filter" % run.code
    return "clean error", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ffmpeg")
    ap.add_argument("basedir")
    ap.add_argument("workdir")
    ap.add_argument("--fork-server", help="tests/dnn/fork-server.c built as a shared library")
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    ap.add_argument("--timeout", type=int, default=20, help="seconds per file (default 20)")
    ap.add_argument("--max-rss-mib", type=int, default=1024,
                    help="peak resident memory per file (default 1024 MiB; an ffmpeg "
                    "with LibTorch on these small models peaks at about 250 MiB)")
    ap.add_argument("--max-file-mib", type=int, default=512,
                    help="largest file written, and most left in /tmp (default 512 MiB)")
    ap.add_argument("--address-space-mib", type=int, default=0,
                    help="RLIMIT_AS per run, a safety net (default 0: none)")
    ap.add_argument("--only", help="run only the mutants whose file names match this regex")
    ap.add_argument("--known", action="store_true",
                    help="run the reproducers of what LibTorch does wrong (mutate_models.py "
                    "--known) instead of the corpus: they are expected to fail")
    ap.add_argument("--keep", action="store_true", help="keep WORKDIR")
    args = ap.parse_args()

    started = time.monotonic()
    work = os.path.abspath(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    mutants = os.path.join(work, "mutants")
    os.makedirs(mutants)
    items = mutate_models.known(args.basedir) if args.known else \
        mutate_models.corpus(args.basedir, args.seed)
    manifest = []
    for i, (base, ext, kind, detail, data) in enumerate(items):
        name = "%03d-%s.%s" % (i, kind, ext)
        if args.only and not re.search(args.only, name):
            continue
        with open(os.path.join(mutants, name), "wb") as f:
            f.write(data)
        manifest.append((name, base, kind, detail))
    del items
    with open(os.path.join(mutants, "manifest.tsv"), "w") as f:
        f.writelines("\t".join(m) + "\n" for m in manifest)
    generated = time.monotonic()

    # the unmutated models first: their frames are what an accepted mutant
    # must give
    bases = mutate_models.TORCHSCRIPT_BASES + mutate_models.CONSTANT_BASES + \
        mutate_models.PACKAGE_BASES
    jobs = [("base-" + b, ffmpeg_args(os.path.abspath(os.path.join(args.basedir, b))))
            for b in bases]
    jobs += [(name, ffmpeg_args(os.path.join(mutants, name))) for name, _, _, _ in manifest]
    result = None
    if args.fork_server:
        result = run_forked(args.ffmpeg, args.fork_server, jobs, work, args)
        if result is None:
            print("run_mutants: the fork server did not start; plain processes", file=sys.stderr)
    if result is None:
        result = run_plain(args.ffmpeg, jobs, work, args)
    runs, private_tmp = result
    ran = time.monotonic()

    reference = {}
    status = 0
    for b, run in zip(bases, runs):
        if run.how != "exit" or run.code or not run.out:
            print("the unmutated %s fails: %s %d\n%s" % (b, run.how, run.code, run.err))
            status = 1
        reference[b] = run.out
    if status:
        return status
    reference["-"] = None

    classes = collections.Counter()
    per_kind = collections.OrderedDict()
    failed = []
    peak = (0, "")
    slowest = (0, "")
    left = [0, 0]  # runs that left files in /tmp, and their bytes
    for (name, base, kind, detail), run in zip(manifest, runs[len(bases):]):
        cls, why = classify(run, reference[base], args)
        if run.tmp_dir and os.listdir(run.tmp_dir):
            left[0] += 1
            left[1] += tree_size(run.tmp_dir)
        classes[cls] += 1
        k = per_kind.setdefault(kind, collections.Counter())
        k[cls] += 1
        k["files"] += 1
        peak = max(peak, (run.rss_kib, name))
        slowest = max(slowest, (run.wall_ms, name))
        if cls not in ("clean error", "accepted"):
            failed.append((name, base, kind, detail, cls, why, run))

    ts = sum(1 for m in manifest if m[0].endswith(".pt"))
    print("mutants: %d (%d TorchScript, %d .pt2)" % (len(manifest), ts, len(manifest) - ts))
    for kind in sorted(per_kind):
        k = per_kind[kind]
        bad = k["files"] - k["clean error"] - k["accepted"]
        print("%s: %d files, %s" % (kind, k["files"],
                                    "all ended cleanly" if not bad else "%d did not" % bad))
        print("  %s: %d clean errors, %d accepted" % (kind, k["clean error"], k["accepted"]),
              file=sys.stderr)
    print("ended cleanly (an error, or the right frames): %d" %
          (classes["clean error"] + classes["accepted"]))
    for cls in FAILURES:
        print("%s: %d" % (cls, classes[cls]))
    for name, base, kind, detail, cls, why, run in failed:
        print("FAILED %s (%s of %s: %s): %s%s" % (name, kind, base, detail, cls,
                                                  ", " + why if why else ""))
        last = [line for line in run.err.splitlines() if line.strip()][-3:]
        for line in last:
            print("    " + line[:300], file=sys.stderr)
    print("clean errors %d, accepted %d; peak memory %d MiB (%s), slowest %.1f s (%s); "
          "/tmp %s; generated in %.1f s, ran in %.1f s" %
          (classes["clean error"], classes["accepted"], peak[0] // 1024, peak[1],
           slowest[0] / 1000, slowest[1],
           "left files by %d runs (%d KiB)" % (left[0], left[1] >> 10) if private_tmp
           else "not watched", generated - started, ran - generated), file=sys.stderr)
    if failed:
        print("run_mutants: the mutants stay in %s" % mutants, file=sys.stderr)
        return 1
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
