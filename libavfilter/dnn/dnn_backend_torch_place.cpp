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

#include "dnn_backend_torch_cuda.h"
#include "dnn_backend_torch_error.h"
#include "dnn_backend_torch_place.h"
#include "dnn_backend_torch_precision.h"

int th_place_on_device(torch::jit::Module *model, THPackage *package, const c10::Device &device,
                       int cuda_frames, DnnContext *ctx) noexcept
{
    int ret;

    // LibTorch's CPU kernels are fast in fp32 and bf16, but few are in fp16
    if (device.is_cpu() && ctx->torch_option.precision == TH_PRECISION_FP16)
        av_log(ctx, AV_LOG_WARNING, "precision=fp16 on the CPU: LibTorch has few fast fp16 "
               "kernels for CPUs, the model may run several times slower than in fp32; "
               "prefer fp32, or bf16\n");
    // LibTorch's switch is process-wide: set once, when asked, never reset
    // (video has one input shape: tuned once, then the fastest kernels)
    if (device.is_cuda() && ctx->torch_option.cudnn_benchmark &&
        !at::globalContext().benchmarkCuDNN()) {
        at::globalContext().setBenchmarkCuDNN(true);
        av_log(ctx, AV_LOG_VERBOSE, "cuDNN's autotuner is on, for the whole process "
               "(cudnn_benchmark)\n");
    }
    if (package)
        return th_package_place(package, device, cuda_frames, ctx);
    ret = th_catch_all(ctx, "Could not move the model to its device",
                       [&] { model->to(device); return 0; });
    if (ret < 0)
        return ret;
    return th_precision_apply(model, device, ctx);
}

int th_place_model(DNNCudaFrames *cf, AVFilterLink *inlink, torch::jit::Module *model,
                   THPackage *package, c10::Device *device, DnnContext *ctx) noexcept
{
    if (inlink->format == AV_PIX_FMT_CUDA)
        return th_cuda_place_model(cf, inlink, model, package, device, ctx);
    return th_place_on_device(model, package, *device, 0, ctx);
}
