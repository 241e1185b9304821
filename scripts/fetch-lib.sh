# shellcheck shell=sh source-path=SCRIPTDIR/..
# shellcheck disable=SC2034  # $fetched and $fetched_from are its results
# Fetching and verifying the pinned upstream inputs of UPSTREAM: one mechanism
# for all of them, sourced by fetch-upstream.sh, install-deps.sh and
# prepare-carry.sh, which set $top (the checkout) first.  Messages go to
# stderr and start with the name of the script.
#
# A dependency may come in several forms (nv-codec-headers: the release
# tarball or Debian's package), each pinned by its own sha256.  Sources are
# tried in this order, and every file is verified, whatever its source:
#
#   1. an explicit path given by the caller (a mismatch there is fatal);
#   2. the cache, $FORK_CACHE_DIR/cache (default .deps/cache): only the pinned
#      file names; a cached file of another version is skipped with a message,
#      one with a wrong checksum is moved aside (NAME.bad); neither is used;
#   3. the URLs of UPSTREAM, each form in turn (the environment may override
#      FFMPEG_URLS, NVCODEC_TARBALL_URLS, NVCODEC_DEB_URLS; empty = none);
#   4. last, a local mirror directory, $FORK_MIRROR, holding files under their
#      pinned names (CI points it at ../shared/upstream).
#
# What is fetched is kept in the cache under its pinned name.  On success
# $fetched is its path and $fetched_from says where it came from.

top=${top:?the script sourcing fetch-lib.sh sets top}
fork_cache=${FORK_CACHE_DIR:-$top/.deps}/cache
fetch_tag=$(basename "$0" .sh)

# URL lists given in the environment win over UPSTREAM's (set but empty: none).
for _v in FFMPEG_URLS NVCODEC_TARBALL_URLS NVCODEC_DEB_URLS; do
    eval "[ -z \"\${$_v+x}\" ] || fetch_env_$_v=\$$_v"
done
# shellcheck disable=SC1091 source=UPSTREAM
. "$top/UPSTREAM"
for _v in FFMPEG_URLS NVCODEC_TARBALL_URLS NVCODEC_DEB_URLS; do
    eval "[ -z \"\${fetch_env_$_v+x}\" ] || $_v=\$fetch_env_$_v"
done

fetch_log() { echo "$fetch_tag: $*" >&2; }

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# A form is one word list: "NAME SHA256 [URL...]"; fetch_form FORM sets
# form_name, form_sum and form_urls.
fetch_form() {
    set -f
    # shellcheck disable=SC2086  # split the word list, without globbing
    set -- $1
    set +f
    form_name=$1 form_sum=$2
    shift 2
    form_urls=$*
}

# fetch_identify FILE FORM...: the pinned name of the form FILE is, by checksum
fetch_identify() {
    _file=$1; shift
    _sum=$(sha256_of "$_file")
    for _f; do
        fetch_form "$_f"
        [ "$_sum" != "$form_sum" ] || { echo "$form_name"; return 0; }
    done
    fetch_log "$_file: sha256 $_sum is not that of any pinned file"
    return 1
}

# fetch_keep FILE NAME: keep a verified FILE in the cache as NAME
fetch_keep() {
    fetched=$fork_cache/$2
    [ "$1" != "$fetched" ] || return 0
    if [ -f "$fetched" ] && [ "$(sha256_of "$fetched")" = "$(sha256_of "$1")" ]; then return 0; fi
    if mkdir -p "$fork_cache" && cp -f "$1" "$fetched.part" && mv -f "$fetched.part" "$fetched"; then
        return 0
    fi
    rm -f "$fetched.part"
    fetch_log "could not copy $1 into $fork_cache; using it where it is"
    fetched=$1
}

# fetch_download URL FILE
fetch_download() {
    _t=${FORK_CONNECT_TIMEOUT:-10}
    if command -v curl >/dev/null 2>&1; then
        curl -fsSL --connect-timeout "$_t" --speed-limit 1024 --speed-time 30 -o "$2" "$1" </dev/null
    elif command -v wget >/dev/null 2>&1; then
        wget -q --connect-timeout="$_t" --read-timeout=30 -t 1 -O "$2" "$1" </dev/null
    else
        fetch_log "neither curl nor wget is installed"
        return 1
    fi
}

