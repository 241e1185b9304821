#!/bin/sh
# Install what building and testing the fork needs.  Idempotent: each step
# checks first, so a second run does nothing.
#
# System packages (Debian): nasm pkg-config clang python3-venv xz-utils git
# make g++ shellcheck (make lint), and curl when there is neither curl nor wget;
# the libraries of the full build (dav1d, libvpx, opus, lame, vorbis,
# freetype; with --gpl also x264 and x265).
# Project-local, under .deps/ (or $FORK_CACHE_DIR):
#   venv/     Python with torch==$TORCH_VERSION; its torch/ holds LibTorch
#   nvcodec/  nv-codec-headers $NVCODEC_VERSION (usr/share/pkgconfig/ffnvcodec.pc)
#   cache/    the pinned files of UPSTREAM, verified: the FFmpeg tarball and
#             nv-codec-headers (release tarball or Debian package)
# No CUDA toolkit is needed: clang compiles FFmpeg's CUDA kernels, and the
# CUDA headers LibTorch needs come with PyPI's torch (its NVIDIA packages).
#
#   scripts/install-deps.sh [OPTION...]          everything
#   scripts/install-deps.sh [OPTION...] STEP...  only these of:
#                                                system libs torch nvcodec ffmpeg
# Options (each pinned file is verified by its sha256 from UPSTREAM):
#   --torch=cuda           PyPI's torch, with its NVIDIA libraries (4.6 GB
#                          installed): models on the CPU or the GPU [default]
#   --torch=cpu            PyTorch's CPU-only build from download.pytorch.org
#                          (not on PyPI; about 200 MB to download): models on
#                          the CPU only
#   --gpl                  also x264 and x265 (for ./configure --enable-gpl)
#   --spandrel             also spandrel $SPANDREL_VERSION (and torchvision), with which
#                          tools/dnn-torch-export.py exports community weights
#                          (.pth, .safetensors) without their Python class
#   --ray                  also Ray $RAY_VERSION (its wheel pinned by sha256, its
#                          dependencies from PyPI), with which
#                          tools/dnn-torch-parts.py --engine ray runs the parts
#                          of a video over the GPUs of a cluster
#   --nvcodec-source=PATH  nv-codec-headers-$NVCODEC_VERSION.tar.gz or Debian's
#                          libffmpeg-nvenc-dev deb of it [$NVCODEC_SOURCE]
#   --ffmpeg-tarball=PATH  ffmpeg-$FFMPEG_VERSION.tar.xz [$FFMPEG_TARBALL]
#   --mirror=DIR           a local folder holding the pinned files, tried last,
#                          when the network sources fail [$FORK_MIRROR]
# Without a given path, each pinned file comes from the cache, else its URLs
# in UPSTREAM, else the mirror (scripts/fetch-lib.sh).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=fetch-lib.sh
. "$top/scripts/fetch-lib.sh"
fetched='' fetched_from=''  # set by fetch_ffmpeg and fetch_nvcodec
deps=${FORK_CACHE_DIR:-$top/.deps}

say() { echo "install-deps: $*"; }
die() { echo "install-deps: $*" >&2; exit 1; }

nvcodec_source=${NVCODEC_SOURCE:-${NVCODEC_DEB:-}}
ffmpeg_tarball=${FFMPEG_TARBALL:-}
torch_flavour=cuda
gpl=no
spandrel=no
ray=no
steps=
for arg do
    case $arg in
    --nvcodec-source=*) nvcodec_source=${arg#*=} ;;
    --ffmpeg-tarball=*) ffmpeg_tarball=${arg#*=} ;;
    --mirror=*)         FORK_MIRROR=${arg#*=} ;;
    --torch=cuda|--torch=cpu) torch_flavour=${arg#*=} ;;
    --torch=*)          die "unknown $arg (--torch=cuda or --torch=cpu)" ;;
    --gpl)              gpl=yes ;;
    --spandrel)         spandrel=yes ;;
    --ray)              ray=yes ;;
    -h|--help)          sed -n '2,/^set -eu/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    -*)                 die "unknown option $arg (see --help)" ;;
    *)                  steps="$steps $arg" ;;
    esac
