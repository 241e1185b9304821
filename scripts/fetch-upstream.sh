#!/bin/sh
# Find the pinned FFmpeg release tarball, verify it, and print its path.
#
# Sources, in order: the path given as $1 (or $FFMPEG_TARBALL), the local
# cache, then each URL in UPSTREAM.  The sha256 from UPSTREAM is checked
# every time; a mismatch is fatal.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/UPSTREAM"
cache=${FORK_CACHE_DIR:-$top/.deps/cache}
name=ffmpeg-$FFMPEG_VERSION.tar.xz
given=${1:-${FFMPEG_TARBALL:-}}

die() { echo "fetch-upstream: $*" >&2; exit 1; }

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

verify() {
    sum=$(sha256_of "$1")
    [ "$sum" = "$FFMPEG_SHA256" ] && return 0
    echo "fetch-upstream: checksum mismatch for $1" >&2
    echo "  expected $FFMPEG_SHA256" >&2
    echo "  got      $sum" >&2
    return 1
}

if [ -n "$given" ]; then
    [ -f "$given" ] || die "tarball '$given' does not exist"
    verify "$given" || die "refusing '$given': it is not FFmpeg $FFMPEG_VERSION as pinned in UPSTREAM"
    abs=$(cd "$(dirname "$given")" && pwd)/$(basename "$given")
    echo "$abs"
    exit 0
fi

if [ -f "$cache/$name" ]; then
    verify "$cache/$name" || die "cached $cache/$name is corrupt; delete it and retry"
    echo "$cache/$name"
    exit 0
fi

mkdir -p "$cache"
for url in $FFMPEG_URLS; do
    echo "fetch-upstream: trying $url" >&2
    if command -v curl >/dev/null 2>&1; then
        curl -fsSL --connect-timeout 20 -o "$cache/$name.part" "$url" || continue
    else
        wget -q -T 20 -O "$cache/$name.part" "$url" || continue
    fi
    if verify "$cache/$name.part"; then
        mv "$cache/$name.part" "$cache/$name"
        echo "$cache/$name"
        exit 0
    fi
    rm -f "$cache/$name.part"
done
rm -f "$cache/$name.part"
die "no verified copy of $name: pass --tarball=PATH to ./configure (or set FFMPEG_TARBALL)"
