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

/** A uint8 HxWxB view of plane i of a frame, rows linesize bytes apart. */
static torch::Tensor frame_plane(const DNNCudaFrames *cf, const AVFrame *frame, int i,
                                 int64_t height, int64_t width, int64_t bytes)
{
    auto options = torch::TensorOptions().dtype(torch::kUInt8)
                                         .device(torch::kCUDA, cf->device_index);

    return torch::from_blob(frame->data[i], {height, width, bytes},
                            {frame->linesize[i], bytes, 1}, options);
}

static torch::Tensor frame_pixels(const DNNCudaFrames *cf, const AVFrame *frame)
{
    return frame_plane(cf, frame, 0, frame->height, frame->width,
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

static torch::Tensor nv12_to_rgb(const DNNCudaFrames *cf, const AVFrame *frame)
{
    namespace F = torch::nn::functional;
    YuvMatrix m = yuv_matrix(frame);
    int64_t h = frame->height, w = frame->width;
    torch::Tensor y  = frame_plane(cf, frame, 0, h, w, 1).squeeze(2).to(torch::kFloat32);
    torch::Tensor uv = frame_plane(cf, frame, 1, (h + 1) / 2, (w + 1) / 2, 2)
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

static void rgb_to_nv12(const DNNCudaFrames *cf, const torch::Tensor &output, AVFrame *frame)
{
    namespace F = torch::nn::functional;
    YuvMatrix m = yuv_matrix(frame);
    int64_t h = frame->height, w = frame->width;
    torch::Tensor rgb = output[0].to(torch::kFloat32).clamp(0.0f, 1.0f);
    torch::Tensor y  = m.kr * rgb[0] + (1.0f - m.kr - m.kb) * rgb[1] + m.kb * rgb[2];
    torch::Tensor cb = (rgb[2] - y) / (2.0f * (1.0f - m.kb));
    torch::Tensor cr = (rgb[0] - y) / (2.0f * (1.0f - m.kr));
    // 4:2:0: the mean of each 2x2 block (of what is there, at odd edges)
    torch::Tensor c = F::avg_pool2d(torch::stack({cb, cr}).unsqueeze(0),
                                    F::AvgPool2dFuncOptions(2).stride(2).ceil_mode(true))[0];

    y = m.full_range ? y * 255.0f : y * 219.0f + 16.0f;
    c = m.full_range ? c * 255.0f + 128.0f : c * 224.0f + 128.0f;
    frame_plane(cf, frame, 0, h, w, 1).squeeze(2).copy_(to_uint8(y));
    frame_plane(cf, frame, 1, (h + 1) / 2, (w + 1) / 2, 2).copy_(to_uint8(c).permute({1, 2, 0}));
}

torch::Tensor th_cuda_frame_to_tensor(const DNNCudaFrames *cf, const AVFrame *frame)
{
    if (cf->sw_format == AV_PIX_FMT_NV12)
        return nv12_to_rgb(cf, frame);

    torch::Tensor rgb = frame_pixels(cf, frame).narrow(2, 0, 3).permute({2, 0, 1}).unsqueeze(0);
    torch::Tensor input = torch::empty(rgb.sizes(), rgb.options().dtype(torch::kFloat32));

    // one kernel: gather the channels out of the pitched frame and scale them,
    // v * (1/255) in float as swscale's uint8 -> float table
    return at::mul_out(input, rgb, at::Scalar(1.0f / 255.0f));
}

void th_cuda_tensor_to_frame(const DNNCudaFrames *cf, const torch::Tensor &output, AVFrame *frame)
{
    if (cf->sw_format == AV_PIX_FMT_NV12)
        return rgb_to_nv12(cf, output, frame);

    torch::Tensor pixels = frame_pixels(cf, frame);
    // av_clip_uint8(lrintf(255.0f * v)) as swscale's float -> uint8; round()
    // rounds half to even like lrintf.  Not in place: the output may be the
    // model's own tensor.
    torch::Tensor rgb = output[0].to(torch::kFloat32).mul(255.0f).round_().clamp_(0, 255);

    // one kernel: to uint8, interleaved, at the frame's pitch
    pixels.narrow(2, 0, 3).copy_(rgb.permute({1, 2, 0}));
    if (pixels.size(2) == 4)
        pixels.select(2, 3).fill_(255); // alpha (or the padding byte) opaque
}
