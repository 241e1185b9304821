#!/bin/sh
# Find the pinned FFmpeg release tarball, verify it, and print its path.
#
#   scripts/fetch-upstream.sh [TARBALL]
#
# Sources, in order (scripts/fetch-lib.sh): TARBALL (or $FFMPEG_TARBALL),
# the cache .deps/cache/, each URL of FFMPEG_URLS in UPSTREAM, and last the
# local mirror directory $FORK_MIRROR.  The sha256 from UPSTREAM is checked
# every time; a given TARBALL that does not match is refused.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=fetch-lib.sh
. "$top/scripts/fetch-lib.sh"
fetched=''  # set by fetch_ffmpeg

fetch_ffmpeg "${1:-${FFMPEG_TARBALL:-}}" || exit 1
echo "$fetched"