done
steps=${steps:-system libs torch nvcodec ffmpeg}
# A relative path given here is relative to where we were started.
abspath() { case $1 in ''|/*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
nvcodec_source=$(abspath "$nvcodec_source")
ffmpeg_tarball=$(abspath "$ffmpeg_tarball")
[ ! -d "${FORK_MIRROR:-}" ] || FORK_MIRROR=$(cd "$FORK_MIRROR" && pwd)
mkdir -p "$deps/cache"

# Where each dependency came from, for the closing note.
summary=
note() { summary="$summary
  $*"; }

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else die "need root to run: $*"
    fi
}

apt_updated=
apt_install() {
    command -v apt-get >/dev/null 2>&1 ||
        die "missing $*: install them with your system's package manager"
    if [ -z "$apt_updated" ]; then as_root apt-get update -qq; apt_updated=1; fi
    say "apt-get install $*"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

system_packages() {
    missing=
    command -v nasm >/dev/null 2>&1       || missing="$missing nasm"
    command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
    command -v clang >/dev/null 2>&1      || missing="$missing clang"
    command -v xz >/dev/null 2>&1         || missing="$missing xz-utils"
    command -v git >/dev/null 2>&1        || missing="$missing git"
    command -v make >/dev/null 2>&1       || missing="$missing make"
    command -v g++ >/dev/null 2>&1        || missing="$missing g++"
    command -v shellcheck >/dev/null 2>&1 || missing="$missing shellcheck"
    python3 -c 'import venv, ensurepip' 2>/dev/null || missing="$missing python3-venv"
    command -v curl >/dev/null 2>&1 || command -v wget >/dev/null 2>&1 ||
        missing="$missing curl ca-certificates"
    # shellcheck disable=SC2086  # a list of package names
    [ -z "$missing" ] || apt_install $missing
}

# The libraries of the full build, from Debian, where missing:
# "package:pkg-config module" (lame has no .pc: its header).
library_packages() {
    wanted="libdav1d-dev:dav1d libvpx-dev:vpx libopus-dev:opus libmp3lame-dev:-
            libvorbis-dev:vorbisenc libfreetype-dev:freetype2"
    [ $gpl = no ] || wanted="$wanted libx264-dev:x264 libx265-dev:x265"
    missing=
    for lib in $wanted; do
        case $lib in
        libmp3lame-dev:*) [ -f /usr/include/lame/lame.h ] ;;
        *)                pkg-config --exists "${lib#*:}" ;;
        esac || missing="$missing ${lib%%:*}"
    done
    # shellcheck disable=SC2086  # a list of package names
    [ -z "$missing" ] || apt_install $missing
}

torch_venv() {
    py=$deps/venv/bin/python3
    # The flavour installed: "cuda" where torch has CUDA, else "cpu".
    if [ -x "$py" ] && [ "$("$py" -c "import torch
print('cuda' if torch.version.cuda else 'cpu') if torch.__version__.split('+')[0] == '$TORCH_VERSION' else ''" 2>/dev/null)" = "$torch_flavour" ]; then
        note "LibTorch $TORCH_VERSION ($torch_flavour): $(libtorch_dir), installed earlier"
        [ "$torch_flavour" = cpu ] || cuda_headers
        return 0
    fi
    [ -x "$py" ] || python3 -m venv "$deps/venv"
    if [ "$torch_flavour" = cpu ]; then
        say "installing torch==$TORCH_VERSION, CPU only, in $deps/venv from download.pytorch.org"
        "$deps/venv/bin/pip" install -q --disable-pip-version-check --force-reinstall \
            --index-url https://download.pytorch.org/whl/cpu "torch==$TORCH_VERSION" ||
            die "pip could not install torch==$TORCH_VERSION from https://download.pytorch.org/whl/cpu"
        note "LibTorch $TORCH_VERSION (cpu): $(libtorch_dir), from download.pytorch.org (pip)"
    else
        say "installing torch==$TORCH_VERSION in $deps/venv from PyPI (4.6 GB installed with its NVIDIA libraries)"
        "$deps/venv/bin/pip" install -q --disable-pip-version-check --force-reinstall "torch==$TORCH_VERSION" ||
            die "pip could not install torch==$TORCH_VERSION from PyPI"
        note "LibTorch $TORCH_VERSION (cuda): $(libtorch_dir), from PyPI (pip)"
        cuda_headers
    fi
}

# spandrel and the torchvision made for this torch (pinned in UPSTREAM), with
# which tools/dnn-torch-export.py recognises community weights.
spandrel_extra() {
    if "$deps/venv/bin/python3" -c "import sys, spandrel, torchvision
sys.exit(spandrel.__version__ != '$SPANDREL_VERSION' or
         torchvision.__version__.split('+')[0] != '$TORCHVISION_VERSION')" 2>/dev/null; then
        note "spandrel $SPANDREL_VERSION: installed earlier"
        return 0
    fi
    say "installing spandrel==$SPANDREL_VERSION and torchvision==$TORCHVISION_VERSION in $deps/venv from PyPI"
    "$deps/venv/bin/pip" install -q --disable-pip-version-check \
        "spandrel==$SPANDREL_VERSION" "torchvision==$TORCHVISION_VERSION" ||
        die "pip could not install spandrel==$SPANDREL_VERSION and torchvision==$TORCHVISION_VERSION from PyPI"
    note "spandrel $SPANDREL_VERSION: from PyPI (pip)"
}

# Ray, pinned here: its version and the sha256 of its wheel for each Python
# and machine it is pinned for (RAY_WHEEL_SHA256_<cpXY>_<machine>).  The
# wheel is downloaded, verified, then installed; pip brings its dependencies.
RAY_VERSION=2.60.0
# shellcheck disable=SC2034 # read by ray_extra's eval
RAY_WHEEL_SHA256_cp311_x86_64=e227f6b2af8ab4626dd9a35a5860b33864325ea137383d57f854d4637ee3fea2
ray_extra() {
    py=$deps/venv/bin/python3
    if "$py" -c "import sys, ray; sys.exit(ray.__version__ != '$RAY_VERSION')" 2>/dev/null; then
        note "ray $RAY_VERSION: installed earlier"
        return 0
    fi
    tag=$("$py" -c 'import platform, sys; print("cp%d%d_%s" % (sys.version_info[:2] + (platform.machine(),)))') ||
        die "cannot run $py (install torch first: the torch step)"
    eval "want=\${RAY_WHEEL_SHA256_$tag:-}"
    # shellcheck disable=SC2154  # want is set by the eval
    [ -n "$want" ] || die "ray $RAY_VERSION: no wheel pinned for $tag (pinned: cp311_x86_64): add its sha256 to $0"
    dir=$deps/cache/ray-$RAY_VERSION
    rm -rf "$dir" && mkdir -p "$dir"
    say "downloading ray==$RAY_VERSION ($tag) from PyPI"
    "$deps/venv/bin/pip" download -q --disable-pip-version-check --no-deps --only-binary=:all: \
        -d "$dir" "ray==$RAY_VERSION" || die "pip could not download ray==$RAY_VERSION from PyPI"
    wheel=$(ls "$dir"/ray-"$RAY_VERSION"-*.whl) || die "pip downloaded no wheel of ray==$RAY_VERSION"
    sum=$(sha256_of "$wheel")
    [ "$sum" = "$want" ] || die "${wheel##*/}: sha256 $sum, not the pinned $want"
    "$deps/venv/bin/pip" install -q --disable-pip-version-check "$wheel" ||
        die "pip could not install ${wheel##*/} (or its dependencies from PyPI)"
    rm -rf "$dir"
    note "ray $RAY_VERSION: from PyPI (pip), its wheel verified"
}

