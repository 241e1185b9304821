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

#include "libavutil/buffer.h"
#include "libavutil/frame.h"
#include "libavutil/pixfmt.h"
#include "libavfilter/avfilter.h"

typedef struct DNNCudaFrames {
    AVBufferRef *device_ref;          ///< the frames' CUDA device (AVHWDeviceContext)
    void *cuda_ctx;                   ///< its CUcontext, pushed around every CUDA section
    void *stream;                     ///< its CUstream, on which all work is queued
    int device_index;                 ///< ordinal of the GPU holding the frames
    enum AVPixelFormat sw_format;     ///< layout of the frames' data
} DNNCudaFrames;

/**
 * The picture of a CUDA frame, its crop applied: where each plane's first
 * visible pixel is, the planes' pitch and the visible size.
 */
typedef struct DNNCudaPicture {
    uint8_t *data[2];
    int linesize[2];
    int width, height;
} DNNCudaPicture;

/**
 * Bytes per pixel of a packed RGB layout that the DNN filters take as CUDA
 * frames (rgb0, bgr0, rgba, bgra), or 0 for any other.
 */
int ff_dnn_cuda_pixel_bytes(enum AVPixelFormat sw_format);

/**
 * Whether the DNN filters take CUDA frames of this layout: the packed RGB
 * ones above, and nv12 (what NVDEC gives), converted to and from RGB on the GPU.
 */
int ff_dnn_cuda_supported(enum AVPixelFormat sw_format);

/**
 * Check that inlink carries CUDA frames the DNN filters can take, and log
 * why not (with the supported layouts) if it does not.
 */
int ff_dnn_cuda_check_input(void *log_ctx, AVFilterLink *inlink);

/**
 * Check that a CUDA frame arriving on inlink is what the link was configured
 * with: the same layout and device, the link's size, a crop inside it.
 * Anything else would be read out of bounds: EINVAL.
 */
int ff_dnn_cuda_check_frame(void *log_ctx, AVFilterLink *inlink, const AVFrame *frame);

/**
 * The visible picture of a frame of layout sw_format: its crop_* fields
 * applied to the planes as av_frame_apply_cropping() would, without
 * touching the frame.  The frame must have passed ff_dnn_cuda_check_frame().
 */
void ff_dnn_cuda_get_picture(const AVFrame *frame, enum AVPixelFormat sw_format,
                             DNNCudaPicture *pic);

/**
 * Fill cf from the CUDA frames of inlink.  Free with ff_dnn_cuda_frames_uninit().
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
 * Give outlink a pool of CUDA frames of its size, with the layout and device
 * of inlink's frames: the model's output is written into them.
 */
int ff_dnn_cuda_init_output(AVFilterLink *outlink, AVFilterLink *inlink);

#endif /* AVFILTER_DNN_DNN_CUDA_H */
