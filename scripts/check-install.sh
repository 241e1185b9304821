#!/bin/sh
# shellcheck disable=SC2317  # functions run through check() look unreachable
#
# make check-install: install into a temporary DESTDIR and check what a user
# or a distribution would get, then uninstall:
#
#   - the installed programs run (ffmpeg -h filter=dnn_processing);
#   - the torch backend is a module of its own, named with --build-suffix:
#     ffmpeg neither needs nor loads LibTorch until a filter loads a model,
#     takes the installed module and no other one on the library path, and
#     says why when the module is missing, cannot be loaded or comes from
#     another build; in a static build the exports for programs that link
#     libavfilter.a are installed, and such a program exports what the
#     module needs;
#   - the module's RUNPATH is LibTorch's lib directory (none with
#     --disable-libtorch-rpath), and so is a shared libavfilter's (both get
#     LDSOFLAGS); the programs' names no LibTorch (they need none); none
#     names a build directory;
#   - the pkg-config files parse, point at the installed headers and
#     libraries, hold no build-directory paths and no linker state flags
#     (--no-as-needed), and a program links with them;
#   - "make uninstall" leaves no file behind.
#
# Prints one line per check and ends with "check-install: passed (N checks)"
# or "check-install: FAILED (N of M checks)"; the exit status says the same.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
[ -f config.mk ] || { echo "check-install: run ./configure first" >&2; exit 1; }
mk() { sed -n "s/^$1 = //p" config.mk; }
builddir=$(mk BUILDDIR)
srcdir=$(mk SRCDIR)
libtorch=$(mk LIBTORCH)
rpath=$(mk LIBTORCH_RPATH)
make=${MAKE:-make}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/root
checks=0 failures=0

ok()   { checks=$((checks + 1)); echo "ok      $*"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAILED  $*"; }
# check DESCRIPTION COMMAND...: passes when COMMAND succeeds
check() { d=$1; shift; if "$@" >"$tmp/out" 2>&1; then ok "$d"; else fail "$d"; sed 's/^/        /' "$tmp/out" | head -20; fi; }
finish() {
    if [ $failures = 0 ]; then echo "check-install: passed ($checks checks)"; exit 0; fi
    echo "check-install: FAILED ($failures of $checks checks)"; exit 1
}

# FFmpeg's installation directories, as its Makefile sees them (no DESTDIR).
$make -s -C "$builddir" --no-print-directory -f Makefile -f - DESTDIR= print-install-dirs >"$tmp/dirs" <<'MK' ||
print-install-dirs:
	@echo "prefix='$(prefix)' bindir='$(BINDIR)' shlibdir='$(SHLIBDIR)' libdir='$(LIBDIR)' pkgconfigdir='$(PKGCONFIGDIR)' shared='$(CONFIG_SHARED)' progs='$(AVPROGS)' module_name='$(TORCH_MODULE_NAME)' buildsuf='$(BUILDSUF)' slibsuf='$(SLIBSUF)'"
MK
    { echo "check-install: cannot read FFmpeg's configuration in $builddir" >&2; exit 1; }
prefix='' bindir='' shlibdir='' libdir='' pkgconfigdir='' shared='' progs='' module_name='' buildsuf='' slibsuf=''
. "$tmp/dirs"
echo "check-install: prefix $prefix, DESTDIR $stage"

# 1. Install.
if $make -C "$top" install DESTDIR="$stage" >"$tmp/install.log" 2>&1; then
    ok "make install DESTDIR=... ($(find "$stage" -type f | wc -l) files)"
else
    fail "make install DESTDIR=..."; tail -20 "$tmp/install.log"; finish
fi

# The installed programs find the installed shared libraries through the
# library path (DESTDIR stands in for /); LibTorch through their RUNPATH,
# or the library path without one.
libpath=
[ "$shared" = yes ] && libpath=$stage$shlibdir
[ "$rpath" = no ] && libpath=$libtorch/lib${libpath:+:$libpath}
run() { LD_LIBRARY_PATH=$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"; }

# 2. The programs run.
ffmpeg=$stage$bindir/ffmpeg
help_dnn() {
    run "$ffmpeg" -hide_banner -h filter=dnn_processing >"$tmp/help" 2>&1 || { cat "$tmp/help"; return 1; }
    grep -q "dnn_backend" "$tmp/help" || { echo "no dnn_backend option in:"; head "$tmp/help"; return 1; }
}
check "installed ffmpeg runs: ffmpeg -hide_banner -h filter=dnn_processing" help_dnn
version=$(run "$ffmpeg" -version 2>/dev/null | sed -n 1p)
case $version in
    "ffmpeg version "*) ok "ffmpeg -version: $version" ;;
    *) fail "ffmpeg -version printed \"$version\"" ;;
