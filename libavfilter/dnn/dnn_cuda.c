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
#include "libavfilter/cuda/load_helper.h"
#include "dnn_color_frame.h"
#include "dnn_cuda.h"

#define CHECK_CU(x) FF_CUDA_CHECK_DL(log_ctx, cu, x)

extern const unsigned char ff_dnn_cuda_convert_ptx_data[];
extern const unsigned int ff_dnn_cuda_convert_ptx_len;

static AVHWFramesContext *input_frames(AVFilterLink *inlink)
{
    FilterLink *l = ff_filter_link(inlink);
    return l->hw_frames_ctx ? (AVHWFramesContext *)l->hw_frames_ctx->data : NULL;
}

static int load_kernels(DNNCudaFrames *cf, AVCUDADeviceContext *hwctx, void *log_ctx)
{
    CudaFunctions *cu = hwctx->internal->cuda_dl;
    CUmodule module;
    CUfunction func;
    int ret;

    ret = ff_cuda_load_module(log_ctx, hwctx, &module, ff_dnn_cuda_convert_ptx_data,
                              ff_dnn_cuda_convert_ptx_len);
    if (ret < 0) {
        av_log(log_ctx, AV_LOG_ERROR, "Could not load the CUDA conversion kernels\n");
        return ret;
    }
    cf->module = module;
    ret = CHECK_CU(cu->cuModuleGetFunction(&func, module, "dnn_frame_to_tensor"));
    if (ret < 0)
        return ret;
    cf->frame_to_tensor = func;
    ret = CHECK_CU(cu->cuModuleGetFunction(&func, module, "dnn_tensor_to_frame"));
    if (ret < 0)
        return ret;
    cf->tensor_to_frame = func;
    ret = CHECK_CU(cu->cuModuleGetFunction(&func, module, "dnn_fill_black"));
    if (ret < 0)
        return ret;
    cf->fill_black = func;
    return 0;
}

/** Unload the kernels, the context pushed (here: the frames' device still lives). */
static void unload_kernels(DNNCudaFrames *cf, AVCUDADeviceContext *hwctx, void *log_ctx)
{
    CudaFunctions *cu = hwctx->internal->cuda_dl;
    CUcontext dummy;

    if (!cf->module)
        return;
    if (CHECK_CU(cu->cuCtxPushCurrent(hwctx->cuda_ctx)) >= 0) {
        CHECK_CU(cu->cuModuleUnload((CUmodule)cf->module));
        CHECK_CU(cu->cuCtxPopCurrent(&dummy));
    }
    cf->module = cf->frame_to_tensor = cf->tensor_to_frame = cf->fill_black = NULL;
}

int ff_dnn_cuda_frames_init(DNNCudaFrames *cf, AVFilterLink *inlink, void *log_ctx)
{
    AVHWFramesContext *frames;
    AVCUDADeviceContext *hwctx;
    CudaFunctions *cu;
    CUcontext dummy;
    CUdevice device;
    int ret;

    // the filter checked the link's layout (ff_dnn_cuda_check_input())
    frames = input_frames(inlink);
    if (!frames || frames->device_ctx->type != AV_HWDEVICE_TYPE_CUDA) {
        av_log(log_ctx, AV_LOG_ERROR, "CUDA frames without a CUDA frames context\n");
        return AVERROR(EINVAL);
    }
    hwctx  = frames->device_ctx->hwctx;
    cu     = hwctx->internal->cuda_dl;

    *cf = (DNNCudaFrames){ 0 };
    ret = ff_dnn_color_layout(frames->sw_format, &cf->layout);
    if (ret < 0)
        return ret;
    if (cf->layout.log2_chroma_w > 1 || cf->layout.log2_chroma_h > 1) {
        // supported_formats has none: dnn_cuda_convert.cu's tiles hold 2x subsampling at most
        av_log(log_ctx, AV_LOG_ERROR, "Chroma subsampled more than 2x is not supported "
               "on CUDA frames\n");
        return AVERROR_BUG;
    }
    ret = CHECK_CU(cu->cuCtxPushCurrent(hwctx->cuda_ctx));
    if (ret < 0)
        return ret;
    ret = CHECK_CU(cu->cuCtxGetDevice(&device));
    if (ret >= 0)
        ret = load_kernels(cf, hwctx, log_ctx);
    CHECK_CU(cu->cuCtxPopCurrent(&dummy));
    if (ret < 0)
        goto fail;

    cf->device_ref = av_buffer_ref(frames->device_ref);
    if (!cf->device_ref) {
        ret = AVERROR(ENOMEM);
        goto fail;
    }
    cf->cuda_ctx     = hwctx->cuda_ctx;
    cf->stream       = hwctx->stream;
    cf->device_index = device;
    cf->sw_format    = frames->sw_format;
    return 0;

fail:
    unload_kernels(cf, hwctx, log_ctx);
    return ret;
}

