#!/usr/bin/env python3
"""Malformed model files for dnn_processing: a seeded, deterministic corpus of
mutants of valid TorchScript files and .pt2 packages.

    mutate_models.py BASEDIR OUTDIR [--seed N] [--list]
    mutate_models.py BASEDIR OUTDIR --known [--list]
    mutate_models.py --without-library MODEL PACKAGE OUT
    mutate_models.py --storage-past-record CONV OUT

BASEDIR holds the models of gen_torch_models.py and make-torch-packages.sh:
swap_invert.pt, conv.pt and tensor_constant.pt (TorchScript), swap_invert.pt2,
swap_invert_64x48.pt2 and conv.pt2 (CPU packages).  OUTDIR gets one file per
mutant, NNN-KIND.pt or NNN-KIND.pt2 (a package is loaded as one only when its
name ends in .pt2), and manifest.tsv: file, base model, kind, what was done.
--list prints the manifest too.  The mutants depend only on the seed and the
base files: the same bases give the same bytes.

Kinds (each on every base it applies to):
  truncate         cut at offsets inside local headers, member data, the
                   central directory, the zip64 records and the end record
  flip-header      one bit flipped in a local or central header or an end record
  flip-data        one bit flipped in a member: pickles, TorchScript code
                   (deflated), weights, version records, the package's shared
                   library (its ELF header, what follows, anywhere), its
                   metadata JSON
  remove-member    one member left out (each role: data.pkl, code, .so, ...)
  rename-member    one member renamed
  add-member       a member added: a second .so, a .blob of weights, a name
                   that climbs out of the extraction folder, compile flags that
                   make LibTorch compile (run a command) instead of loading
  metadata         a .pt2's metadata JSON edited, CRC kept right: keys
                   missing, wrong values, wrong types, not JSON, deep nesting
  pickle           TorchScript data.pkl (or constants.pkl) replaced, CRC kept
                   right: another object, a truncated pickle, a huge string
                   length, deep nesting, a storage that is not there, a tensor
                   larger than its storage
  code             TorchScript code replaced, CRC kept right: syntax errors,
                   deep nesting, a wrong signature
  storage-dtype    conv.pt's storage tuples with their dtype a number (a
                   ScalarType, as LibTorch reads a GLOBAL torch.FloatStorage):
                   right ones, none, too large for the record, tuples of other
                   lengths, a tensor built through a global called by number
  large-pickle     conv.pt's data.pkl and code over 64 MiB: an unused
                   attribute of 65 MiB, alone and with a storage past its
                   record; a 65 MiB comment before deep nesting
  constants        tensor_constant.pt's tensor constant (constants.pkl,
                   constants/0): its dtype a number, offsets, strides and
                   sizes past its storage, a storage past or without its record
  huge-size        sizes, counts and offsets in the headers made huge
  zip-bomb         members that inflate to gigabytes, 65535 members, many
                   entries sharing one member's data
  not-a-zip        empty, text, random bytes, an ELF file, gzip, a prefix or
                   suffix of garbage, an archive of no member

--storage-past-record writes to OUT conv.pt (MODEL) whose first storage
claims 2^31-1 floats from a record of 216 (a pickle mutant, for the FATE
tests of model_sha256 on a pipe).

--without-library writes to OUT the .pt2 PACKAGE without the compiled
library of its program MODEL ("start": a recurrent package's first), with
compile flags in its place (as the add-member mutant of "model").

--known writes instead the reproducers of what LibTorch itself does wrong
and no check before loading catches (see known()); they are not part of the
corpus that make check runs.  run_mutants.py imports corpus() and known().
"""
import argparse
import gzip
import json
import os
import random
import struct
import sys
import zlib

LOCAL = struct.Struct("<IHHHHHIIIHH")          # 30 bytes, PK\3\4
CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")  # 46 bytes, PK\1\2
EOCD = struct.Struct("<IHHHHIIH")              # 22 bytes, PK\5\6
Z64EOCD = struct.Struct("<IQHHIIQQQQ")         # 56 bytes, PK\6\6
Z64LOC = struct.Struct("<IIQI")                # 20 bytes, PK\6\7
SIG_LOCAL, SIG_CENTRAL, SIG_EOCD = 0x04034B50, 0x02014B50, 0x06054B50
SIG_Z64EOCD, SIG_Z64LOC = 0x06064B50, 0x07064B50
GIB = 1 << 30
MIB = 1 << 20

TORCHSCRIPT_BASES = ["swap_invert.pt", "conv.pt"]
# a traced model with a tensor constant (constants.pkl, constants/0): only
# the constants kind is made of it
CONSTANT_BASES = ["tensor_constant.pt"]
PACKAGE_BASES = ["swap_invert.pt2", "swap_invert_64x48.pt2", "conv.pt2"]


class Member:
    """One central directory entry and where its data lies."""

    def __init__(self, buf, cd_off):
        (_, self.made, self.need, self.flags, self.method, self.time, self.date, self.crc,
         self.csize, self.usize, nlen, xlen, clen, _, _, _, self.lho) = CENTRAL.unpack_from(buf, cd_off)
        self.cd_off = cd_off
        self.cd_len = CENTRAL.size + nlen + xlen + clen
        self.name = bytes(buf[cd_off + CENTRAL.size:cd_off + CENTRAL.size + nlen])
        lnlen, lxlen = struct.unpack_from("<HH", buf, self.lho + 26)
        self.local_len = LOCAL.size + lnlen + lxlen
        self.data_off = self.lho + self.local_len
        self.data = bytes(buf[self.data_off:self.data_off + self.csize])

    def content(self):
        """The uncompressed bytes."""
        return zlib.decompress(self.data, -15) if self.method == 8 else self.data


