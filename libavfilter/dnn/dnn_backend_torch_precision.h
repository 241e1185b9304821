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
 * The model's precision in the LibTorch backend (torch_precision,
 * torch_channels_last): its weights cast once when it is placed, its input
 * made in that dtype and memory format.
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_PRECISION_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_PRECISION_H

#include <torch/torch.h>
#include <torch/script.h>

extern "C" {
#include "libavfilter/dnn_interface.h"
}

/** A precision's name in the option: "fp32", "fp16" or "bf16". */
const char *th_precision_name(int precision);

/** The dtype of the model's weights and input. */
c10::ScalarType th_precision_dtype(const DnnContext *ctx);

/**
 * The memory format of the model's input and 4-D weights: channels_last
 * where torch_channels_last says so; by default (auto) for fp16 and bf16
 * on a GPU, where cuDNN's tensor-core convolutions want it.
 */
c10::MemoryFormat th_precision_memory_format(const DnnContext *ctx, const c10::Device &device);

/**
 * Cast the model, on device, to the precision and memory format, once.
 * Never throws: 0 or an AVERROR, logged.
 */
int th_precision_apply(torch::jit::Module *model, const c10::Device &device, DnnContext *ctx) noexcept;

/** An input tensor as the model wants it: on device, its dtype and memory format. */
torch::Tensor th_precision_input(const torch::Tensor &input, const c10::Device &device,
                                 const DnnContext *ctx);

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_PRECISION_H */
