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
 * Models as .pt2 packages (torch.export + AOTInductor) in the LibTorch
 * backend: compiled code, run by LibTorch's AOTIModelPackageLoader instead
 * of TorchScript's interpreter.
 *
 * A package's compiled code trusts its input: a size or dtype other than
 * the one it was compiled for is read out of bounds, not refused.  So the
 * backend runs only packages that say what they take: the metadata that
 * tools/dnn-torch-export.py writes into them (ffmpeg_dnn_* keys: dtype,
 * memory format, channels, height and width ranges, torch version), and
 * checks every input against it.
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_PACKAGE_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_PACKAGE_H

#include <torch/torch.h>

extern "C" {
#include "libavfilter/dnn_interface.h"
}

#include <string>

#include "dnn_backend_torch_archive.h"

class THPackage;

/**
 * Open the model file as a .pt2 package if it is one and read what it
 * takes.  A package is native code, loaded only where the user asked for
 * one: a file named *.pt2, or model_format=pt2 (which it must then be);
 * another package is an error.  *package stays NULL for a TorchScript
 * file.  Either format's zip archive is checked first, before LibTorch
 * reads it (member count, sizes, names, CRC-32, pickles, the storages the
 * pickles name against their records, the tensors on them, code nesting,
 * metadata), every member whatever its size: a malformed one, or one in a
 * form the check cannot read, is AVERROR_INVALIDDATA.  What is read is
 * file's path, opened once: every check reads that one open file (with
 * model_sha256, the hashed copy); one that is no regular file (a pipe) is
 * AVERROR(EINVAL).  Messages name the model option's file.  Never throws:
 * 0 or an AVERROR, logged.
 */
int th_package_open(THPackage **package, const THModelFile &file, DnnContext *ctx) noexcept;

/**
 * Check the package against where it runs (device: the CUDA frames' GPU
 * when cuda_frames, else the device option; its GPU's architecture; the
 * precision option) and load its code there: on a GPU, inside the context
 * that is current (the frames' one for CUDA frames).  channels_last=auto
 * becomes the package's memory format, so that the input is written in it.
 * Never throws: 0 or an AVERROR, logged.
 */
int th_package_place(THPackage *package, const c10::Device &device, int cuda_frames,
                     DnnContext *ctx) noexcept;

/**
 * Run the package on input (1xCxHxW on its device, in its dtype): the
 * input's channels and size are checked against the package's first.  A
 * CUDA package runs on the current stream: FFmpeg's inside a CUDA section
 * (THCudaSection), LibTorch's otherwise.  Never throws: 0 or an AVERROR,
 * logged.
 */
int th_package_run(THPackage *package, const torch::Tensor &input, torch::Tensor *output,
                   DnnContext *ctx) noexcept;

/**
 * Run the package on inputs, a model of several frames
 * (DFT_PROCESS_FRAMES): its frames as ffmpeg_dnn_inputs says (one frame,
 * a pair, a window stacked on the channels or a contiguous 1 x N x C x H x
 * W sequence: each checked as th_package_run's input), then t or sigma;
 * not a recurrent one (th_package_run_recurrent).
 */
int th_package_run_inputs(THPackage *package, const std::vector<torch::Tensor> &inputs,
                          torch::Tensor *output, DnnContext *ctx) noexcept;

/**
 * Run a recurrent package (ffmpeg_dnn_inputs "recurrent") on inputs: the
 * frame, its state, then sigma.  An undefined state (the first frame, or
 * after a reset) runs the package's "start" program, compiled with the
 * state None; a state, its "model" program.  *output is the frame, *state
 * the state for the next one.
 */
int th_package_run_recurrent(THPackage *package, const std::vector<torch::Tensor> &inputs,
                             torch::Tensor *output, torch::Tensor *state,
                             DnnContext *ctx) noexcept;

/**
 * Check that the package takes what the filter gives (ffmpeg_dnn_inputs,
 * _t and _sigma against func_type and ctx's frames options).  Never
 * throws: 0 or AVERROR(EINVAL) naming both, logged.
 */
int th_package_check_signature(const THPackage *package, DNNFunctionType func_type,
                               DnnContext *ctx) noexcept;

void th_package_free(THPackage **package) noexcept;

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_PACKAGE_H */