class Zip:
    """A parsed archive as torch writes it (end record, zip64 records)."""

    def __init__(self, buf):
        self.buf = bytes(buf)
        self.eocd = self.buf.rfind(b"PK\x05\x06")
        _, _, _, _, count, self.cd_size, self.cd_off, _ = EOCD.unpack_from(self.buf, self.eocd)
        self.z64loc = self.buf.rfind(b"PK\x06\x07", 0, self.eocd)
        self.z64eocd = self.buf.rfind(b"PK\x06\x06", 0, self.eocd)
        self.members = []
        off = self.cd_off
        for _ in range(count):
            m = Member(self.buf, off)
            self.members.append(m)
            off += m.cd_len
        self.prefix = self.members[0].name.split(b"/")[0] + b"/"

    def find(self, role):
        """The first member of a role (ROLES), or None."""
        test = ROLES[role]
        return next((m for m in self.members if test(m.name.decode())), None)


ROLES = {
    # TorchScript
    "data.pkl": lambda n: n.endswith("/data.pkl"),
    "constants.pkl": lambda n: n.endswith("/constants.pkl"),
    "version": lambda n: n.endswith("/version") and not n.endswith(".data/version"),
    "code": lambda n: n.endswith(".py"),
    "debug_pkl": lambda n: n.endswith(".debug_pkl"),
    "tensor": lambda n: "/data/" in n and n.rsplit("/", 1)[1].isdigit(),
    # .pt2 packages
    "so": lambda n: n.endswith(".so"),
    "wrapper.cpp": lambda n: n.endswith("wrapper.cpp"),
    "kernel.cpp": lambda n: n.endswith("kernel.cpp"),
    "wrapper_metadata": lambda n: n.endswith("wrapper_metadata.json"),
    "kernel_metadata": lambda n: n.endswith("kernel_metadata.json"),
    "archive_format": lambda n: n.endswith("/archive_format"),
    "archive_version": lambda n: n.endswith("/archive_version"),
    "data_version": lambda n: n.endswith(".data/version"),
    # both
    "byteorder": lambda n: n.endswith("/byteorder"),
    "serialization_id": lambda n: n.endswith("/serialization_id"),
}
TORCHSCRIPT_ROLES = ["data.pkl", "constants.pkl", "version", "code", "debug_pkl", "byteorder",
                     "serialization_id", "tensor"]
PACKAGE_ROLES = ["so", "wrapper.cpp", "kernel.cpp", "wrapper_metadata", "kernel_metadata",
                 "archive_format", "archive_version", "data_version", "byteorder",
                 "serialization_id"]


# ---------------------------------------------------------------------------
# Writing archives

class Entry:
    """A member to write: name, stored bytes, and what the headers declare."""

    def __init__(self, name, content=None, method=0, data=None, crc=None, usize=None,
                 csize=None, lho=None, local_name=None, extra=b""):
        self.name = name if isinstance(name, bytes) else name.encode()
        if data is None:
            data = content if method == 0 else deflate(content)
        self.data = data
        self.method = method
        self.crc = zlib.crc32(content) if crc is None else crc
        self.usize = len(content) if usize is None else usize
        self.csize = len(data) if csize is None else csize
        self.lho = lho                # central's local header offset, when forced
        self.local_name = local_name  # the local header's name, when not name
        self.extra = extra            # central extra field


def deflate(content):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(content) + c.flush()


def entries_of(z):
    """The members of a parsed archive, as Entry, unchanged."""
    return [Entry(m.name, data=m.data, method=m.method, crc=m.crc, usize=m.usize,
                  content=b"") for m in z.members]


def write_zip(entries, count=None, cd_size=None, cd_off=None, comment=b""):
    """An archive of entries, no data descriptors, with zip64 records as torch
    writes them.  An entry with lho set has no local file of its own: its
    central entry points there.  count, cd_size, cd_off override the records."""
    out = bytearray()
    offsets = []
    for e in entries:
        if e.lho is not None:
            offsets.append(e.lho)
            continue
        offsets.append(len(out))
        lname = e.name if e.local_name is None else e.local_name
        out += LOCAL.pack(SIG_LOCAL, 20, 0x800, e.method, 0, 0x21, e.crc,
                          min(e.csize, 0xFFFFFFFF), min(e.usize, 0xFFFFFFFF), len(lname), 0)
        out += lname + e.data
    start = len(out)
    for e, off in zip(entries, offsets):
        out += CENTRAL.pack(SIG_CENTRAL, 20, 20, 0x800, e.method, 0, 0x21, e.crc,
                            min(e.csize, 0xFFFFFFFF), min(e.usize, 0xFFFFFFFF), len(e.name),
                            len(e.extra), 0, 0, 0, 0, min(off, 0xFFFFFFFF))
        out += e.name + e.extra
    size = len(out) - start
    n = len(entries) if count is None else count
    size = size if cd_size is None else cd_size
    off = start if cd_off is None else cd_off
    z64 = len(out)
    out += Z64EOCD.pack(SIG_Z64EOCD, 44, 20, 20, 0, 0, n, n, size, off)
    out += Z64LOC.pack(SIG_Z64LOC, 0, z64, 1)
    out += EOCD.pack(SIG_EOCD, 0, 0, min(n, 0xFFFF), min(n, 0xFFFF), min(size, 0xFFFFFFFF),
                     min(off, 0xFFFFFFFF), len(comment)) + comment
    return bytes(out)


def replaced(z, role, content, method=None, **kw):
    """The archive with one member's content replaced (CRC and sizes right)."""
    target = z.find(role)
    entries = []
    for m in z.members:
        if m is target:
            entries.append(Entry(m.name, content, m.method if method is None else method, **kw))
        else:
            entries.append(Entry(m.name, data=m.data, method=m.method, crc=m.crc,
                                 usize=m.usize, content=b""))
    return write_zip(entries)


# ---------------------------------------------------------------------------
# Zip bombs: deflate streams of many zeros, built without deflating them

def zeros_deflated(size):
    """A raw deflate stream of size zero bytes, about size / 1000 long: the
    same block repeated (a full flush resets the compressor, so identical
    input gives identical blocks)."""
    chunk = MIB
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = c.compress(bytes(chunk)) + c.flush(zlib.Z_FULL_FLUSH)
    whole, rest = divmod(size, chunk)
    tail = c.compress(bytes(rest)) + c.flush(zlib.Z_FINISH)
    return block * whole + tail


