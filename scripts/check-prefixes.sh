#!/bin/sh
# Check that every prefix of the patch series builds: for each k, the pristine
# tarball with patches 1..k and the files of ours that patches/our-files
# assigns to them, so that the series bisects and a distribution may stop
# anywhere in it.
#
#   check-prefixes.sh TARBALL WORKDIR [FFmpeg configure options...]
#
# One tree and one build directory under WORKDIR, built incrementally: patch
# k is applied with "git am", its files are linked in, FFmpeg's configure runs
# again only when the patch changes what configure reads (configure, the
# component lists), and make rebuilds what changed.  The configuration is
# small (FFmpeg's --disable-everything, the DNN filters and what the options
# given enable: LibTorch, CUDA), so that the whole series builds in CI time.
# A second run keeps the prefix that has not changed since the first (and the
# objects of the build directory).  Prints one line per prefix; fails naming
# the first prefix that does not build, with the end of its log.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/UPSTREAM"
[ $# -ge 2 ] || { echo "usage: check-prefixes.sh TARBALL WORKDIR [FFmpeg configure options...]" >&2; exit 2; }
tarball=$1
mkdir -p "$2"; work=$(cd "$2" && pwd)
shift 2
src=$work/ffmpeg-$FFMPEG_VERSION
bld=$work/build
log=$work/log
nproc=${NPROC:-$(nproc 2>/dev/null || echo 2)}

die() { echo "check-prefixes: $*" >&2; exit 1; }
git_src() { git -C "$src" -c user.name=ffmpeg-fork -c user.email=fork@localhost -c commit.gpgsign=false -c gc.auto=0 "$@"; }

"$top/scripts/our-files.sh" --check >&2 || die "patches/our-files must assign each of our files to a patch of the series"
[ -f "$tarball" ] || die "no tarball at '$tarball'"

# The small configuration: the options given (LibTorch's flags, CUDA...),
# then no component but the DNN filters, no debug information and -O1 (the
# LibTorch headers make the C++ files slow to compile; FFmpeg needs the dead
# code elimination of -O1); ccache where there is one.
set -- "$@" --disable-everything --disable-doc --disable-ffprobe --disable-ffplay \
    --enable-filter=dnn_processing,dnn_interpolate --disable-debug --optflags=-O1
if [ "${CCACHE:-}" != no ] && command -v ccache >/dev/null 2>&1; then
    set -- "$@" --cc="ccache ${CC:-gcc}" --cxx="ccache ${CXX:-g++}"
fi
printf '%s\n' "$@" >"$work/flags.new"

# What a patch is: its bytes and the files of ours it brings (their contents).
patch_id() {
    { cat "$top/patches/$1"
      "$top/scripts/our-files.sh" --of "$1" | while read -r f; do echo "$f"; cat "$top/$f"; done
    } | sha256sum | cut -d' ' -f1
}

# The prefix of the last run that is still the series' start stays applied.
keep=0
if [ -d "$src/.git" ] && [ -f "$work/applied" ] && cmp -s "$work/flags.new" "$work/flags"; then
    n=0
    while read -r p; do
        case $p in ''|'#'*) continue ;; esac
        n=$((n + 1))
        line=$(sed -n "${n}p" "$work/applied")
        if [ -z "$line" ] || [ "$line" != "$p $(patch_id "$p")" ]; then break; fi
        keep=$n
    done <"$top/patches/series"
fi
if [ $keep = 0 ]; then
    rm -rf "$work/ffmpeg-"* "$bld" "$work/applied"
    mkdir -p "$src" "$bld"
    tar -xJf "$tarball" -C "$src" --strip-components=1
    git_src init -q
    git_src add -A -f .
    git_src commit -q -m "FFmpeg $FFMPEG_VERSION (pristine release tarball)"
    git_src tag upstream
    : >"$work/applied"; : >"$work/commits"
else
    git_src reset -q --hard "$(sed -n "${keep}p" "$work/commits")"
    sed -i "$((keep + 1)),\$d" "$work/applied" "$work/commits"
fi
mv -f "$work/flags.new" "$work/flags"
# our files: links to this repository's, those of the patches kept
find "$src" -type l ! -path "$src/.git/*" -exec rm -f {} +
n=0
while read -r p; do
    case $p in ''|'#'*) continue ;; esac
    n=$((n + 1)); [ $n -le $keep ] || break
    "$top/scripts/our-files.sh" --of "$p" | while read -r f; do
        mkdir -p "$src/$(dirname "$f")"; ln -sfn "$top/$f" "$src/$f"
    done
done <"$top/patches/series"

run_configure() {
    (cd "$bld" && "$src/configure" "$@") >"$log" 2>&1
}
# configure again when a patch changes configure or the lists it reads
needs_configure() {
    git_src diff --name-only HEAD~1 HEAD | grep -qE '^(configure|libav[a-z]*/all[a-z]*\.c|libavcodec/(parsers|bitstream_filters)\.c)$'
}

total=$(sed -e '/^#/d' -e '/^$/d' "$top/patches/series" | wc -l)
start=$(date +%s)
[ $keep = 0 ] || echo "check-prefixes: patches 1-$keep unchanged since the last run, not built again"
n=0
while read -r p; do
    case $p in ''|'#'*) continue ;; esac
    n=$((n + 1)); [ $n -gt $keep ] || continue
    t0=$(date +%s)
    git_src am -q --keep-non-patch "$top/patches/$p" >"$log" 2>&1 ||
        { cat "$log"; die "$p does not apply"; }
    "$top/scripts/our-files.sh" --of "$p" | while read -r f; do
        mkdir -p "$src/$(dirname "$f")"; ln -sfn "$top/$f" "$src/$f"
    done
    what=built
    if [ ! -f "$bld/ffbuild/config.mak" ] || needs_configure || [ $n = $((keep + 1)) ]; then
        run_configure "$@" || { tail -20 "$log"; tail -20 "$bld/ffbuild/config.log" 2>/dev/null; die "$p: FFmpeg's configure fails (prefix $n of $total)"; }
        what="configured, built"
    fi
    # the static libraries are archived again from this prefix's object
    # lists: make would keep the members of objects a patch drops (and a
    # second run finds the objects of a first run's later prefixes)
    find "$bld" -name '*.a' -exec rm -f {} +
    if ! make -C "$bld" -j"$nproc" >"$log" 2>&1; then
        grep -E 'error|Error' "$log" | head -20
        tail -15 "$log"
        die "$p does not build (prefix $n of $total; log: $log)"
    fi
    echo "$p $(patch_id "$p")" >>"$work/applied"
    git_src rev-parse HEAD >>"$work/commits"
    echo "check-prefixes: $(printf '%2d/%d' "$n" "$total") $p: $what in $(($(date +%s) - t0)) s"
done <"$top/patches/series"
echo "check-prefixes: all $total prefixes build ($(($(date +%s) - start)) s)"
