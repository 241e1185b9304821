/*
 * Copyright (c) 2026 the FFmpeg DNN CUDA fork developers
 *
 * This file is part of FFmpeg.
 *
 * FFmpeg is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * FFmpeg is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Lesser General Public License for more details.
 *
 * You should have received a copy of the GNU Lesser General Public
 * License along with FFmpeg; if not, write to the Free Software
 * Foundation, Inc., 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA
 */

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>
#include <caffe2/serialize/inline_container.h>

#include "dnn_backend_torch_archive.h"

extern "C" {
#include "libavutil/avstring.h"
#include "libavutil/crc.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/mem.h"
#include "libavutil/sha.h"
}

#include "dnn_backend_torch_error.h"

/*
 * The archive check.  Both formats are zip archives, and LibTorch reads them
 * with miniz trusting what they declare: a member's declared size is
 * allocated (TorchScript) or written to /tmp (a package's members, which
 * AOTInductor extracts there, under their own names), no CRC is checked (a
 * flipped bit in a weight or in the package's shared library is loaded and
 * run), and its JSON and TorchScript parsers recurse without bound.  So an
 * archive is checked here before LibTorch opens it: its structure (end
 * records, central directory, local headers, each member inside the file
 * and apart from the others), the sizes it declares, member names, every
 * member's CRC-32, and what LibTorch parses first (pickles, TorchScript
 * code, a package's metadata) for what would make it allocate, recurse or
 * read without bound.  A file that is no zip archive (no end record) is
 * left to LibTorch, which says what it is.  tests/dnn/mutate_models.py
 * makes the malformed files these checks are for.
 */

/** More members than this is no model LibTorch writes; 65535 took 10 s to extract. */
#define TH_ARCHIVE_MAX_MEMBERS 16384
/** Deflate gives 2-10x on code and pickles; a bomb 1000x. */
#define TH_ARCHIVE_MAX_RATIO 100
#define TH_ARCHIVE_MAX_CENTRAL (64 << 20)
/** A package's metadata: a few hundred bytes of "key": "value". */
#define TH_ARCHIVE_MAX_METADATA (1 << 20)
/** Bracket nesting in TorchScript code; its recursive parser overflows the stack near 10^5. */
#define TH_ARCHIVE_MAX_CODE_DEPTH 256
/** Members are read a chunk at a time: none is held whole, whatever its size. */
#define TH_ARCHIVE_CHUNK (1 << 20)
/** The longest string of a pickle kept to be compared: a member name is at most 65535 bytes. */
#define TH_PICKLE_MAX_TEXT 65536

struct THArchiveMember {
    std::string name;
    unsigned flags, method;
    uint32_t crc;
    uint64_t csize, usize, header, data; ///< local header and data offsets
};

/**
 * The model file, open once and read at offsets: every read of the check,
 * LibTorch's zip reader's included (THArchiveAdapter), is of the file that
 * this one open gave, never of the path again.
 */
class THArchiveFile {
public:
    int fd = -1;
    uint64_t size = 0;

    THArchiveFile() = default;
    THArchiveFile(const THArchiveFile &) = delete;
    THArchiveFile &operator=(const THArchiveFile &) = delete;
    ~THArchiveFile()
    {
        if (fd >= 0)
            close(fd);
    }

    /**
     * 0, or an AVERROR: ENOENT where there is no such file, ESPIPE where
     * it is no regular file (a pipe, a device: what was read could not be
     * read again, nor at offsets), errno's otherwise.
     */
    int open(const char *path)
    {
        struct stat st;

        // O_NONBLOCK: a FIFO is refused at once, not waited on for a writer
        fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0 || fstat(fd, &st) < 0)
            return AVERROR(errno);
        if (!S_ISREG(st.st_mode))
            return AVERROR(ESPIPE);
        size = st.st_size;
        return 0;
    }

    /** Up to n bytes from offset; how many were read. */
    uint64_t read_some(uint64_t offset, void *buf, uint64_t n) const
    {
        uint64_t done = 0;

        while (done < n) {
            ssize_t r = pread(fd, (char *)buf + done, n - done, offset + done);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            done += r;
        }
        return done;
    }

    bool read(uint64_t offset, void *buf, uint64_t n) const
    {
        if (offset > size || n > size - offset)
            return false;
        return read_some(offset, buf, n) == n;
    }
};

/** LibTorch's zip reader on a THArchiveFile: it reads what the check reads. */
class THArchiveAdapter : public caffe2::serialize::ReadAdapterInterface {
public:
    explicit THArchiveAdapter(const THArchiveFile &f) : file(f) {}

    size_t size() const override
    {
        return file.size;
    }

    size_t read(uint64_t pos, void *buf, size_t n, const char *what = "") const override
    {
        if (pos >= file.size)
            return 0;
        return file.read_some(pos, buf, std::min<uint64_t>(n, file.size - pos));
    }

private:
    const THArchiveFile &file;
};

/** Why an archive is refused; empty while it is not. */
typedef std::string THArchiveError;

/** The CRC-32 (zip's, zlib's) of n bytes of the file from offset; false if unreadable. */
static bool file_crc32(THArchiveFile &f, uint64_t offset, uint64_t n, uint32_t *crc)
{
    const AVCRC *table = av_crc_get_table(AV_CRC_32_IEEE_LE);
    std::vector<char> buf(std::min<uint64_t>(n, 1 << 20));
    uint32_t c = UINT32_MAX;

    while (n) {
        uint64_t chunk = std::min<uint64_t>(n, buf.size());
        if (!f.read(offset, buf.data(), chunk))
            return false;
        c = av_crc(table, c, (const uint8_t *)buf.data(), chunk);
        offset += chunk;
        n -= chunk;
    }
    *crc = c ^ UINT32_MAX;
    return true;
}

/**
 * The end records: where the central directory lies and how many members it
 * holds, as miniz reads them (the zip64 record where its locator precedes
 * the end record).  False, and no error, when there is no end record at
 * all: no zip archive.
 */
