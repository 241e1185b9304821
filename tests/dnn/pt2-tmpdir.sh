#!/bin/sh
# Where a .pt2 package's code is extracted, and that nothing stays there:
# each load, failed or not, leaves TMPDIR as it found it and makes no
# directory of LibTorch's in /tmp; a noexec TMPDIR is said to be one.
#
#   pt2-tmpdir.sh FFMPEG PYTHON MODELS
set -u
ffmpeg=$1 python=$2 models=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/fate-pt2-tmpdir.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"

# a package whose program is no shared object (its CRC-32 right): dlopen fails
"$python" - "$models/swap_invert.pt2" "$work/bad-so.pt2" <<'EOF' || exit 1
import sys, zipfile
src, dst = sys.argv[1:]
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
    for info in zin.infolist():
        data = zin.read(info.filename)
        if info.filename.endswith(".so"):
            data = b"\x7fELF not a shared object" + bytes(4096)
        zout.writestr(info.filename, data)
EOF

# LibTorch's own loader made /tmp/XXXXXX (six letters or digits)
libtorch_dirs() {
    find /tmp -maxdepth 1 -type d -regex '/tmp/[A-Za-z0-9]\{6\}' | sort
}

run() { # OUTPUT-NAME MODEL: ffmpeg's exit code and the filter's first line
    TMPDIR=$work/tmp "$ffmpeg" -nostdin -nostats -hide_banner -v error \
        -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 2 \
        -vf "dnn_processing=dnn_backend=torch:model=$2" -f null - >/dev/null 2>"$work/$1.log"
    echo "$1: exit code $?"
}

said() { # the backend's error, the names made at run time written out
    grep '^\[dnn_base' "$1" | sed -e 's/ @ 0x[0-9a-f]*//' -e "s|$work|WORK|g" \
        -e 's|ffmpeg-dnn-pt2-[A-Za-z0-9]\{6\}|ffmpeg-dnn-pt2-XXXXXX|' \
        -e 's|/model/[a-z0-9]*\.wrapper\.so|/model/NAME.wrapper.so|'
}

left() { # what TMPDIR holds, and LibTorch's directories made since the start
    echo "  left in TMPDIR: $(find "$work/tmp" -mindepth 1 | wc -l)"
    echo "  new in /tmp: $(libtorch_dirs | comm -13 "$work/before" - | wc -l)"
}

libtorch_dirs >"$work/before"
run loads "$models/swap_invert.pt2"
left
run bad-so "$work/bad-so.pt2"
said "$work/bad-so.log"
left

# a TMPDIR mounted noexec (a private mount namespace: the machine is untouched)
mkdir "$work/noexec"
if unshare -m true 2>/dev/null; then
    # shellcheck disable=SC2016 # the inner shell expands them
    unshare -m sh -c 'mount -t tmpfs -o noexec,size=64m none "$1" && exec env TMPDIR="$1" "$2" \
        -nostdin -nostats -hide_banner -v error -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 \
        -frames:v 2 -vf "dnn_processing=dnn_backend=torch:model=$3" -f null -' \
        sh "$work/noexec" "$ffmpeg" "$models/swap_invert.pt2" >/dev/null 2>"$work/noexec.log"
    echo "noexec: exit code $?"
    said "$work/noexec.log"
else
    echo "noexec: unshare -m is not permitted here" >&2
    exit 1
fi
