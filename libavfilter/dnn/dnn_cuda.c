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

#include "libavutil/hwcontext.h"
#include "libavutil/hwcontext_cuda_internal.h"
#include "libavutil/cuda_check.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/filters.h"
#include "dnn_cuda.h"

#define CHECK_CU(x) FF_CUDA_CHECK_DL(log_ctx, cu, x)

static const enum AVPixelFormat packed_rgb_formats[] = {
    AV_PIX_FMT_RGB0, AV_PIX_FMT_BGR0, AV_PIX_FMT_RGBA, AV_PIX_FMT_BGRA,
};

int ff_dnn_cuda_pixel_bytes(enum AVPixelFormat sw_format)
{
    for (int i = 0; i < FF_ARRAY_ELEMS(packed_rgb_formats); i++)
        if (packed_rgb_formats[i] == sw_format)
            return av_get_padded_bits_per_pixel(av_pix_fmt_desc_get(sw_format)) / 8;
    return 0;
}

int ff_dnn_cuda_supported(enum AVPixelFormat sw_format)
{
    return sw_format == AV_PIX_FMT_NV12 || ff_dnn_cuda_pixel_bytes(sw_format) > 0;
}

static AVHWFramesContext *input_frames(AVFilterLink *inlink)
{
    FilterLink *l = ff_filter_link(inlink);
    return l->hw_frames_ctx ? (AVHWFramesContext *)l->hw_frames_ctx->data : NULL;
}

int ff_dnn_cuda_check_input(void *log_ctx, AVFilterLink *inlink)
{
    AVHWFramesContext *frames = input_frames(inlink);

    if (!frames || frames->device_ctx->type != AV_HWDEVICE_TYPE_CUDA) {
        av_log(log_ctx, AV_LOG_ERROR, "CUDA frames without a CUDA frames context\n");
        return AVERROR(EINVAL);
    }
    if (!ff_dnn_cuda_supported(frames->sw_format)) {
        av_log(log_ctx, AV_LOG_ERROR, "Unsupported CUDA frames layout %s: CUDA frames must be "
               "rgb0, bgr0, rgba, bgra or nv12\n",
               av_get_pix_fmt_name(frames->sw_format));
        return AVERROR(ENOSYS);
    }
    return 0;
}

int ff_dnn_cuda_check_frame(void *log_ctx, AVFilterLink *inlink, const AVFrame *frame)
{
    AVHWFramesContext *configured = input_frames(inlink);
    AVHWFramesContext *frames = frame->hw_frames_ctx ?
                                (AVHWFramesContext *)frame->hw_frames_ctx->data : NULL;
    size_t width, height;

    if (!frames || frames->device_ctx->type != AV_HWDEVICE_TYPE_CUDA || !frame->data[0]) {
        av_log(log_ctx, AV_LOG_ERROR, "A CUDA frame without CUDA frames context or data\n");
        return AVERROR(EINVAL);
    }
    if (frames->sw_format != configured->sw_format) {
        av_log(log_ctx, AV_LOG_ERROR, "A CUDA frame of layout %s arrived on a link "
               "configured for %s\n", av_get_pix_fmt_name(frames->sw_format),
               av_get_pix_fmt_name(configured->sw_format));
        return AVERROR(EINVAL);
    }
    if (frames->device_ctx != configured->device_ctx) {
        av_log(log_ctx, AV_LOG_ERROR, "A CUDA frame from another CUDA device than "
               "the link was configured with\n");
        return AVERROR(EINVAL);
    }
    // hardware frames keep their size when cropped: crop_* tell what is seen
    width  = (size_t)frame->crop_left + frame->crop_right;
    height = (size_t)frame->crop_top  + frame->crop_bottom;
    if (frame->width != inlink->w || frame->height != inlink->h ||
        frame->width > frames->width || frame->height > frames->height ||
        width >= (size_t)frame->width || height >= (size_t)frame->height) {
        av_log(log_ctx, AV_LOG_ERROR, "A CUDA frame of %dx%d (crop %zu,%zu,%zu,%zu, in frames "
               "of %dx%d) arrived on a link configured for %dx%d\n", frame->width,
               frame->height, frame->crop_left, frame->crop_top, frame->crop_right,
               frame->crop_bottom, frames->width, frames->height, inlink->w, inlink->h);
        return AVERROR(EINVAL);
    }
    return 0;
}