def _gf2_times(mat, vec):
    s = 0
    i = 0
    while vec:
        if vec & 1:
            s ^= mat[i]
        vec >>= 1
        i += 1
    return s


def crc32_zeros(size, crc=0):
    """zlib.crc32(bytes(size), crc), by zlib's crc32_combine squaring."""
    odd = [0xEDB88320] + [1 << i for i in range(31)]
    even = [_gf2_times(odd, odd[i]) for i in range(32)]
    odd = [_gf2_times(even, even[i]) for i in range(32)]
    # crc32(zeros) of the pre-conditioned register: apply len2 zero bytes
    crc ^= 0xFFFFFFFF
    n = size
    while n:
        even = [_gf2_times(odd, odd[i]) for i in range(32)]
        if n & 1:
            crc = _gf2_times(even, crc)
        n >>= 1
        if not n:
            break
        odd = [_gf2_times(even, even[i]) for i in range(32)]
        if n & 1:
            crc = _gf2_times(odd, crc)
        n >>= 1
    return crc ^ 0xFFFFFFFF


# ---------------------------------------------------------------------------
# The mutations.  Each function returns a list of (kind, detail, bytes).

def flip(buf, pos, bit):
    b = bytearray(buf)
    b[pos] ^= 1 << bit
    return bytes(b)


def truncations(z, rng, n_local, n_data, n_cd):
    out = []
    for _ in range(n_local):
        m = rng.choice(z.members)
        cut = m.lho + rng.randrange(1, m.local_len)
        out.append(("truncate", "in the local header of %s at %d" % (role_of(m), cut), z.buf[:cut]))
    for _ in range(n_data):
        m = rng.choice([m for m in z.members if m.csize > 1])
        cut = m.data_off + rng.randrange(1, m.csize)
        out.append(("truncate", "in the data of %s at %d" % (role_of(m), cut), z.buf[:cut]))
    for _ in range(n_cd):
        cut = z.cd_off + rng.randrange(0, z.cd_size)
        out.append(("truncate", "in the central directory at %d" % cut, z.buf[:cut]))
    for where, start, end in (("zip64 end record", z.z64eocd, z.z64loc),
                              ("zip64 locator", z.z64loc, z.eocd),
                              ("end record", z.eocd + 1, len(z.buf))):
        cut = rng.randrange(start, end)
        out.append(("truncate", "in the %s at %d" % (where, cut), z.buf[:cut]))
    return out


def header_flips(z, rng, n_local, n_central):
    out = []
    for header, count in (("local", n_local), ("central", n_central)):
        for _ in range(count):
            m = rng.choice(z.members)
            start, length = (m.lho, m.local_len) if header == "local" else (m.cd_off, m.cd_len)
            pos = start + rng.randrange(0, length)
            bit = rng.randrange(8)
            out.append(("flip-header", "%s header of %s, byte %d bit %d" % (header, role_of(m), pos, bit),
                        flip(z.buf, pos, bit)))
    for where, start, end in (("zip64 end record", z.z64eocd, z.z64loc),
                              ("end record", z.eocd, len(z.buf))):
        pos = rng.randrange(start, end)
        bit = rng.randrange(8)
        out.append(("flip-header", "%s, byte %d bit %d" % (where, pos, bit), flip(z.buf, pos, bit)))
    return out


def data_flips(z, rng, plan):
    """plan: [(role, count, (start, end) within the member or None)]."""
    out = []
    for role, count, span in plan:
        m = z.find(role)
        if m is None:
            continue
        for _ in range(count):
            start, end = span or (0, m.csize)
            pos = m.data_off + rng.randrange(start, min(end, m.csize))
            bit = rng.randrange(8)
            out.append(("flip-data", "%s, byte %d bit %d" % (role, pos - m.data_off, bit),
                        flip(z.buf, pos, bit)))
    return out


def role_of(m):
    name = m.name.decode(errors="replace")
    for role, test in ROLES.items():
        if test(name):
            return role
    return name.rsplit("/", 1)[-1]


def removals(z, roles):
    out = []
    for role in roles:
        m = z.find(role)
        if m is None:
            continue
        entries = [e for e, k in zip(entries_of(z), z.members) if k is not m]
        out.append(("remove-member", role, write_zip(entries)))
    return out


def renames(z, roles):
    out = []
    for i, role in enumerate(roles):
        m = z.find(role)
        if m is None:
            continue
        entries = entries_of(z)
        e = entries[z.members.index(m)]
        how = i % 3
        if how == 0:    # the last character
            e.name = e.name[:-1] + (b"x" if e.name[-1:] != b"x" else b"y")
            what = "last character"
        elif how == 1:  # out of the archive's folder
            e.name = b"other/" + e.name.split(b"/", 1)[1]
            what = "another top folder"
        else:           # the local header says another name than the central one
            e.local_name = e.name[:-2] + b"zz"
            what = "local name differs"
        out.append(("rename-member", "%s: %s" % (role, what), write_zip(entries)))
    return out


