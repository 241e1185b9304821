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
 * Where the LibTorch backend's model runs, decided once the input is known:
 * CUDA frames' GPU, or the device option's device for frames in system
 * memory.
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_PLACE_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_PLACE_H

#include <torch/torch.h>
#include <torch/script.h>

extern "C" {
#include "libavfilter/avfilter.h"
#include "libavfilter/dnn_interface.h"
#include "dnn_cuda.h"
}

#include "dnn_backend_torch_package.h"

/**
 * Place the model, loaded on the CPU, where it runs, in its precision and
 * memory format: on the GPU of inlink's CUDA frames (binding cf to them), or
 * on *device.  The TorchScript model is moved and cast; a .pt2 package (when
 * not NULL) is checked against that device and loaded there.  *device
 * becomes where the model runs.  Never throws: 0 or an AVERROR, logged.
 */
int th_place_model(DNNCudaFrames *cf, AVFilterLink *inlink, torch::jit::Module *model,
                   THPackage *package, c10::Device *device, DnnContext *ctx) noexcept;

/**
 * The placement itself, on a known device (for CUDA frames their GPU, with
 * their context current): the TorchScript model moved and cast, or the
 * package (when not NULL) checked and loaded.  Never throws: 0 or an
 * AVERROR, logged.
 */
int th_place_on_device(torch::jit::Module *model, THPackage *package, const c10::Device &device,
                       int cuda_frames, DnnContext *ctx) noexcept;

/**
 * What placing the model on a GPU claimed of the process (cuDNN's
 * autotuner, cudnn_benchmark), given back when the model is freed.
 */
void th_place_release(const DnnContext *ctx) noexcept;

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_PLACE_H */
