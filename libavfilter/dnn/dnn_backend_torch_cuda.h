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
 * CUDA frames in the LibTorch backend: zero-copy tensors over the frames'
 * device memory, run on the frames' CUDA context and stream.
 *
 * The backend calls these hooks whatever the build: in one without CUDA
 * frames (configure's dnn_cuda) they are the stubs at the end, and
 * no DNNCudaFrames is ever bound.
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_CUDA_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_CUDA_H

#include <optional>
#include <shared_mutex>
#include <torch/torch.h>
#include <torch/script.h>
#include <c10/core/StreamGuard.h>

extern "C" {
#include "config.h"
#include "libavutil/common.h"
#include "libavutil/frame.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/dnn_interface.h"
#include "dnn_cuda.h"
}

#include "dnn_backend_torch_error.h"
#include "dnn_backend_torch_package.h"

/** Whether cf is bound to the input's CUDA frames (th_cuda_place_model()). */
static inline bool th_cuda_bound(const DNNCudaFrames *cf)
{
    return cf->device_ref != NULL;
}

#if CONFIG_DNN_CUDA

struct THCudaPool;

/**
 * A CUDA section: the frames' context is pushed for the section's lifetime
 * and LibTorch queues its work on the frames' stream.  Popping on every path,
 * exceptions included, is what RAII is for.  The constructor never throws:
 * a failure (the push, or LibTorch refusing the stream) is logged and
 * returned by error(), and the destructor then undoes what was done.
 */
class THCudaSection {
public:
    /**
     * With to_pool, what LibTorch allocates on the frames' stream in this
     * thread comes from the model's pool (cf->memory_pool, if made).
     */
    THCudaSection(const DNNCudaFrames *cf, void *log_ctx, bool to_pool = true) noexcept;
    ~THCudaSection();
    THCudaSection(const THCudaSection &) = delete;
    THCudaSection &operator=(const THCudaSection &) = delete;
    /** 0, or the AVERROR of a failed push or stream. */
    int error() const { return err; }

private:
    const DNNCudaFrames *cf;
    void *log_ctx;
    int err;
    bool pushed = false;
    bool routed = false;        ///< LibTorch allocates from the model's pool
    THCudaPool *outer_pool = nullptr; ///< the pool routed to before, restored after
    std::optional<std::shared_lock<std::shared_mutex>> routing; ///< while routed
    // the generic guard: LibTorch's CUDA runtime calls stay inside libc10_cuda
    std::optional<c10::StreamGuard> stream_guard;
};

/**
 * The CUDA section of one inference request, from enter() to the end of the
 * object, however the request ends.  The object is declared before the
 * request's first goto (C-style error paths may not jump over a
 * constructor); enter() does nothing for frames in system memory (cf
 * unbound).
 */
class THCudaRequest {
public:
    /**
     * Push cf's context and queue LibTorch's work on the frames' stream; a
     * fault of the GPU on an earlier frame ends the stream here.  0 or an
     * AVERROR, logged.
     */
    int enter(const DNNCudaFrames *cf, void *log_ctx) noexcept;
    /**
     * Push cf's context and stream without looking for a fault: what the
     * frames' context holds (CUDA graphs, cached frames) is freed in it,
     * after a fault too.  0 or an AVERROR, logged.
     */
    int enter_to_free(const DNNCudaFrames *cf, void *log_ctx) noexcept;

private:
    std::optional<THCudaSection> section;
};

/**
 * Give the cached blocks of LibTorch's pool back to CUDA, once no section
 * of any model routes to a pool (LibTorch requires it); the cache of the
 * others stays.  Call in the context of the pool's memory.
 */
void th_cuda_empty_pool(c10::MempoolId_t pool) noexcept;

/**
 * The end of the stream: wait for the frames' stream, so that a fault of
 * the GPU does not go unseen.  0 (also for an unbound cf) or an AVERROR,
 * logged.
 */
int th_cuda_flush(const DNNCudaFrames *cf, void *log_ctx) noexcept;

/**
 * CUDA frames decide where the model runs: bind cf to the frames of inlink,
 * check that LibTorch can use their GPU and that the device option agrees,
 * make the model's memory pool (cf->memory_pool: every section of cf
 * allocates from it), and place the model there, in their context: the
 * TorchScript model moved, or the .pt2 package (when not NULL) loaded.  On
 * failure cf is left unbound.  Never throws: 0 or an AVERROR, logged.
 */
int th_cuda_place_model(DNNCudaFrames *cf, AVFilterLink *inlink, torch::jit::Module *model,
                        THPackage *package, c10::Device *device, DnnContext *ctx) noexcept;

/**
 * For a bound cf (nothing otherwise): free the model (TorchScript, and the
 * .pt2 package if any) in the frames' context, give the blocks of its
 * memory pool back to CUDA (they belong to that context, soon perhaps
 * destroyed; the caches of other models and of the application stay) and
 * unbind cf.  Never throws: failures (a GPU in error after a fault) are
 * logged.
 */
void th_cuda_release_model(DNNCudaFrames *cf, torch::jit::Module **model, THPackage **package,
                           void *log_ctx) noexcept;

/**
 * The model's input for a CUDA frame: 1xCxHxW in [0, 1], in the model's
 * precision and memory format, written by one kernel from the frame's
 * visible picture (its crop applied) in place: R'G'B' (packed RGB in the
 * frame's channel order; Y'CbCr with its matrix, range and siting when
 * yuv_input=rgb) or the luma alone (yuv_input=luma).  Without data (the dry
 * run that sizes the output) zeros of the frame's size.  Call inside a
 * THCudaSection.  Never throws: 0 or an AVERROR, logged.
 */
int th_cuda_read_input(DNNCudaFrames *cf, const AVFrame *frame, torch::Tensor *input,
                       DnnContext *ctx) noexcept;

/**
 * Write the model's output for the input frame in (1xCxHxW, values in
 * [0, 1], float32, float16 or bfloat16 with any strides; other dtypes are
 * made float32) into the CUDA frame out, by one kernel: rounded and clipped
 * as swscale's float to integer conversions, alpha from in when the sizes
 * match (else opaque), Y'CbCr with out's matrix, range and siting; a luma
 * model's chroma from in, resized when the size changes.  The output of a
 * whole picture fills out, whose size was the output's at configuration;
 * that of a cropped one (crop sets crop_* on hardware frames) goes where
 * the crop lies, scaled by the model's ratio, and out carries it as its
 * crop.  Call inside a THCudaSection.  Never throws: 0 or an AVERROR, logged.
 */
int th_cuda_write_output(DNNCudaFrames *cf, const torch::Tensor &output,
                         const AVFrame *in, AVFrame *out, void *log_ctx) noexcept;

#else /* !CONFIG_DNN_CUDA */

#if CONFIG_LIBTORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>

/* no CUDA frames: no section ever routes to a pool */
static inline void th_cuda_empty_pool(c10::MempoolId_t pool) noexcept
{
    try {
        c10::cuda::CUDACachingAllocator::emptyCache(pool);
    } catch (...) {
    }
}
#endif

class THCudaRequest {
public:
    int enter(const DNNCudaFrames *, void *) noexcept { return 0; }
    int enter_to_free(const DNNCudaFrames *, void *) noexcept { return 0; }
};

static inline int th_cuda_flush(const DNNCudaFrames *, void *) noexcept
{
    return 0;
}

static inline int th_cuda_place_model(DNNCudaFrames *, AVFilterLink *, torch::jit::Module *,
                                      THPackage *, c10::Device *, DnnContext *ctx) noexcept
{
    av_log(ctx, AV_LOG_ERROR, "CUDA frames need LibTorch's CUDA library and a CUDA "
           "compiler, which this build does not have\n");
    return AVERROR(ENOSYS);
}

static inline void th_cuda_release_model(DNNCudaFrames *, torch::jit::Module **, THPackage **,
                                         void *) noexcept
{
}

static inline int th_cuda_read_input(DNNCudaFrames *, const AVFrame *, torch::Tensor *,
                                     DnnContext *) noexcept
{
    return AVERROR_BUG;
}

static inline int th_cuda_write_output(DNNCudaFrames *, const torch::Tensor &,
                                       const AVFrame *, AVFrame *, void *) noexcept
{
    return AVERROR_BUG;
}

#endif /* CONFIG_DNN_CUDA */

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_CUDA_H */