# The CUDA headers that LibTorch's CUDA headers include, where there is no
# toolkit: torch's NVIDIA packages bring the runtime's (cuda_runtime_api.h),
# not the crt/ and CCCL (nv/target) ones those include; NVIDIA's
# cuda-toolkit package of the version torch depends on has them as its
# "crt" and "cccl" extras (18 MB).
cuda_headers() {
    py=$deps/venv/bin/python3
    if "$py" -c 'import glob, os, sys, torch
include = os.path.join(os.path.dirname(torch.__file__), "..", "nvidia", "*", "include")
sys.exit(not glob.glob(os.path.join(include, "crt", "host_defines.h")) or
         not glob.glob(os.path.join(include, "nv", "target")))' 2>/dev/null; then
        return 0
    fi
    version=$("$py" -c 'import importlib.metadata as m; print(m.version("cuda-toolkit"))' 2>/dev/null) ||
        die "torch's NVIDIA packages name no cuda-toolkit version: cannot add the CUDA headers"
    say "installing cuda-toolkit[crt,cccl]==$version (the CUDA headers for LibTorch's CUDA headers)"
    "$deps/venv/bin/pip" install -q --disable-pip-version-check "cuda-toolkit[crt,cccl]==$version" ||
        die "pip could not install cuda-toolkit[crt,cccl]==$version from PyPI"
    note "CUDA headers: cuda-toolkit[crt,cccl]==$version, from PyPI (pip)"
}

