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

/**
 * @file
 * The model file and its checks, for both formats of the LibTorch backend
 * (TorchScript and .pt2 packages are zip archives): the file pinned by
 * model_sha256, the archive's structure and contents checked before
 * LibTorch reads them, and a TorchScript module's tensors against their
 * storages after it did.
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_ARCHIVE_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_ARCHIVE_H

#include <torch/script.h>

extern "C" {
#include "libavfilter/dnn_interface.h"
}

#include <cstdio>
#include <string>

/** The file the loaders read: the model option's, or a checked copy of it. */
class THModelFile {
public:
    THModelFile() = default;
    ~THModelFile();
    THModelFile(const THModelFile &) = delete;
    THModelFile &operator=(const THModelFile &) = delete;

    std::string path;           ///< what LibTorch's loaders open
    FILE *copy = nullptr;       ///< with model_sha256: the bytes hashed, unlinked, in TMPDIR
};

/**
 * The model file, as the loaders are to read it.  Without model_sha256,
 * the model option's file.  With it, the file is read once, hashed while
 * it is written to an unlinked temporary file, and its SHA-256 must be
 * model_sha256's; the archive check and LibTorch's loaders then read that
 * copy (through /dev/fd), so that a file replaced or rewritten after the
 * check is not what runs.  A pipe's copy is kept for a later load of the
 * same name with the same pin (a pipe is read once; a regular file is read
 * by each load).  0, or an AVERROR (EINVAL naming both hashes),
 * logged.  Never throws.
 */
int th_model_file_open(THModelFile *file, DnnContext *ctx) noexcept;

/**
 * Check that the tensors a TorchScript module holds as attributes
 * (parameters, buffers, tensor attributes, recursively; not tensors inside
 * lists, dicts or objects, nor the constants of its code) lie inside their
 * storages: the unpickler takes any storage offset and strides from the
 * file, and the model would then read and write out of bounds.  (That each
 * storage fits its record is checked before loading, by th_package_open().)
 * 0, or AVERROR_INVALIDDATA naming the tensor (logged).  Never throws.
 */
int th_module_check_tensors(const torch::jit::Module &module, DnnContext *ctx) noexcept;

/**
 * Check the zip archive at path before LibTorch reads it (member count,
 * sizes, names, CRC-32, pickles, the storages the pickles name against
 * their records, the tensors on them, code nesting, a package's metadata),
 * every member whatever its size, reading one open of path only; messages
 * name filename.  A file that is no zip archive is left to LibTorch (0),
 * one that is no regular file (a pipe) is AVERROR(EINVAL), a malformed
 * archive or one in a form the check cannot read AVERROR_INVALIDDATA.
 * Logged.  May throw (std::bad_alloc): th_package_open() catches.
 */
int th_archive_check(const char *path, const char *filename, DnnContext *ctx);

/** Whether the file at path is a zip archive holding AOTInductor's compiled model. */
bool th_archive_is_package(const char *path);

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_ARCHIVE_H */
