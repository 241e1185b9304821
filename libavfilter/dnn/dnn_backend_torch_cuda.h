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
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_CUDA_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_CUDA_H

#include <optional>
#include <torch/torch.h>
#include <c10/core/StreamGuard.h>

extern "C" {
#include "libavutil/frame.h"
#include "dnn_cuda.h"
}

/**
 * A CUDA section: the frames' context is pushed for the section's lifetime
 * and LibTorch queues its work on the frames' stream.  Popping on every path,
 * exceptions included, is what RAII is for.
 */
class THCudaSection {
public:
    THCudaSection(const DNNCudaFrames *cf, void *log_ctx);
    ~THCudaSection();
    THCudaSection(const THCudaSection &) = delete;
    THCudaSection &operator=(const THCudaSection &) = delete;
    /** 0, or the AVERROR of a failed push. */
    int error() const { return err; }

private:
    const DNNCudaFrames *cf;
    void *log_ctx;
    int err;
    // the generic guard: LibTorch's CUDA runtime calls stay inside libc10_cuda
    std::optional<c10::StreamGuard> stream_guard;
};

/**
 * The model's input for a CUDA frame: 1x3xHxW float in [0, 1], in the frame's
 * channel order, alpha dropped; nv12 is converted to RGB with the frame's
 * matrix and range.  The frame is read in place through its pitch.  Call
 * inside a THCudaSection; throws on LibTorch errors.
 */
torch::Tensor th_cuda_frame_to_tensor(const DNNCudaFrames *cf, const AVFrame *frame);

/**
 * Write a 1x3xHxW model output (values in [0, 1]) into a CUDA frame of the
 * same size, rounded like swscale's float to 8-bit conversion, alpha opaque;
 * nv12 gets the frame's matrix and range.  Call inside a THCudaSection;
 * throws on LibTorch errors.
 */
void th_cuda_tensor_to_frame(const DNNCudaFrames *cf, const torch::Tensor &output, AVFrame *frame);

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_CUDA_H */
