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

#include <map>
#include <mutex>

#include "dnn_backend_torch_cuda.h"
#include "dnn_backend_torch_error.h"
#include "dnn_backend_torch_place.h"
#include "dnn_backend_torch_precision.h"

/*
 * cuDNN's autotuner is one switch of the process (LibTorch's), read by every
 * convolution of every thread: two filters cannot each have their own
 * value, and flipping it around each run would change the process's state
 * per frame.  So each filter that runs a model on a GPU claims the value it
 * asked for, once; a claim against a live filter's other value is refused.
 * The first claim of 1 turns the switch on (video has one input shape:
 * tuned once, then the fastest kernels), and the last one gone turns it back
 * off where it was off before; what the application set is left as it is.
 */
static std::mutex cudnn_lock;
static std::map<const DnnContext *, bool> cudnn_claims;
static bool cudnn_turned_on;

static size_t claims_of(bool value)
{
    size_t n = 0;
    for (const auto &claim : cudnn_claims)
        n += claim.second == value;
    return n;
}

static int claim_cudnn_benchmark(DnnContext *ctx)
{
    std::lock_guard<std::mutex> hold(cudnn_lock);
    bool want = ctx->torch_option.cudnn_benchmark;

    if (cudnn_claims.count(ctx))
        return 0;
    if (claims_of(!want)) {
        av_log(ctx, AV_LOG_ERROR, "cudnn_benchmark=%d, but another torch DNN filter of this "
               "process runs with cudnn_benchmark=%d: cuDNN's autotuner is one setting of the "
               "whole process; give every torch filter on a GPU the same cudnn_benchmark\n",
               want, !want);
        return AVERROR(EINVAL);
    }
    if (want && !at::globalContext().benchmarkCuDNN()) {
        at::globalContext().setBenchmarkCuDNN(true);
        cudnn_turned_on = true;
        av_log(ctx, AV_LOG_VERBOSE, "cuDNN's autotuner is on, for the whole process "
               "(cudnn_benchmark)\n");
    } else if (!want && at::globalContext().benchmarkCuDNN())
        av_log(ctx, AV_LOG_WARNING, "cudnn_benchmark=0, but the application turned cuDNN's "
               "autotuner on for the whole process: the model runs autotuned\n");
    cudnn_claims[ctx] = want;
    return 0;
}

void th_place_release(const DnnContext *ctx) noexcept
{
    std::lock_guard<std::mutex> hold(cudnn_lock);

    if (!cudnn_claims.erase(ctx) || claims_of(true) || !cudnn_turned_on)
        return;
    at::globalContext().setBenchmarkCuDNN(false);
    cudnn_turned_on = false;
}

int th_place_on_device(torch::jit::Module *model, THPackage *package, const c10::Device &device,
                       int cuda_frames, DnnContext *ctx) noexcept
{
    int ret;

    // LibTorch's CPU kernels are fast in fp32 and bf16, but few are in fp16
    if (device.is_cpu() && ctx->torch_option.precision == TH_PRECISION_FP16)
        av_log(ctx, AV_LOG_WARNING, "precision=fp16 on the CPU: LibTorch has few fast fp16 "
               "kernels for CPUs, the model may run several times slower than in fp32; "
               "prefer fp32, or bf16\n");
    if (device.is_cuda() && (ret = claim_cudnn_benchmark(ctx)) < 0)
        return ret;
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
