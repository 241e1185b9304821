#!/bin/sh
# Gather into .carry/ what a build on a machine without package registries
# needs (the GPU test machine): the verified FFmpeg tarball, nv-codec-headers
# as Debian ships them, and the nasm and pkgconf programs of this machine.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
carry=$top/.carry
mkdir -p "$carry/bin" "$carry/lib"
cp -f "$("$top/scripts/fetch-upstream.sh" ${1:-})" "$carry/"
cp -f "$top"/.deps/cache/libffmpeg-nvenc-dev_*.deb "$carry/"
cp -f "$(command -v nasm)" "$carry/bin/"
cp -f "$(command -v pkgconf)" "$carry/bin/pkg-config"
cp -fL "$(ldd "$(command -v pkgconf)" | awk '/libpkgconf/ { print $3 }')" "$carry/lib/"
du -sh "$carry"
