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
 * CUDA frames for the DNN filters: which frames are accepted, the CUDA
 * context, stream and GPU they live on, and the pool of output frames.
 *
 * Plain C with FFmpeg's dynamically loaded CUDA driver API, so that the C++
 * backends can run on the frames' context without CUDA headers of their own.
 */

#ifndef AVFILTER_DNN_DNN_CUDA_H
#define AVFILTER_DNN_DNN_CUDA_H

#include "config.h"
#include "libavutil/buffer.h"
#include "libavutil/error.h"
#include "libavutil/frame.h"
#include "libavutil/pixfmt.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/dnn_interface.h"
#include "dnn_color.h"

typedef struct DNNCudaFrames {
    AVBufferRef *device_ref;          ///< the frames' CUDA device (AVHWDeviceContext)
    void *cuda_ctx;                   ///< its CUcontext, pushed around every CUDA section
    void *stream;                     ///< its CUstream, on which all work is queued
    int device_index;                 ///< ordinal of the GPU holding the frames
    enum AVPixelFormat sw_format;     ///< layout of the frames' data
    DNNColorLayout layout;            ///< where it keeps its components
    void *module;                     ///< CUmodule of the conversion kernels
    void *frame_to_tensor;            ///< CUfunction dnn_frame_to_tensor
    void *tensor_to_frame;            ///< CUfunction dnn_tensor_to_frame
    void *fill_black;                 ///< CUfunction dnn_fill_black
    int matrix_guessed;               ///< an unspecified matrix was reported
    /**
     * The backend's own: the model's pool in LibTorch's caching allocator
     * (a THCudaPool), which only this model allocates from, in the frames'
     * context.  Untouched by the functions below.
     */
    void *memory_pool;
} DNNCudaFrames;

/**
 * Fill cf from the CUDA frames of inlink and load the conversion kernels
 * into their context.  Free with ff_dnn_cuda_frames_uninit().
 */
int ff_dnn_cuda_frames_init(DNNCudaFrames *cf, AVFilterLink *inlink, void *log_ctx);
void ff_dnn_cuda_frames_uninit(DNNCudaFrames *cf);

/** Make the frames' CUDA context current on this thread (push) and restore it (pop). */
int ff_dnn_cuda_push(const DNNCudaFrames *cf, void *log_ctx);
int ff_dnn_cuda_pop(const DNNCudaFrames *cf, void *log_ctx);

/**
 * Report a failure of work queued earlier on the frames' stream (a kernel
 * that faulted, a device-side assert): the GPU runs behind the filter, so
 * such errors surface only later.  With wait, first wait for all the work
 * (at the end of the stream); without, only look (cheap, once per frame).
 * Call with the frames' context pushed.  0, or AVERROR_EXTERNAL logged.
 */
int ff_dnn_cuda_check_stream(const DNNCudaFrames *cf, int wait, void *log_ctx);

/**
 * Convert the visible picture of frame, whose planes are pic
 * (ff_dnn_color_planes(), which sized t), into tensor t: one kernel, queued
 * on the frames' stream.  Call with the context pushed.
 */
int ff_dnn_cuda_frame_to_tensor(DNNCudaFrames *cf, const AVFrame *frame, const DNNColorPlanes *pic,
                                const DNNColorTensor *t, void *log_ctx);

/**
 * Convert tensor t, the model's output for the input frame in, into the
 * visible picture of out (whose size t has): one kernel, queued on the
 * frames' stream; a cropped out is black outside its crop (one more
 * kernel).  out's crop must start on a chroma sample.  Call with the
 * context pushed.
 */
int ff_dnn_cuda_tensor_to_frame(DNNCudaFrames *cf, const DNNColorTensor *t,
                                const AVFrame *in, const AVFrame *out, void *log_ctx);

/* The filters' side of CUDA frames (dnn_cuda_links.c) is declared in
 * dnn_interface.h. */

#endif /* AVFILTER_DNN_DNN_CUDA_H */
