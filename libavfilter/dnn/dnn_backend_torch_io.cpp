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

#include "dnn_backend_torch_io.h"
#include "dnn_backend_torch_color.h"
#include "dnn_backend_torch_cuda.h"
#include "dnn_backend_torch_error.h"

extern "C" {
#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "dnn_io_proc.h"
}

void th_io_configure(THFrameIO *io, const DNNModel *model, DNNCudaFrames *cuda,
                     enum AVPixelFormat format, int width, int height, DnnContext *ctx)
{
    io->ctx    = ctx;
    io->cuda   = cuda;
    io->model  = model;
    io->width  = width;
    io->height = height;
    if (format == AV_PIX_FMT_CUDA && th_cuda_bound(cuda)) {
        io->path   = TH_FRAME_PATH_CUDA;
        io->layout = cuda->sw_format;
    } else {
        io->path   = ff_dnn_color_converts(format, ctx->yuv_input) ? TH_FRAME_PATH_COLOR :
                                                                      TH_FRAME_PATH_IO_PROC;
        io->layout = format;
    }
    io->channels = ff_dnn_color_channels(io->layout, ctx->yuv_input);
}

static void free_frame_data(void *data)
{
    av_free(data);
}

/** A frame in system memory: converted on the CPU into float32 NCHW. */
static int read_host_frame(const THFrameIO *io, const AVFrame *frame, int convert,
                           torch::Tensor *tensor)
{
    DNNData input = { 0 };
    size_t size = (size_t)frame->width * frame->height * io->channels;
    int ret = 0;

    input.dt       = DNN_FLOAT;
    input.order    = DCO_RGB;
    input.layout   = DL_NCHW;
    input.scale    = 255;
    input.dims[0]  = 1;
    input.dims[1]  = io->channels;
    input.dims[2]  = frame->height;
    input.dims[3]  = frame->width;
    // the dry run has no frame data: zeros, not uninitialized memory; a
    // frame is converted into every element, so it needs no clearing
    input.data = convert ? av_malloc_array(size, sizeof(float)) : av_calloc(size, sizeof(float));
    if (!input.data)
        return AVERROR(ENOMEM);
    if (convert && io->path == TH_FRAME_PATH_COLOR)
        ret = th_color_read_frame(io->ctx, frame, (float *)input.data, io->channels);
    else if (convert && io->model->frame_pre_proc)
        ret = io->model->frame_pre_proc((AVFrame *)frame, &input, io->model->filter_ctx);
    else if (convert)
        ret = ff_proc_from_frame_to_dnn((AVFrame *)frame, &input, io->ctx);
    if (ret < 0) {
        av_freep(&input.data);
        return ret;
    }
    try {
        *tensor = torch::from_blob(input.data, {1, io->channels, frame->height, frame->width},
                                   free_frame_data, torch::kFloat32);
    } catch (const std::exception &e) {
        th_log_exception(io->ctx, "Could not wrap the input frame", e);
        av_freep(&input.data);
        return AVERROR_EXTERNAL;
    }
    return 0;
}

int th_io_read_frame(const THFrameIO *io, const AVFrame *frame, int convert, torch::Tensor *tensor)
{
    // the kernel writes zeros for the dry run itself (a frame without data)
    if (io->path == TH_FRAME_PATH_CUDA)
        return th_cuda_read_input(io->cuda, frame, tensor, io->ctx);
    return read_host_frame(io, frame, convert, tensor);
}

int th_io_check_output(const THFrameIO *io, const torch::Tensor &output, int64_t images)
{
    DnnContext *ctx = io->ctx;

    if (output.dim() != 4) {
        av_log(ctx, AV_LOG_ERROR, "The model's output has %d dimensions; "
               "it must be a 4-D NCHW tensor\n", (int)output.dim());
        return AVERROR(EINVAL);
    }
    if (output.size(0) != images) {
        av_log(ctx, AV_LOG_ERROR, "The model's output holds %" PRId64 " images; "
               "the filter needs %" PRId64 "%s\n", (int64_t)output.size(0), images,
               images > 1 ? ", one per output time" : "");
        return AVERROR(EINVAL);
    }
    if (output.size(1) != io->channels) {
        // which yuv_input would have made the model's channels right
        int other = ff_dnn_color_channels(io->layout, !ctx->yuv_input) != io->channels;
        av_log(ctx, AV_LOG_ERROR, "The model's output has %" PRId64 " channels; "
               "%s frames need %d%s\n", (int64_t)output.size(1),
               av_get_pix_fmt_name(io->layout), io->channels,
               !other ? "" : ctx->yuv_input ? " with yuv_input=rgb" : " with yuv_input=luma");
        return AVERROR(EINVAL);
    }
    if (output.size(2) < 1 || output.size(3) < 1 ||
        output.size(2) > INT_MAX || output.size(3) > INT_MAX) {
        av_log(ctx, AV_LOG_ERROR, "The model's output is %" PRId64 "x%" PRId64 "\n",
               (int64_t)output.size(3), (int64_t)output.size(2));
        return AVERROR(EINVAL);
    }
    return 0;
}

