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

/*
 * CUDA frames <-> the model's tensor, one kernel each way: read the frame's
 * planes in place (any pitch, subsampling, 8 or 16-bit containers) and write
 * the tensor in its dtype and strides, or the reverse.  The math is
 * dnn_color.h's, shared with the loops over frames in system memory.
 */

#include "dnn_color.h"

extern "C" {

/** One thread per luma pixel. */
__global__ void dnn_frame_to_tensor(DNNColorConvert p)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;

    if (x >= p.frame.width || y >= p.frame.height)
        return;
    dnn_color_pixel_to_tensor(&p.layout, &p.matrix, &p.frame, &p.tensor, x, y);
}

/** One thread per chroma sample (per pixel for packed RGB): its block of luma pixels. */
__global__ void dnn_tensor_to_frame(DNNColorConvert p)
{
    int cx = blockIdx.x * blockDim.x + threadIdx.x;
    int cy = blockIdx.y * blockDim.y + threadIdx.y;

    if (cx >= dnn_color_chroma_size(p.frame.width,  p.layout.log2_chroma_w) ||
        cy >= dnn_color_chroma_size(p.frame.height, p.layout.log2_chroma_h))
        return;
    dnn_color_tensor_to_block(&p.layout, &p.matrix, &p.frame, &p.tensor, cx, cy, &p.source);
}

}