esac
for p in $progs; do
    [ "$p" = ffmpeg ] && continue
    check "installed $p runs: $p -version" run "$stage$bindir/$p" -version
done
# tools/dnn-torch-parts.py, installed beside them as dnn-torch-parts
parts_help() {
    "$stage$bindir/dnn-torch-parts" --help >"$tmp/parts" 2>&1 || { head -5 "$tmp/parts"; return 1; }
    grep -q -- "--engine E" "$tmp/parts" || { echo "no --engine in:"; head -5 "$tmp/parts"; return 1; }
}
check "installed dnn-torch-parts runs: dnn-torch-parts --help" parts_help
not_found() { run ldd "$1" | grep "not found" && return 1; return 0; }
check "ldd finds every library of ffmpeg" not_found "$ffmpeg"

# The torch backend's module (libavfilter/dnn/torch_module.mak), versioned
# with --build-suffix as the libraries are (two builds side by side).
case $module_name in
    "libavfilter-torch$buildsuf$slibsuf") ok "the module's name follows --build-suffix ('$buildsuf'): $module_name" ;;
    *) fail "the module is named '$module_name', not libavfilter-torch$buildsuf$slibsuf" ;;
esac
# ...and with another suffix: FFmpeg's Makefile with BUILDSUF=-fork names
# another module, which the loader looks for and make install installs
other_suffix() {
    $make -s -C "$builddir" --no-print-directory -f Makefile -f - BUILDSUF=-fork print-module-name >"$tmp/name" <<'MK' || return 1
print-module-name:
	@echo "$(TORCH_MODULE_NAME)"
MK
    [ "$(cat "$tmp/name")" = "libavfilter-torch-fork$slibsuf" ] || { echo "BUILDSUF=-fork: $(cat "$tmp/name")"; return 1; }
    loader_c=libavfilter/dnn/dnn_backend_torch_loader.c
    $make -n -C "$builddir" -W "$srcdir/$loader_c" -W "src/$loader_c" BUILDSUF=-fork V=1 \
        libavfilter/dnn/dnn_backend_torch_loader.o >"$tmp/n" 2>&1
    grep -qF -- "-DTORCH_MODULE_NAME='\"libavfilter-torch-fork$slibsuf\"'" "$tmp/n" ||
        { echo "the loader is not told libavfilter-torch-fork$slibsuf:"; grep -- ' -o libavfilter/dnn/dnn_backend_torch_loader.o' "$tmp/n"; return 1; }
}
check "with --build-suffix=-fork the module is libavfilter-torch-fork$slibsuf, the loader's too" other_suffix
module=$stage$shlibdir/$module_name
check "the torch backend's module is installed: $shlibdir/$module_name" test -f "$module"
avfilter_so=
[ "$shared" = yes ] && avfilter_so=$(find "$stage$shlibdir" -name 'libavfilter.so.*' -type f | head -1)
no_libtorch() {
    for f in "$ffmpeg" $avfilter_so; do
        readelf -d "$f" | grep -E 'NEEDED.*(libtorch|libc10|libstdc\+\+)' && return 1
    done
    loaded=$(run env LD_DEBUG=files "$ffmpeg" -version 2>&1 >/dev/null | grep -E 'file=[^ ]*(libtorch|libc10)')
    [ -z "$loaded" ] || { printf '%s\n' "$loaded" | head -3; return 1; }
}
check "ffmpeg -version neither needs nor loads LibTorch" no_libtorch

# dnn_processing on a model file that does not exist: the module says so
# once loaded; before, the loader says why it could not load the module.
# DIR FFMPEG EXIT MESSAGE: FFMPEG run with DIR on the library path exits
# with EXIT and prints MESSAGE.
says() {
    out=$(LD_LIBRARY_PATH=$1${libpath:+:$libpath} "$2" -hide_banner -nostdin -f lavfi -i color=s=16x16:d=0.04 \
          -vf dnn_processing=dnn_backend=torch:model="$tmp/none.pt" -f null - 2>&1)
    rc=$?
    printf '%s\n' "$out" | grep -qF -- "$4" && [ "$rc" = "$3" ] && return 0
    echo "expected exit $3 and \"$4\", got exit $rc:"; printf '%s\n' "$out" | tail -5; return 1
}
if [ "$shared" = yes ]; then
    # beside the installed libavfilter.so, which the library path finds
    check "the installed module, beside the installed libavfilter: the model's own error" \
        says "$stage$shlibdir" "$ffmpeg" 234 "$tmp/none.pt"
