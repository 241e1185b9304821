#!/bin/bash
# Makes tests/dnn/hevc-main10-hdr.hevc, a small HEVC Main10 clip with HDR10
# metadata, for tests that decode 10-bit HEVC (NVDEC: p010 frames) and check
# what reaches the filters: the samples, the colour properties from the VUI
# (tv range, BT.2020 primaries and matrix, SMPTE ST 2084 transfer, top-left
# chroma location) and the HDR10 side data from the SEI (mastering display
# colour volume, payload type 137; content light level, payload type 144).
# tests/dnn/hevc-main10-hdr.txt lists the properties a decoder should report.
#
# FFmpeg has no native HEVC encoder, so Debian's x265 command line tool
# (apt-get install x265) encodes the clip.  Its source is generated here, by
# the small Python 3 program below (stdlib only), as a 10-bit 4:2:0 y4m:
# 352x288, 8 frames, 25 fps, limited range (Y 64..940, Cb/Cr 64..960),
# smooth moving gradients in Y, Cb and Cr plus a few sharp edges (a moving
# box, a fixed bar, a step in each chroma plane), so that the decoded frames
# can be compared with the source (MD5 decoded picture hash SEI included,
# which FFmpeg checks with -err_detect crccheck).
#
# The committed clip was made with x265 3.5 (Debian bookworm 3.5-2+b1),
# which prints: "HEVC encoder version 3.5+1-f0c1022b6", build
# "[Linux][GCC 12.2.0][64 bit] 8bit+10bit+12bit"; the clip was 4441 bytes,
# sha256 5bbc3cfb1e83dbfa985f35f8439c43582169353dd7d9e1a95bda24c1b9ed55f1.
# One frame thread, no WPP, no thread pool and no encoder-info SEI keep the
# output reproducible with the same x265 (it was the same bytes with
# --no-asm); another x265 version may make different (but equivalent) bytes.
#
# Usage: tests/dnn/make-hevc-main10.sh [OUTPUT]   (default: next to this script)
set -eu

dir=$(cd "$(dirname "$0")" && pwd)
out=${1:-$dir/hevc-main10-hdr.hevc}

command -v x265 >/dev/null || { echo "x265 not found (apt-get install -y x265)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src.y4m

python3 - "$src" <<'EOF'
import sys
from array import array

W, H, FRAMES = 352, 288, 8
CW, CH = W // 2, H // 2

def tri(v, period):
    """Triangle wave in 0..1, period `period`: smooth, no wrap-around edge."""
    p = v % period
    return 2.0 * p / period if 2 * p < period else 2.0 * (period - p) / period

def lim(v, lo, hi):
    return lo if v < lo else hi if v > hi else v

def frame(t):
    y = array('H')
    # box that moves 6 px right and 2 px down per frame
    bx0, by0 = 40 + 6 * t, 48 + 2 * t
    for j in range(H):
        gy = j / (H - 1)
        for i in range(W):
            v = 64 + 876 * (0.65 * tri(i + 5 * t, 2 * W) + 0.35 * gy)
            if bx0 <= i < bx0 + 64 and by0 <= j < by0 + 48:
                v = 940 if (i - bx0) < 32 else 64        # white | black halves
            elif 200 <= j < 216 and 240 <= i < 320:
                v = 520                                  # fixed mid-grey bar
            y.append(lim(int(round(v)), 64, 940))
    cb, cr = array('H'), array('H')
    for j in range(CH):
        for i in range(CW):
            u = 64 + 896 * tri(i + 3 * t, 2 * CW)
            v = 64 + 896 * tri(j + 2 * t + CH // 2, 2 * CH)
            if i >= CW - 24:                             # step at the right edge
                u = 960
            if j >= CH - 16:                             # step at the bottom
                v = 64
            cb.append(lim(int(round(u)), 64, 960))
            cr.append(lim(int(round(v)), 64, 960))
    return y, cb, cr

with open(sys.argv[1], 'wb') as f:
    f.write(b'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420p10 XYSCSS=420P10\n' % (W, H))
    for t in range(FRAMES):
        f.write(b'FRAME\n')
        for plane in frame(t):
            if sys.byteorder != 'little':
                plane.byteswap()
            f.write(plane.tobytes())
EOF

x265 --log-level warning --no-progress \
    --input "$src" --input-depth 10 --output-depth 10 --profile main10 \
    --preset medium --crf 18 --keyint 8 \
    --frame-threads 1 --no-wpp --pools none --lookahead-slices 0 \
    --no-info --hash 1 \
    --range limited --colorprim bt2020 --transfer smpte2084 \
    --colormatrix bt2020nc --chromaloc 2 \
    --master-display "G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)" \
    --max-cll "1000,400" --hdr10 --repeat-headers \
    --output "$out"

sha256sum "$out"