def huge_sizes(z, torchscript):
    """Sizes, counts and offsets made huge in place."""
    out = []
    m = z.find("data.pkl" if torchscript else "so")
    small = z.find("version" if torchscript else "archive_format")

    def patch(buf, off, fmt, value):
        b = bytearray(buf)
        struct.pack_into(fmt, b, off, value)
        return bytes(b)

    for m_, what in ((m, role_of(m)), (small, role_of(small))):
        out.append(("huge-size", "central usize 0xffffffff of " + what,
                    patch(z.buf, m_.cd_off + 24, "<I", 0xFFFFFFFF)))
        out.append(("huge-size", "central csize 0xfffffff0 of " + what,
                    patch(z.buf, m_.cd_off + 20, "<I", 0xFFFFFFF0)))
    out.append(("huge-size", "central name length 0xffff",
                patch(z.buf, m.cd_off + 28, "<H", 0xFFFF)))
    out.append(("huge-size", "central extra length 0xffff",
                patch(z.buf, small.cd_off + 30, "<H", 0xFFFF)))
    out.append(("huge-size", "local header offset 0xfffffff0",
                patch(z.buf, m.cd_off + 42, "<I", 0xFFFFFFF0)))
    out.append(("huge-size", "local name length 0xffff",
                patch(z.buf, m.lho + 26, "<H", 0xFFFF)))
    out.append(("huge-size", "local extra length 0xffff",
                patch(z.buf, m.lho + 28, "<H", 0xFFFF)))
    # torch writes data descriptors (flag 8): local sizes 0, unread; without
    # the flag they are the sizes
    local = patch(z.buf, m.lho + 6, "<H", 0x800)
    out.append(("huge-size", "local sizes 0xffffffff, no data descriptor",
                patch(patch(local, m.lho + 18, "<I", 0xFFFFFFFF), m.lho + 22, "<I", 0xFFFFFFFF)))
    out.append(("huge-size", "end record: 65535 entries",
                patch(patch(z.buf, z.eocd + 8, "<H", 0xFFFF), z.eocd + 10, "<H", 0xFFFF)))
    out.append(("huge-size", "zip64 end record: 2^62 entries",
                patch(patch(z.buf, z.z64eocd + 24, "<Q", 1 << 62), z.z64eocd + 32, "<Q", 1 << 62)))
    out.append(("huge-size", "zip64 end record: central directory size 2^62",
                patch(z.buf, z.z64eocd + 40, "<Q", 1 << 62)))
    if torchscript:
        # a zip64 extra field declaring 2^62 bytes, the 32-bit fields saying "see zip64"
        entries = entries_of(z)
        e = entries[z.members.index(m)]
        e.usize = e.csize = 0xFFFFFFFF
        e.extra = struct.pack("<HHQQ", 1, 16, 1 << 62, 1 << 62)
        out.append(("huge-size", "zip64 extra: data.pkl of 2^62 bytes", write_zip(entries)))
        e.extra = struct.pack("<HHQQ", 1, 16, 1 << 40, len(e.data))
        out.append(("huge-size", "zip64 extra: data.pkl declares 1 TiB uncompressed",
                    write_zip(entries)))
    return out


