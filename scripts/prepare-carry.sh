#!/bin/sh
# Gather into .carry/ what a build on a machine without package registries
# needs (the GPU test machine): the verified FFmpeg tarball, nv-codec-headers
# in the form the cache holds (release tarball or Debian package, verified),
# and the nasm and pkgconf programs of this machine.
#
#   scripts/prepare-carry.sh [FFMPEG_TARBALL]
#
# The pinned files come through scripts/fetch-lib.sh (normally from
# .deps/cache, where scripts/install-deps.sh left them); gpu-check.sh gives
# them back to configure and install-deps.sh as explicit paths.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=fetch-lib.sh
. "$top/scripts/fetch-lib.sh"
fetched=''  # set by fetch_ffmpeg and fetch_nvcodec
carry=$top/.carry
mkdir -p "$carry/bin" "$carry/lib"
# One copy of each dependency, so that gpu-check.sh finds the pinned one.
rm -f "$carry"/ffmpeg-*.tar.xz "$carry"/nv-codec-headers-*.tar.gz "$carry"/libffmpeg-nvenc-dev_*.deb
fetch_ffmpeg "${1:-${FFMPEG_TARBALL:-}}" || exit 1
cp -f "$fetched" "$carry/ffmpeg-$FFMPEG_VERSION.tar.xz"
fetch_nvcodec "${NVCODEC_SOURCE:-${NVCODEC_DEB:-}}" || exit 1
cp -f "$fetched" "$carry/"
cp -f "$(command -v nasm)" "$carry/bin/"
cp -f "$(command -v pkgconf)" "$carry/bin/pkg-config"
cp -fL "$(ldd "$(command -v pkgconf)" | awk '/libpkgconf/ { print $3 }')" "$carry/lib/"
# The ffmpeg built here with clang's PTX (cuda_llvm), for gpu-check.sh's
# "clang" step: the machine with the GPU has no clang, so its own build
# compiles the kernels with nvcc.
rm -rf "$carry/clang"
if [ -x "$top/build/ffmpeg" ] && grep -q '^CONFIG_CUDA_LLVM=yes' "$top/build/ffbuild/config.mak" 2>/dev/null; then
    mkdir -p "$carry/clang/lib"
    cp -f "$top/build/ffmpeg" "$carry/clang/"
    # the torch backend's module, which ffmpeg looks for beside itself
    cp -f "$top/build/libavfilter-torch.so" "$carry/clang/"
    # the libraries of the full build (dav1d, libvpx, freetype...) that the
    # GPU machine lacks; not glibc's, the compiler's nor LibTorch's
    ldd "$top/build/ffmpeg" | awk '$3 ~ /^\// { print $3 }' |
        grep -Ev '/(libc|libm|libdl|libpthread|librt|libutil|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so|/(libtorch|libc10)[^/]*$|/torch/' |
        while read -r lib; do cp -fL "$lib" "$carry/clang/lib/"; done
    echo "prepare-carry: the clang-built build/ffmpeg, for gpu-check.sh's clang step"
fi
du -sh "$carry"
