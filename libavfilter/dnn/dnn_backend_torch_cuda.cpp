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

#include <shared_mutex>
#include <thread>
#include <ATen/cuda/CUDAContextLight.h>
#include <ATen/cuda/MemPool.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>

#include "dnn_backend_torch_cuda.h"
#include "dnn_backend_torch_place.h"
#include "dnn_backend_torch_precision.h"

extern "C" {
#include "dnn_color_frame.h"
}

/*
 * LibTorch's caching allocator is per GPU, not per CUDA context, and its
 * cache is emptied for all its users at once.  Each model allocates from a
 * pool of its own in it instead: what its sections ask for on the frames'
 * stream from their thread.  The pool's blocks are then all of the frames'
 * context, never given to a model on another context of the same GPU, and
 * the model's release empties this pool alone, before the context may go;
 * the cache of everyone else, on this GPU or any other, is left as it is.
 */

/** A model's pool: an id of LibTorch's caching allocator on one GPU. */
struct THCudaPool {
    c10::DeviceIndex device;
    c10::MempoolId_t id;
};

/** The pool this thread's sections allocate from: a section in another of
 * the same model adds nothing (a pool can be routed to once at a time). */
static thread_local THCudaPool *routed_pool;

/**
 * LibTorch empties a pool only while no allocation is routed to any pool
 * (it asserts so): a section that routes holds this lock shared, emptying
 * a pool holds it alone, so models on other threads wait for each other.
 */
static std::shared_mutex routing_lock;

void th_cuda_empty_pool(c10::MempoolId_t pool) noexcept
{
    if (routed_pool)
        return; // never inside a section that routes: it holds the lock
    try {
        std::unique_lock<std::shared_mutex> alone(routing_lock);
        c10::cuda::CUDACachingAllocator::emptyCache(pool);
    } catch (...) {
        // a capture of the application's under way: the blocks stay cached
    }
}

static void route_to_pool(THCudaPool *pool, const DNNCudaFrames *cf)
{
    cudaStream_t frames_stream = (cudaStream_t)cf->stream;
    std::thread::id thread = std::this_thread::get_id();

    // a CUDA graph's capture, on a stream of its own, keeps its own pool
    c10::cuda::CUDACachingAllocator::beginAllocateToPool(pool->device, pool->id,
        [frames_stream, thread](cudaStream_t stream) {
            return stream == frames_stream && std::this_thread::get_id() == thread;
        });
}

static void unroute(THCudaPool *pool)
{
    c10::cuda::CUDACachingAllocator::endAllocateToPool(pool->device, pool->id);
    // the use that beginAllocateToPool counted
    c10::cuda::CUDACachingAllocator::releasePool(pool->device, pool->id);
}

THCudaSection::THCudaSection(const DNNCudaFrames *cf, void *log_ctx, bool to_pool) noexcept
    : cf(cf), log_ctx(log_ctx)
{
    err = ff_dnn_cuda_push(cf, log_ctx);
    if (err < 0)
        return;
    pushed = true;
    err = th_catch_all(log_ctx, "LibTorch cannot run on the frames' CUDA stream", [&] {
        // FFmpeg's stream (NULL is the context's default stream): ordering
        // with the decoder, other CUDA filters and the encoder comes from
        // it, so no synchronization is needed here.  LibTorch refuses it
        // (throws) when it cannot use the frames' GPU.
        stream_guard.emplace(c10::cuda::getStreamFromExternal((cudaStream_t)cf->stream,
                                                              cf->device_index));
        auto *pool = (THCudaPool *)cf->memory_pool;
        if (to_pool && pool && pool != routed_pool) {
            if (!routed_pool) // one hold per thread: a writer may be waiting
                routing.emplace(routing_lock);
            route_to_pool(pool, cf);
            outer_pool = routed_pool;
            routed_pool = pool;
            routed = true;
        }
        return 0;
    });
}

THCudaSection::~THCudaSection()
{
    if (routed) {
        th_catch_all(log_ctx, "Could not end the model's use of its memory pool",
                     [&] { unroute(routed_pool); return 0; });
        routed_pool = outer_pool;
    }
    routing.reset();
    stream_guard.reset();
    if (pushed)
        ff_dnn_cuda_pop(cf, log_ctx);
}

int THCudaRequest::enter(const DNNCudaFrames *cf, void *log_ctx) noexcept
{
    int ret;

    if (!cf->device_ref)
        return 0;
    section.emplace(cf, log_ctx);
    ret = section->error();
    return ret < 0 ? ret : ff_dnn_cuda_check_stream(cf, 0, log_ctx);
}

int THCudaRequest::enter_to_free(const DNNCudaFrames *cf, void *log_ctx) noexcept
{
    if (!cf->device_ref)
        return 0;
    // freeing allocates nothing, and a CUDA graph empties its pool then
    section.emplace(cf, log_ctx, false);
    return section->error();
}