void ff_dnn_cuda_get_picture(const AVFrame *frame, enum AVPixelFormat sw_format,
                             DNNCudaPicture *pic)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(sw_format);

    pic->width  = frame->width  - frame->crop_left - frame->crop_right;
    pic->height = frame->height - frame->crop_top  - frame->crop_bottom;
    for (int i = 0; i < FF_ARRAY_ELEMS(pic->data); i++) {
        // as av_frame_apply_cropping(): the step of the plane's first
        // component, chroma offsets rounded down
        int shift_x = i ? desc->log2_chroma_w : 0;
        int shift_y = i ? desc->log2_chroma_h : 0;
        int step = 0;

        for (int c = desc->nb_components - 1; c >= 0; c--)
            if (desc->comp[c].plane == i)
                step = desc->comp[c].step;
        pic->linesize[i] = frame->linesize[i];
        pic->data[i] = step ? frame->data[i] + (frame->crop_top  >> shift_y) * frame->linesize[i]
                                             + (frame->crop_left >> shift_x) * step : NULL;
    }
}

int ff_dnn_cuda_frames_init(DNNCudaFrames *cf, AVFilterLink *inlink, void *log_ctx)
{
    AVHWFramesContext *frames;
    AVCUDADeviceContext *hwctx;
    CudaFunctions *cu;
    CUcontext dummy;
    CUdevice device;
    int ret;

    ret = ff_dnn_cuda_check_input(log_ctx, inlink);
    if (ret < 0)
        return ret;
    frames = input_frames(inlink);
    hwctx  = frames->device_ctx->hwctx;
    cu     = hwctx->internal->cuda_dl;

    ret = CHECK_CU(cu->cuCtxPushCurrent(hwctx->cuda_ctx));
    if (ret < 0)
        return ret;
    ret = CHECK_CU(cu->cuCtxGetDevice(&device));
    CHECK_CU(cu->cuCtxPopCurrent(&dummy));
    if (ret < 0)
        return ret;

    cf->device_ref = av_buffer_ref(frames->device_ref);
    if (!cf->device_ref)
        return AVERROR(ENOMEM);
    cf->cuda_ctx     = hwctx->cuda_ctx;
    cf->stream       = hwctx->stream;
    cf->device_index = device;
    cf->sw_format    = frames->sw_format;
    return 0;
}

void ff_dnn_cuda_frames_uninit(DNNCudaFrames *cf)
{
    av_buffer_unref(&cf->device_ref);
    cf->cuda_ctx = cf->stream = NULL;
}

static CudaFunctions *cuda_functions(const DNNCudaFrames *cf)
{
    AVHWDeviceContext *device = (AVHWDeviceContext *)cf->device_ref->data;
    return ((AVCUDADeviceContext *)device->hwctx)->internal->cuda_dl;
}

int ff_dnn_cuda_push(const DNNCudaFrames *cf, void *log_ctx)
{
    CudaFunctions *cu = cuda_functions(cf);
    return CHECK_CU(cu->cuCtxPushCurrent((CUcontext)cf->cuda_ctx));
}

int ff_dnn_cuda_pop(const DNNCudaFrames *cf, void *log_ctx)
{
    CudaFunctions *cu = cuda_functions(cf);
    CUcontext dummy;
    return CHECK_CU(cu->cuCtxPopCurrent(&dummy));
}

int ff_dnn_cuda_check_stream(const DNNCudaFrames *cf, int wait, void *log_ctx)
{
    CudaFunctions *cu = cuda_functions(cf);
    const char *name = "", *text = "";
    CUresult err;

    err = wait ? cu->cuStreamSynchronize((CUstream)cf->stream)
               : cu->cuStreamQuery((CUstream)cf->stream);
    if (err == CUDA_SUCCESS || err == CUDA_ERROR_NOT_READY)
        return 0;
    cu->cuGetErrorName(err, &name);
    cu->cuGetErrorString(err, &text);
    av_log(log_ctx, AV_LOG_ERROR, "The GPU failed on work queued for an earlier frame: "
           "%s: %s\n", name, text);
    return AVERROR_EXTERNAL;
}

int ff_dnn_cuda_init_output(AVFilterLink *outlink, AVFilterLink *inlink)
{
    AVHWFramesContext *in_frames = input_frames(inlink);
    FilterLink *outl = ff_filter_link(outlink);
    AVBufferRef *out_ref;
    AVHWFramesContext *out_frames;
    int ret;

    out_ref = av_hwframe_ctx_alloc(in_frames->device_ref);
    if (!out_ref)
        return AVERROR(ENOMEM);
    out_frames = (AVHWFramesContext *)out_ref->data;
    out_frames->format    = AV_PIX_FMT_CUDA;
    out_frames->sw_format = in_frames->sw_format;
    out_frames->width     = outlink->w;
    out_frames->height    = outlink->h;

    ret = av_hwframe_ctx_init(out_ref);
    if (ret < 0) {
        av_buffer_unref(&out_ref);
        return ret;
    }
    av_buffer_unref(&outl->hw_frames_ctx);
    outl->hw_frames_ctx = out_ref;
    return 0;
}
