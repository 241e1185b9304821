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

#include <c10/core/impl/VirtualGuardImpl.h>

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
    if (!bad_frames)
        av_log(ctx, AV_LOG_WARNING, "The model's output has %" PRId64 " NaN or infinite "
               "values in the frame of pts %" PRId64 ": they are written as 0 (NaN, -Inf) "
               "and 1 (+Inf); further frames are counted, and summed up at the end\n",
               count, pts);
    bad_frames++;
    bad_values += count;
}

int THOutputValues::sanitize(torch::Tensor *output, int64_t pts, bool deferred,
                             DnnContext *ctx) noexcept
{
    return th_catch_all(ctx, "Could not check the values of the model's output", [&] {
        const c10::Device device = output->device();
        torch::Tensor count = torch::isfinite(*output).logical_not_().sum();

        *output = torch::nan_to_num(*output, 0.0, 1.0, 0.0);
        if (!deferred) {
            account(count.item<int64_t>(), pts, ctx);
            return 0;
        }
        // behind the stream: a pinned copy, and an event that says when it is there
        Pending p = { torch::empty({}, count.options().device(torch::kCPU).pinned_memory(true)),
                      c10::Event(device.type()), pts };
        p.count.copy_(count, /* non_blocking */ true);
        p.written.record(c10::impl::VirtualGuardImpl(device.type()).getStream(device));
        pending.push_back(std::move(p));
        collect(false, ctx);
        return 0;
    });
}

void THOutputValues::collect(bool stream_done, DnnContext *ctx) noexcept
{
    th_catch_all(ctx, "Could not read the counts of non-finite values", [&] {
        while (!pending.empty() && (stream_done || pending.front().written.query())) {
            account(pending.front().count.item<int64_t>(), pending.front().pts, ctx);
            pending.pop_front();
        }
        return 0;
    });
}

void THOutputValues::report(DnnContext *ctx) noexcept
{
    pending.clear();
    if (bad_frames)
        av_log(ctx, AV_LOG_WARNING, "The model's output had NaN or infinite values in "
               "%" PRId64 " of %" PRId64 " frames, %" PRId64 " values in all\n",
               bad_frames, frames, bad_values);
}
