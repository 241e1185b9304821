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
 * What the LibTorch backend makes of the values of a model's output: only
 * floating-point types are pictures, and NaN and infinities, which have no
 * code value, are written as 0 (NaN, -Inf) and 1 (+Inf), counted and
 * reported.  On the CPU (and for frames in system memory) a warning comes
 * with the first frame that has them; on CUDA frames, whose stream the
 * filter does not wait for, they are counted on the GPU and read at the
 * end.  Either way a summary ends the stream.
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_OUTPUT_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_OUTPUT_H

#include <mutex>
#include <utility>
#include <vector>

#include <torch/torch.h>

extern "C" {
#include "libavutil/avutil.h"
#include "libavfilter/dnn_interface.h"
}

/**
 * Which output frame an image of the output is: the frame of pts (a model of
 * one frame or a window), or one made at t between the frame of pts and the
 * next (a pair; t < 0: none).
 */
struct THOutputFrame {
    int64_t pts;
    float t;
};

/** The non-finite values of a model's output, counted over the stream. */
class THOutputValues {
public:
    /**
     * An error (EINVAL, logged) for an output that is not of a
     * floating-point type: integers or booleans are no picture in [0, 1].
     */
    static int check_type(const torch::Tensor &output, DnnContext *ctx) noexcept;

    /**
     * Count output's NaN and infinities for each of its images, the output
     * frames frames[0..N-1] (N: output's first dimension), and replace them
     * (NaN and -Inf by 0, +Inf by 1).  With on_gpu (CUDA frames) they are
     * counted on the GPU without waiting for it, and left to the kernels
     * that write the frames, which clip them so; otherwise counted and
     * replaced at once.  0 or an AVERROR, logged.
     */
    int sanitize(torch::Tensor *output, const THOutputFrame *frames, bool on_gpu,
                 DnnContext *ctx) noexcept;

    /**
     * Read the counts made on the GPU (a wait for it): at the end of the
     * stream, inside the CUDA section of the frames.
     */
    void collect(DnnContext *ctx) noexcept;

    /** The summary, at the end: how many frames had non-finite values. */
    void report(DnnContext *ctx) const noexcept;

private:
    void account(int64_t count, const THOutputFrame &frame, DnnContext *ctx);

    /// the counts below: with async, the worker threads of several requests count at once
    std::mutex lock;
    int64_t frames = 0;         ///< frames whose values were counted
    int64_t bad_frames = 0;     ///< of which with NaN or infinities
    int64_t bad_values = 0;
    THOutputFrame first = { AV_NOPTS_VALUE, -1 };  ///< the first such frame
    bool first_seen = false;
    /**
     * On the GPU, without waiting for it: each frame's count of finite
     * values, written by one reduction into the next int64 of these
     * blocks, with the frame's size and which frame it is here; read at
     * the end.
     */
    std::vector<torch::Tensor> gpu_blocks;
    std::vector<std::pair<int64_t, THOutputFrame>> gpu_frames; ///< values, frame
};

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_OUTPUT_H */
