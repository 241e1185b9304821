#!/bin/sh
# Prepare the full FFmpeg tree: pristine tarball + patch series + our files.
#
#   prepare-tree.sh TARBALL SRCDIR
#   prepare-tree.sh --record SRCDIR    (after "make patches": the tree's
#                                       commits are the series)
#
# SRCDIR becomes a git repository whose first commit (tag "upstream") is the
# pristine tarball; the series is applied on top with "git am".  Our own files
# are linked in, so editing them rebuilds only what depends on them.
# Running it again is cheap: the series is re-applied only when it changed.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/UPSTREAM"
tarball=$1
src=$2
record=
if [ "$tarball" = --record ]; then record=1; fi
series=$top/patches/series

die() { echo "prepare-tree: $*" >&2; exit 1; }
git_src() { git -C "$src" -c user.name=ffmpeg-fork -c user.email=fork@localhost -c commit.gpgsign=false "$@"; }

series_hash() {
    { cat "$series"; while read -r p; do
        case $p in ''|'#'*) continue ;; esac
        cat "$top/patches/$p"
      done <"$series"; } | sha256sum | cut -d' ' -f1
}

import_tarball() {
    echo "prepare-tree: extracting $(basename "$tarball") into $src"
    mkdir -p "$src"
    tar -xJf "$tarball" -C "$src" --strip-components=1
    git_src init -q
    git_src add -A -f .
    GIT_AUTHOR_DATE="1970-01-01T00:00:00Z" GIT_COMMITTER_DATE="1970-01-01T00:00:00Z" \
        git_src commit -q -m "FFmpeg $FFMPEG_VERSION (pristine release tarball)"
    git_src tag upstream
}

apply_series() {
    want=$(series_hash)
    have=$(cat "$src/.git/fork-series" 2>/dev/null || true)
    [ "$want" = "$have" ] && return 0
    applied=$(cat "$src/.git/fork-head" 2>/dev/null || git_src rev-parse upstream)
    if [ "$(git_src rev-parse HEAD)" != "$applied" ] && [ -z "${FORCE:-}" ]; then
        die "$src has commits that are not in patches/: run 'make patches' first (or FORCE=1 to drop them)"
    fi
    if [ -n "$(git_src status --porcelain --untracked-files=no)" ] && [ -z "${FORCE:-}" ]; then
        die "$src has uncommitted edits: commit them there and run 'make patches' (or FORCE=1 to drop them)"
    fi
    git_src am --abort >/dev/null 2>&1 || true
    git_src reset -q --hard upstream
    while read -r p; do
        case $p in ''|'#'*) continue ;; esac
        echo "prepare-tree: applying $p"
        git_src am -q --keep-non-patch --committer-date-is-author-date "$top/patches/$p" ||
            die "patch $p does not apply"
    done <"$series"
    git_src rev-parse HEAD >"$src/.git/fork-head"
    echo "$want" >"$src/.git/fork-series"
}

link_our_files() {
    exclude=$src/.git/info/exclude
    "$top/scripts/our-files.sh" | while read -r f; do
        if [ -e "$src/$f" ] && [ ! -L "$src/$f" ]; then
            die "$f exists upstream: change it with a patch, not by shadowing it"
        fi
        if [ "$(readlink "$src/$f" 2>/dev/null)" != "$top/$f" ]; then
            mkdir -p "$(dirname "$src/$f")"
            ln -sfn "$top/$f" "$src/$f"
        fi
        grep -qxF "/$f" "$exclude" 2>/dev/null || echo "/$f" >>"$exclude"
    done
    # drop links to files we no longer have
    find "$src" -type l ! -path "$src/.git/*" | while read -r l; do
        case $(readlink "$l") in "$top"/*) [ -e "$l" ] || rm -f "$l" ;; esac
    done
}

if [ -n "$record" ]; then
    git_src rev-parse HEAD >"$src/.git/fork-head"
    series_hash >"$src/.git/fork-series"
    exit 0
fi
[ -f "$tarball" ] || die "no tarball at '$tarball'"
[ -d "$src/.git" ] || import_tarball
apply_series
link_our_files
