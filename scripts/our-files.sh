#!/bin/sh
# The files we own that live at FFmpeg paths (relative to the repo root), and
# which patch of the series introduces each (patches/our-files):
#
#   our-files.sh                  list our files
#   our-files.sh --of PATCH       the files patches/our-files assigns to PATCH
#                                 (its file name, with or without NNNN-)
#   our-files.sh --check          every file of ours assigned once, to a patch
#                                 of patches/series; one line per problem
#
# patches/our-files has a line "PATCH FILE" per file: PATCH is the name of the
# patch in patches/ without its number, so renumbering the series leaves it
# alone; # starts a comment.
top=$(cd "$(dirname "$0")/.." && pwd)
dirs="compat fftools libavcodec libavdevice libavfilter libavformat libavutil libswresample libswscale tests tools"
manifest=$top/patches/our-files
cd "$top" || exit 1

list() {
    if git rev-parse --git-dir >/dev/null 2>&1; then
        # shellcheck disable=SC2086 # a list of folders
        git ls-files --cached --others --exclude-standard -- $dirs
    else
        # shellcheck disable=SC2086 # a list of folders
        find $dirs -type f 2>/dev/null
    fi | while read -r f; do [ -f "$f" ] && echo "$f"; done | sort -u
}

# the manifest's lines, comments and blank lines left out: "PATCH FILE"
entries() {
    [ -f "$manifest" ] || { echo "our-files: no $manifest" >&2; exit 1; }
    sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$manifest"
}

case ${1:-} in
'')
    list ;;
--of)
    name=${2#[0-9][0-9][0-9][0-9]-}
    entries | awk -v p="$name" '$1 == p { print $2 }' ;;
--check)
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    list >"$tmp/ours"
    entries >"$tmp/entries" || exit 1
    sed -e '/^#/d' -e '/^$/d' -e 's/^[0-9][0-9][0-9][0-9]-//' patches/series >"$tmp/patches"
    awk -v ours="$tmp/ours" -v patches="$tmp/patches" '
        BEGIN {
            while ((getline l < ours) > 0) own[l] = 1
            while ((getline l < patches) > 0) known[l] = 1
        }
        NF != 2 { print "patches/our-files: line \"" $0 "\" is not \"PATCH FILE\""; bad++; next }
        !($1 in known) { print "patches/our-files: " $2 " is assigned to " $1 ", which is not in patches/series"; bad++ }
        !($2 in own) { print "patches/our-files: " $2 " is not one of our files (scripts/our-files.sh)"; bad++ }
        ($2 in seen) { print "patches/our-files: " $2 " is assigned twice"; bad++ }
        { seen[$2] = 1 }
        END {
            for (f in own) if (!(f in seen)) { print "patches/our-files: " f " is assigned to no patch"; bad++ }
            exit bad > 0
        }' "$tmp/entries" >"$tmp/problems"
    status=$?
    sort "$tmp/problems"
    exit $status ;;
*)
    echo "usage: our-files.sh [--of PATCH | --check]" >&2; exit 2 ;;
esac
