#!/bin/sh
# List the files we own that live at FFmpeg paths (relative to the repo root).
top=$(cd "$(dirname "$0")/.." && pwd)
dirs="compat fftools libavcodec libavdevice libavfilter libavformat libavutil libswresample libswscale tests tools"
cd "$top" || exit 1
if git rev-parse --git-dir >/dev/null 2>&1; then
    # shellcheck disable=SC2086 # a list of folders
    git ls-files --cached --others --exclude-standard -- $dirs
else
    # shellcheck disable=SC2086 # a list of folders
    find $dirs -type f 2>/dev/null
fi | while read -r f; do [ -f "$f" ] && echo "$f"; done | sort -u