libtorch_dir() {
    "$deps/venv/bin/python3" -c 'import torch, os; print(os.path.dirname(torch.__file__))' 2>/dev/null
}

# nv-codec-headers, pinned in UPSTREAM, into $deps/nvcodec: the release
# tarball is installed with its own Makefile, Debian's package is extracted.
# Either way usr/share/pkgconfig/ffnvcodec.pc has the right prefix; the file
# .source records which verified file it came from and from where.  A given
# --nvcodec-source is always verified and installed.
nvcodec_headers() {
    dest=$deps/nvcodec
    pc=$dest/usr/share/pkgconfig/ffnvcodec.pc
    stamp=$dest/.source
    if [ -z "$nvcodec_source" ] && [ -f "$pc" ] && [ -f "$stamp" ] &&
       PKG_CONFIG_PATH=${pc%/*} pkg-config --exact-version="$NVCODEC_VERSION" ffnvcodec &&
       { read -r sum _ <"$stamp"; [ "$sum" = "$NVCODEC_TARBALL_SHA256" ] || [ "$sum" = "$NVCODEC_DEB_SHA256" ]; }; then
        note "nv-codec-headers $NVCODEC_VERSION: installed in $dest earlier, from $(cut -d' ' -f3- "$stamp")"
        return 0
    fi
    fetch_nvcodec "$nvcodec_source" || die "nv-codec-headers $NVCODEC_VERSION: no verified source (see above)"
    rm -rf "$dest" "$deps/nvcodec-src"
    case $fetched in
    *.deb)
        if command -v dpkg-deb >/dev/null 2>&1; then
            dpkg-deb -x "$fetched" "$dest"
        else
            mkdir -p "$deps/nvcodec-src" "$dest"
            (cd "$deps/nvcodec-src" && ar x "$fetched" && tar -xf data.tar.* -C "$dest")
        fi
        sed -i "s|^prefix=.*|prefix=$dest/usr|" "$pc" ;;
    *.tar.gz)
        mkdir -p "$deps/nvcodec-src"
        tar -xzf "$fetched" -C "$deps/nvcodec-src"
        src=$(dirname "$(ls "$deps"/nvcodec-src/*/Makefile)")
        make -s -C "$src" PREFIX="$dest/usr" LIBDIR=share install >/dev/null ;;
    *)  die "$fetched: neither a .deb nor a .tar.gz" ;;
    esac
    rm -rf "$deps/nvcodec-src"
    PKG_CONFIG_PATH=${pc%/*} pkg-config --exact-version="$NVCODEC_VERSION" ffnvcodec ||
        die "$fetched did not install ffnvcodec $NVCODEC_VERSION in $dest"
    echo "$(sha256_of "$fetched") ${fetched##*/} $fetched_from" >"$stamp"
    note "nv-codec-headers $NVCODEC_VERSION: $dest, from $fetched_from"
}

ffmpeg_tarball() {
    fetch_ffmpeg "$ffmpeg_tarball" || die "FFmpeg $FFMPEG_VERSION: no verified source (see above)"
    note "FFmpeg $FFMPEG_VERSION: $fetched, from $fetched_from"
}

for step in $steps; do
    case $step in
    system)  system_packages ;;
    libs)    library_packages ;;
    torch)   torch_venv; [ $spandrel = no ] || spandrel_extra; [ $ray = no ] || ray_extra ;;
    nvcodec) nvcodec_headers ;;
    ffmpeg)  ffmpeg_tarball ;;
    *)       die "unknown step '$step' (system, libs, torch, nvcodec, ffmpeg)" ;;
    esac
done
say "done${summary:+:}$summary"
