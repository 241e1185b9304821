#!/bin/sh
# Write what a distribution needs to apply the fork to the pristine tarball:
#
#   make-dist.sh TARBALL OUTDIR
#
# OUTDIR/patches/ is one quilt series (patches/series) covering both our
# edits to upstream files and our own files, applicable with "quilt push -a"
# or, in series order, "patch -p1": the series of patches/, each patch
# carrying the files of ours that patches/our-files assigns to it (no patch
# of our files alone).  Our binary files (test data), which patch(1) cannot
# carry, are in OUTDIR/files/ at their paths, to copy over the tree.  The series and files are then applied to a fresh extraction and
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

# 1. The fork's tree, each patch of the series with the files of ours that
# patches/our-files assigns to it as real files (the text ones: grep -I finds
# no line in a binary file; those go to files/).
"$top/scripts/our-files.sh" --check >&2 ||
    die "patches/our-files must assign each of our files to a patch of the series"
"$top/scripts/prepare-tree.sh" "$tarball" "$tmp/fork" >/dev/null
"$top/scripts/our-files.sh" | while read -r f; do
    if [ -s "$top/$f" ] && ! grep -qI '' "$top/$f"; then echo "$f"; fi
done >"$tmp/binary"
"$top/scripts/our-files.sh" | (cd "$tmp/fork" && xargs rm -f --)
git_fork reset -q --hard upstream
while read -r p; do
    case $p in ''|'#'*) continue ;; esac
    git_fork am -q --keep-non-patch --committer-date-is-author-date "$top/patches/$p" ||
        die "patch $p does not apply"
    "$top/scripts/our-files.sh" --of "$p" | grep -vxF -f "$tmp/binary" >"$tmp/files" || true
    [ -s "$tmp/files" ] || continue
    while read -r f; do
        mkdir -p "$tmp/fork/$(dirname "$f")"
        cp -p "$top/$f" "$tmp/fork/$f"
    done <"$tmp/files"
    (cd "$tmp/fork" && xargs git add -f -- <"$tmp/files")
    git_fork commit -q --amend --no-edit
done <"$top/patches/series"
while read -r f; do
    mkdir -p "$tmp/fork/$(dirname "$f")"
    cp -p "$top/$f" "$tmp/fork/$f"
done <"$tmp/binary"

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
  cp -R ../files/. .     (test data that a patch cannot carry: $(wc -l <"$tmp/binary") files,
                            for the FATE tests of the last patches)
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