int th_io_output_for_frame(const THFrameIO *io, const AVFrame *in, const AVFrame *out,
                           torch::Tensor *output)
{
    DnnContext *ctx = io->ctx;

    // th_cuda_write_output checks the size itself, and places the output of
    // a cropped picture
    if (io->path == TH_FRAME_PATH_CUDA)
        return 0;
    if (output->size(2) != out->height || output->size(3) != out->width) {
        // not the model's doing where the input changed size (a filter such
        // as scale with eval=frame; ffmpeg starts a new graph itself)
        if (in->width != io->width || in->height != io->height)
            av_log(ctx, AV_LOG_ERROR, "The frame is %dx%d where the filter's input was %dx%d: "
                   "the frame size cannot change inside a filter graph\n",
                   in->width, in->height, io->width, io->height);
        else
            av_log(ctx, AV_LOG_ERROR, "The model's output is %" PRId64 "x%" PRId64 " but was %dx%d "
                   "when the filter was configured: its size must depend on the input size only\n",
                   (int64_t)output->size(3), (int64_t)output->size(2), out->width, out->height);
        return AVERROR(EINVAL);
    }
    try {
        // the CPU conversions read contiguous float32 in system memory
        *output = output->to(torch::kCPU, torch::kFloat32).contiguous();
    } catch (const std::exception &e) {
        th_log_exception(ctx, "Could not read the model's output", e);
        return AVERROR_EXTERNAL;
    }
    return 0;
}

int th_io_write_frame(const THFrameIO *io, const torch::Tensor &output, const AVFrame *in,
                      AVFrame *out, int convert)
{
    DNNData data = { 0 };

    if (!convert) {
        out->width  = (int)output.size(3);
        out->height = (int)output.size(2);
        return 0;
    }
    switch (io->path) {
    case TH_FRAME_PATH_CUDA:
        return th_cuda_write_output(io->cuda, output, in, out, io->ctx);
    case TH_FRAME_PATH_COLOR:
        return th_color_write_frame(io->ctx, (const float *)output.data_ptr(),
                                    (int)output.size(1), in, out);
    case TH_FRAME_PATH_IO_PROC:
        break;
    }
    data.dt      = DNN_FLOAT;
    data.order   = DCO_RGB;
    data.layout  = DL_NCHW;
    data.scale   = 255;
    data.dims[0] = output.size(0);
    data.dims[1] = output.size(1);
    data.dims[2] = output.size(2);
    data.dims[3] = output.size(3);
    data.data    = output.data_ptr();
    if (io->model->frame_post_proc)
        return io->model->frame_post_proc(out, &data, io->model->filter_ctx);
    return ff_proc_from_dnn_to_frame(out, &data, io->ctx);
}

void th_io_log_input(const THFrameIO *io)
{
    const char *name = av_get_pix_fmt_name(io->layout);

    if (ff_dnn_color_channels(io->layout, DNN_COLOR_YUV_LUMA) ==
        ff_dnn_color_channels(io->layout, DNN_COLOR_YUV_RGB))
        return;
    if (io->ctx->yuv_input == DNN_COLOR_YUV_LUMA)
        av_log(io->ctx, AV_LOG_ERROR, "The model's input was the luma of %s frames (1 channel, "
               "yuv_input=luma); for a model of RGB input set yuv_input=rgb\n", name);
    else
        av_log(io->ctx, AV_LOG_ERROR, "The model's input was RGB made of %s frames (3 channels, "
               "yuv_input=rgb); for a model of luma input set yuv_input=luma\n", name);
}