void ff_dnn_cuda_frames_uninit(DNNCudaFrames *cf)
{
    if (cf->device_ref) {
        AVHWDeviceContext *device = (AVHWDeviceContext *)cf->device_ref->data;
        unload_kernels(cf, device->hwctx, NULL);
    }
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

static int launch(const DNNCudaFrames *cf, void *func, DNNColorConvert *params,
                  int width, int height, void *log_ctx)
{
    CudaFunctions *cu = cuda_functions(cf);
    void *args[] = { params };

    return CHECK_CU(cu->cuLaunchKernel((CUfunction)func,
                                       FFALIGN(width,  DNN_COLOR_BLOCK_W) / DNN_COLOR_BLOCK_W,
                                       FFALIGN(height, DNN_COLOR_BLOCK_H) / DNN_COLOR_BLOCK_H, 1,
                                       DNN_COLOR_BLOCK_W, DNN_COLOR_BLOCK_H, 1,
                                       0, (CUstream)cf->stream, args, NULL));
}

/** The matrix of a frame; an unspecified one is said once, at verbose level. */
static int frame_matrix(DNNCudaFrames *cf, const AVFrame *frame, DNNColorMatrix *m, void *log_ctx)
{
    int guessed, ret = ff_dnn_color_matrix(log_ctx, frame, &cf->layout, m, &guessed);

    if (ret >= 0 && guessed && !cf->matrix_guessed) {
        av_log(log_ctx, AV_LOG_VERBOSE, "The frames' matrix is unspecified: BT.601 "
               "(bt470bg), as swscale\n");
        cf->matrix_guessed = 1;
    }
    return ret;
}

int ff_dnn_cuda_frame_to_tensor(DNNCudaFrames *cf, const AVFrame *frame, const DNNColorPlanes *pic,
                                const DNNColorTensor *t, void *log_ctx)
{
    DNNColorConvert params = { .layout = cf->layout, .frame = *pic, .tensor = *t };
    int ret = frame_matrix(cf, frame, &params.matrix, log_ctx);

    if (ret < 0)
        return ret;
    return launch(cf, cf->frame_to_tensor, &params, params.frame.width, params.frame.height,
                  log_ctx);
}

int ff_dnn_cuda_tensor_to_frame(DNNCudaFrames *cf, const DNNColorTensor *t,
                                const AVFrame *in, const AVFrame *out, void *log_ctx)
{
    DNNColorConvert params = { .layout = cf->layout, .tensor = *t };
    int ret = frame_matrix(cf, out, &params.matrix, log_ctx);

    if (ret < 0)
        return ret;
    ff_dnn_color_planes(out, &cf->layout, &params.frame);
    if (params.frame.phase_x || params.frame.phase_y) {
        // the kernel writes whole chroma blocks: the output's crop starts on one
        av_log(log_ctx, AV_LOG_ERROR, "The output frame's crop (%zu,%zu) does not start "
               "on a chroma sample\n", out->crop_left, out->crop_top);
        return AVERROR_BUG;
    }
    if (out->crop_left || out->crop_top || out->crop_right || out->crop_bottom) {
        // the rest of a pooled frame holds an earlier picture: black instead
        DNNColorConvert whole = params;
        ff_dnn_color_whole_planes(out, &cf->layout, &whole.frame);
        ret = launch(cf, cf->fill_black, &whole,
                     dnn_color_chroma_width(&cf->layout, &whole.frame),
                     dnn_color_chroma_height(&cf->layout, &whole.frame), log_ctx);
        if (ret < 0)
            return ret;
    }
    ff_dnn_color_planes(in, &cf->layout, &params.source);
    // a thread per chroma sample
    return launch(cf, cf->tensor_to_frame, &params,
                  dnn_color_chroma_size(params.frame.width,  cf->layout.log2_chroma_w),
                  dnn_color_chroma_size(params.frame.height, cf->layout.log2_chroma_h), log_ctx);
}
