#!/bin/sh
# Install what building and testing the fork needs.  Idempotent: each step
# checks first, so a second run does nothing.
#
# System packages (Debian): nasm pkg-config clang python3-venv xz-utils git.
# Project-local, under .deps/ (or $FORK_CACHE_DIR):
#   venv/     Python with torch==$TORCH_VERSION from PyPI; its torch/ holds LibTorch
#   nvcodec/  nv-codec-headers >= $NVCODEC_MIN_VERSION (ffnvcodec.pc fixed up)
# The CUDA toolkit at /usr/local/cuda (or $CUDA_PATH) is used when present;
# otherwise nvidia-cuda-toolkit is installed from Debian.
#
#   scripts/install-deps.sh            everything
#   scripts/install-deps.sh STEP...    only these of: system cuda torch nvcodec
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/UPSTREAM"
deps=${FORK_CACHE_DIR:-$top/.deps}
mkdir -p "$deps/cache"

say() { echo "install-deps: $*"; }
die() { echo "install-deps: $*" >&2; exit 1; }

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
    python3 -c 'import venv, ensurepip' 2>/dev/null || missing="$missing python3-venv"
    [ -z "$missing" ] || apt_install $missing
}

cuda_toolkit() {
    cuda=${CUDA_PATH:-/usr/local/cuda}
    if [ -f "$cuda/include/cuda.h" ] || [ -f /usr/include/cuda.h ]; then return 0; fi
    apt_install nvidia-cuda-toolkit ||
        die "no CUDA toolkit: install one at /usr/local/cuda, or configure with --disable-cuda"
}

torch_venv() {
    py=$deps/venv/bin/python3
    if [ -x "$py" ] && "$py" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$TORCH_VERSION')" 2>/dev/null; then
        return 0
    fi
    say "creating $deps/venv with torch==$TORCH_VERSION (large download)"
    python3 -m venv "$deps/venv"
    "$deps/venv/bin/pip" install -q --disable-pip-version-check "torch==$TORCH_VERSION" ||
        die "pip could not install torch==$TORCH_VERSION from PyPI"
}

find_nvcodec_deb() {
    for d in ${NVCODEC_DEB:-} "$deps"/cache/libffmpeg-nvenc-dev_*.deb \
             "$top"/../shared/upstream/libffmpeg-nvenc-dev_*.deb; do
        [ -f "$d" ] && { echo "$d"; return 0; }
    done
    # Debian's own archive, where its version is new enough
    if command -v apt-get >/dev/null 2>&1; then
        [ -n "$apt_updated" ] || { as_root apt-get update -qq; apt_updated=1; }
        (cd "$deps/cache" && apt-get download -qq libffmpeg-nvenc-dev >/dev/null 2>&1) || true
        for d in "$deps"/cache/libffmpeg-nvenc-dev_*.deb; do
            [ -f "$d" ] && { echo "$d"; return 0; }
        done
    fi
    return 1
}

nvcodec_headers() {
    pc=$deps/nvcodec/usr/share/pkgconfig/ffnvcodec.pc
    if [ -f "$pc" ] && PKG_CONFIG_PATH=${pc%/*} pkg-config --atleast-version="$NVCODEC_MIN_VERSION" ffnvcodec; then
        return 0
    fi
    deb=$(find_nvcodec_deb) ||
        die "nv-codec-headers >= $NVCODEC_MIN_VERSION not found: set NVCODEC_DEB to Debian's libffmpeg-nvenc-dev_12.1.14.0-1_all.deb"
    rm -rf "$deps/nvcodec"
    dpkg-deb -x "$deb" "$deps/nvcodec"
    sed -i "s|^prefix=.*|prefix=$deps/nvcodec/usr|" "$pc"
    PKG_CONFIG_PATH=${pc%/*} pkg-config --atleast-version="$NVCODEC_MIN_VERSION" ffnvcodec ||
        die "$deb is older than nv-codec-headers $NVCODEC_MIN_VERSION"
    case $deb in "$deps"/cache/*) ;; *) cp -f "$deb" "$deps/cache/" ;; esac
    say "nv-codec-headers from $(basename "$deb")"
}

steps=${*:-system cuda torch nvcodec}
for step in $steps; do
    case $step in
    system)  system_packages ;;
    cuda)    [ -n "${NO_CUDA:-}" ] || cuda_toolkit ;;
    torch)   torch_venv ;;
    nvcodec) [ -n "${NO_CUDA:-}" ] || nvcodec_headers ;;
    *)       die "unknown step '$step' (system, cuda, torch, nvcodec)" ;;
    esac
done
[ "$steps" != nvcodec ] || exit 0
say "done (LibTorch: $("$deps/venv/bin/python3" -c 'import torch, os; print(os.path.dirname(torch.__file__))' 2>/dev/null))"
