#!/bin/sh
# Where the torch backend's module is looked for, and which one is taken
# (libavfilter/dnn/dnn_backend_torch_loader.c), from a copy of ffmpeg in a
# directory of its own: the loader looks beside the file that holds
# libavfilter (the program in a static build; in a shared one the copy's
# libavfilter.so is copied too), then in the installation's --shlibdir,
# nowhere else.
#
#   torch-module-check.sh stale FFMPEG SHLIBDIR NAME STALE
#       the module STALE (tests/dnn/module-stale.c: another revision, of
#       this version and configuration) beside the copy, named NAME: refused,
#       naming what differs
#   torch-module-check.sh library-path FFMPEG SHLIBDIR NAME MODULE
#       the module MODULE only in a directory on LD_LIBRARY_PATH: not loaded
#
# Prints ffmpeg's error lines and its exit code, as torch-check.sh error
# does, with the temporary directory written TMP, SHLIBDIR as SHLIBDIR, NAME
# as MODULE and this build's layout hash as LAYOUT.
set -u
mode=$1 ffmpeg=$2 shlibdir=$3 name=$4 module=$5

tmp=$(mktemp -d "${TMPDIR:-/tmp}/torch-module-check.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/elsewhere"
cp "$ffmpeg" "$tmp/bin/ffmpeg" || exit 1
path=
# a shared build: the copy's libavfilter, beside which the loader looks
lavfi=$(ldd "$ffmpeg" 2>/dev/null | sed -n 's/^[[:space:]]*\(libavfilter[^ ]*\.so[^ ]*\) => \(\/[^ ]*\).*/\1 \2/p')
if [ -n "$lavfi" ]; then
    cp "${lavfi#* }" "$tmp/bin/${lavfi%% *}" || exit 1
    path=$tmp/bin
fi
[ -e "$shlibdir/$name" ] && echo "note: $shlibdir/$name is installed: the loader takes it"

case $mode in
stale)        cp "$module" "$tmp/bin/$name" ;;
library-path) cp "$module" "$tmp/elsewhere/$name"; path=${path:+$path:}$tmp/elsewhere ;;
*)            echo "usage: $0 stale|library-path FFMPEG SHLIBDIR NAME MODULE" >&2; exit 2 ;;
esac || exit 1

log=$(LD_LIBRARY_PATH=$path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$tmp/bin/ffmpeg" -nostdin -nostats -hide_banner \
      -v error -f lavfi -i testsrc2=s=16x16:d=0.04 -vf dnn_processing=dnn_backend=torch:model="$tmp/none.pt" \
      -f null - 2>&1 >/dev/null)
status=$?
printf '%s\n' "$log" | grep -E '^\[(dnn_|Parsed_dnn_processing)' |
    sed -e 's/ @ 0x[0-9a-f]*\]/]/g' -e "s|$tmp|TMP|g" -e "s|$shlibdir|SHLIBDIR|g" -e "s|$name|MODULE|g" \
        -e "s/this libavfilter's layout [0-9-]*/this libavfilter's layout LAYOUT/"
echo "exit code: $status"
