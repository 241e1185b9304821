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

#include <map>
#include <mutex>
#include <ATen/cuda/CUDAContextLight.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>

#include "dnn_backend_torch_cuda.h"

static std::mutex cudnn_benchmark_lock;
static int cudnn_benchmark_users;
static bool cudnn_benchmark_saved;

THCudnnBenchmark::THCudnnBenchmark()
{
    std::lock_guard<std::mutex> lock(cudnn_benchmark_lock);
    if (cudnn_benchmark_users++ == 0) {
        cudnn_benchmark_saved = at::globalContext().benchmarkCuDNN();
        at::globalContext().setBenchmarkCuDNN(true);
    }
}

THCudnnBenchmark::~THCudnnBenchmark()
{
    std::lock_guard<std::mutex> lock(cudnn_benchmark_lock);
    if (--cudnn_benchmark_users == 0)
        at::globalContext().setBenchmarkCuDNN(cudnn_benchmark_saved);
}

THCudaSection::THCudaSection(const DNNCudaFrames *cf, void *log_ctx) noexcept
    : cf(cf), log_ctx(log_ctx)
{
    err = ff_dnn_cuda_push(cf, log_ctx);
    if (err < 0)
        return;
    pushed = true;
    try {
        // FFmpeg's stream (NULL is the context's default stream): ordering
        // with the decoder, other CUDA filters and the encoder comes from
        // it, so no synchronization is needed here.  LibTorch refuses it
        // (throws) when it cannot use the frames' GPU.
        stream_guard.emplace(c10::cuda::getStreamFromExternal((cudaStream_t)cf->stream,
                                                              cf->device_index));
        cudnn_benchmark.emplace();
    } catch (const std::exception &e) {
        th_log_exception(log_ctx, "LibTorch cannot run on the frames' CUDA stream", e);
        err = AVERROR_EXTERNAL;
    } catch (...) {
        av_log(log_ctx, AV_LOG_ERROR, "LibTorch cannot run on the frames' CUDA stream\n");
        err = AVERROR_EXTERNAL;
    }
}

THCudaSection::~THCudaSection()
{
    cudnn_benchmark.reset();
    stream_guard.reset();
    if (pushed)
        ff_dnn_cuda_pop(cf, log_ctx);
}

/*
 * LibTorch's caching allocator is per GPU, not per CUDA context: the blocks
 * it keeps were allocated in the context that was current, and die with it.
 * Count the models bound to each context, so that the last one empties the
 * cache before that context may go, and no other model's cache is dropped
 * while its context lives.
 */
static std::mutex bound_contexts_lock;
static std::map<void *, int> bound_contexts;

static void count_bound_model(const DNNCudaFrames *cf)
{
    std::lock_guard<std::mutex> lock(bound_contexts_lock);
    bound_contexts[cf->cuda_ctx]++;
}

/** Whether this was the last model bound to cf's context. */
static bool uncount_bound_model(const DNNCudaFrames *cf)
{
    std::lock_guard<std::mutex> lock(bound_contexts_lock);
    auto it = bound_contexts.find(cf->cuda_ctx);
    if (it == bound_contexts.end() || --it->second > 0)
        return false;
    bound_contexts.erase(it);
    return true;
}

static int check_frames_device(const DNNCudaFrames *cf, const c10::Device *device, DnnContext *ctx)
{
    int index = cf->device_index;
    int visible = (int)torch::cuda::device_count();

    if (!torch::cuda::is_available() || index >= visible) {
        av_log(ctx, AV_LOG_ERROR, "The frames are on GPU %d, which LibTorch cannot use "
               "(it sees %d CUDA devices)\n", index, visible);
        return AVERROR(ENODEV);
    }
    if (device->is_cuda() && device->has_index() && device->index() != index) {
        av_log(ctx, AV_LOG_ERROR, "device=%s, but the CUDA frames are on GPU %d: use "
               "device=cuda, which follows the frames\n", ctx->device, index);
        return AVERROR(EINVAL);
    }
    if (!device->is_cuda())
        av_log(ctx, AV_LOG_INFO, "CUDA frames: the model runs on their GPU %d "
               "(device=%s applies to frames in system memory)\n", index,
               ctx->device ? ctx->device : "cpu");
    return 0;
}