static bool read_end(THArchiveFile &f, uint64_t *cd_offset, uint64_t *cd_size, uint64_t *count,
                     THArchiveError &err)
{
    uint64_t n = std::min<uint64_t>(f.size, 65535 + 22), base = f.size - n, end, cd_end;
    std::vector<uint8_t> buf(n);
    const uint8_t *tail = buf.data();
    uint8_t z64[56], loc[20];
    int64_t i;

    if (n < 22 || !f.read(base, buf.data(), n))
        return false;
    for (i = n - 22; i >= 0; i--)
        if (AV_RL32(tail + i) == 0x06054b50)
            break;
    if (i < 0)
        return false;
    end = base + i;
    if (end + 22 + AV_RL16(tail + i + 20) > f.size) {
        err = "its end record runs past the end of the file";
        return true;
    }
    if (AV_RL16(tail + i + 4) || AV_RL16(tail + i + 6) ||
        AV_RL16(tail + i + 8) != AV_RL16(tail + i + 10)) {
        err = "it spans several disks";
        return true;
    }
    *count     = AV_RL16(tail + i + 10);
    *cd_size   = AV_RL32(tail + i + 12);
    *cd_offset = AV_RL32(tail + i + 16);
    cd_end     = end;
    if (end >= 20 && f.read(end - 20, loc, 20) && AV_RL32(loc) == 0x07064b50) {
        uint64_t z64_offset = AV_RL64(loc + 8);
        if (AV_RL32(loc + 16) != 1 || z64_offset > end - 20 || end - 20 - z64_offset < 56 ||
            !f.read(z64_offset, z64, 56) || AV_RL32(z64) != 0x06064b50 || AV_RL64(z64 + 4) < 44) {
            err = "its zip64 end record is not where its locator says";
            return true;
        }
        if (AV_RL32(z64 + 16) || AV_RL32(z64 + 20) || AV_RL64(z64 + 24) != AV_RL64(z64 + 32)) {
            err = "it spans several disks";
            return true;
        }
        *count     = AV_RL64(z64 + 32);
        *cd_size   = AV_RL64(z64 + 40);
        *cd_offset = AV_RL64(z64 + 48);
        cd_end     = z64_offset;
    }
    if (!*count)
        err = "it holds no member";
    else if (*count > TH_ARCHIVE_MAX_MEMBERS)
        err = "it declares " + std::to_string(*count) + " members, more than " +
              std::to_string(TH_ARCHIVE_MAX_MEMBERS);
    else if (*cd_offset > cd_end || *cd_size != cd_end - *cd_offset)
        err = "its central directory is not where its end record says";
    else if (*cd_size < 46 * *count || *cd_size > TH_ARCHIVE_MAX_CENTRAL)
        err = "its central directory's size does not fit its members";
    return true;
}

/** A member name that stays in the folder LibTorch extracts it to. */
static bool safe_name(const std::string &name)
{
    size_t start = 0;

    if (name.empty() || name[0] == '/' || name.find('\\') != std::string::npos ||
        name.find('\0') != std::string::npos)
        return false;
    while (start <= name.size()) {
        size_t end = std::min(name.find('/', start), name.size());
        if (name.compare(start, end - start, "..") == 0)
            return false;
        start = end + 1;
    }
    return true;
}

/** The central directory's entries, each checked against the file. */
static void read_members(THArchiveFile &f, uint64_t cd_offset, uint64_t cd_size, uint64_t count,
                         std::vector<THArchiveMember> &members, THArchiveError &err)
{
    std::vector<uint8_t> cd(cd_size);
    std::set<std::string> names;
    uint64_t pos = 0;

    if (!f.read(cd_offset, cd.data(), cd_size)) {
        err = "its central directory cannot be read";
        return;
    }
    for (uint64_t i = 0; i < count; i++) {
        const uint8_t *e = cd.data() + pos;
        THArchiveMember m;
        uint64_t name_len, extra_len, header;
        uint8_t local[30];
        std::string local_name;

        if (cd_size - pos < 46 || AV_RL32(e) != 0x02014b50) {
            err = "its central directory ends before its " + std::to_string(count) + " entries";
            return;
        }
        name_len  = AV_RL16(e + 28);
        extra_len = AV_RL16(e + 30);
        if (cd_size - pos - 46 < name_len + extra_len + AV_RL16(e + 32)) {
            err = "an entry of its central directory runs past its end";
            return;
        }
        m.name.assign((const char *)e + 46, name_len);
        m.flags  = AV_RL16(e + 8);
        m.method = AV_RL16(e + 10);
        m.crc    = AV_RL32(e + 16);
        m.csize  = AV_RL32(e + 20);
        m.usize  = AV_RL32(e + 24);
        header   = AV_RL32(e + 42);
        // sizes and offsets of 0xffffffff are in the zip64 extra field
        if (m.usize == UINT32_MAX || m.csize == UINT32_MAX || header == UINT32_MAX) {
            const uint8_t *x = e + 46 + name_len, *x_end = x + extra_len;
            bool found = false;
            while (x_end - x >= 4 && !found) {
                unsigned id = AV_RL16(x), len = AV_RL16(x + 2);
                const uint8_t *v = x + 4, *v_end = v + len;
                if (v_end > x_end)
                    break;
                if (id == 1) {
                    uint64_t *fields[3] = { &m.usize, &m.csize, &header };
                    found = true;
                    for (uint64_t *field : fields) {
                        if (*field != UINT32_MAX)
                            continue;
                        if (v_end - v < 8)
                            found = false;
                        else
                            *field = AV_RL64(v);
                        v += 8;
                    }
                }
                x = v_end;
            }
            if (!found) {
                err = "\"" + m.name + "\" has no zip64 sizes where it says so";
                return;
            }
        }
        pos += 46 + name_len + extra_len + AV_RL16(e + 32);
        if (!safe_name(m.name)) {
            err = "a member's name (\"" + m.name + "\") climbs out of its folder";
            return;
        }
        if (!names.insert(m.name).second) {
            err = "\"" + m.name + "\" is there twice";
            return;
        }
        if (m.flags & 0x41) {
            err = "\"" + m.name + "\" is encrypted";
            return;
        }
        if (AV_RL16(e + 34)) {
            err = "\"" + m.name + "\" is on another disk";
            return;
        }
        if (m.method != 0 && m.method != 8) {
            err = "\"" + m.name + "\" is compressed with method " + std::to_string(m.method) +
                  ", not stored or deflated";
            return;
        }
        if (m.method == 0 ? m.usize != m.csize :
            m.usize > m.csize * TH_ARCHIVE_MAX_RATIO + 65536) {
            err = "\"" + m.name + "\" declares " + std::to_string(m.usize) + " bytes from " +
                  std::to_string(m.csize) + " (a zip bomb)";
            return;
        }
        // the local header: miniz finds the data after its own name and extra field
        if (header > cd_offset || cd_offset - header < 30 || !f.read(header, local, 30) ||
            AV_RL32(local) != 0x04034b50) {
            err = "\"" + m.name + "\" has no local header where the central directory says";
            return;
        }
        m.header = header;
        m.data   = header + 30 + AV_RL16(local + 26) + AV_RL16(local + 28);
        local_name.resize(AV_RL16(local + 26));
        if (m.data > cd_offset || m.csize > cd_offset - m.data ||
            !f.read(header + 30, &local_name[0], local_name.size()) || local_name != m.name) {
            err = "\"" + m.name + "\"'s local header does not match its central directory entry";
            return;
        }
        members.push_back(m);
    }
    if (pos != cd_size) {
        err = "its central directory holds more than its " + std::to_string(count) + " entries";
        return;
    }
    // members that share their bytes: the "overlapping" zip bomb
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    for (const THArchiveMember &m : members)
        spans.push_back({ m.header, m.data + m.csize });
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); i++) {
        if (spans[i].first < spans[i - 1].second) {
            err = "its members overlap";
            return;
        }
    }
}

