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

#include <string>

#include "dnn_backend_torch_error.h"
#include "dnn_backend_torch_output.h"

int THOutputValues::check_type(const torch::Tensor &output, DnnContext *ctx) noexcept
{
    if (output.is_floating_point())
        return 0;
    av_log(ctx, AV_LOG_ERROR, "The model's output is of type %s: it must hold "
           "floating-point values in [0, 1] (convert in the model, for example "
           "x.float() / 255)\n", c10::toString(output.scalar_type()));
    return AVERROR(EINVAL);
}

/** "pts 40", or "made at t=0.25 after pts 40" for a frame a pair made */
static std::string frame_name(const THOutputFrame &frame)
{
    char name[96];

    if (frame.t < 0)
        snprintf(name, sizeof(name), "pts %" PRId64, frame.pts);
    else
        snprintf(name, sizeof(name), "made at t=%.4g after pts %" PRId64, frame.t, frame.pts);
    return name;
}

/** Whether a comes before b in the stream. */
static bool earlier(const THOutputFrame &a, const THOutputFrame &b)
{
    return a.pts < b.pts || (a.pts == b.pts && a.t < b.t);
}

void THOutputValues::account(int64_t count, const THOutputFrame &frame, DnnContext *ctx)
{
    std::lock_guard<std::mutex> hold(lock);

    frames++;
    if (!count)
        return;
    if (!first_seen)
        av_log(ctx, AV_LOG_WARNING, "The model's output has %" PRId64 " NaN or infinite "
               "values in the frame %s%s: they are written as 0 (NaN, -Inf) and 1 (+Inf); "
               "further frames are counted, and summed up at the end\n", count,
               frame.t < 0 ? "of " : "", frame_name(frame).c_str());
    if (!first_seen || earlier(frame, first)) {
        first      = frame;
        first_seen = true;
    }
    bad_frames++;
    bad_values += count;
}

int THOutputValues::sanitize(torch::Tensor *output, const THOutputFrame *frames, bool on_gpu,
                             DnnContext *ctx) noexcept
{
    return th_catch_all(ctx, "Could not check the values of the model's output", [&] {
        static const int64_t block_size = 1024;
        static const size_t most_frames = 64 * block_size;

        if (!on_gpu) {
            // one count per image: a batch of N times is N frames
            torch::Tensor bad = torch::isfinite(*output).logical_not_().flatten(1).sum(1).cpu();
            for (int64_t i = 0; i < bad.size(0); i++)
                account(bad[i].item<int64_t>(), frames[i], ctx);
            *output = torch::nan_to_num(*output, 0.0, 1.0, 0.0);
            return 0;
        }
        for (int64_t i = 0; i < output->size(0); i++) {
            torch::Tensor image = output->narrow(0, i, 1);
            size_t frame;
            // an endless stream: read them every 65536 frames (a wait for the GPU
            // then), so that what is kept stays bounded
            if (gpu_frames.size() == most_frames)
                collect(ctx);
            frame = gpu_frames.size();
            // two kernels a frame: the finite values, summed into this frame's slot
            if (frame % block_size == 0)
                gpu_blocks.push_back(torch::empty({ block_size },
                                                  output->options().dtype(torch::kInt64)));
            torch::Tensor slot = gpu_blocks.back().narrow(0, frame % block_size, 1).squeeze();
            at::sum_out(slot, torch::isfinite(image));
            gpu_frames.emplace_back(image.numel(), frames[i]);
        }
        return 0;
    });
}

void THOutputValues::collect(DnnContext *ctx) noexcept
{
    th_catch_all(ctx, "Could not read the counts of non-finite values", [&] {
        for (size_t b = 0; b < gpu_blocks.size(); b++) {
            torch::Tensor finite = gpu_blocks[b].cpu();
            const int64_t *count = finite.data_ptr<int64_t>();
            for (int64_t i = 0; i < finite.size(0); i++) {
                size_t frame = b * finite.size(0) + i;
                if (frame >= gpu_frames.size())
                    break;
                account(gpu_frames[frame].first - count[i], gpu_frames[frame].second, ctx);
            }
        }
        gpu_blocks.clear();
        gpu_frames.clear();
        return 0;
    });
}

void THOutputValues::report(DnnContext *ctx) const noexcept
{
    if (bad_frames)
        av_log(ctx, AV_LOG_WARNING, "The model's output had NaN or infinite values in "
               "%" PRId64 " of %" PRId64 " frames (the first: %s), %" PRId64
               " values in all; they were written as 0 (NaN, -Inf) and 1 (+Inf)\n",
               bad_frames, frames, frame_name(first).c_str(), bad_values);
}
