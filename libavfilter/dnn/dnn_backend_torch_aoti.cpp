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

/* A .pt2 package's programs, extracted into a private directory and loaded. */

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/inductor/aoti_runner/model_container_runner.h>

extern "C" {
#include "libavutil/error.h"
#include "libavutil/log.h"
}

#include "dnn_backend_torch_aoti.h"

/** Where the directory goes: TMPDIR, else /tmp. */
static const char *temp_root(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

static int remove_entry(const char *path, const struct stat *, int, struct FTW *)
{
    return remove(path) ? -1 : 0;
}

/* depth first, not following links: what is removed is the directory's own */
static void remove_tree(const std::string &dir)
{
    if (!dir.empty())
        nftw(dir.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

THAotiProgram::~THAotiProgram()
{
    runner.reset(); // unloads the program's code before its file goes
    remove_tree(dir);
}

std::vector<at::Tensor> THAotiProgram::run(const std::vector<at::Tensor> &inputs)
{
    return runner->run(inputs);
}

/** The archive's members of program name: data/aotinductor/NAME/... */
static std::string program_directory(const std::string &name)
{
    return "data/aotinductor/" + name + "/";
}

static bool starts_with(const std::string &s, const std::string &prefix)
{
    return s.compare(0, prefix.size(), prefix) == 0;
}

static bool ends_with(const std::string &s, const std::string &suffix)
{
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/** A JSON string at *p (after its quote), UTF-8; false if malformed. */
static bool json_string(const char **p, const char *end, std::string *out)
{
    out->clear();
    while (*p < end && **p != '"') {
        char c = *(*p)++;
        if ((unsigned char)c < 0x20)
            return false;
        if (c != '\\') {
            out->push_back(c);
            continue;
        }
        if (*p >= end)
            return false;
        c = *(*p)++;
        switch (c) {
        case '"': case '\\': case '/': out->push_back(c); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
            unsigned v = 0;
            if (end - *p < 4)
                return false;
            for (int i = 0; i < 4; i++) {
                char h = *(*p)++;
                v <<= 4;
                if (h >= '0' && h <= '9')      v |= h - '0';
                else if (h >= 'a' && h <= 'f') v |= h - 'a' + 10;
                else if (h >= 'A' && h <= 'F') v |= h - 'A' + 10;
                else return false;
            }
            // the metadata LibTorch writes is ASCII: other code points are refused
            if (v == 0 || v > 0x7f)
                return false;
            out->push_back((char)v);
            break;
        }
        default:
            return false;
        }
    }
    if (*p >= end)
        return false;
    (*p)++;
    return true;
}

static void skip_space(const char **p, const char *end)
{
    while (*p < end && (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r'))
        (*p)++;
}

/**
 * The metadata: one JSON object of string values, as LibTorch writes it
 * (its reader takes each value as a string).  Anything else is refused.
 */
static bool parse_metadata(const char *p, size_t n,
                           std::unordered_map<std::string, std::string> *metadata)
{
    const char *end = p + n;
    std::string key, value;

    skip_space(&p, end);
    if (p >= end || *p++ != '{')
        return false;
    skip_space(&p, end);
    if (p < end && *p == '}')
        p++;
    else {
        for (;;) {
            skip_space(&p, end);
            if (p >= end || *p++ != '"' || !json_string(&p, end, &key))
                return false;
            skip_space(&p, end);
            if (p >= end || *p++ != ':')
                return false;
            skip_space(&p, end);
            if (p >= end || *p++ != '"' || !json_string(&p, end, &value))
                return false;
            if (!metadata->emplace(key, value).second)
                return false; // a key twice: which one LibTorch keeps is no contract
            skip_space(&p, end);
            if (p < end && *p == ',') {
                p++;
                continue;
            }
            if (p >= end || *p++ != '}')
                return false;
            break;
        }
    }
    skip_space(&p, end);
    return p == end;
}

int th_aoti_read_metadata(const std::string &path, const std::string &display_name,
                          const std::string &name,
                          std::unordered_map<std::string, std::string> *metadata,
                          void *log_ctx)
{
    caffe2::serialize::PyTorchStreamReader reader(path);
    const std::string dir = program_directory(name);

    for (const std::string &record : reader.getAllRecords()) {
        if (!starts_with(record, dir) || !ends_with(record, "wrapper_metadata.json"))
            continue;
        auto [data, size] = reader.getRecord(record);
        metadata->clear();
        if (!parse_metadata((const char *)data.get(), size, metadata)) {
            av_log(log_ctx, AV_LOG_ERROR, "The .pt2 package \"%s\" is damaged: the metadata "
                   "of its program \"%s\" is not an object of strings\n",
                   display_name.c_str(), name.c_str());
            return AVERROR_INVALIDDATA;
        }
        return 0;
    }
    return AVERROR(ENOENT); // the caller says what the missing program means
}

/** A directory of our own: mode 0700, a name no other process has. */
static int make_private_dir(std::string *dir, void *log_ctx)
{
    std::string templ = std::string(temp_root()) + "/ffmpeg-dnn-pt2-XXXXXX";
    int err;

    if (mkdtemp(&templ[0])) {
        *dir = templ;
        return 0;
    }
    err = errno;
    av_log(log_ctx, AV_LOG_ERROR, "Could not make a temporary directory in %s for the "
           ".pt2 package's code (TMPDIR says where): %s\n", temp_root(), strerror(err));
    return AVERROR(err);
}

/* A .so of a file system mounted noexec fails to map with a puzzling EPERM. */
static int check_executable(const std::string &dir, void *log_ctx)
{
    struct statvfs st;

    if (statvfs(dir.c_str(), &st) == 0 && (st.f_flag & ST_NOEXEC)) {
        av_log(log_ctx, AV_LOG_ERROR, "The temporary directory %s is on a file system "
               "mounted noexec: a .pt2 package's code cannot be loaded from it; set TMPDIR "
               "to a directory where programs may run\n", temp_root());
        return AVERROR(EPERM);
    }
    return 0;
}

/** The directories of a member's relative path, each made (0700) below dir. */
static int make_parents(const std::string &dir, const std::string &relative)
{
    for (size_t slash = relative.find('/'); slash != std::string::npos;
         slash = relative.find('/', slash + 1)) {
        std::string sub = dir + "/" + relative.substr(0, slash);
        if (mkdir(sub.c_str(), 0700) && errno != EEXIST)
            return AVERROR(errno);
    }
    return 0;
}

/** A new file (never an existing one, nor through a link) holding data. */
static int write_new_file(const std::string &path, const uint8_t *data, size_t size)
{
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int err = 0;

    if (fd < 0)
        return AVERROR(errno);
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            err = n < 0 ? AVERROR(errno) : AVERROR(EIO);
            break;
        }
        data += n;
        size -= n;
    }
    if (close(fd) && !err)
        err = AVERROR(errno);
    return err;
}

/**
 * Where LibTorch's loader puts a member: the program's own files at their
 * path, the package's constants (data/constants/...) beside them; other
 * members are not extracted.  Empty: none of these.
 */
static std::string extracted_path(const std::string &record, const std::string &program)
{
    static const std::string constants = "data/constants/";

    if (starts_with(record, program))
        return record;
    if (starts_with(record, constants) && record.find('/', constants.size()) == std::string::npos)
        return program + record.substr(constants.size());
    return "";
}

/** The package's files of program name, extracted into dir: the .so's path and the weights'. */
static int extract_program(caffe2::serialize::PyTorchStreamReader &reader, const std::string &dir,
                           const std::string &name, std::string *so_path, std::string *blob_path,
                           const std::string &display_name, void *log_ctx)
{
    const std::string program = program_directory(name);

    for (const std::string &record : reader.getAllRecords()) {
        std::string relative = extracted_path(record, program);
        std::string path = dir + "/" + relative;
        int ret;

        if (relative.empty())
            continue;
        // the archive check refused such names already; never written outside dir
        if (relative.find("..") != std::string::npos || relative.find("//") != std::string::npos) {
            av_log(log_ctx, AV_LOG_ERROR, "The .pt2 package \"%s\" has a member named \"%s\": "
                   "it is not extracted\n", display_name.c_str(), record.c_str());
            return AVERROR_INVALIDDATA;
        }
        auto [data, size] = reader.getRecord(record);
        if ((ret = make_parents(dir, relative)) < 0 ||
            (ret = write_new_file(path, (const uint8_t *)data.get(), size)) < 0) {
            char reason[AV_ERROR_MAX_STRING_SIZE];
            av_strerror(ret, reason, sizeof(reason));
            av_log(log_ctx, AV_LOG_ERROR, "Could not extract \"%s\" of the .pt2 package into "
                   "%s: %s\n", record.c_str(), dir.c_str(), reason);
            return ret;
        }
        // the program is its wrapper's .so (LibTorch's loader takes the last .so)
        if (ends_with(relative, ".so") && !ends_with(*so_path, "wrapper.so"))
            *so_path = path;
        else if (ends_with(relative, ".blob"))
            *blob_path = path;
    }
    if (so_path->empty()) {
        // a package of C++ sources would be compiled here with the compiler
        // and flags it names: never done
        av_log(log_ctx, AV_LOG_ERROR, "The .pt2 package \"%s\" has no compiled code for its "
               "program \"%s\" (a .so): export it with tools/dnn-torch-export.py, which "
               "compiles it\n", display_name.c_str(), name.c_str());
        return AVERROR_INVALIDDATA;
    }
    return 0;
}

static int create_runner(THAotiProgram *p, const std::string &so_path, const std::string &blob_path,
                         const std::string &cubin_dir, const std::string &device_key,
                         const c10::Device &device, const std::string &display_name,
                         void *log_ctx)
{
    auto &registry = torch::inductor::getAOTIModelRunnerRegistry();
    auto it = registry.find(device_key);
    c10::Device on(device_key);

    if (it == registry.end()) {
        av_log(log_ctx, AV_LOG_ERROR, "The .pt2 package \"%s\" was compiled for \"%s\", which "
               "this LibTorch cannot run\n", display_name.c_str(), device_key.c_str());
        return AVERROR(ENOSYS);
    }
    if (device.has_index())
        on.set_index(device.index());
    p->runner = it->second(so_path, 1, on.str(), cubin_dir, false);
    if (!blob_path.empty())
        p->runner->update_constant_buffer_from_blob(blob_path);
    return 0;
}

int th_aoti_load(std::unique_ptr<THAotiProgram> *program, const std::string &path,
                 const std::string &display_name, const std::string &name,
                 const c10::Device &device, void *log_ctx)
{
    std::unique_ptr<THAotiProgram> p(new THAotiProgram);
    std::unordered_map<std::string, std::string> metadata;
    std::string so_path, blob_path;
    int ret;

    ret = th_aoti_read_metadata(path, display_name, name, &metadata, log_ctx);
    if (ret == AVERROR(ENOENT))
        av_log(log_ctx, AV_LOG_ERROR, "The .pt2 package \"%s\" has no program \"%s\"\n",
               display_name.c_str(), name.c_str());
    if (ret < 0)
        return ret;
    if (metadata["AOTI_DEVICE_KEY"].empty()) {
        av_log(log_ctx, AV_LOG_ERROR, "The .pt2 package \"%s\" does not say which device its "
               "program \"%s\" is for (AOTI_DEVICE_KEY)\n", display_name.c_str(), name.c_str());
        return AVERROR_INVALIDDATA;
    }
    if ((ret = make_private_dir(&p->dir, log_ctx)) < 0 ||
        (ret = check_executable(p->dir, log_ctx)) < 0)
        return ret;
    {
        caffe2::serialize::PyTorchStreamReader reader(path);
        ret = extract_program(reader, p->dir, name, &so_path, &blob_path, display_name, log_ctx);
    }
    if (ret < 0)
        return ret;
    ret = create_runner(p.get(), so_path, blob_path, p->dir + "/data/aotinductor/" + name,
                        metadata["AOTI_DEVICE_KEY"], device, display_name, log_ctx);
    if (ret < 0)
        return ret;
    *program = std::move(p);
    return 0;
}
