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
 * reported: a warning for the first frame that has them, a summary at the
 * end.  On CUDA frames the counts come back to the host behind the frames'
 * stream, without waiting for it.
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_OUTPUT_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_OUTPUT_H

#include <deque>

#include <c10/core/Event.h>
#include <torch/torch.h>

extern "C" {
#include "libavfilter/dnn_interface.h"
}

/** The non-finite values of a model's output, counted over the stream. */
class THOutputValues {
public:
    /**
     * An error (EINVAL, logged) for an output that is not of a
     * floating-point type: integers or booleans are no picture in [0, 1].
     */
    static int check_type(const torch::Tensor &output, DnnContext *ctx) noexcept;

    /**
     * Replace output's NaN and infinities (NaN and -Inf by 0, +Inf by 1) and
     * count them for the frame of timestamp pts.  On a GPU the count is
     * queued on the current stream and read when it is there (deferred
     * true: CUDA frames, whose stream the filter does not wait for);
     * elsewhere it is read at once.  0 or an AVERROR, logged.
     */
    int sanitize(torch::Tensor *output, int64_t pts, bool deferred, DnnContext *ctx) noexcept;

    /**
     * Read the counts the GPU has written by now; with stream_done (the
     * frames' stream waited for) all of them.  Call inside a CUDA section
     * where counts are deferred.
     */
    void collect(bool stream_done, DnnContext *ctx) noexcept;

    /**
     * The summary, at the end: how many frames had non-finite values.
     * Counts still on their way are dropped: call inside a CUDA section
     * where they are deferred.
     */
    void report(DnnContext *ctx) noexcept;

private:
    struct Pending {
        torch::Tensor count;    ///< int64, in pinned host memory
        c10::Event written;     ///< when the GPU has written count
        int64_t pts;
    };
    void account(int64_t count, int64_t pts, DnnContext *ctx);

    std::deque<Pending> pending;
    int64_t frames = 0;         ///< frames whose values were counted
    int64_t bad_frames = 0;     ///< of which with NaN or infinities
    int64_t bad_values = 0;
};

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_OUTPUT_H */