static int move_model(const DNNCudaFrames *cf, torch::jit::Module *model,
                      const c10::Device &device, DnnContext *ctx)
{
    THCudaSection section(cf, ctx);
    int ret = section.error();

    if (ret < 0)
        return ret;
    try {
        model->to(device);
    } catch (const std::exception &e) {
        th_log_exception(ctx, "Could not move the model to the frames' GPU", e);
        return AVERROR_EXTERNAL;
    }
    return 0;
}

/** Check the frames' GPU, move the model there and say so. */
static int place_on_frames_gpu(const DNNCudaFrames *cf, torch::jit::Module *model,
                               c10::Device *device, DnnContext *ctx)
{
    c10::Device frames_device(c10::kCUDA, cf->device_index);
    int ret = check_frames_device(cf, device, ctx);

    if (ret < 0)
        return ret;
    ret = move_model(cf, model, frames_device, ctx);
    if (ret < 0)
        return ret;
    *device = frames_device;
    // the GPU's name comes from libtorch_cuda: referencing it also keeps the
    // library linked with --as-needed, when programs link libavfilter through
    // its .pc file (which lists it without FFmpeg's own --no-as-needed)
    av_log(ctx, AV_LOG_VERBOSE, "CUDA frames (%s) on GPU %d (%s): the model runs on cuda:%d, "
           "on the frames' context and stream\n", av_get_pix_fmt_name(cf->sw_format),
           cf->device_index, at::cuda::getDeviceProperties(cf->device_index)->name,
           cf->device_index);
    if (ctx->async)
        av_log(ctx, AV_LOG_VERBOSE, "CUDA frames: inference is queued on the frames' "
               "CUDA stream from the filter thread; async has no effect\n");
    return 0;
}

int th_cuda_place_model(DNNCudaFrames *cf, AVFilterLink *inlink, torch::jit::Module *model,
                        c10::Device *device, DnnContext *ctx) noexcept
{
    int ret = ff_dnn_cuda_frames_init(cf, inlink, ctx);

    if (ret < 0)
        return ret;
    try {
        ret = place_on_frames_gpu(cf, model, device, ctx);
    } catch (const std::exception &e) {
        th_log_exception(ctx, "Could not use the frames' GPU", e);
        ret = AVERROR_EXTERNAL;
    } catch (...) {
        av_log(ctx, AV_LOG_ERROR, "Could not use the frames' GPU\n");
        ret = AVERROR_EXTERNAL;
    }
    if (ret < 0) {
        // unbound: teardown must not enter the frames' context for LibTorch
        ff_dnn_cuda_frames_uninit(cf);
        return ret;
    }
    count_bound_model(cf);
    return 0;
}

void th_cuda_release_model(DNNCudaFrames *cf, torch::jit::Module **model, void *log_ctx) noexcept
{
    bool last = uncount_bound_model(cf);
    {
        THCudaSection section(cf, log_ctx);
        try {
            // the model's memory belongs to the frames' context: released in it
            delete *model;
            *model = NULL;
            if (section.error() >= 0 && last)
                c10::cuda::CUDACachingAllocator::emptyCache();
        } catch (const std::exception &e) {
            th_log_exception(log_ctx, "Could not release the model's GPU memory", e);
        } catch (...) {
            av_log(log_ctx, AV_LOG_ERROR, "Could not release the model's GPU memory\n");
        }
    }
    ff_dnn_cuda_frames_uninit(cf);
}

/** A uint8 HxWxB view of plane i of a picture, rows linesize bytes apart. */
static torch::Tensor picture_plane(const DNNCudaFrames *cf, const DNNCudaPicture &pic, int i,
                                   int64_t height, int64_t width, int64_t bytes)
{
    auto options = torch::TensorOptions().dtype(torch::kUInt8)
                                         .device(torch::kCUDA, cf->device_index);

    return torch::from_blob(pic.data[i], {height, width, bytes},
                            {pic.linesize[i], bytes, 1}, options);
}

static torch::Tensor picture_pixels(const DNNCudaFrames *cf, const DNNCudaPicture &pic)
{
    return picture_plane(cf, pic, 0, pic.height, pic.width,
                         ff_dnn_cuda_pixel_bytes(cf->sw_format));
}

/** Y'CbCr <-> R'G'B' of a frame: its matrix (BT.601 when unknown, as swscale) and range. */
struct YuvMatrix {
    float kr, kb;
    bool full_range;
};

