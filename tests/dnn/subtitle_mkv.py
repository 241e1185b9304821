#!/usr/bin/env python3
"""Write a small Matroska file of one subtitle track (S_TEXT/UTF8: SubRip)
and chapters, for the parts tests (fate-dnn-torch-parts-*): FATE's quick
build has no subtitle demuxer or encoder to make one, and ffmpeg muxes this
track with a video and an audio into the tests' input.

    subtitle_mkv.py OUT.mkv

The cues (start and end, ms) straddle the parts' boundaries: 100-500,
450-1100, 1300-1900; the chapters start at 0, 0.8 and 1.5 s.
"""
import struct
import sys

CUES = [(100, 500, "one, before the first cut"), (450, 1100, "two, over a cut"),
        (1300, 1900, "three, near the end")]
CHAPTERS = [(0, "Start"), (800, "Middle"), (1500, "End")]


def size(n):
    for length in range(1, 9):
        if n < (1 << (7 * length)) - 1:
            return ((1 << (7 * length)) | n).to_bytes(length, "big")
    raise ValueError(n)


def element(ident, data):
    return ident.to_bytes((ident.bit_length() + 7) // 8, "big") + size(len(data)) + data


def uint(ident, value):
    return element(ident, value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big"))


def text(ident, value):
    return element(ident, value.encode("utf-8"))


def main(path):
    header = element(0x1A45DFA3, uint(0x4286, 1) + uint(0x42F7, 1) + uint(0x42F2, 4) +
                     uint(0x42F3, 8) + text(0x4282, "matroska") + uint(0x4287, 4) +
                     uint(0x4285, 2))
    info = element(0x1549A966, uint(0x2AD7B1, 1000000) + text(0x4D80, "subtitle_mkv.py") +
                   text(0x5741, "subtitle_mkv.py") + element(0x4489, struct.pack(">d", 2000.0)))
    track = element(0xAE, uint(0xD7, 1) + uint(0x73C5, 1) + uint(0x83, 0x11) +
                    text(0x86, "S_TEXT/UTF8") + text(0x22B59C, "eng") + uint(0x9C, 0))
    tracks = element(0x1654AE6B, track)
    atoms = b"".join(element(0xB6, uint(0x73C4, k + 1) + uint(0x91, ms * 1000000) +
                             element(0x80, text(0x85, title) + text(0x437C, "eng")))
                     for k, (ms, title) in enumerate(CHAPTERS))
    chapters = element(0x1043A770, element(0x45B9, uint(0x45BC, 1) + atoms))
    groups = b"".join(element(0xA0, element(0xA1, b"\x81" + struct.pack(">hB", start, 0) +
                                             line.encode("utf-8")) + uint(0x9B, end - start))
                      for start, end, line in CUES)
    cluster = element(0x1F43B675, uint(0xE7, 0) + groups)
    with open(path, "wb") as f:
        f.write(header + element(0x18538067, info + tracks + chapters + cluster))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