else
    # beside a copy of the installed program, as where --shlibdir is bindir
    mkdir -p "$tmp/inst" && cp "$ffmpeg" "$tmp/inst/" && ln -s "$module" "$tmp/inst/$module_name"
    check "the installed module, beside the program: the model's own error" \
        says "$tmp" "$tmp/inst/ffmpeg" 234 "$tmp/none.pt"
    if [ -e "$shlibdir/$module_name" ]; then
        echo "        note: not checked what a missing module says ($shlibdir/$module_name is installed)"
    else
        # on the library path, but not where the loader looks: not loaded
        check "a module on the library path alone: not loaded, the loader's error" says "$stage$shlibdir" "$ffmpeg" 234 \
            "The torch DNN backend is a module of its own, $module_name, and it is not installed: looked in $stage$bindir, $shlibdir"
    fi
fi
# Modules beside a copy of the (static) program, where the loader looks first.
if [ "$shared" != yes ]; then
    mkdir -p "$tmp/other" "$tmp/broken"
    cp "$ffmpeg" "$tmp/other/"; cp "$ffmpeg" "$tmp/broken/"
    printf 'const void *ff_dnn_torch_module(const char *build) { return 0; }\n' >"$tmp/other.c"
    printf 'int needed(void) { return 0; }\n' >"$tmp/needed.c"
    printf 'int needed(void);\nint f(void) { return needed(); }\n' >"$tmp/broken.c"
    if ! { ${CC:-cc} -shared -fPIC -o "$tmp/other/$module_name" "$tmp/other.c" &&
           ${CC:-cc} -shared -fPIC -o "$tmp/libneeded.so" "$tmp/needed.c" &&
           ${CC:-cc} -shared -fPIC -o "$tmp/broken/$module_name" "$tmp/broken.c" -L"$tmp" -lneeded &&
           rm "$tmp/libneeded.so"; }; then
        fail "cannot build the test modules"
    fi
    check "a module of another build (older: it says no identity): refused" says "$tmp" "$tmp/other/ffmpeg" 234 \
        "The torch backend's module $tmp/other/$module_name comes from another build of FFmpeg: it must be the one built with this libavfilter (it does not say which build it is: a module older than this libavfilter, which is version "
    check "a module whose libraries are missing (LibTorch): the loader's error" says "$tmp" "$tmp/broken/ffmpeg" 234 \
        "Could not load the torch backend's module $tmp/broken/$module_name: libneeded.so: cannot open shared object file: No such file or directory"
fi

