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

#include <c10/cuda/CUDAStream.h>

#include "dnn_backend_torch_cuda.h"

THCudaSection::THCudaSection(const DNNCudaFrames *cf, void *log_ctx)
    : cf(cf), log_ctx(log_ctx)
{
    err = ff_dnn_cuda_push(cf, log_ctx);
    if (err < 0)
        return;
    // FFmpeg's stream (NULL is the context's default stream): ordering with
    // the decoder, other CUDA filters and the encoder comes from it, so no
    // synchronization is needed here.
    stream_guard.emplace(c10::cuda::getStreamFromExternal((cudaStream_t)cf->stream,
                                                          cf->device_index));
}

THCudaSection::~THCudaSection()
{
    stream_guard.reset();
    if (err >= 0)
        ff_dnn_cuda_pop(cf, log_ctx);
}

/** A uint8 HxWxB view of the frame's first plane, rows linesize bytes apart. */
static torch::Tensor frame_pixels(const DNNCudaFrames *cf, const AVFrame *frame)
{
    int64_t bytes = ff_dnn_cuda_pixel_bytes(cf->sw_format);
    auto options = torch::TensorOptions().dtype(torch::kUInt8)
                                         .device(torch::kCUDA, cf->device_index);

    return torch::from_blob(frame->data[0], {frame->height, frame->width, bytes},
                            {frame->linesize[0], bytes, 1}, options);
}

torch::Tensor th_cuda_frame_to_tensor(const DNNCudaFrames *cf, const AVFrame *frame)
{
    torch::Tensor rgb = frame_pixels(cf, frame).narrow(2, 0, 3).permute({2, 0, 1}).unsqueeze(0);
    torch::Tensor input = torch::empty(rgb.sizes(), rgb.options().dtype(torch::kFloat32));

    input.copy_(rgb); // one kernel: gather the channels out of the pitched frame
    // v * (1/255) in float, as swscale's uint8 -> float table
    return input.mul_(1.0f / 255.0f);
}

void th_cuda_tensor_to_frame(const DNNCudaFrames *cf, const torch::Tensor &output, AVFrame *frame)
{
    torch::Tensor pixels = frame_pixels(cf, frame);
    // av_clip_uint8(lrintf(255.0f * v)) as swscale's float -> uint8; round()
    // rounds half to even like lrintf
    torch::Tensor rgb = output[0].to(torch::kFloat32).mul(255.0f).round_().clamp_(0, 255)
                                 .to(torch::kUInt8);

    pixels.narrow(2, 0, 3).copy_(rgb.permute({1, 2, 0}));
    if (pixels.size(2) == 4)
        pixels.select(2, 3).fill_(255); // alpha (or the padding byte) opaque
}