/**
 * A member's content as LibTorch reads it (inflated by its reader where it
 * is deflated), a chunk at a time, and its CRC-32 as it goes.  Throws where
 * the reader cannot give the bytes.
 */
class THRecordStream {
public:
    THRecordStream(caffe2::serialize::PyTorchStreamReader &reader, const std::string &record,
                   uint64_t size)
        : iter(reader.createChunkReaderIter(record, size, TH_ARCHIVE_CHUNK)),
          buf(std::min<uint64_t>(size, TH_ARCHIVE_CHUNK)), left(size) {}

    /** The next byte, or -1 at the end. */
    int get()
    {
        if (pos == len && !fill())
            return -1;
        return buf[pos++];
    }

    /** n bytes into dst (NULL: skipped); false where fewer are left. */
    bool read(uint8_t *dst, uint64_t n)
    {
        while (n) {
            if (pos == len && !fill())
                return false;
            uint64_t k = std::min<uint64_t>(n, len - pos);
            if (dst) {
                memcpy(dst, buf.data() + pos, k);
                dst += k;
            }
            pos += k;
            n   -= k;
        }
        return true;
    }

    /** Bytes not read yet. */
    uint64_t remaining() const
    {
        return left + (len - pos);
    }

    /** The CRC-32 of the whole content: what is left is read first. */
    uint32_t crc()
    {
        pos = len;
        while (fill())
            pos = len;
        return crc_state ^ UINT32_MAX;
    }

private:
    bool fill()
    {
        size_t n;

        if (!left)
            return false;
        n = iter.next(buf.data());
        if (!n || n > left)
            throw std::runtime_error("short record");
        crc_state = av_crc(av_crc_get_table(AV_CRC_32_IEEE_LE), crc_state, buf.data(), n);
        left -= n;
        pos   = 0;
        len   = n;
        return true;
    }

    caffe2::serialize::ChunkRecordIterator iter;
    std::vector<uint8_t> buf;
    uint64_t left;                      ///< bytes not in buf yet
    size_t pos = 0, len = 0;
    uint32_t crc_state = UINT32_MAX;
};

/** An opcode's argument, as far as the check needs it. */
struct THPickleArg {
    uint64_t number = 0;                        ///< a fixed-size one, little-endian
    std::shared_ptr<const std::string> text;    ///< a counted one, when at most TH_PICKLE_MAX_TEXT
    std::string lines[2];                       ///< GLOBAL's module and name
};

/**
 * Read op's argument (opcodes of protocols 0 to 5): false where op is none
 * of them, or its argument runs past the pickle's end.  LibTorch's
 * unpickler allocates what a length says before reading it (4 GiB from a
 * pickle of 10 bytes): a length is checked against what is left.
 */
static bool pickle_arg(uint8_t op, THRecordStream &s, THPickleArg &arg)
{
    int fixed = 0, counted = 0, lines = 0;
    uint8_t b[8];
    uint64_t v = 0;

    switch (op) {
    case '.': case '(': case '0': case '1': case '2': case 'N': case ')': case ']': case '}':
    case 'a': case 'e': case 'l': case 't': case 'd': case 's': case 'u': case 'b':
    case 'o': case 'R': case 'Q': case 0x81: case 0x85: case 0x86: case 0x87: case 0x88:
    case 0x89: case 0x8f: case 0x90: case 0x91: case 0x92: case 0x93: case 0x94:
    case 0x97: case 0x98:
        return true;
    case 'K': case 'h': case 'q': case 0x80: case 0x82: fixed = 1; break;
    case 'M': case 0x83:                                fixed = 2; break;
    case 'J': case 'j': case 'r': case 0x84:            fixed = 4; break;
    case 'G': case 0x95:                                fixed = 8; break;
    case 'U': case 'C': case 0x8c: case 0x8a:           counted = 1; break;
    case 'T': case 'X': case 'B': case 0x8b:            counted = 4; break;
    case 0x8d: case 0x8e: case 0x96:                    counted = 8; break;
    case 'I': case 'L': case 'F': case 'S': case 'V': case 'P': case 'g': case 'p':
        lines = 1;
        break;
    case 'c': case 'i':
        lines = 2;
        break;
    default:
        return false;
    }
    if (fixed || counted) {
        if (!s.read(b, fixed + counted))
            return false;
        for (int i = 0; i < fixed + counted; i++)
            v |= (uint64_t)b[i] << (8 * i);
        if (fixed) {
            arg.number = v;
            return true;
        }
        if (((op == 'T' || op == 0x8b) && (v & 0x80000000u)) || v > s.remaining())
            return false;
        if (v > TH_PICKLE_MAX_TEXT)
            return s.read(NULL, v);
        std::string text(v, '\0');
        if (!s.read((uint8_t *)&text[0], v))
            return false;
        arg.text = std::make_shared<const std::string>(std::move(text));
        return true;
    }
    for (int i = 0; i < lines; i++) {
        int c;
        while ((c = s.get()) >= 0 && c != '\n') {
            if (arg.lines[i].size() >= TH_PICKLE_MAX_TEXT)
                return false;
            arg.lines[i] += (char)c;
        }
        if (c < 0)
            return false;
    }
    return true;
}

/** A storage a pickle names by persistent ID: its record and its size. */
struct THStorageRef {
    std::string archive;                ///< "data", "constants": its records' folder
    std::string key;
    uint64_t elements, element_size;
};

/** A value of the unpickler's stack, as far as tensors need it. */
struct THPickleValue {
    enum Kind { OTHER, STRING, INT, TUPLE, STORAGE } kind = OTHER;
    int64_t number = 0;                 ///< INT; STORAGE: its index in the THStorageRef list
    std::shared_ptr<const std::string> text;                     ///< STRING
    std::shared_ptr<const std::vector<THPickleValue>> items;     ///< TUPLE
};

