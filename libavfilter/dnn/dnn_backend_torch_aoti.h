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

/*
 * A .pt2 package's programs, extracted and loaded by the backend itself.
 *
 * LibTorch's AOTIModelPackageLoader extracts a package into /tmp/XXXXXX,
 * whatever TMPDIR says, and leaves that directory behind whenever its
 * constructor throws (a .so that does not load, a device it lacks): a
 * failed load left the package's code and kernels on the disk.  Its
 * metadata reader extracts to /tmp too.  Here a program's files go into a
 * directory of the process's own (TMPDIR, else /tmp; mode 0700), which is
 * removed on every path, and the program is loaded with LibTorch's runner.
 * A package is read with the archive checks already passed
 * (dnn_backend_torch_package.cpp), from the path the backend loads (the
 * hashed copy under model_sha256).
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_AOTI_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_AOTI_H

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <torch/torch.h>

namespace torch::inductor {
class AOTIModelContainerRunner;
}

/** One program of a package ("model", a recurrent package's "start"), loaded. */
class THAotiProgram {
public:
    ~THAotiProgram();
    std::vector<at::Tensor> run(const std::vector<at::Tensor> &inputs);

    std::string dir; ///< the private directory its files are in; removed with it
    std::unique_ptr<torch::inductor::AOTIModelContainerRunner> runner;
};

/**
 * The metadata (AOTI_DEVICE_KEY, the export tool's description...) of
 * program name of the package at path, read from the archive without
 * extracting it.  0, AVERROR(ENOENT) (not logged) where the package has no
 * such program, or another AVERROR, logged; throws what LibTorch throws.
 */
int th_aoti_read_metadata(const std::string &path, const std::string &display_name,
                          const std::string &name,
                          std::unordered_map<std::string, std::string> *metadata,
                          void *log_ctx);

/**
 * Program name of the package at path, extracted into a private temporary
 * directory and loaded for device (index -1: any).  0 or an AVERROR,
 * logged; nothing is left on the disk on failure.  Throws what LibTorch
 * throws (the directory is removed then too).
 */
int th_aoti_load(std::unique_ptr<THAotiProgram> *program, const std::string &path,
                 const std::string &display_name, const std::string &name,
                 const c10::Device &device, void *log_ctx);

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_AOTI_H */
