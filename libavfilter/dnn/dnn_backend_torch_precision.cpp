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

#include "dnn_backend_torch_precision.h"

#include "dnn_backend_torch_error.h"

const char *th_precision_name(int precision)
{
    switch (precision) {
    case TH_PRECISION_FP16: return "fp16";
    case TH_PRECISION_BF16: return "bf16";
    default:                return "fp32";
    }
}

c10::ScalarType th_precision_dtype(const DnnContext *ctx)
{
    switch (ctx->torch_option.precision) {
    case TH_PRECISION_FP16: return torch::kFloat16;
    case TH_PRECISION_BF16: return torch::kBFloat16;
    default:                return torch::kFloat32;
    }
}

c10::MemoryFormat th_precision_memory_format(const DnnContext *ctx, const c10::Device &device)
{
    int channels_last = ctx->torch_option.channels_last;

    if (channels_last < 0) // auto
        channels_last = device.is_cuda() && ctx->torch_option.precision != TH_PRECISION_FP32;
    return channels_last ? c10::MemoryFormat::ChannelsLast : c10::MemoryFormat::Contiguous;
}

int th_precision_apply(torch::jit::Module *model, const c10::Device &device, DnnContext *ctx) noexcept
{
    c10::ScalarType dtype = th_precision_dtype(ctx);
    c10::MemoryFormat format = th_precision_memory_format(ctx, device);
    int ret = th_catch_all(ctx, "Could not cast the model to its precision", [&] {
        if (dtype != torch::kFloat32)
            model->to(dtype);
        if (format == c10::MemoryFormat::ChannelsLast)
            for (torch::Tensor param : model->parameters())
                if (param.dim() == 4)
                    param.set_data(param.contiguous(format));
        return 0;
    });

    if (ret < 0)
        return ret;
    av_log(ctx, AV_LOG_VERBOSE, "The model runs in %s, %s\n",
           th_precision_name(ctx->torch_option.precision),
           format == c10::MemoryFormat::ChannelsLast ? "channels last" : "NCHW");
    return 0;
}

torch::Tensor th_precision_input(const torch::Tensor &input, const c10::Device &device,
                                 const DnnContext *ctx)
{
    return input.to(device, th_precision_dtype(ctx))
                .contiguous(th_precision_memory_format(ctx, device));
}