/** The dtypes LibTorch's unpickler knows a storage class of ("torch.FloatStorage"), by number. */
struct THScalarType {
    const char *name;
    int64_t type;
    uint64_t size;
};

static const std::vector<THScalarType> &scalar_types(void)
{
    static const std::vector<THScalarType> types = {
#define TH_SCALAR_TYPE(ctype, name) { #name, (int64_t)c10::ScalarType::name, sizeof(ctype) },
        AT_FORALL_SCALAR_TYPES_WITH_COMPLEX_AND_QINTS(TH_SCALAR_TYPE)
#undef TH_SCALAR_TYPE
    };
    return types;
}

/**
 * LibTorch's unpickler (torch/csrc/jit/serialization/unpickler.cpp),
 * followed on a pickle of tensors (data.pkl, constants.pkl) as far as they
 * need: its stack, marks, memo and globals as it keeps them, so that each
 * storage tuple (BINPERSID) and each tensor made on a storage
 * (_rebuild_tensor_v2) is the one it makes.  It makes a storage of the
 * dtype and element count the tuple says on whatever bytes the record
 * holds, and a tensor of whatever offset, sizes and strides the file says:
 * both are checked here, against each other and (by the caller) against
 * the records.  What is not followed is refused: a form the check cannot
 * read is not left unchecked.  A class's call is taken to give one value
 * (an enum's may give none): values it cannot tell are OTHER, and where
 * the stack then differs from LibTorch's, an OTHER lies where a storage
 * tuple or a tensor's arguments need a value, and they are refused.
 */
class THUnpickler {
public:
    THUnpickler(const std::string &archive, const std::string &member,
                std::vector<THStorageRef> &storages)
        : archive(archive), member(member), storages(storages) {}

    /** Follow op; why the pickle is refused, or empty. */
    std::string step(uint8_t op, const THPickleArg &arg);

private:
    typedef THPickleValue V;

    std::string refuse(const std::string &why) const
    {
        return "\"" + member + "\" " + why;
    }

    void push(V v)
    {
        stack.push_back(std::move(v));
    }

    V pop()
    {
        V v = std::move(stack.back());
        stack.pop_back();
        return v;
    }

    /** The items from the last mark, which is dropped; false where LibTorch would read outside its stack. */
    bool pop_mark(std::vector<V> *items, size_t min_start = 0)
    {
        size_t start;

        if (marks.empty())
            return false;
        start = marks.back();
        marks.pop_back();
        if (start < min_start || start > stack.size())
            return false;
        if (items)
            items->assign(std::make_move_iterator(stack.begin() + start),
                          std::make_move_iterator(stack.end()));
        stack.resize(start);
        return true;
    }

    std::string global(const std::string &module, const std::string &name);
    std::string call();
    std::string persistent_id();
    std::string rebuild_tensor(const V &args);

    const std::string archive, member;
    std::vector<THStorageRef> &storages;
    std::vector<V> stack;
    std::vector<size_t> marks;
    std::vector<V> memo;
    std::vector<std::string> globals;   ///< what REDUCE and BUILD call, by number
    bool started = false;
};


std::string THUnpickler::global(const std::string &module, const std::string &name)
{
    const std::string full = module + "." + name;
    V v;

    // tensors made of other tensors, or through a call this does not follow
    if ((module == "torch._utils" && name == "_rebuild_sparse_tensor") ||
        (module == "torch._tensor" && name == "_rebuild_from_type_v2"))
        return refuse("holds a tensor of a form this check does not read (" + full + ")");
    v.kind = V::INT;
    if (module == "torch" && name != "device") {
        // a dtype or a quantization scheme, as a number: no global
        for (const THScalarType &t : scalar_types()) {
            if (name == std::string(t.name) + "Storage") {
                v.number = t.type;
                push(v);
                return "";
            }
        }
        for (int i = 0; i < c10::COMPILE_TIME_NUM_QSCHEMES; i++) {
            if (name == c10::toString((c10::QScheme)i)) {
                v.number = i;
                push(v);
                return "";
            }
        }
        return refuse("names " + full + ", which LibTorch does not know");
    }
    globals.push_back(full);
    v.number = globals.size() - 1;
    push(v);
    return "";
}

/** The integers of a tuple. */
static bool int_tuple(const THPickleValue &v, std::vector<int64_t> &ints)
{
    if (v.kind != THPickleValue::TUPLE)
        return false;
    for (const THPickleValue &item : *v.items) {
        if (item.kind != THPickleValue::INT)
            return false;
        ints.push_back(item.number);
    }
    return true;
}

/** _rebuild_tensor_v2(storage, offset, sizes, strides, ...): the tensor must lie inside its storage. */
std::string THUnpickler::rebuild_tensor(const V &args)
{
    const std::vector<V> *a = args.kind == V::TUPLE ? args.items.get() : NULL;
    std::vector<int64_t> sizes, strides;
    int64_t offset, last;
    bool empty = false;

    if (!a || a->size() < 4 || (*a)[0].kind != V::STORAGE || (*a)[1].kind != V::INT ||
        !int_tuple((*a)[2], sizes) || !int_tuple((*a)[3], strides) ||
        sizes.size() != strides.size())
        return refuse("holds a tensor it cannot read (not one of a storage, an offset, sizes "
                      "and strides)");
    const THStorageRef &storage = storages[(*a)[0].number];
    offset = last = (*a)[1].number;
    for (size_t d = 0; d < sizes.size(); d++) {
        if (offset < 0 || sizes[d] < 0 || strides[d] < 0)
            return refuse("holds a tensor of a negative offset, size or stride on its storage \"" +
                          storage.key + "\"");
        empty |= !sizes[d];
    }
    for (size_t d = 0; d < sizes.size() && !empty; d++) {
        // the last element's index, without overflow
        if (sizes[d] > 1 && strides[d] > (INT64_MAX - last) / (sizes[d] - 1))
            return refuse("holds a tensor whose strides reach past any storage (storage \"" +
                          storage.key + "\")");
        last += (sizes[d] - 1) * strides[d];
    }
    if (empty ? (uint64_t)offset <= storage.elements : (uint64_t)last < storage.elements)
        return "";
    return refuse("holds a tensor that reaches element " + std::to_string(last) +
                  " of its storage \"" + storage.key + "\" of " +
                  std::to_string(storage.elements) + " elements");
}

