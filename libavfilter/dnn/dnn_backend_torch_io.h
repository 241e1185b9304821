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
 * Frames and tensors in the LibTorch backend: how a frame becomes the
 * model's input and its output a frame, by one of three paths chosen once,
 * when the filter is configured (the input's format and device are known
 * then, and a filter graph never changes them):
 *
 * - CUDA frames: the fused kernels on the frames' GPU (dnn_backend_torch_cuda);
 * - frames in system memory that the fork's colour model converts (Y'CbCr
 *   with yuv_input=rgb, packed RGB with alpha...: dnn_backend_torch_color);
 * - the others: upstream's dnn_io_proc, or the filter's own pre and post
 *   processing.
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_IO_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_IO_H

#include <torch/torch.h>

extern "C" {
#include "libavutil/frame.h"
#include "libavutil/pixfmt.h"
#include "libavfilter/dnn_interface.h"
#include "dnn_cuda.h"
}

enum THFramePath {
    TH_FRAME_PATH_IO_PROC, ///< dnn_io_proc, or the filter's frame_pre_proc/frame_post_proc
    TH_FRAME_PATH_COLOR,   ///< the colour model on the CPU (dnn_color.c)
    TH_FRAME_PATH_CUDA,    ///< the CUDA kernels, in place on the frames' GPU
};

typedef struct THFrameIO {
    enum THFramePath path;
    enum AVPixelFormat layout;  ///< the frames' data: their format, or their CUDA frames' sw_format
    int channels;               ///< of the model's input and output tensors
    int width, height;          ///< the input's size at configuration, what frames are checked against
    DnnContext *ctx;
    DNNCudaFrames *cuda;        ///< the frames' device (bound for the CUDA path)
    const DNNModel *model;      ///< the filter's pre and post processing
} THFrameIO;

/**
 * Choose the path for the filter's input: frames of format (AV_PIX_FMT_CUDA
 * for a bound cuda) and of width x height.  Called at configuration, after
 * the model was placed.
 */
void th_io_configure(THFrameIO *io, const DNNModel *model, DNNCudaFrames *cuda,
                     enum AVPixelFormat format, int width, int height, DnnContext *ctx);

/**
 * frame as the model's input tensor: 1xCxHxW, float32 on the CPU, or in the
 * model's precision on the frames' GPU (inside a THCudaSection).  Without
 * convert (the dry run that sizes the output, whose frame has no data):
 * zeros of the frame's size.  0 or an AVERROR, logged.
 */
int th_io_read_frame(const THFrameIO *io, const AVFrame *frame, int convert, torch::Tensor *tensor);

/**
 * Whether output can become images frames: 4-D NCHW, images of the
 * frames' channels and of a size a frame can have.  0 or AVERROR(EINVAL), logged.
 */
int th_io_check_output(const THFrameIO *io, const torch::Tensor &output, int64_t images);

/**
 * The output as the path writes it: for frames in system memory it must be
 * of out's size (in: the input frame, whose size tells whose doing a
 * mismatch is), and becomes contiguous float32 on the CPU; CUDA frames take
 * it as it is.  0 or an AVERROR, logged.
 */
int th_io_output_for_frame(const THFrameIO *io, const AVFrame *in, const AVFrame *out,
                           torch::Tensor *output);

/**
 * One image of the output (prepared) into out; in is the input frame (its
 * alpha, a luma model's chroma, its crop).  Without convert (the dry run):
 * out only takes the output's size.  0 or an AVERROR, logged.
 */
int th_io_write_frame(const THFrameIO *io, const torch::Tensor &output, const AVFrame *in,
                      AVFrame *out, int convert);

/** After a failed inference on Y'CbCr frames: what the model saw, and the option that decides it. */
void th_io_log_input(const THFrameIO *io);

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_IO_H */
