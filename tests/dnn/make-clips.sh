#!/bin/sh
# Makes the small clips of real formats that tests and "make demo" decode:
#
#   h264-aac.mp4   H.264 (High, yuv420p) + AAC-LC stereo in MP4, as most
#                  files people have; "make demo" runs a model on it
#   vp9-opus.mkv   VP9 (profile 0) + Opus stereo in Matroska, as web video
#
# Both: 320x240, 25 fps, 2 s (50 frames), FFmpeg's testsrc2 pattern (moving
# shapes, gradients, text) and a 440 Hz tone, so a wrong or missing frame
# shows in its checksum.  Encoded with Debian's encoders through Debian's
# ffmpeg (apt-get install ffmpeg: libx264, FFmpeg's AAC encoder, libvpx,
# libopus), one thread each and bitexact muxing, so the same packages make
# the same bytes.  The committed clips came from Debian bookworm's ffmpeg
# 5.1.9-0+deb12u1 (x264 164, libvpx 1.12, libopus 1.3.1); their sizes and
# sha256 are in clips.txt beside this script.
#
# Usage: tests/dnn/make-clips.sh [FFMPEG] [DIR]   (default: ffmpeg, next to this script)
set -eu

dir=$(cd "$(dirname "$0")" && pwd)
ffmpeg=${1:-ffmpeg}
out=${2:-$dir}

src="-f lavfi -i testsrc2=s=320x240:r=25:d=2 -f lavfi -i sine=f=440:r=48000:d=2,aformat=channel_layouts=stereo"
common="-threads 1 -fflags +bitexact -flags:v +bitexact -flags:a +bitexact"

# shellcheck disable=SC2086  # $src and $common are word lists
"$ffmpeg" -hide_banner -loglevel error -y $src $common -pix_fmt yuv420p \
    -c:v libx264 -profile:v high -preset medium -crf 28 -g 25 -x264-params threads=1 \
    -c:a aac -b:a 64k -movflags +faststart "$out/h264-aac.mp4"
# shellcheck disable=SC2086  # word lists
"$ffmpeg" -hide_banner -loglevel error -y $src $common -pix_fmt yuv420p \
    -c:v libvpx-vp9 -crf 40 -b:v 0 -g 25 -row-mt 0 -cpu-used 4 \
    -c:a libopus -b:a 48k "$out/vp9-opus.mkv"
(cd "$out" && sha256sum h264-aac.mp4 vp9-opus.mkv)