/** REDUCE and BUILD (alike in LibTorch): the global numbered under the argument, on it. */
std::string THUnpickler::call()
{
    V args, fn;

    if (stack.size() < 2)
        return refuse("is a pickle LibTorch would read outside its stack");
    args = pop();
    fn   = pop();
    if (fn.kind != V::INT || fn.number < 0 || (uint64_t)fn.number >= globals.size())
        return refuse("calls what is no global it names");
    const std::string &name = globals[fn.number];
    if (name == "torch._utils._rebuild_tensor_v2" || name == "torch._utils._rebuild_qtensor") {
        std::string why = rebuild_tensor(args);
        if (!why.empty())
            return why;
        push(V());
    } else if (name == "__main__.IntList") {
        push(args);                             // the list, as it was
    } else if (name == "torch.jit._pickle.restore_type_tag") {
        if (args.kind != V::TUPLE || args.items->size() < 2)
            return refuse("restores a type tag of no value");
        push((*args.items)[0]);
    } else {
        push(V());                              // an object, a list, None, a device...
    }
    return "";
}

/** BINPERSID: ('storage', dtype, key, device, elements), a storage on the record <archive>/<key>. */
std::string THUnpickler::persistent_id()
{
    const std::vector<V> *t;
    V id, v;

    if (stack.empty())
        return refuse("is a pickle LibTorch would read outside its stack");
    id = pop();
    t = id.kind == V::TUPLE ? id.items.get() : NULL;
    if (!t || t->size() != 5 || (*t)[0].kind != V::STRING || *(*t)[0].text != "storage" ||
        (*t)[1].kind != V::INT || (*t)[2].kind != V::STRING || (*t)[3].kind != V::STRING ||
        (*t)[4].kind != V::INT || (*t)[4].number < 0)
        return refuse("holds a tensor storage it cannot read (not ('storage', dtype, key, "
                      "device, element count))");
    for (const THScalarType &type : scalar_types()) {
        if (type.type != (*t)[1].number)
            continue;
        storages.push_back({ archive, *(*t)[2].text, (uint64_t)(*t)[4].number, type.size });
        v.kind   = V::STORAGE;
        v.number = storages.size() - 1;
        push(v);
        return "";
    }
    return refuse("holds a tensor storage of dtype " + std::to_string((*t)[1].number) +
                  ", which is none");
}

std::string THUnpickler::step(uint8_t op, const THPickleArg &arg)
{
    const bool first = !started;
    std::vector<V> items;
    V v;

    started = true;
    if (first != (op == 0x80))
        return refuse("is not a pickle of protocol 2, as LibTorch reads");
    switch (op) {
    case 0x80:                                          // PROTO
        if (arg.number != 2)
            return refuse("is not a pickle of protocol 2, as LibTorch reads");
        return "";
    case '(':                                           // MARK
        marks.push_back(stack.size());
        return "";
    case 'q': case 'r':                                 // BINPUT, LONG_BINPUT
        // LibTorch makes room for an index out of sequence: 4 G entries
        if (stack.empty() || arg.number > memo.size())
            return refuse("puts a memo entry out of sequence");
        if (arg.number == memo.size())
            memo.push_back(stack.back());
        else
            memo[arg.number] = stack.back();
        return "";
    case 'h': case 'j':                                 // BINGET, LONG_BINGET
        if (arg.number >= memo.size())
            return refuse("gets a memo entry it never put");
        push(memo[arg.number]);
        return "";
    case 'K': case 'M': case 'J': case 0x8a:            // BININT1, BININT2, BININT, LONG1
        v.kind   = V::INT;
        v.number = op == 'J' ? (int64_t)(int32_t)arg.number : (int64_t)arg.number;
        if (op == 0x8a) {
            if (!arg.text || arg.text->size() != 8)
                return refuse("holds an integer of other than 8 bytes, which LibTorch does not read");
            v.number = (int64_t)AV_RL64(arg.text->data());
        }
        push(v);
        return "";
    case 'X':                                           // BINUNICODE
        if (arg.text) {
            v.kind = V::STRING;
            v.text = arg.text;
        }
        push(v);
        return "";
    case ')':                                           // EMPTY_TUPLE
        v.kind  = V::TUPLE;
        v.items = std::make_shared<const std::vector<V>>();
        push(v);
        return "";
    case ']': case '}': case 'N': case 0x88: case 0x89: case 'G':
        push(v);                                        // a list, a dict, None, a bool, a float
        return "";
    case 't': case 0x85: case 0x86: case 0x87:          // TUPLE, TUPLE1..3
        if (op == 't' ? !pop_mark(&items) : stack.size() < (size_t)(op - 0x84))
            return refuse("is a pickle LibTorch would read outside its stack");
        if (op != 't') {
            items.assign(std::make_move_iterator(stack.end() - (op - 0x84)),
                         std::make_move_iterator(stack.end()));
            stack.resize(stack.size() - (op - 0x84));
        }
        v.kind  = V::TUPLE;
        v.items = std::make_shared<const std::vector<V>>(std::move(items));
        push(v);
        return "";
    case 'd': case 'u':                                 // DICT, SETITEMS: pairs
        if (marks.empty() || marks.back() > stack.size() || (stack.size() - marks.back()) % 2)
            return refuse("is a pickle LibTorch would read outside its stack");
        [[fallthrough]];
    case 'e': case 'l':                                 // APPENDS, LIST
        if (!pop_mark(NULL, op == 'e' || op == 'u'))
            return refuse("is a pickle LibTorch would read outside its stack");
        if (op == 'd' || op == 'l')
            push(v);
        return "";
    case 's':                                           // SETITEM
        if (stack.size() < 3)
            return refuse("is a pickle LibTorch would read outside its stack");
        stack.resize(stack.size() - 2);
        return "";
    case 0x81:                                          // NEWOBJ: the empty tuple
        if (stack.empty())
            return refuse("is a pickle LibTorch would read outside its stack");
        stack.pop_back();
        return "";
    case 'c':                                           // GLOBAL
        return global(arg.lines[0], arg.lines[1]);
    case 'R': case 'b':                                 // REDUCE, BUILD
        return call();
    case 'Q':                                           // BINPERSID
        return persistent_id();
    default: {
        char hex[8];
        snprintf(hex, sizeof(hex), "0x%02x", op);
        return refuse(std::string("holds an opcode (") + hex + ") LibTorch's unpickler does "
                      "not read");
    }
    }
}

/**
 * Why a pickle member is refused, or empty.  Its opcodes must stay within
 * it, up to its STOP.  archive: for a pickle of tensors (data.pkl,
 * constants.pkl), the folder of their records ("data", "constants"), and
 * LibTorch's reading of it is followed (THUnpickler); empty for another.
 */
