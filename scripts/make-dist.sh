#!/bin/sh
# Write what a distribution needs to apply the fork to the pristine tarball:
#
#   make-dist.sh TARBALL OUTDIR
#
# OUTDIR/patches/ is one quilt series (patches/series) covering both our
# edits to upstream files and our own files, applicable with "quilt push -a"
# or, in series order, "patch -p1".  Our binary files (test data), which
# patch(1) cannot carry, are in OUTDIR/files/ at their paths, to copy over the
# tree.  The series and files are then applied to a fresh extraction and
# compared with the tree "make" prepares.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/UPSTREAM"
tarball=$1
mkdir -p "$2"; out=$(cd "$2" && pwd)
git_fork() {
    git -C "$tmp/fork" -c user.name=ffmpeg-fork -c user.email=fork@localhost \
        -c commit.gpgsign=false "$@"
}

die() { echo "make-dist: $*" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. The fork's tree, with our files as real files in one last commit (the
# text ones: grep -I finds no line in a binary file).
"$top/scripts/prepare-tree.sh" "$tarball" "$tmp/fork" >/dev/null
"$top/scripts/our-files.sh" | while read -r f; do
    rm -f "$tmp/fork/$f"
    cp -p "$top/$f" "$tmp/fork/$f"
done
"$top/scripts/our-files.sh" | while read -r f; do
    if [ -s "$top/$f" ] && ! grep -qI '' "$top/$f"; then echo "$f"; fi
done >"$tmp/binary"
"$top/scripts/our-files.sh" | grep -vxF -f "$tmp/binary" | (cd "$tmp/fork" && xargs git add -f --)
GIT_AUTHOR_DATE="1970-01-01T00:00:00Z" GIT_COMMITTER_DATE="1970-01-01T00:00:00Z" \
git_fork commit -q --author="FFmpeg DNN CUDA fork <fork@localhost>" -F - <<MSG
avfilter/dnn, tests/fate, tools: add the fork's own files

The LibTorch backend's CUDA code, its FATE tests, their model generator and
the demo and benchmark scripts, as kept in the fork's repository: files of
its own that the patches before this one build and test.

Forwarded: no
MSG

# 2. The series, exported as "make patches" does, and the binary files.
rm -rf "$out"
"$top/scripts/export-series.sh" "$tmp/fork" "$out/patches"
while read -r f; do
    mkdir -p "$out/files/$(dirname "$f")"
    cp -p "$top/$f" "$out/files/$f"
done <"$tmp/binary"
cat >"$out/README" <<TXT
FFmpeg $FFMPEG_VERSION with the DNN CUDA fork's changes, as a quilt series.

  tar xf ffmpeg-$FFMPEG_VERSION.tar.xz     (sha256 $FFMPEG_SHA256)
  cd ffmpeg-$FFMPEG_VERSION
  QUILT_PATCHES=../patches quilt push -a
      or: for p in \$(cat ../patches/series); do patch -p1 < ../patches/\$p; done
  cp -R ../files/. .     (test data that a patch cannot carry: $(wc -l <"$tmp/binary") files)
TXT

# 3. Check: pristine tarball + series with patch(1) == the fork's tree.
mkdir "$tmp/check"
tar -xJf "$tarball" -C "$tmp/check" --strip-components=1
while read -r p; do
    patch -s -p1 -d "$tmp/check" <"$out/patches/$p" >/dev/null || die "$p does not apply with patch -p1"
done <"$out/patches/series"
[ ! -d "$out/files" ] || cp -R "$out/files/." "$tmp/check/"
diff -r -x .git "$tmp/fork" "$tmp/check" >"$tmp/diff" ||
    { head -20 "$tmp/diff"; die "the series does not reproduce the fork's tree"; }
echo "make-dist: $(wc -l <"$out/patches/series") patches in $out/patches, $(wc -l <"$tmp/binary") binary files in $out/files; applied to the pristine tarball they reproduce the fork's tree"