static YuvMatrix yuv_matrix(const AVFrame *frame)
{
    bool full = frame->color_range == AVCOL_RANGE_JPEG;

    switch (frame->colorspace) {
    case AVCOL_SPC_BT709:      return { 0.2126f, 0.0722f, full };
    case AVCOL_SPC_BT2020_NCL: return { 0.2627f, 0.0593f, full };
    default:                   return { 0.299f,  0.114f,  full };
    }
}

static torch::Tensor nv12_to_rgb(const DNNCudaFrames *cf, const AVFrame *frame,
                                 const DNNCudaPicture &pic)
{
    namespace F = torch::nn::functional;
    YuvMatrix m = yuv_matrix(frame);
    int64_t h = pic.height, w = pic.width;
    torch::Tensor y  = picture_plane(cf, pic, 0, h, w, 1).squeeze(2).to(torch::kFloat32);
    torch::Tensor uv = picture_plane(cf, pic, 1, (h + 1) / 2, (w + 1) / 2, 2)
                           .permute({2, 0, 1}).unsqueeze(0).to(torch::kFloat32);

    // chroma to full size (bilinear, centred), then the matrix
    uv = F::interpolate(uv, F::InterpolateFuncOptions().size(std::vector<int64_t>{h, w})
                                .mode(torch::kBilinear).align_corners(false))[0];
    y  = m.full_range ? y / 255.0f : (y - 16.0f) / 219.0f;
    uv = m.full_range ? (uv - 128.0f) / 255.0f : (uv - 128.0f) / 224.0f;

    torch::Tensor r = y + 2.0f * (1.0f - m.kr) * uv[1];
    torch::Tensor b = y + 2.0f * (1.0f - m.kb) * uv[0];
    torch::Tensor g = (y - m.kr * r - m.kb * b) / (1.0f - m.kr - m.kb);
    return torch::stack({r, g, b}).clamp_(0.0f, 1.0f).unsqueeze(0);
}

static torch::Tensor to_uint8(const torch::Tensor &t)
{
    return t.round().clamp_(0, 255).to(torch::kUInt8);
}

static void rgb_to_nv12(const DNNCudaFrames *cf, const torch::Tensor &output, const AVFrame *frame,
                        const DNNCudaPicture &pic)
{
    namespace F = torch::nn::functional;
    YuvMatrix m = yuv_matrix(frame);
    int64_t h = pic.height, w = pic.width;
    torch::Tensor rgb = output[0].to(torch::kFloat32).clamp(0.0f, 1.0f);
    torch::Tensor y  = m.kr * rgb[0] + (1.0f - m.kr - m.kb) * rgb[1] + m.kb * rgb[2];
    torch::Tensor cb = (rgb[2] - y) / (2.0f * (1.0f - m.kb));
    torch::Tensor cr = (rgb[0] - y) / (2.0f * (1.0f - m.kr));
    // 4:2:0: the mean of each 2x2 block (of what is there, at odd edges)
    torch::Tensor c = F::avg_pool2d(torch::stack({cb, cr}).unsqueeze(0),
                                    F::AvgPool2dFuncOptions(2).stride(2).ceil_mode(true))[0];

    y = m.full_range ? y * 255.0f : y * 219.0f + 16.0f;
    c = m.full_range ? c * 255.0f + 128.0f : c * 224.0f + 128.0f;
    picture_plane(cf, pic, 0, h, w, 1).squeeze(2).copy_(to_uint8(y));
    picture_plane(cf, pic, 1, (h + 1) / 2, (w + 1) / 2, 2).copy_(to_uint8(c).permute({1, 2, 0}));
}

static torch::Tensor frame_to_tensor(const DNNCudaFrames *cf, const AVFrame *frame)
{
    DNNCudaPicture pic;

    if (!frame->data[0]) // the dry run
        return torch::zeros({1, 3, frame->height, frame->width},
                            torch::TensorOptions().dtype(torch::kFloat32)
                                                  .device(torch::kCUDA, cf->device_index));
    ff_dnn_cuda_get_picture(frame, cf->sw_format, &pic);
    if (cf->sw_format == AV_PIX_FMT_NV12)
        return nv12_to_rgb(cf, frame, pic);

    torch::Tensor rgb = picture_pixels(cf, pic).narrow(2, 0, 3).permute({2, 0, 1}).unsqueeze(0);
    torch::Tensor input = torch::empty(rgb.sizes(), rgb.options().dtype(torch::kFloat32));

    // one kernel: gather the channels out of the pitched frame and scale them,
    // v * (1/255) in float as swscale's uint8 -> float table
    return at::mul_out(input, rgb, at::Scalar(1.0f / 255.0f));
}