static std::string check_pickle(THRecordStream &s, const std::string &name,
                                const std::string &archive, std::vector<THStorageRef> &storages)
{
    std::unique_ptr<THUnpickler> unpickler;

    if (!archive.empty())
        unpickler.reset(new THUnpickler(archive, name, storages));
    for (;;) {
        THPickleArg arg;
        std::string why;
        int op = s.get();

        if (op < 0 || !pickle_arg(op, s, arg))
            return "\"" + name + "\" is no pickle, or one that reads past its end";
        if (op == '.')
            return "";
        if (unpickler && !(why = unpickler->step(op, arg)).empty())
            return why;
    }
}

/** How deep TorchScript code nests brackets (outside strings and comments), up to past max. */
static int code_depth(THRecordStream &s, int max)
{
    int depth = 0, deepest = 0, c;

    while (deepest <= max && (c = s.get()) >= 0) {
        switch (c) {
        case '(': case '[': case '{':
            deepest = FFMAX(deepest, ++depth);
            break;
        case ')': case ']': case '}':
            depth--;
            break;
        case '#':
            while ((c = s.get()) >= 0 && c != '\n')
                ;
            break;
        case '"': case '\'': {
            const int quote = c;
            while ((c = s.get()) >= 0 && c != quote && c != '\n')
                if (c == '\\')
                    s.get();
            break;
        }
        }
    }
    return deepest;
}

/** Whether text is a JSON object of strings only, as tools/dnn-torch-export.py writes. */
static bool flat_json_object(const uint8_t *p, size_t n)
{
    const uint8_t *end = p + n;
    auto blank  = [&] { while (p < end && *p && strchr(" \t\r\n", *p)) p++; };
    auto string = [&] {
        if (p == end || *p++ != '"')
            return false;
        while (p < end && *p != '"') {
            if (*p < 0x20)
                return false;
            if (*p++ == '\\') {
                if (p == end || !*p || !strchr("\"\\/bfnrtu", *p))
                    return false;
                if (*p++ == 'u') {
                    for (int k = 0; k < 4; k++, p++)
                        if (p == end || !av_isxdigit(*p))
                            return false;
                }
            }
        }
        return p++ < end;
    };

    blank();
    if (p == end || *p++ != '{')
        return false;
    blank();
    if (p < end && *p == '}')
        p++;
    else {
        for (;;) {
            blank();
            if (!string())
                return false;
            blank();
            if (p == end || *p++ != ':')
                return false;
            blank();
            if (!string())
                return false;
            blank();
            if (p == end)
                return false;
            if (*p == '}') {
                p++;
                break;
            }
            if (*p++ != ',')
                return false;
        }
    }
    blank();
    return p == end;
}

static bool ends_with(const std::string &s, const char *suffix)
{
    size_t n = strlen(suffix);
    return s.size() >= n && !s.compare(s.size() - n, n, suffix);
}

/**
 * The folder of a pickle's tensor records, for a pickle torch::jit::load()
 * reads tensors from; else empty.  Not traced_inputs.pkl, read only with
 * restore_shapes: torch writes its storages without their bytes.
 */
static std::string tensor_archive(const std::string &record)
{
    for (const char *archive : { "data", "constants" })
        if (record == std::string(archive) + ".pkl")
            return archive;
    return "";
}

/** A storage of more elements than its record holds would be read (and written) past it. */
static void check_storages(const std::vector<THArchiveMember> &members, const std::string &prefix,
                           const std::vector<THStorageRef> &storages, THArchiveError &err)
{
    for (const THStorageRef &ref : storages) {
        const std::string record = ref.archive + "/" + ref.key, name = prefix + record;
        auto m = std::find_if(members.begin(), members.end(),
                              [&](const THArchiveMember &a) { return a.name == name; });
        if (!ref.elements)
            continue; // LibTorch reads no record for an empty storage
        if (m == members.end()) {
            err = "its tensor storage \"" + record + "\" has no record";
            return;
        }
        if (ref.elements > m->usize / ref.element_size) {
            err = "its tensor storage \"" + record + "\" claims " + std::to_string(ref.elements) +
                  " elements of " + std::to_string(ref.element_size) + " bytes from a record of " +
                  std::to_string(m->usize) + " bytes";
            return;
        }
    }
}

/**
 * What LibTorch parses first, and the deflated members' CRC-32 (miniz
 * inflates them; the stored ones are checked in the file): read through
 * LibTorch's own reader on f, now that the sizes are known to be bounded,
 * a chunk at a time, whatever their size.
 */
static void check_contents(const THArchiveFile &f, const std::vector<THArchiveMember> &members,
                           THArchiveError &err)
{
    std::unique_ptr<caffe2::serialize::PyTorchStreamReader> reader;
    const std::string &first = members[0].name;
    const std::string prefix = first.substr(0, first.find('/')) + "/";
    std::map<std::string, int> libraries; ///< of each model (data/aotinductor/NAME/)
    bool package = false;
    std::vector<THStorageRef> storages;

    try {
        reader.reset(new caffe2::serialize::PyTorchStreamReader(
            std::make_shared<THArchiveAdapter>(f)));
    } catch (const std::exception &) {
        err = "LibTorch's zip reader cannot open it";
        return;
    }
    for (const THArchiveMember &m : members) {
        const bool in_model = !m.name.compare(0, prefix.size(), prefix);
        const std::string record = in_model ? m.name.substr(prefix.size()) : "";
        const bool pickle = ends_with(m.name, ".pkl") || ends_with(m.name, ".debug_pkl");
        const bool code = !record.compare(0, 5, "code/") && ends_with(m.name, ".py");
        const bool metadata = !record.compare(0, 17, "data/aotinductor/") &&
                              ends_with(m.name, "_metadata.json");

        if (!record.compare(0, 17, "data/aotinductor/")) {
            const size_t slash = record.find('/', 17);
            package = true;
            // what lies in a program's folder: data/aotinductor/NAME/...
            if (slash != std::string::npos && slash > 17)
                libraries[record.substr(17, slash - 17)] += ends_with(m.name, ".so");
        }
        if (!in_model || !(m.method == 8 || pickle || code || metadata))
            continue;
        if (metadata && m.usize > TH_ARCHIVE_MAX_METADATA) {
            err = "its metadata \"" + m.name + "\" is " + std::to_string(m.usize) + " bytes";
            return;
        }
        try {
            // a CRC of 0: written without (torch.save's compute_crc32=False)
            if (m.method == 8 && m.crc && THRecordStream(*reader, record, m.usize).crc() != m.crc) {
                err = "\"" + m.name + "\" is damaged: its CRC-32 is not its content's";
                return;
            }
            if (pickle || code || metadata) {
                THRecordStream s(*reader, record, m.usize);
                std::vector<uint8_t> json;
                if (pickle)
                    err = check_pickle(s, m.name, tensor_archive(record), storages);
                else if (code && code_depth(s, TH_ARCHIVE_MAX_CODE_DEPTH) > TH_ARCHIVE_MAX_CODE_DEPTH)
                    err = "\"" + m.name + "\" nests brackets more than " +
                          std::to_string(TH_ARCHIVE_MAX_CODE_DEPTH) + " deep";
                else if (metadata && (json.resize(m.usize), !s.read(json.data(), json.size()) ||
                                      !flat_json_object(json.data(), json.size())))
                    err = "its metadata \"" + m.name + "\" is not a JSON object of strings";
            }
        } catch (const std::exception &) {
            err = "\"" + m.name + "\" cannot be inflated";
        }
        if (!err.empty())
            return;
    }
    check_storages(members, prefix, storages, err);
    if (!err.empty())
        return;
    // without one in each program's folder, AOTInductor would compile that
    // program's C++ with the compiler command the package names (system())
    if (package)
        libraries.emplace("model", 0);
    for (const auto &model : libraries) {
        if (model.second == 1)
            continue;
        err = "it is a .pt2 package with " + std::to_string(model.second) +
              " compiled libraries (.so) for its model" +
              (model.first == "model" ? "" : " \"" + model.first + "\"") + ", not one";
        return;
    }
}

