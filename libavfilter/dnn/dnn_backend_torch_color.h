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
 * YUV frames in system memory with yuv_input=rgb in the LibTorch backend:
 * dnn_color.c's conversion, spread over as many threads as LibTorch's
 * intra-op setting (a band of rows each), so that the CPU path is not held
 * to one core.
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_COLOR_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_COLOR_H

extern "C" {
#include "libavutil/frame.h"
}

/**
 * A frame's picture -> the model's float32 NCHW input (data, of its size),
 * and the model's float32 NCHW output -> out (in: the input frame).
 * Never throw: 0 or an AVERROR, logged.
 */
int th_color_read_frame(void *log_ctx, const AVFrame *frame, float *data, int channels) noexcept;
int th_color_write_frame(void *log_ctx, const float *data, int channels,
                         const AVFrame *in, AVFrame *out) noexcept;

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_COLOR_H */
