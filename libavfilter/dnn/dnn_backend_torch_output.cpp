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

#include "dnn_backend_torch_error.h"
#include "dnn_backend_torch_output.h"

int THOutputValues::check_type(const torch::Tensor &output, DnnContext *ctx) noexcept
{
    if (output.is_floating_point())
        return 0;
    av_log(ctx, AV_LOG_ERROR, "The model's output is of type %s: dnn_processing needs "
           "floating-point values in [0, 1] (convert in the model, for example "
           "x.float() / 255)\n", c10::toString(output.scalar_type()));
    return AVERROR(EINVAL);
}

void THOutputValues::account(int64_t count, int64_t pts, DnnContext *ctx)
{
    frames++;
    if (!count)
        return;
    if (!first_seen)
        av_log(ctx, AV_LOG_WARNING, "The model's output has %" PRId64 " NaN or infinite "
               "values in the frame of pts %" PRId64 ": they are written as 0 (NaN, -Inf) "
               "and 1 (+Inf); further frames are counted, and summed up at the end\n",
               count, pts);
    if (!first_seen || pts < first_pts) {
        first_pts  = pts;
        first_seen = true;
    }
    bad_frames++;
    bad_values += count;
}

int THOutputValues::sanitize(torch::Tensor *output, int64_t pts, bool on_gpu,
                             DnnContext *ctx) noexcept
{
    return th_catch_all(ctx, "Could not check the values of the model's output", [&] {
        torch::Tensor count = torch::isfinite(*output).logical_not_().sum();

        *output = torch::nan_to_num(*output, 0.0, 1.0, 0.0);
        if (!on_gpu) {
            account(count.item<int64_t>(), pts, ctx);
            return 0;
        }
        // summed where they are: reading them would wait for the GPU
        if (!gpu_counts.defined())
            gpu_counts = torch::tensor({ 0, 0, -1 }, count.options());
        torch::Tensor seen = count.gt(0);
        gpu_counts[0] += seen;
        gpu_counts[1] += count;
        gpu_counts[2] = torch::where(seen.logical_and(gpu_counts[2].lt(0)),
                                     count.new_full({}, pts), gpu_counts[2]);
        gpu_frames++;
        return 0;
    });
}

void THOutputValues::collect(DnnContext *ctx) noexcept
{
    th_catch_all(ctx, "Could not read the counts of non-finite values", [&] {
        if (!gpu_counts.defined())
            return 0;
        torch::Tensor counts = gpu_counts.cpu();
        int64_t pts = counts[2].item<int64_t>();

        frames += gpu_frames;
        bad_frames += counts[0].item<int64_t>();
        bad_values += counts[1].item<int64_t>();
        if (pts >= 0 && (!first_seen || pts < first_pts)) {
            first_pts  = pts;
            first_seen = true;
        }
        gpu_counts = torch::Tensor();
        gpu_frames = 0;
        return 0;
    });
}

void THOutputValues::report(DnnContext *ctx) const noexcept
{
    if (bad_frames)
        av_log(ctx, AV_LOG_WARNING, "The model's output had NaN or infinite values in "
               "%" PRId64 " of %" PRId64 " frames (the first: pts %" PRId64 "), %" PRId64
               " values in all; they were written as 0 (NaN, -Inf) and 1 (+Inf)\n",
               bad_frames, frames, first_pts, bad_values);
}