# fetch_pinned LABEL VERSION GIVEN HINT FORM...
#   LABEL, VERSION  for messages ("nv-codec-headers", "12.1.14.0")
#   GIVEN           an explicit path, or empty
#   HINT            how to give a file explicitly, for the failure message
fetch_pinned() {
    _label=$1 _version=$2 _given=$3 _hint=$4
    shift 4
    fetched='' fetched_from=''

    if [ -n "$_given" ]; then
        [ -f "$_given" ] || { fetch_log "$_label: '$_given' is not a file"; return 1; }
        _name=$(fetch_identify "$_given" "$@") || {
            fetch_log "refusing '$_given': it is not $_label $_version as pinned in UPSTREAM"
            return 1
        }
        fetch_keep "$_given" "$_name"
        fetched_from="the given file $_given"
        fetch_log "$_label $_version from $fetched_from"
        return 0
    fi

    # The cache: the pinned names only.  Anything else that looks like this
    # dependency (another version, an older download) is pointed out.
    for _f; do
        fetch_form "$_f"
        _rest=${form_name#*"$_version"}
        for _c in "$fork_cache/${form_name%%"$_version"*}"*".${_rest#*.}"; do
            [ -f "$_c" ] || continue
            if [ "${_c##*/}" != "$form_name" ]; then
                fetch_log "skipping cached ${_c##*/}: not the pinned $form_name (delete it)"
            elif [ "$(sha256_of "$_c")" = "$form_sum" ]; then
                fetched=$_c
                fetched_from="the cache"
                fetch_log "$_label $_version from the cache ($_c)"
                return 0
            else
                fetch_log "skipping cached $form_name: its sha256 is not the pinned $form_sum (corrupt or truncated); moved aside to $form_name.bad"
                mv -f "$_c" "$_c.bad" || rm -f "$_c"
            fi
        done
    done

    _tried=
    for _f; do
        fetch_form "$_f"
        for _url in $form_urls; do
            _tried="$_tried $_url"
            mkdir -p "$fork_cache"
            _part=$fork_cache/$form_name.part
            fetch_log "trying $_url"
            if ! fetch_download "$_url" "$_part"; then
                fetch_log "could not download $_url (unreachable or not there)"
            elif [ "$(sha256_of "$_part")" != "$form_sum" ]; then
                fetch_log "$_url: sha256 $(sha256_of "$_part") is not the pinned $form_sum; not used"
            else
                mv -f "$_part" "$fork_cache/$form_name"
                fetched=$fork_cache/$form_name
                fetched_from=$_url
                fetch_log "$_label $_version from $fetched_from"
                return 0
            fi
            rm -f "$_part"
        done
    done

    if [ -n "${FORK_MIRROR:-}" ] && [ ! -d "$FORK_MIRROR" ]; then
        fetch_log "the local mirror FORK_MIRROR=$FORK_MIRROR is not a folder"
    elif [ -n "${FORK_MIRROR:-}" ]; then
        fetch_log "no network source of $_label $_version worked; trying the local mirror $FORK_MIRROR"
        for _f; do
            fetch_form "$_f"
            _m=$FORK_MIRROR/$form_name
            _tried="$_tried $_m"
            [ -f "$_m" ] || continue
            if [ "$(sha256_of "$_m")" = "$form_sum" ]; then
                fetch_keep "$_m" "$form_name"
                fetched_from="the local mirror $_m (no network source worked)"
                fetch_log "$_label $_version from $fetched_from"
                return 0
            fi
            fetch_log "skipping $_m: its sha256 is not the pinned $form_sum"
        done
    fi

    fetch_log "no verified copy of $_label $_version (pinned in UPSTREAM)"
    fetch_log "  looked in the cache $fork_cache, then:${_tried:- no network source}"
    [ -n "${FORK_MIRROR:-}" ] ||
        fetch_log "  no local mirror: FORK_MIRROR is not set"
    fetch_log "  accepted files:"
    for _f; do
        fetch_form "$_f"
        fetch_log "    $form_name  sha256 $form_sum"
    done
    fetch_log "  get one of them and pass it with $_hint, or set FORK_MIRROR=DIR to a folder holding it"
    return 1
}

fetch_ffmpeg() {
    fetch_pinned FFmpeg "$FFMPEG_VERSION" "${1:-}" \
        "./configure --tarball=PATH (or FFMPEG_TARBALL=PATH)" \
        "ffmpeg-$FFMPEG_VERSION.tar.xz $FFMPEG_SHA256 $FFMPEG_URLS"
}

fetch_nvcodec() {
    fetch_pinned nv-codec-headers "$NVCODEC_VERSION" "${1:-}" \
        "scripts/install-deps.sh --nvcodec-source=PATH (or NVCODEC_SOURCE=PATH)" \
        "nv-codec-headers-$NVCODEC_VERSION.tar.gz $NVCODEC_TARBALL_SHA256 $NVCODEC_TARBALL_URLS" \
        "$NVCODEC_DEB_FILE $NVCODEC_DEB_SHA256 $NVCODEC_DEB_URLS"
}