/**
 * path is what is read (once: one open, every check on it), filename what
 * messages name.
 */
int th_archive_check(const char *path, const char *filename, DnnContext *ctx)
{
    std::vector<THArchiveMember> members;
    uint64_t cd_offset = 0, cd_size = 0, count = 0;
    THArchiveError err;
    THArchiveFile f;
    uint8_t magic[8];
    int ret = f.open(path);

    if (ret == AVERROR(ENOENT))
        return 0; // LibTorch says there is no such file
    if (ret == AVERROR(ESPIPE)) {
        av_log(ctx, AV_LOG_ERROR, "The model file \"%s\" is no regular file (a pipe?): it "
               "cannot be checked, then read again; with model_sha256 it is read once, into "
               "a copy that is checked and loaded\n", filename);
        return AVERROR(EINVAL);
    }
    if (ret < 0) {
        av_log(ctx, AV_LOG_ERROR, "Could not read the model file \"%s\": %s\n", filename,
               strerror(AVUNERROR(ret)));
        return ret;
    }
    // LibTorch's other format (torch.jit's mobile flatbuffers, "PTMF"), read by another parser
    if (f.read(0, magic, sizeof(magic)) && !memcmp(magic + 4, "PTMF", 4)) {
        av_log(ctx, AV_LOG_ERROR, "The model file \"%s\" is a flatbuffer (mobile) module, "
               "which is not loaded unchecked: save it with torch.jit.save()\n", filename);
        return AVERROR_INVALIDDATA;
    }
    // no zip archive: LibTorch says what it is
    if (!read_end(f, &cd_offset, &cd_size, &count, err))
        return 0;
    if (err.empty())
        read_members(f, cd_offset, cd_size, count, members, err);
    for (size_t i = 0; err.empty() && i < members.size(); i++) {
        const THArchiveMember &m = members[i];
        uint32_t crc;
        // a CRC of 0: written without (torch.save's compute_crc32=False)
        if (m.method == 0 && m.crc && (!file_crc32(f, m.data, m.csize, &crc) || crc != m.crc))
            err = "\"" + m.name + "\" is damaged: its CRC-32 is not its content's";
    }
    if (err.empty())
        check_contents(f, members, err);
    if (err.empty())
        return 0;
    av_log(ctx, AV_LOG_ERROR, "The model file \"%s\" is a malformed archive: %s; it is not "
           "loaded\n", filename, err.c_str());
    return AVERROR_INVALIDDATA;
}

/** Whether the file is a zip archive holding AOTInductor's compiled model. */
bool th_archive_is_package(const char *filename)
{
    try {
        caffe2::serialize::PyTorchStreamReader reader(filename);
        for (const std::string &name : reader.getAllRecords())
            if (name.rfind("data/aotinductor/", 0) == 0)
                return true;
    } catch (const std::exception &) {
        // not a PyTorch archive: TorchScript's loader says what it is
    }
    return false;
}

THModelFile::~THModelFile()
{
    if (copy)
        fclose(copy);
}

/** Where the copy goes: TMPDIR, else /tmp. */
static const char *temp_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

/**
 * An unlinked file of temp_dir(), closed on exec, open for writing and
 * reading; NULL with errno set.
 */
static FILE *private_file(void)
{
    std::string path = std::string(temp_dir()) + "/ffmpeg-dnn-model-XXXXXX";
    FILE *f;
    int fd, err;

    fd = mkostemp(&path[0], O_CLOEXEC);
    if (fd < 0)
        return NULL;
    unlink(path.c_str());
    f = fdopen(fd, "w+b");
    if (!f) {
        err = errno;
        close(fd);
        errno = err;
    }
    return f;
}

/**
 * Copy the model file into file->copy, an unlinked temporary file, and
 * give the SHA-256 of the bytes copied as 64 lowercase hexadecimal digits.
 * 0 or an AVERROR, logged.
 */
static int copy_and_hash(THModelFile *file, const char *filename, char hex[65], void *log_ctx)
{
    std::unique_ptr<AVSHA, decltype(&av_free)> sha(av_sha_alloc(), &av_free);
    std::ifstream in(filename, std::ios::binary);
    uint8_t digest[32];
    char buf[65536];

    if (!sha)
        return AVERROR(ENOMEM);
    if (!in) {
        av_log(log_ctx, AV_LOG_ERROR, "Could not read the model file \"%s\"\n", filename);
        return AVERROR(ENOENT);
    }
    file->copy = private_file();
    if (!file->copy) {
        int err = AVERROR(errno);
        av_log(log_ctx, AV_LOG_ERROR, "Could not make a temporary copy of the model file "
               "in %s (model_sha256; TMPDIR says where): %s\n", temp_dir(), strerror(errno));
        return err;
    }
    av_sha_init(sha.get(), 256);
    while (in.read(buf, sizeof(buf)) || in.gcount() > 0) {
        av_sha_update(sha.get(), (const uint8_t *)buf, in.gcount());
        if (fwrite(buf, 1, in.gcount(), file->copy) != (size_t)in.gcount())
            break;
    }
    if (in.bad() || fflush(file->copy) || ferror(file->copy)) {
        av_log(log_ctx, AV_LOG_ERROR, "Could not copy the model file \"%s\" (model_sha256)\n",
               filename);
        return AVERROR(EIO);
    }
    rewind(file->copy);
    av_sha_final(sha.get(), digest);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    file->path = "/dev/fd/" + std::to_string(fileno(file->copy));
    return 0;
}

