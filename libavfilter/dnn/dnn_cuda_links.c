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
#include "libavutil/avstring.h"
#include "libavutil/pixdesc.h"
#include "libavutil/imgutils.h"
#include "libavfilter/filters.h"
#include "libavfilter/dnn_interface.h"
#include "dnn_color_frame.h"

/*
 * The filters' side of CUDA frames: which links they take and the pools of
 * their output.  libavfilter holds it; the backend's side (dnn_cuda.c: the
 * conversion kernels) is in the torch backend's module.
 */

#define CHECK_CU(x) FF_CUDA_CHECK_DL(log_ctx, cu, x)

/*
 * The layouts of CUDA frames in 9.0.2 (hwcontext_cuda.c) that the kernels
 * take: what NVDEC outputs, the packed RGB ones and the other Y'CbCr ones.
 */
static const enum AVPixelFormat supported_formats[] = {
    AV_PIX_FMT_NV12, AV_PIX_FMT_P010, AV_PIX_FMT_P012, AV_PIX_FMT_P016,
    AV_PIX_FMT_NV16, AV_PIX_FMT_P210, AV_PIX_FMT_P212, AV_PIX_FMT_P216,
    AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV444P,
    AV_PIX_FMT_YUV420P10, AV_PIX_FMT_YUV422P10, AV_PIX_FMT_YUV444P10,
    AV_PIX_FMT_YUV444P10MSB, AV_PIX_FMT_YUV444P12MSB, AV_PIX_FMT_YUV444P16,
    AV_PIX_FMT_RGB0, AV_PIX_FMT_BGR0, AV_PIX_FMT_RGBA, AV_PIX_FMT_BGRA,
};

int ff_dnn_cuda_supported(enum AVPixelFormat sw_format)
{
    DNNColorLayout layout;

    for (int i = 0; i < FF_ARRAY_ELEMS(supported_formats); i++)
        if (supported_formats[i] == sw_format)
            return ff_dnn_color_layout(sw_format, &layout) >= 0;
    return 0;
}

static void log_supported(void *log_ctx, enum AVPixelFormat sw_format)
{
    char names[512] = "";

    for (int i = 0; i < FF_ARRAY_ELEMS(supported_formats); i++)
        av_strlcatf(names, sizeof(names), "%s%s", i ? ", " : "",
                    av_get_pix_fmt_name(supported_formats[i]));
    av_log(log_ctx, AV_LOG_ERROR, "Unsupported CUDA frames layout %s: CUDA frames must be "
           "one of %s\n", av_get_pix_fmt_name(sw_format), names);
}

static AVHWFramesContext *input_frames(AVFilterLink *inlink)
{
    FilterLink *l = ff_filter_link(inlink);
    return l->hw_frames_ctx ? (AVHWFramesContext *)l->hw_frames_ctx->data : NULL;
}

int ff_dnn_cuda_check_input(void *log_ctx, AVFilterLink *inlink, DNNBackendType backend)
{
    AVHWFramesContext *frames = input_frames(inlink);

    if (backend != DNN_TH) {
        av_log(log_ctx, AV_LOG_ERROR, "CUDA frames need dnn_backend=torch\n");
        return AVERROR(ENOSYS);
    }
    if (!frames || frames->device_ctx->type != AV_HWDEVICE_TYPE_CUDA) {
        av_log(log_ctx, AV_LOG_ERROR, "CUDA frames without a CUDA frames context\n");
        return AVERROR(EINVAL);
    }
    if (!ff_dnn_cuda_supported(frames->sw_format)) {
        log_supported(log_ctx, frames->sw_format);
        return AVERROR(ENOSYS);
    }
    return 0;
}

int ff_dnn_cuda_check_frame(void *log_ctx, AVFilterLink *inlink, const AVFrame *frame)
{
    AVHWFramesContext *configured = input_frames(inlink);
    AVHWFramesContext *frames = frame->hw_frames_ctx ?
                                (AVHWFramesContext *)frame->hw_frames_ctx->data : NULL;

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
    // (each below the size first, so that their sums cannot wrap around)
    if (frame->width != inlink->w || frame->height != inlink->h ||
        frame->width > frames->width || frame->height > frames->height ||
        frame->crop_left >= (size_t)frame->width || frame->crop_right  >= (size_t)frame->width ||
        frame->crop_top >= (size_t)frame->height || frame->crop_bottom >= (size_t)frame->height ||
        frame->crop_left + frame->crop_right  >= (size_t)frame->width ||
        frame->crop_top  + frame->crop_bottom >= (size_t)frame->height) {
        av_log(log_ctx, AV_LOG_ERROR, "A CUDA frame of %dx%d (crop %zu,%zu,%zu,%zu, in frames "
               "of %dx%d) arrived on a link configured for %dx%d\n", frame->width,
               frame->height, frame->crop_left, frame->crop_top, frame->crop_right,
               frame->crop_bottom, frames->width, frames->height, inlink->w, inlink->h);
        return AVERROR(EINVAL);
    }
    return 0;
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

int ff_dnn_cuda_copy_frame(void *log_ctx, AVFrame *dst, const AVFrame *src)
{
    AVHWFramesContext *src_frames = (AVHWFramesContext *)src->hw_frames_ctx->data;
    AVHWFramesContext *dst_frames = (AVHWFramesContext *)dst->hw_frames_ctx->data;
    AVCUDADeviceContext *hwctx = dst_frames->device_ctx->hwctx;
    CudaFunctions *cu = hwctx->internal->cuda_dl;
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(dst_frames->sw_format);
    CUcontext dummy;
    int ret, ret_pop;

    if (src_frames->sw_format != dst_frames->sw_format || src_frames->device_ctx != dst_frames->device_ctx ||
        src->width != dst->width || src->height != dst->height) {
        av_log(log_ctx, AV_LOG_ERROR, "Cannot copy a CUDA frame of %s %dx%d into one of %s %dx%d\n",
               av_get_pix_fmt_name(src_frames->sw_format), src->width, src->height,
               av_get_pix_fmt_name(dst_frames->sw_format), dst->width, dst->height);
        return AVERROR(EINVAL);
    }
    ret = CHECK_CU(cu->cuCtxPushCurrent(hwctx->cuda_ctx));
    if (ret < 0)
        return ret;
    for (int i = 0; i < av_pix_fmt_count_planes(dst_frames->sw_format) && ret >= 0; i++) {
        // a plane's height: the chroma planes (not alpha) are subsampled
        int chroma = i > 0 && !(desc->flags & AV_PIX_FMT_FLAG_RGB) && i < 3;
        CUDA_MEMCPY2D copy = {
            .srcMemoryType = CU_MEMORYTYPE_DEVICE,
            .srcDevice     = (CUdeviceptr)src->data[i],
            .srcPitch      = src->linesize[i],
            .dstMemoryType = CU_MEMORYTYPE_DEVICE,
            .dstDevice     = (CUdeviceptr)dst->data[i],
            .dstPitch      = dst->linesize[i],
            .WidthInBytes  = av_image_get_linesize(dst_frames->sw_format, dst->width, i),
            .Height        = chroma ? AV_CEIL_RSHIFT(dst->height, desc->log2_chroma_h) : dst->height,
        };
        ret = CHECK_CU(cu->cuMemcpy2DAsync(&copy, hwctx->stream));
    }
    ret_pop = CHECK_CU(cu->cuCtxPopCurrent(&dummy));
    return ret < 0 ? ret : ret_pop;
}