int th_cuda_read_input(const DNNCudaFrames *cf, const AVFrame *frame, torch::Tensor *input,
                       void *log_ctx) noexcept
{
    try {
        *input = frame_to_tensor(cf, frame);
    } catch (const std::exception &e) {
        th_log_exception(log_ctx, "Could not read the input CUDA frame", e);
        return AVERROR_EXTERNAL;
    } catch (...) {
        av_log(log_ctx, AV_LOG_ERROR, "Could not read the input CUDA frame\n");
        return AVERROR_EXTERNAL;
    }
    return 0;
}

static void tensor_to_picture(const DNNCudaFrames *cf, const torch::Tensor &output,
                              const AVFrame *frame, const DNNCudaPicture &pic)
{
    if (cf->sw_format == AV_PIX_FMT_NV12)
        return rgb_to_nv12(cf, output, frame, pic);

    torch::Tensor pixels = picture_pixels(cf, pic);
    // av_clip_uint8(lrintf(255.0f * v)) as swscale's float -> uint8; round()
    // rounds half to even like lrintf.  Not in place: the output may be the
    // model's own tensor.
    torch::Tensor rgb = output[0].to(torch::kFloat32).mul(255.0f).round_().clamp_(0, 255);

    // one kernel: to uint8, interleaved, at the frame's pitch
    pixels.narrow(2, 0, 3).copy_(rgb.permute({1, 2, 0}));
    if (pixels.size(2) == 4)
        pixels.select(2, 3).fill_(255); // alpha (or the padding byte) opaque
}

/** One side of the crop of out: in's offset scaled by the model's ratio, the output fitted in. */
static int scale_crop(size_t in_offset, int in_size, int64_t output_size, int out_size,
                      size_t *offset, size_t *rest)
{
    size_t scaled = in_offset * out_size / in_size;

    if (output_size > out_size)
        return AVERROR(EINVAL);
    *offset = FFMIN(scaled, (size_t)(out_size - output_size));
    *rest   = out_size - output_size - *offset;
    return 0;
}

/** Set the crop of out for an output of this size made of in's visible picture. */
static int place_output(const AVFrame *in, AVFrame *out, int64_t width, int64_t height,
                        void *log_ctx)
{
    int cropped = in->crop_left || in->crop_right || in->crop_top || in->crop_bottom;

    if (!cropped && (width != out->width || height != out->height)) {
        av_log(log_ctx, AV_LOG_ERROR, "The model's output is %" PRId64 "x%" PRId64 " but was "
               "%dx%d when the filter was configured: its size must depend on the input "
               "size only\n", width, height, out->width, out->height);
        return AVERROR(EINVAL);
    }
    if (scale_crop(in->crop_left, in->width,  width,  out->width,  &out->crop_left, &out->crop_right) < 0 ||
        scale_crop(in->crop_top,  in->height, height, out->height, &out->crop_top,  &out->crop_bottom) < 0) {
        av_log(log_ctx, AV_LOG_ERROR, "The model's output of the cropped picture is %" PRId64
               "x%" PRId64 ", larger than its output of the whole frame, %dx%d\n",
               width, height, out->width, out->height);
        return AVERROR(EINVAL);
    }
    return 0;
}

int th_cuda_write_output(const DNNCudaFrames *cf, const torch::Tensor &output,
                         const AVFrame *in, AVFrame *out, void *log_ctx) noexcept
{
    DNNCudaPicture pic;
    int ret = place_output(in, out, output.size(3), output.size(2), log_ctx);

    if (ret < 0)
        return ret;
    ff_dnn_cuda_get_picture(out, cf->sw_format, &pic);
    try {
        tensor_to_picture(cf, output, out, pic);
    } catch (const std::exception &e) {
        th_log_exception(log_ctx, "Could not write the output CUDA frame", e);
        return AVERROR_EXTERNAL;
    } catch (...) {
        av_log(log_ctx, AV_LOG_ERROR, "Could not write the output CUDA frame\n");
        return AVERROR_EXTERNAL;
    }
    return 0;
}
