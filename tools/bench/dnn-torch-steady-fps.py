#!/usr/bin/env python3
"""Steady-state throughput of one ffmpeg command, for tools/bench/dnn-torch-bench.sh.

    dnn-torch-steady-fps.py WARMUP WINDOW FFMPEG [ARGS...]

Runs FFMPEG ARGS with -progress on a pipe, timestamps each progress report
as it arrives, and prints "fps: N": the frames output during WINDOW seconds
that start WARMUP seconds after the first frame was output.  Start-up (model
load, cuDNN autotuning, clocks ramping up) is thus left out by construction;
the difference of two runs of different lengths, used before, carried the
start-up's run-to-run jitter (0.1 s and more) into the result, which at
thousands of fps is several percent.  The command is stopped at the end of
the window, so it may have endless input (the loop filter).  An ffmpeg that
fails (or ends) before the window does is an error: its stderr's last lines
and exit status 1.
"""

import os
import select
import signal
import subprocess
import sys
import time


def fail(message, stderr=b""):
    print("error: " + message, file=sys.stderr)
    lines = stderr.decode(errors="replace").replace("\r", "\n").splitlines()
    for line in lines[-15:]:
        print("  | " + line, file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) < 4:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    warmup, window = float(sys.argv[1]), float(sys.argv[2])
    command = [sys.argv[3], "-nostdin", "-nostats", "-progress", "pipe:1",
               "-stats_period", "0.1"] + sys.argv[4:] + ["-f", "null", "-"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    limit = 120 + warmup + window  # a hung command
    deadline = time.monotonic() + limit
    first = start = None  # (time, frames) of the first frame, and of the window's start
    pending = b""
    stderr = b""
    try:
        while True:
            now = time.monotonic()
            if now > deadline:
                fail("no result after %.0f s: %s" % (limit, " ".join(command)), stderr)
            ready, _, _ = select.select([proc.stdout, proc.stderr], [], [], 1.0)
            if proc.stderr in ready:
                stderr = (stderr + os.read(proc.stderr.fileno(), 65536))[-65536:]
            if proc.stdout not in ready:
                continue
            data = os.read(proc.stdout.fileno(), 65536)
            now = time.monotonic()
            if not data:
                proc.wait()
                fail("ffmpeg ended (exit status %d) before the %.1f s window did: %s"
                     % (proc.returncode, window, " ".join(command)), stderr)
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if not line.startswith(b"frame="):
                    continue
                frames = int(line[6:])
                if first is None:
                    if frames > 0:
                        first = (now, frames)
                elif start is None:
                    if now - first[0] >= warmup:
                        start = (now, frames)
                elif now - start[0] >= window:
                    print("fps: %.1f" % ((frames - start[1]) / (now - start[0])))
                    return
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


if __name__ == "__main__":
    main()