# 3. RUNPATH: LibTorch's lib directory for the module alone, or nothing;
# never a build directory.
runpath_of() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\1 \2/p'; }
check_runpath() {
    rp=$(runpath_of "$1") wants_libtorch=$2
    case $rp in RPATH*) echo "DT_RPATH instead of DT_RUNPATH: $rp"; return 1 ;; esac
    case ":${rp#RUNPATH }:" in
        *":$builddir"*|*":$srcdir"*|*":$stage"*) echo "a build directory in $rp"; return 1 ;;
    esac
    if [ "$wants_libtorch" = yes ]; then
        case ":${rp#RUNPATH }:" in *":$libtorch/lib:"*) ;; *) echo "expected RUNPATH $libtorch/lib, got '${rp:-none}'"; return 1 ;; esac
    else
        case $rp in *"$libtorch"*) echo "no LibTorch expected, but: $rp"; return 1 ;; esac
    fi
    echo "${rp:-no RUNPATH}"
}
for f in "$stage$bindir"/* $avfilter_so "$module"; do
    [ -f "$f" ] || continue
    [ "$(head -c 4 "$f")" = "$(printf '\177ELF')" ] || continue  # dnn-torch-parts: Python
    wants=no desc="leaves LibTorch out"
    # LDSOFLAGS: the module, and in a shared build FFmpeg's libraries too
    if [ "$f" = "$module" ] || [ "$f" = "$avfilter_so" ]; then
        if [ "$rpath" = yes ]; then wants=yes desc="is $libtorch/lib"; else desc="$desc (--disable-libtorch-rpath)"; fi
    fi
    if out=$(check_runpath "$f" $wants); then ok "RUNPATH of ${f#"$stage"} $desc"
    else fail "RUNPATH of ${f#"$stage"}: $out"; fi
done

# 4. pkg-config files.
pcdir=$stage$pkgconfigdir
pc() { PKG_CONFIG_LIBDIR=$pcdir PKG_CONFIG_PATH='' PKG_CONFIG_SYSROOT_DIR=$stage pkg-config "$@"; }
n=0
for f in "$pcdir"/*.pc; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    name=$(basename "$f" .pc)
    problems=
    pc --print-errors --exists "$name" 2>"$tmp/err" || problems="$problems; does not parse: $(cat "$tmp/err")"
    p=$(sed -n 's/^prefix=//p' "$f")
    [ "$p" = "$prefix" ] || problems="$problems; prefix=$p, not $prefix"
    for d in $(pc --cflags-only-I "$name"); do
        [ -d "${d#-I}" ] || problems="$problems; no include directory ${d#-I}"
    done
    for d in $(pc --libs-only-L "$name"); do
        ls "${d#-L}/$name".* >/dev/null 2>&1 || problems="$problems; no $name library in ${d#-L}"
    done
    for bad in "$builddir" "$srcdir" "$stage"; do
        grep -qF -- "$bad" "$f" && problems="$problems; holds the build path $bad"
    done
    flags=$(tr ' ' '\n' <"$f" | grep -e '--no-as-needed' -e '--push-state' -e '--pop-state' -e '--whole-archive' | sort -u | tr '\n' ' ' | sed 's/ $//')
    [ -z "$flags" ] || problems="$problems; holds linker state flags: $flags"
    if [ -z "$problems" ]; then ok "${f#"$stage"}: parses, paths of the installation, no build paths or linker state flags"
    else fail "${f#"$stage"}${problems}"; fi
done
[ $n -gt 0 ] || fail "no .pc files in $pkgconfigdir"

# A program links against the installed libavfilter with its pkg-config
# flags, without LibTorch, and finds the filter when run; the staged lib
# directory stands in for the system's library paths.
cat >"$tmp/t.c" <<'C'
#include <stdio.h>
#include <libavfilter/avfilter.h>
int main(void)
{
    const AVFilter *f = avfilter_get_by_name("dnn_processing");
    printf("libavfilter %u: dnn_processing %s\n", avfilter_version(), f ? "found" : "missing");
    return !f;
}
C
link_and_run() {
    static=; [ "$shared" = yes ] || static=--static
    # shellcheck disable=SC2046  # pkg-config's flags are words
    ${CC:-cc} -o "$tmp/t" "$tmp/t.c" $(pc --cflags ${static:+"$static"} libavfilter) $(pc --libs ${static:+"$static"} libavfilter) \
        -Wl,-rpath-link,"$stage$shlibdir" || return 1
    run "$tmp/t"
}
check "a program links with pkg-config --libs libavfilter and finds dnn_processing" link_and_run

# A static build: the exports for programs that link libavfilter.a, naming
# the installed dynamic list; such a program exports every function of
# FFmpeg's that the installed module calls.
if [ "$shared" != yes ]; then
    exports=$stage$libdir/libavfilter-torch$buildsuf.exports
    check "the module's exports are installed: $libdir/libavfilter-torch$buildsuf.exports(.list)" \
        test -f "$exports" -a -f "$exports.list"
    exports_link() {
        first=$(sed -n 1p "$exports")
        [ "$first" = "\"-Wl,--dynamic-list=$libdir/libavfilter-torch$buildsuf.exports.list\"" ] ||
            { echo "its first line is $first"; return 1; }
        # the staged list stands in for the installed one
        sed "1s|.*|-Wl,--dynamic-list=$exports.list|" "$exports" >"$tmp/staged.exports"
        # shellcheck disable=SC2046  # pkg-config's flags are words
        ${CC:-cc} -o "$tmp/te" "$tmp/t.c" @"$tmp/staged.exports" $(pc --cflags --static libavfilter) \
            $(pc --libs --static libavfilter) || return 1
        nm -D --undefined-only "$module" | awk '$2 ~ /^(av|avpriv|sws)_/ { print $2 }' | sort -u >"$tmp/needs"
        nm -D --defined-only "$tmp/te" | awk '{ print $3 }' | sort -u >"$tmp/has"
        missing=$(comm -23 "$tmp/needs" "$tmp/has")
        [ -s "$tmp/needs" ] || { echo "the module calls no function of FFmpeg's?"; return 1; }
        [ -z "$missing" ] || { echo "not exported:"; printf '%s\n' "$missing"; return 1; }
        echo "$(wc -l <"$tmp/needs") functions exported"
    }
    check "a program linked with the installed exports exports what the module calls" exports_link
fi
# 5. Uninstall.
if $make -C "$top" uninstall DESTDIR="$stage" >"$tmp/uninstall.log" 2>&1; then
    left=$(find "$stage" ! -type d | sed "s|^$stage||")
    if [ -z "$left" ]; then ok "make uninstall DESTDIR=... leaves no files"
    else fail "make uninstall left $(echo "$left" | wc -l) files:"; echo "$left" | head -20 | sed 's/^/        /'; fi
else
    fail "make uninstall DESTDIR=..."; tail -20 "$tmp/uninstall.log"
fi

finish