/*
 * A pipe (model=/dev/stdin) can be read once only, and one process may load
 * a model again: ffmpeg configures a filter graph a second time before its
 * first frame where the input's properties are known late, and again when
 * they change.  So the copy of a pipe whose SHA-256 was the pin is kept, by
 * the model option's name and that hash, and a later load of that name
 * with that pin reads the same bytes.  A regular file is read again by
 * each load.  The few last pipes are kept; an older one is closed.
 */
#define TH_PINNED_PIPES_MAX 4

struct THPinnedPipe {
    std::string name, sha256;
    int fd;                                 ///< the copy's, open while kept
};

static std::mutex pinned_pipes_lock;
static std::vector<THPinnedPipe> pinned_pipes;

/** Whether filename names what can be read once only (a pipe, a terminal). */
static bool read_once(const char *filename)
{
    struct stat st;
    return !stat(filename, &st) && !S_ISREG(st.st_mode);
}

/** A copy of the pipe name kept for sha256 (lowercase) into file; false if none. */
static bool reuse_pinned_pipe(THModelFile *file, const char *name, const std::string &sha256)
{
    std::lock_guard<std::mutex> hold(pinned_pipes_lock);

    for (const THPinnedPipe &pipe : pinned_pipes) {
        int fd;
        if (pipe.name != name || pipe.sha256 != sha256)
            continue;
        fd = fcntl(pipe.fd, F_DUPFD_CLOEXEC, 0);
        if (fd < 0)
            return false;
        file->copy = fdopen(fd, "rb");
        if (!file->copy) {
            close(fd);
            return false;
        }
        file->path = "/dev/fd/" + std::to_string(fd);
        return true;
    }
    return false;
}

/** Keep file's copy of the pipe name, whose SHA-256 is sha256 (lowercase). */
static void keep_pinned_pipe(const THModelFile &file, const char *name, const std::string &sha256)
{
    std::lock_guard<std::mutex> hold(pinned_pipes_lock);
    int fd = fcntl(fileno(file.copy), F_DUPFD_CLOEXEC, 0);

    if (fd < 0)
        return;
    if (pinned_pipes.size() >= TH_PINNED_PIPES_MAX) {
        close(pinned_pipes.front().fd);
        pinned_pipes.erase(pinned_pipes.begin());
    }
    pinned_pipes.push_back({ name, sha256, fd });
}

/** Whether t's elements lie inside its storage: offset and strides as the file said. */
static bool inside_storage(const at::Tensor &t)
{
    int64_t last;
    uint64_t capacity;

    if (!t.defined() || t.is_sparse() || !t.has_storage() || t.numel() == 0)
        return true;
    last = t.storage_offset();
    if (last < 0)
        return false;
    for (int64_t d = 0; d < t.dim(); d++) {
        int64_t size = t.size(d), stride = t.stride(d);
        // the last element's index, without overflow
        if (stride < 0 || (size > 1 && stride > (INT64_MAX - last) / (size - 1)))
            return false;
        last += (size - 1) * stride;
    }
    capacity = t.storage().nbytes() / t.element_size();
    return (uint64_t)last < capacity;
}

int th_module_check_tensors(const torch::jit::Module &module, DnnContext *ctx) noexcept
{
    return th_catch_all(ctx, "Could not check the model's tensors", [&] {
        for (const torch::jit::NameValue &attr : module.named_attributes(/* recurse */ true)) {
            if (!attr.value.isTensor() || inside_storage(attr.value.toTensor()))
                continue;
            av_log(ctx, AV_LOG_ERROR, "The model file \"%s\" is damaged: its tensor \"%s\" "
                   "lies outside its storage; it is not loaded\n", ctx->model_filename,
                   attr.name.c_str());
            return AVERROR_INVALIDDATA;
        }
        return 0;
    });
}

int th_model_file_open(THModelFile *file, DnnContext *ctx) noexcept
{
    const char *want = ctx->torch_option.model_sha256;
    struct stat st;
    char have[65];

    // LibTorch would read a directory as a damaged archive
    if (!stat(ctx->model_filename, &st) && S_ISDIR(st.st_mode)) {
        av_log(ctx, AV_LOG_ERROR, "The model file \"%s\" is a directory\n", ctx->model_filename);
        return AVERROR(EISDIR);
    }
    if (!want)
        return th_catch_all(ctx, "Could not open the model file", [&] {
            file->path = ctx->model_filename;
            return 0;
        });
    if (strlen(want) != 64 || strspn(want, "0123456789abcdefABCDEF") != 64) {
        av_log(ctx, AV_LOG_ERROR, "model_sha256 must be 64 hexadecimal digits, not \"%s\"\n",
               want);
        return AVERROR(EINVAL);
    }
    return th_catch_all(ctx, "Could not hash the model file", [&] {
        const bool pipe = read_once(ctx->model_filename);
        std::string pin(want);
        int ret;

        std::transform(pin.begin(), pin.end(), pin.begin(), ::tolower);
        if (pipe && reuse_pinned_pipe(file, ctx->model_filename, pin)) {
            av_log(ctx, AV_LOG_VERBOSE, "The model file \"%s\" is a pipe read by an earlier "
                   "load, whose copy had the SHA-256 of model_sha256: that copy is loaded\n",
                   ctx->model_filename);
            return 0;
        }
        ret = copy_and_hash(file, ctx->model_filename, have, ctx);
        if (ret < 0)
            return ret;
        if (pin != have) {
            av_log(ctx, AV_LOG_ERROR, "The model file \"%s\" has the SHA-256 %s, not %s "
                   "(model_sha256): it is not loaded\n", ctx->model_filename, have, want);
            return AVERROR(EINVAL);
        }
        if (pipe)
            keep_pinned_pipe(*file, ctx->model_filename, pin);
        av_log(ctx, AV_LOG_VERBOSE, "The model file's SHA-256 is model_sha256's; the copy it "
               "was computed on is loaded\n");
        return 0;
    });
}