def bombs(z, torchscript):
    out = []
    if torchscript:
        # what the TorchScript loader reads into memory: data.pkl
        m = z.find("data.pkl")
        entries = entries_of(z)
        e = entries[z.members.index(m)]
        size = 2 * GIB
        e.method, e.data, e.crc, e.usize, e.csize = 8, zeros_deflated(size), crc32_zeros(size), size, None
        e.csize = len(e.data)
        out.append(("zip-bomb", "data.pkl inflates to 2 GiB of zeros", write_zip(entries)))
        # the same declared, 1 KiB there
        e.data = zeros_deflated(1024)
        e.csize = len(e.data)
        e.usize = 0xFFFFFFFE
        out.append(("zip-bomb", "data.pkl declares 4 GiB, inflates to 1 KiB", write_zip(entries)))
    else:
        # what the package loader extracts to /tmp: the .so, the metadata it parses
        for role, size in (("so", 2 * GIB), ("wrapper_metadata", GIB)):
            m = z.find(role)
            entries = entries_of(z)
            e = entries[z.members.index(m)]
            e.method, e.data, e.crc, e.usize = 8, zeros_deflated(size), crc32_zeros(size), size
            e.csize = len(e.data)
            out.append(("zip-bomb", "%s inflates to %d MiB of zeros" % (role, size // MIB),
                        write_zip(entries)))
    # 65535 members (as many as an archive without zip64 counts), in the
    # folder the package loader extracts
    entries = entries_of(z)
    folder = z.find("wrapper_metadata").name.rsplit(b"/", 1)[0] if not torchscript \
        else z.prefix + b"code"
    many = entries + [Entry(folder + b"/m%05d" % i, b"x") for i in range(65535 - len(entries))]
    out.append(("zip-bomb", "65535 members", write_zip(many)))
    # many central entries sharing the data of one member of 64 MiB of zeros
    # ("overlapping" bomb): 64 entries, 4 GiB declared in all
    size = 64 * MIB
    kernel = Entry(folder + b"/kernel", data=zeros_deflated(size), method=8,
                   crc=crc32_zeros(size), usize=size, content=b"")
    # where write_zip puts the kernel's local header: after the others
    k_off = Zip(write_zip(entries_of(z) + [kernel])).members[-1].lho
    shared = entries_of(z) + [kernel] + [
        Entry(folder + b"/over%02d" % i, data=b"", method=8, crc=kernel.crc, usize=size,
              csize=kernel.csize, lho=k_off, content=b"") for i in range(63)]
    out.append(("zip-bomb", "64 entries share one 64 MiB member", write_zip(shared)))
    return out


def metadata_edits(z):
    """Edits of the metadata JSON that the fork's checks and AOTInductor read."""
    out = []
    m = z.find("wrapper_metadata")
    meta = json.loads(m.content())

    def edited(change, role="wrapper_metadata", raw=None):
        new = dict(meta)
        if change:
            change(new)
        text = raw if raw is not None else json.dumps(new).encode()
        return replaced(z, role, text)

    keys = ["ffmpeg_dnn_version", "ffmpeg_dnn_torch", "ffmpeg_dnn_dtype",
            "ffmpeg_dnn_memory_format", "ffmpeg_dnn_channels", "ffmpeg_dnn_height",
            "ffmpeg_dnn_width", "AOTI_DEVICE_KEY"]
    for key in keys:
        out.append(("metadata", "missing " + key, edited(lambda d, k=key: d.pop(k, None))))
    values = [
        ("ffmpeg_dnn_version", "2"), ("ffmpeg_dnn_version", ""),
        ("ffmpeg_dnn_torch", "2.11"), ("ffmpeg_dnn_torch", "2.11.0" + "9" * 4000),
        ("ffmpeg_dnn_dtype", "fp64"), ("ffmpeg_dnn_dtype", "FP32"),
        ("ffmpeg_dnn_memory_format", "channels_first"),
        ("ffmpeg_dnn_channels", "0"), ("ffmpeg_dnn_channels", "-3"),
        ("ffmpeg_dnn_channels", "99999999999999999999999"), ("ffmpeg_dnn_channels", "1"),
        ("ffmpeg_dnn_height", "0-100"), ("ffmpeg_dnn_height", "100-16"),
        ("ffmpeg_dnn_height", "-5"), ("ffmpeg_dnn_width", "16-"), ("ffmpeg_dnn_width", "x"),
        ("ffmpeg_dnn_width", "1-99999999999999999999999"),
        ("ffmpeg_dnn_cpu_features", "avx512f avx512_fp16 amx_tile"),
        ("AOTI_DEVICE_KEY", "cuda"), ("AOTI_DEVICE_KEY", "tpu"), ("AOTI_DEVICE_KEY", ""),
        ("AOTI_CPU_ISA", "AMX_TILE"),
    ]
    for key, value in values:
        out.append(("metadata", "%s = %r" % (key, value[:40]),
                    edited(lambda d, k=key, v=value: d.__setitem__(k, v))))
    for key, value in (("ffmpeg_dnn_version", 1), ("ffmpeg_dnn_channels", 3),
                       ("ffmpeg_dnn_height", None), ("ffmpeg_dnn_dtype", ["fp32"]),
                       ("AOTI_DEVICE_KEY", {"cpu": True}), ("ffmpeg_dnn_width", True)):
        out.append(("metadata", "%s of type %s" % (key, type(value).__name__),
                    edited(lambda d, k=key, v=value: d.__setitem__(k, v))))
    # what AOTInductor's constructor reads: the metadata of the last .cpp
    out.append(("metadata", "kernel metadata: AOTI_DEVICE_KEY = 'cuda'",
                edited(None, "kernel_metadata",
                       json.dumps(dict(meta, AOTI_DEVICE_KEY="cuda")).encode())))
    out.append(("metadata", "kernel metadata: not JSON",
                edited(None, "kernel_metadata", b"{\"AOTI_DEVICE_KEY\": ")))
    for what, raw in (
            ("not JSON", b"ffmpeg_dnn_version=1"),
            ("truncated JSON", json.dumps(meta).encode()[:-20]),
            ("empty", b""),
            ("an array", b"[\"ffmpeg_dnn_version\", \"1\"]"),
            ("a string", b"\"ffmpeg_dnn_version\""),
            ("invalid UTF-8", json.dumps(meta).encode().replace(b"cpu", b"c\xffu")),
            ("arrays nested 100000 deep", b"[" * 100000 + b"]" * 100000),
            ("objects nested 100000 deep", b"{\"a\":" * 100000 + b"1" + b"}" * 100000),
            ("a value of 32 MiB", json.dumps(dict(meta, ffmpeg_dnn_torch="9" * (32 * MIB))).encode()),
            ("duplicate keys", json.dumps(meta).encode()[:-1] + b", \"ffmpeg_dnn_dtype\": \"fp16\"}")):
        out.append(("metadata", "JSON " + what, edited(None, raw=raw)))
    return out


def pickle_edits(z, torchscript_base):
    """TorchScript data.pkl replaced by other pickles (the archive right)."""
    out = []
    m = z.find("data.pkl")
    pkl = m.content()
    def put(what, content, role="data.pkl"):
        out.append(("pickle", what, replaced(z, role, content)))

    put("an int, not a module", b"\x80\x02K*.")
    put("empty", b"")
    put("cut in half", pkl[:len(pkl) // 2])
    put("no STOP", pkl[:-1])
    put("BINUNICODE of 4 GiB", b"\x80\x02X\xfe\xff\xff\xffabc.")
    put("100000 nested lists", b"\x80\x02" + b"]" * 100000 + b"a" * 99999 + b".")
    put("100000 MARKs", b"\x80\x02" + b"(" * 100000 + b"t.")
    put("a memo get of entry 1000000", b"\x80\x02j\x40\x42\x0f\x00.")
    put("constants.pkl: 100000 nested tuples",
        b"\x80\x02" + b")" + b"\x85" * 100000 + b".", role="constants.pkl")
    if "conv" in torchscript_base:
        # conv.pt's first weight: storage "0" of 216 floats, 8x3x3x3
        put("a storage that is not there", pkl.replace(b"X\x01\x00\x00\x000q", b"X\x01\x00\x00\x009q", 1))
        put("a storage of 2^31-1 floats in a record of 216",
            pkl.replace(b"cpuq\nK\xd8t", b"cpuq\nJ\xff\xff\xff\x7ft", 1))
        put("a weight of 1024x3x3x3 on a storage of 8x3x3x3",
            pkl.replace(b"(K\x08K\x03K\x03K\x03t", b"(M\x00\x04K\x03K\x03K\x03t", 1))
        put("a weight of (2^31-1)x3x3x3 on a storage of 8x3x3x3",
            pkl.replace(b"(K\x08K\x03K\x03K\x03t", b"(J\xff\xff\xff\x7fK\x03K\x03K\x03t", 1))
        put("a weight of 1024x3x3x3 on a storage of 2^31-1 floats in a record of 216",
            pkl.replace(b"cpuq\nK\xd8t", b"cpuq\nJ\xff\xff\xff\x7ft", 1)
               .replace(b"(K\x08K\x03K\x03K\x03t", b"(M\x00\x04K\x03K\x03K\x03t", 1))
        # the unpickler takes any offset and strides: the backend checks that
        # every tensor of the module lies inside its storage
        put("a weight whose storage offset is past its storage",
            pkl.replace(b"tQq\x0bK\x00(", b"tQq\x0bM\x00\x10(", 1))
        put("a weight whose strides reach past its storage",
            pkl.replace(b"t(K\x1bK\tK\x03K\x01t", b"t(J\x00\x00\x01\x00K\tK\x03K\x01t", 1))
    else:
        # a tensor as the whole model: _rebuild_tensor_v2(storage, offset,
        # size, stride, requires_grad, hooks)
        def tensor(key, size):
            return (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n("
                    b"(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x00" + key +
                    b"X\x03\x00\x00\x00cpuK\x01tQK\x00(" + size + b"t(K\x01t\x89"
                    b"ccollections\nOrderedDict\n)RtR.")
        put("a storage that is not there", tensor(b"9", b"K\x01"))
        put("a tensor of 2^40 elements on a storage that is not there",
            tensor(b"0", b"\x8a\x06\x00\x00\x00\x00\x00\x01"))
        put("a module class that is not in the code", pkl.replace(b"__torch__", b"__tarch__"))
        put("a module of another class in the code", pkl.replace(b"SwapInvert", b"SwapInvers"))
        put("the module's attributes as a list", pkl.replace(b"}(", b"](", 1))
    return out


# conv.pt's data.pkl: its first storage tuple's dtype (GLOBAL
# torch.FloatStorage, memo 8) and element count (216, memo 10)
FLOAT_STORAGE = b"ctorch\nFloatStorage\nq\x08"
COUNT_216 = b"cpuq\nK\xd8t"
COUNT_HUGE = b"cpuq\nJ\xff\xff\xff\x7ft"


def storage_dtypes(z):
    """conv.pt's storage tuples with their dtype as LibTorch reads it: a
    GLOBAL torch.FloatStorage becomes a ScalarType number, and a number is
    taken as one (6 is float), so it may be written as one."""
    out = []
    pkl = z.find("data.pkl").content()

    def put(what, dtype, count=COUNT_216, extra=None):
        content = pkl.replace(FLOAT_STORAGE, dtype + b"q\x08", 1).replace(COUNT_216, count, 1)
        if extra:
            content = content.replace(*extra, 1)
        out.append(("storage-dtype", what, replaced(z, "data.pkl", content)))

    put("dtype 6 (float) as BININT1", b"K\x06")
    put("dtype 6 (float) as LONG1", b"\x8a\x08\x06" + bytes(7))
    put("dtype 6, a storage of 2^31-1 floats in a record of 216", b"K\x06", COUNT_HUGE)
    put("dtype 6 as LONG1, a storage of 2^31-1 floats in a record of 216",
        b"\x8a\x08\x06" + bytes(7), COUNT_HUGE)
    put("dtype 7 (double): 216 doubles in a record of 216 floats", b"K\x07")
    put("dtype 200, which is none", b"K\xc8")
    put("dtype -1", b"J\xff\xff\xff\xff")
    put("dtype 2^40", b"\x8a\x08" + bytes(5) + b"\x01" + bytes(2))
    put("dtype a string", b"X\x05\x00\x00\x00Float")
    put("dtype None, a storage of 2^31-1 floats", b"N", COUNT_HUGE)
    put("a storage tuple of 6 items", FLOAT_STORAGE[:-2], b"cpuq\nK\xd8K\x00t")
    put("a storage tuple of 4 items, its count missing", FLOAT_STORAGE[:-2], b"cpuq\nt")
    put("the bias made by a global called by its number, not by its memo",
        FLOAT_STORAGE[:-2], COUNT_216, (b"h\x06((h\x07", b"K\x02((h\x07"))
    put("the bias's tensor of 2^20 elements, called by number",
        FLOAT_STORAGE[:-2], COUNT_216,
        (b"h\x06((h\x07h\x08X\x01\x00\x00\x001q\x0fh\nK\x08tQq\x10K\x00(K\x08t",
         b"K\x02((h\x07h\x08X\x01\x00\x00\x001q\x0fh\nK\x08tQq\x10K\x00(J\x00\x00\x10\x00t"))
    return out


def large_pickles(z):
    """Pickles and code over 64 MiB, once not read at all: an attribute of
    65 MiB that nothing uses (the module's dict has a key more), alone and
    with a storage larger than its record; code of a 65 MiB comment."""
    out = []
    pkl = z.find("data.pkl").content()
    pad = b"X\x03\x00\x00\x00padX" + struct.pack("<I", 65 * MIB) + b"a" * (65 * MIB)
    big = pkl.replace(b"}(", b"}(" + pad, 1)
    out.append(("large-pickle", "an unused attribute of 65 MiB", replaced(z, "data.pkl", big)))
    out.append(("large-pickle", "an unused attribute of 65 MiB, a storage of 2^31-1 floats in "
                "a record of 216", replaced(z, "data.pkl", big.replace(COUNT_216, COUNT_HUGE, 1))))
    src = z.find("code").content().decode()
    comment = "#" + "x" * (65 * MIB) + "\n"
    out.append(("large-pickle", "code of a 65 MiB comment, then parentheses nested 100000 deep",
                replaced(z, "code", (comment + src.replace(
                    "return", "_ = " + "(" * 100000 + "1" + ")" * 100000 + "\n    return", 1))
                    .encode(), method=0)))
    return out


def constant_edits(z):
    """The tensor constant of tensor_constant.pt (3 floats, constants/0):
    its storage and the tensor on it, as the file says them."""
    out = []
    pkl = z.find("constants.pkl").content()
    tensor = b"tQq\x05K\x00(K\x03t(K\x01t"

    def put(what, old, new, role="constants.pkl"):
        if old not in pkl:
            sys.exit("mutate_models.py: %s: not in constants.pkl" % what)
        out.append(("constants", what, replaced(z, role, pkl.replace(old, new, 1))))

    put("the dtype as the number 6", b"ctorch\nFloatStorage\nq\x02", b"K\x06q\x02")
    put("a storage offset of 2^28", tensor, b"tQq\x05J\x00\x00\x00\x10(K\x03t(K\x01t")
    put("a storage offset of 3, past the 3 elements", tensor, b"tQq\x05K\x03(K\x03t(K\x01t")
    put("a negative storage offset", tensor, b"tQq\x05J\xff\xff\xff\xff(K\x03t(K\x01t")
    put("a stride of 2^24", tensor, b"tQq\x05K\x00(K\x03t(J\x00\x00\x00\x01t")
    put("1024 elements on a storage of 3", tensor, b"tQq\x05K\x00(M\x00\x04t(K\x01t")
    put("sizes and strides of different lengths", tensor, b"tQq\x05K\x00(K\x03t(K\x01K\x01t")
    put("a storage of 2^31-1 floats in a record of 12 bytes", b"cpuq\x04K\x03t",
        b"cpuq\x04J\xff\xff\xff\x7ft")
    put("a storage that is not there", b"X\x01\x00\x00\x000q\x03", b"X\x01\x00\x00\x009q\x03")
    # its record under data/, where LibTorch does not look for it
    entries = [Entry(k.name.replace(b"/constants/", b"/data/"), data=k.data, method=k.method,
                     crc=k.crc, usize=k.usize, content=b"") for k in z.members]
    out.append(("constants", "its record under data/, not constants/", write_zip(entries)))
    return out


def code_edits(z):
    out = []
    m = z.find("code")
    src = m.content().decode()

    def put(what, text):
        out.append(("code", what, replaced(z, "code", text.encode())))

    put("a syntax error", src.replace("def forward", "def forward(((", 1))
    put("not UTF-8", src.replace("forward", "for\xff\xfeward", 1))
    put("parentheses nested 100000 deep",
        src.replace("return", "_ = " + "(" * 100000 + "1" + ")" * 100000 + "\n    return", 1))
    put("an integer of 100000 digits", src.replace("return", "_ = " + "9" * 100000 + "\n    return", 1))
    put("forward takes two inputs", src.replace("x: Tensor", "x: Tensor, y: Tensor", 1)
        .replace("input: Tensor", "input: Tensor, y: Tensor", 1))
    put("an unknown operator", src.replace("torch.", "torch.ops.nope.", 1))
    return out


def additions(z):
    """Members added to a package."""
    out = []
    so = z.find("so")
    folder = so.name.rsplit(b"/", 1)[0]
    entries = entries_of(z)

    def put(what, extra):
        out.append(("add-member", what, write_zip(entries + extra)))

    put("a second .so, not ELF", [Entry(folder + b"/zzz.so", b"not a shared library")])
    put("a .blob of weights that is garbage", [Entry(folder + b"/w.blob", b"\x01" * 4096)])
    put("a name that climbs out of the extraction folder",
        [Entry(folder + b"/../../../../../ffmpeg-dnn-mutant-escape.txt", b"escaped\n")])
    put("an absolute name", [Entry(b"/tmp/ffmpeg-dnn-mutant-absolute.txt", b"absolute\n")])
    out.append(("add-member", "no .so, compile flags whose compiler sleeps 60 s",
                without_library(z, folder)))
    return out


def without_library(z, folder):
    """The package without the compiled library (.so) of the model in
    folder (data/aotinductor/NAME), and with compile flags: AOTInductor
    would compile that model's .cpp with the "compiler" the package names
    (system()), a command of the file's choice."""
    flags = {"compiler": "sleep 60; false", "compile_only": True, "cflags": [], "definitions": [],
             "include_dirs": [], "ldflags": [], "libraries_dirs": [], "libraries": [],
             "passthrough_args": []}
    inside = [m.name.startswith(folder + b"/") for m in z.members]
    if not any(inside):
        sys.exit("mutate_models.py: the package has no %s" % folder.decode())
    kept = [e for e, m, i in zip(entries_of(z), z.members, inside)
            if not (i and m.name.endswith(b".so"))]
    for m, i in zip(z.members, inside):
        if i and m.name.endswith(b".cpp"):
            kept += [Entry(m.name[:-4] + b"_compile_flags.json", json.dumps(flags).encode()),
                     Entry(m.name[:-4] + b"_linker_flags.json", json.dumps(flags).encode())]
    return write_zip(kept)


def not_zips(rng, so_bytes, ts_bytes):
    out = []
    out.append(("not-a-zip", "empty", b""))
    out.append(("not-a-zip", "one byte", b"P"))
    out.append(("not-a-zip", "text", b"this is not a model\n" * 10))
    out.append(("not-a-zip", "random bytes", bytes(rng.randrange(256) for _ in range(4096))))
    out.append(("not-a-zip", "an ELF shared library (the package's)", so_bytes))
    out.append(("not-a-zip", "gzip of a TorchScript file", gzip.compress(ts_bytes, mtime=0)))
    out.append(("not-a-zip", "a TorchScript file after 4 KiB of garbage",
                bytes(rng.randrange(256) for _ in range(4096)) + ts_bytes))
    out.append(("not-a-zip", "a TorchScript file before 4 KiB of garbage",
                ts_bytes + bytes(rng.randrange(256) for _ in range(4096))))
    out.append(("not-a-zip", "an archive of no member", EOCD.pack(SIG_EOCD, 0, 0, 0, 0, 0, 0, 0)))
    out.append(("not-a-zip", "only local headers", b"PK\x03\x04" + bytes(26) + b"PK\x03\x04" * 100))
    return out


# ---------------------------------------------------------------------------

def corpus(basedir, seed):
    """[(base, ext, kind, detail, bytes)] in a fixed order."""
    items = []
    bases = {}
    for name in TORCHSCRIPT_BASES + CONSTANT_BASES + PACKAGE_BASES:
        with open(os.path.join(basedir, name), "rb") as f:
            bases[name] = Zip(f.read())

    for name in TORCHSCRIPT_BASES:
        z = bases[name]
        rng = random.Random("%d:%s" % (seed, name))
        muts = []
        muts += truncations(z, rng, 8, 8, 5)
        muts += header_flips(z, rng, 8, 7)
        plan = [("data.pkl", 6, None), ("constants.pkl", 2, None), ("code", 4, None),
                ("version", 1, None), ("debug_pkl", 2, None), ("byteorder", 1, None)]
        if z.find("tensor"):
            plan = [(r, c - (1 if r in ("data.pkl", "debug_pkl") else 0), s) for r, c, s in plan]
            plan.append(("tensor", 2, None))
        muts += data_flips(z, rng, plan)
        muts += removals(z, TORCHSCRIPT_ROLES)
        muts += renames(z, TORCHSCRIPT_ROLES)
        muts += huge_sizes(z, True)
        muts += pickle_edits(z, name)
        muts += code_edits(z)
        muts += bombs(z, True)
        if "conv" in name:
            muts += storage_dtypes(z)
            muts += large_pickles(z)
        items += [(name, "pt") + m for m in muts]
    for name in CONSTANT_BASES:
        items += [(name, "pt") + m for m in constant_edits(bases[name])]
    rng = random.Random("%d:not-a-zip" % seed)
    so = bases["swap_invert.pt2"].find("so").content()
    ts = bases["swap_invert.pt"].buf
    items += [("-", "pt") + m for m in not_zips(rng, so, ts)]

    for name in PACKAGE_BASES:
        z = bases[name]
        rng = random.Random("%d:%s" % (seed, name))
        so_len = z.find("so").csize
        muts = []
        muts += truncations(z, rng, 4, 6, 3)
        muts += header_flips(z, rng, 4, 4)
        muts += data_flips(z, rng, [
            ("so", 3, (0, 64)),          # the ELF header
            ("so", 3, (64, 4096)),       # program headers and what follows
            ("so", 2, (4096, so_len)),   # anywhere
            ("wrapper_metadata", 2, None), ("archive_format", 1, None),
            ("archive_version", 1, None), ("data_version", 1, None)])
        muts += removals(z, PACKAGE_ROLES)
        muts += renames(z, ["so", "wrapper_metadata", "kernel_metadata", "wrapper.cpp", "data_version"])
        muts += metadata_edits(z)
        muts += additions(z)
        muts += huge_sizes(z, False)
        muts += bombs(z, False)
        items += [(name, "pt2") + m for m in muts]
    rng = random.Random("%d:not-a-zip-pt2" % seed)
    items += [("-", "pt2") + m for m in not_zips(rng, so, ts)[:4]]
    items.append(("swap_invert.pt", "pt2", "not-a-zip", "a TorchScript file named .pt2", ts))
    return items


# What LibTorch does wrong with files that no check before loading catches:
# archives that are whole (sizes, names and CRC-32s right) whose content
# LibTorch mishandles.  Not in the corpus (they do not end cleanly); --known
# writes them, to try a newer LibTorch or a new check on them.
def known(basedir):
    with open(os.path.join(basedir, "swap_invert.pt"), "rb") as f:
        swap = Zip(f.read())
    with open(os.path.join(basedir, "swap_invert.pt2"), "rb") as f:
        package = Zip(f.read())
    items = []

    def put(base, ext, what, data):
        items.append((base, ext, "known", what, data))

    # TorchScript's compiler recurses on the nesting of expressions and
    # blocks: brackets are checked, these not.  Stored, not deflated (as
    # torch writes code): deflated, such repetitive code is refused as a zip
    # bomb (over 100x)
    src = swap.find("code").content().decode()
    for what, expr in (("100000 unary minuses", "-" * 100000 + "1"),
                       ("100000 additions", "+".join(["1"] * 100000)),
                       ("100000 nots", "not " * 100000 + "True")):
        put("swap_invert.pt", "pt", "code: " + what + ", stored",
            replaced(swap, "code", src.replace("return", "_ = " + expr + "\n    return", 1).encode(),
                     method=0))
    # a package's code is native code: changed, it does what it does (only
    # model_sha256 tells); its CRC-32 right, as a package changed on purpose
    # has.  Here its .text made int3 instructions (x86: SIGTRAP when run)
    so = package.find("so")
    lib = bytearray(so.content())
    shoff, = struct.unpack_from("<Q", lib, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", lib, 0x3A)
    strtab_off, = struct.unpack_from("<Q", lib, shoff + shstrndx * shentsize + 0x18)
    for i in range(shnum):
        sh = shoff + i * shentsize
        name_off, = struct.unpack_from("<I", lib, sh)
        if lib[strtab_off + name_off:strtab_off + name_off + 6] == b".text\0":
            off, size = struct.unpack_from("<QQ", lib, sh + 0x18)
            lib[off:off + size] = b"\xcc" * size
    put("swap_invert.pt2", "pt2", "its .so's code replaced (int3), CRC-32 right",
        replaced(package, "so", bytes(lib)))
    # the metadata is the package's word: a contiguous package that says
    # channels_last gets its input in that layout
    meta = json.loads(package.find("wrapper_metadata").content())
    meta["ffmpeg_dnn_memory_format"] = "channels_last"
    put("swap_invert.pt2", "pt2", "metadata: channels_last on a contiguous package",
        replaced(package, "wrapper_metadata", json.dumps(meta).encode()))
    return items


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--storage-past-record":
        with open(sys.argv[2], "rb") as f:
            z = Zip(f.read())
        pkl = z.find("data.pkl").content()
        if COUNT_216 not in pkl:
            sys.exit("mutate_models.py: %s is not conv.pt" % sys.argv[2])
        with open(sys.argv[3], "wb") as f:
            f.write(replaced(z, "data.pkl", pkl.replace(COUNT_216, COUNT_HUGE, 1)))
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == "--without-library":
        with open(sys.argv[3], "rb") as f:
            z = Zip(f.read())
        with open(sys.argv[4], "wb") as f:
            f.write(without_library(z, z.prefix + b"data/aotinductor/" + sys.argv[2].encode()))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("basedir")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--list", action="store_true", help="print the manifest")
    ap.add_argument("--known", action="store_true", help="write the known LibTorch reproducers")
    args = ap.parse_args()

    items = known(args.basedir) if args.known else corpus(args.basedir, args.seed)
    os.makedirs(args.outdir, exist_ok=True)
    # stale mutants of another seed or version would be run too
    for old in os.listdir(args.outdir):
        if old.endswith((".pt", ".pt2")) or old == "manifest.tsv":
            os.remove(os.path.join(args.outdir, old))
    lines = []
    for i, (base, ext, kind, detail, data) in enumerate(items):
        name = "%03d-%s.%s" % (i, kind, ext)
        with open(os.path.join(args.outdir, name), "wb") as f:
            f.write(data)
        lines.append("%s\t%s\t%s\t%s\n" % (name, base, kind, detail))
    with open(os.path.join(args.outdir, "manifest.tsv"), "w") as f:
        f.writelines(lines)
    if args.list:
        sys.stdout.writelines(lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