int th_cuda_flush(const DNNCudaFrames *cf, void *log_ctx) noexcept
{
    if (!cf->device_ref)
        return 0;
    THCudaSection section(cf, log_ctx);
    int ret = section.error();
    return ret < 0 ? ret : ff_dnn_cuda_check_stream(cf, 1, log_ctx);
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

static int move_model(const DNNCudaFrames *cf, torch::jit::Module *model, THPackage *package,
                      const c10::Device &device, DnnContext *ctx)
{
    THCudaSection section(cf, ctx);
    int ret = section.error();

    if (ret < 0)
        return ret;
    // in the frames' context and the model's pool: the model's memory, a
    // package's kernels too
    return th_place_on_device(model, package, device, 1, ctx);
}

/** The model's memory pool on the frames' GPU (the allocator's bookkeeping: no CUDA call). */
static void make_pool(DNNCudaFrames *cf, DnnContext *ctx)
{
    auto pool = std::make_unique<THCudaPool>();
    pool->device = (c10::DeviceIndex)cf->device_index;
    pool->id     = at::cuda::MemPool::graph_pool_handle(true); // a user's pool, not a graph's
    try {
        c10::cuda::CUDACachingAllocator::createOrIncrefPool(pool->device, pool->id);
    } catch (const std::exception &e) {
        // another allocator (PYTORCH_CUDA_ALLOC_CONF's backend): its own cache
        av_log(ctx, AV_LOG_VERBOSE, "LibTorch's CUDA allocator (%s) has no memory pools: "
               "the model's memory stays in its cache\n",
               c10::cuda::CUDACachingAllocator::name().c_str());
        return;
    }
    cf->memory_pool = pool.release();
}

/** Empty the model's pool and free it: its blocks go back to CUDA, no other's. */
static void free_pool(DNNCudaFrames *cf, void *log_ctx)
{
    std::unique_ptr<THCudaPool> pool((THCudaPool *)cf->memory_pool);

    if (!pool)
        return;
    cf->memory_pool = NULL;
    THCudaSection section(cf, log_ctx, false);
    if (section.error() >= 0)
        th_catch_all(log_ctx, "Could not release the model's GPU memory", [&] {
            // unused now: LibTorch frees the pool with its last block
            c10::cuda::CUDACachingAllocator::releasePool(pool->device, pool->id);
            th_cuda_empty_pool(pool->id);
            return 0;
        });
}

/** Check the frames' GPU, place the model there and say so. */
static int place_on_frames_gpu(DNNCudaFrames *cf, torch::jit::Module *model,
                               THPackage *package, c10::Device *device, DnnContext *ctx)
{
    c10::Device frames_device(c10::kCUDA, cf->device_index);
    int ret = check_frames_device(cf, device, ctx);

    if (ret < 0)
        return ret;
    make_pool(cf, ctx);
    ret = move_model(cf, model, package, frames_device, ctx);
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
                        THPackage *package, c10::Device *device, DnnContext *ctx) noexcept
{
    int ret = ff_dnn_cuda_frames_init(cf, inlink, ctx);

    if (ret < 0)
        return ret;
    ret = th_catch_all(ctx, "Could not use the frames' GPU",
                       [&] { return place_on_frames_gpu(cf, model, package, device, ctx); });
    if (ret < 0) {
        // unbound: teardown must not enter the frames' context for LibTorch
        // (what a failed placement allocated went back to the pool)
        free_pool(cf, ctx);
        ff_dnn_cuda_frames_uninit(cf);
        return ret;
    }
    // the GPU runs behind the filter already: no worker thread, no requests
    av_log(ctx, AV_LOG_INFO, "CUDA frames: the model's work is queued on the frames' stream "
           "from the filter's thread (async and nireq apply to frames in system memory)\n");
    return 0;
}

void th_cuda_release_model(DNNCudaFrames *cf, torch::jit::Module **model, THPackage **package,
                           void *log_ctx) noexcept
{
    if (!th_cuda_bound(cf))
        return;
    {
        THCudaSection section(cf, log_ctx);
        th_catch_all(log_ctx, "Could not release the model's GPU memory", [&] {
            // the model's memory belongs to the frames' context: released in it
            delete *model;
            *model = NULL;
            th_package_free(package);
            return 0;
        });
    }
    free_pool(cf, log_ctx);
    ff_dnn_cuda_frames_uninit(cf);
}

/** What the kernels need of a tensor: data, dtype, channels and strides (elements). */
static int describe_tensor(const torch::Tensor &t, DNNColorTensor *desc)
{
    switch (t.scalar_type()) {
    case torch::kFloat32:  desc->dtype = DNN_COLOR_FLOAT32;  break;
    case torch::kFloat16:  desc->dtype = DNN_COLOR_FLOAT16;  break;
    case torch::kBFloat16: desc->dtype = DNN_COLOR_BFLOAT16; break;
    default:               return AVERROR(ENOSYS);
    }
    desc->data     = t.data_ptr();
    desc->channels = (int)t.size(1);
    desc->stride_c = t.stride(1);
    desc->stride_y = t.stride(2);
    desc->stride_x = t.stride(3);
    return 0;
}

/** The model's input: 1xCxHxW in its dtype and memory format, written by one kernel. */
static int frame_to_tensor(DNNCudaFrames *cf, const AVFrame *frame, torch::Tensor *input,
                           DnnContext *ctx)
{
    DNNColorTensor desc;
    int channels = ff_dnn_color_channels(cf->sw_format, ctx->yuv_input);
    c10::Device device(torch::kCUDA, cf->device_index);
    auto options = torch::TensorOptions().dtype(th_precision_dtype(ctx)).device(device)
                       .memory_format(th_precision_memory_format(ctx, device));
    DNNColorPlanes pic;
    int ret;

    if (!frame->data[0]) { // the dry run
        *input = torch::zeros({1, channels, frame->height, frame->width}, options);
        return 0;
    }
    ff_dnn_color_planes(frame, &cf->layout, &pic);
    *input = torch::empty({1, channels, pic.height, pic.width}, options);
    ret = describe_tensor(*input, &desc);
    if (ret < 0)
        return ret;
    return ff_dnn_cuda_frame_to_tensor(cf, frame, &pic, &desc, ctx);
}

int th_cuda_read_input(DNNCudaFrames *cf, const AVFrame *frame, torch::Tensor *input,
                       DnnContext *ctx) noexcept
{
    return th_catch_all(ctx, "Could not read the input CUDA frame",
                        [&] { return frame_to_tensor(cf, frame, input, ctx); });
}

/**
 * One side of the crop of out: in's offset scaled by the model's ratio, the
 * output fitted in, and started on a chroma sample (2^log2_align pixels):
 * the conversion writes whole chroma blocks.
 */
static int scale_crop(size_t in_offset, int in_size, int64_t output_size, int out_size,
                      int log2_align, size_t *offset, size_t *rest)
{
    size_t scaled = in_offset * out_size / in_size;

    if (output_size > out_size)
        return AVERROR(EINVAL);
    *offset = FFMIN(scaled, (size_t)(out_size - output_size)) & ~(((size_t)1 << log2_align) - 1);
    *rest   = out_size - output_size - *offset;
    return 0;
}

/** Set the crop of out for an output of this size made of in's visible picture. */
static int place_output(const DNNColorLayout *l, const AVFrame *in, AVFrame *out,
                        int64_t width, int64_t height, void *log_ctx)
{
    int cropped = in->crop_left || in->crop_right || in->crop_top || in->crop_bottom;

    if (!cropped && (width != out->width || height != out->height)) {
        av_log(log_ctx, AV_LOG_ERROR, "The model's output is %" PRId64 "x%" PRId64 " but was "
               "%dx%d when the filter was configured: its size must depend on the input "
               "size only\n", width, height, out->width, out->height);
        return AVERROR(EINVAL);
    }
    if (scale_crop(in->crop_left, in->width, width, out->width, l->log2_chroma_w,
                   &out->crop_left, &out->crop_right) < 0 ||
        scale_crop(in->crop_top, in->height, height, out->height, l->log2_chroma_h,
                   &out->crop_top, &out->crop_bottom) < 0) {
        av_log(log_ctx, AV_LOG_ERROR, "The model's output of the cropped picture is %" PRId64
               "x%" PRId64 ", larger than its output of the whole frame, %dx%d\n",
               width, height, out->width, out->height);
        return AVERROR(EINVAL);
    }
    return 0;
}

/** The model's output on the frames' GPU in a dtype the kernels read (others as float). */
static torch::Tensor kernel_readable(const DNNCudaFrames *cf, const torch::Tensor &output)
{
    c10::ScalarType dtype = output.scalar_type();

    if (dtype != torch::kFloat32 && dtype != torch::kFloat16 && dtype != torch::kBFloat16)
        dtype = torch::kFloat32;
    return output.to(c10::Device(torch::kCUDA, cf->device_index), dtype);
}

static int tensor_to_frame(DNNCudaFrames *cf, const torch::Tensor &output, const AVFrame *in,
                           AVFrame *out, void *log_ctx)
{
    torch::Tensor readable = kernel_readable(cf, output);
    DNNColorTensor desc;
    int ret = describe_tensor(readable, &desc);

    if (ret < 0)
        return ret;
    // a copy made here was allocated on the frames' stream, where the kernel
    // reads it: LibTorch's caching allocator may reuse it only after that
    return ff_dnn_cuda_tensor_to_frame(cf, &desc, in, out, log_ctx);
}

int th_cuda_write_output(DNNCudaFrames *cf, const torch::Tensor &output,
                         const AVFrame *in, AVFrame *out, void *log_ctx) noexcept
{
    int ret = place_output(&cf->layout, in, out, output.size(3), output.size(2), log_ctx);

    if (ret < 0)
        return ret;
    return th_catch_all(log_ctx, "Could not write the output CUDA frame",
                        [&] { return tensor_to_frame(cf, output, in, out, log_ctx); });
}
