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

#ifdef __NVCC__
#define block_barrier() __syncthreads()
#else
// clang, with FFmpeg's compat/cuda/cuda_runtime.h: no __shared__ nor __syncthreads there
#define __shared__ __attribute__((shared))
#define block_barrier() __nvvm_bar_sync(0)
#endif

// inlined, so that the parameters stay in registers (never copied to local memory)
#define DEVICE_FUNC static inline __device__ __attribute__((always_inline))

/*
 * Shared memory of a block, as floats: the larger of its two tiles.
 * - Frame -> tensor: the Cb and Cr samples that its luma pixels' upsampling
 *   reads (dnn_color_upsample_span()): up to (BLOCK_W + 2) x (BLOCK_H + 2).
 * - Tensor -> frame: the R'G'B' of the luma pixels that its chroma samples'
 *   tents read (dnn_color_tent_span()), for subsampling up to 2:
 *   (2 BLOCK_W + 3) x (2 BLOCK_H + 3), 3 planes.
 */
#define CHROMA_TILE_SIZE ((DNN_COLOR_BLOCK_W + 2) * (DNN_COLOR_BLOCK_H + 2))
#define RGB_TILE_SIZE    ((2 * DNN_COLOR_BLOCK_W + 3) * (2 * DNN_COLOR_BLOCK_H + 3))
#define BLOCK_THREADS    (DNN_COLOR_BLOCK_W * DNN_COLOR_BLOCK_H)

/** The coordinates of the block's first thread, and this thread's index in the block. */
DEVICE_FUNC void block_origin(int *x, int *y, int *thread)
{
    *x = blockIdx.x * DNN_COLOR_BLOCK_W;
    *y = blockIdx.y * DNN_COLOR_BLOCK_H;
    *thread = threadIdx.y * DNN_COLOR_BLOCK_W + threadIdx.x;
}

/**
 * The elements of a tile that a thread loads: every BLOCK_THREADS-th from
 * its index in the block, as a column and row of the tile, stepped without
 * a division per element.
 */
typedef struct TileWalk {
    int i, col, row;
    int pitch, step_cols, step_rows;
} TileWalk;

DEVICE_FUNC TileWalk tile_walk_start(int thread, int pitch)
{
    TileWalk w = { thread, thread % pitch, thread / pitch,
                   pitch, BLOCK_THREADS % pitch, BLOCK_THREADS / pitch };
    return w;
}

DEVICE_FUNC void tile_walk_next(TileWalk *w)
{
    w->i   += BLOCK_THREADS;
    w->col += w->step_cols;
    w->row += w->step_rows;
    if (w->col >= w->pitch) {
        w->col -= w->pitch;
        w->row++;
    }
}

/**
 * Loads the Cb, Cr code values that the upsampling of the block's luma
 * pixels reads into tile (data set), each sample once for the block.
 */
DEVICE_FUNC void load_chroma_tile(const DNNColorConvert *p, DNNColorTile *tile)
{
    const DNNColorLayout *l = &p->layout;
    int cw = dnn_color_chroma_width(l, &p->frame), ch = dnn_color_chroma_height(l, &p->frame);
    int block_x, block_y, thread, rows;

    block_origin(&block_x, &block_y, &thread);
    // the block's pixels in the chroma planes' own coordinates (a crop's phase
    // moves them by less than a chroma sample: the tile's bound holds)
    block_x += p->frame.phase_x;
    block_y += p->frame.phase_y;
    dnn_color_upsample_span(block_x, block_x + DNN_COLOR_BLOCK_W, l->log2_chroma_w,
                            &tile->x0, &tile->pitch);
    dnn_color_upsample_span(block_y, block_y + DNN_COLOR_BLOCK_H, l->log2_chroma_h,
                            &tile->y0, &rows);
    tile->plane_size = CHROMA_TILE_SIZE;
    for (TileWalk w = tile_walk_start(thread, tile->pitch); w.row < rows; tile_walk_next(&w)) {
        int x = tile->x0 + w.col, y = tile->y0 + w.row;

        if (x < 0 || y < 0 || x >= cw || y >= ch)
            continue; // upsampling clamps to the plane: never read
        for (int c = 0; c < 2; c++)
            tile->data[c * CHROMA_TILE_SIZE + w.i] = dnn_color_read(l, &p->frame, DNN_COLOR_CB + c, x, y);
    }
    block_barrier();
}

/**
 * Tensor -> Y'CbCr of an R'G'B' model, the chroma samples of one block:
 * the block's threads load (made finite) the R'G'B' of every pixel that their
 * tents read once, into shared memory, writing the luma of the block's own
 * pixels on the way; then each thread sums its chroma sample's tent there.
 */
DEVICE_FUNC void rgb_model_to_yuv(const DNNColorConvert *p, DNNColorTile *tile, int cx, int cy)
{
    const DNNColorLayout *l = &p->layout;
    const DNNColorPlanes *dst = &p->frame;
    int block_cx, block_cy, thread, x0, x1, y0, y1, rows;

    block_origin(&block_cx, &block_cy, &thread);
    // the luma pixels of the block's chroma samples: [x0, x1) x [y0, y1)
    x0 = block_cx << l->log2_chroma_w;
    y0 = block_cy << l->log2_chroma_h;
    x1 = (block_cx + DNN_COLOR_BLOCK_W) << l->log2_chroma_w;
    y1 = (block_cy + DNN_COLOR_BLOCK_H) << l->log2_chroma_h;
    dnn_color_tents_span(block_cx, block_cx + DNN_COLOR_BLOCK_W, l->log2_chroma_w,
                         &tile->x0, &tile->pitch);
    dnn_color_tents_span(block_cy, block_cy + DNN_COLOR_BLOCK_H, l->log2_chroma_h,
                         &tile->y0, &rows);
    tile->plane_size = RGB_TILE_SIZE;

    for (TileWalk w = tile_walk_start(thread, tile->pitch); w.row < rows; tile_walk_next(&w)) {
        int x = tile->x0 + w.col, y = tile->y0 + w.row;
        float rgb[3];

        if (x < 0 || y < 0 || x >= dst->width || y >= dst->height)
            continue; // the tents stop at the picture's edges: never read
        dnn_color_finite_rgb_at(&p->tensor, 0, x, y, rgb);
        for (int c = 0; c < 3; c++)
            tile->data[c * RGB_TILE_SIZE + w.i] = rgb[c];
        if (x >= x0 && x < x1 && y >= y0 && y < y1)
            dnn_color_write_luma(l, &p->matrix, dst, x, y, rgb);
    }
    block_barrier();
    if (cx < dnn_color_chroma_size(dst->width,  l->log2_chroma_w) &&
        cy < dnn_color_chroma_size(dst->height, l->log2_chroma_h))
        dnn_color_chroma_tent(l, &p->matrix, dst, &p->tensor, tile, cx, cy);
}

/** Frame -> tensor at one pixel per thread; p's dtype and sample size are constants. */
template <int dtype, int bytes>
DEVICE_FUNC void frame_to_tensor(DNNColorConvert p, float *shared)
{
    DNNColorTile tile = { shared };
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int inside = x < p.frame.width && y < p.frame.height;

    p.tensor.dtype = dtype;
    p.layout.bytes = bytes;
    if (!p.layout.rgb && p.tensor.channels == 3) { // upsampled chroma
        load_chroma_tile(&p, &tile);
        if (inside)
            dnn_color_pixel_to_tensor(&p.layout, &p.matrix, &p.frame, &tile, &p.tensor, x, y);
    } else if (inside) {
        dnn_color_pixel_to_tensor(&p.layout, &p.matrix, &p.frame, 0, &p.tensor, x, y);
    }
}

/** Tensor -> frame at one chroma sample per thread; p's dtype and sample size are constants. */
template <int dtype, int bytes>
DEVICE_FUNC void tensor_to_frame(DNNColorConvert p, float *shared)
{
    DNNColorTile tile = { shared };
    int cx = blockIdx.x * blockDim.x + threadIdx.x;
    int cy = blockIdx.y * blockDim.y + threadIdx.y;

    p.tensor.dtype = dtype;
    p.layout.bytes = bytes;
    if (!p.layout.rgb && p.tensor.channels == 3) {
        rgb_model_to_yuv(&p, &tile, cx, cy);
        return;
    }
    if (cx >= dnn_color_chroma_size(p.frame.width,  p.layout.log2_chroma_w) ||
        cy >= dnn_color_chroma_size(p.frame.height, p.layout.log2_chroma_h))
        return;
    dnn_color_tensor_to_block(&p.layout, &p.matrix, &p.frame, &p.tensor, cx, cy, &p.source);
}

/*
 * The kernels, one variant per tensor dtype and sample size inside: with
 * these known, dnn_color.h's per-sample switches fold away (about a third
 * of the instructions of a pixel, which bound these kernels).
 */
#define SPECIALIZE(body, p, shared)                                         \
    do {                                                                    \
        int wide = (p).layout.bytes == 2;                                   \
        switch ((p).tensor.dtype) {                                         \
        case DNN_COLOR_FLOAT16:                                             \
            wide ? body<DNN_COLOR_FLOAT16, 2>(p, shared)                    \
                 : body<DNN_COLOR_FLOAT16, 1>(p, shared);                   \
            break;                                                          \
        case DNN_COLOR_BFLOAT16:                                            \
            wide ? body<DNN_COLOR_BFLOAT16, 2>(p, shared)                   \
                 : body<DNN_COLOR_BFLOAT16, 1>(p, shared);                  \
            break;                                                          \
        default:                                                            \
            wide ? body<DNN_COLOR_FLOAT32, 2>(p, shared)                    \
                 : body<DNN_COLOR_FLOAT32, 1>(p, shared);                   \
            break;                                                          \
        }                                                                   \
    } while (0)

extern "C" {

/** One thread per luma pixel. */
__global__ void dnn_frame_to_tensor(DNNColorConvert p)
{
    __shared__ float shared[2 * CHROMA_TILE_SIZE];

    SPECIALIZE(frame_to_tensor, p, shared);
}

/** One thread per chroma sample (per pixel for packed RGB): its block of luma pixels. */
__global__ void dnn_tensor_to_frame(DNNColorConvert p)
{
    __shared__ float shared[3 * RGB_TILE_SIZE];

    SPECIALIZE(tensor_to_frame, p, shared);
}

/**
 * Black over p.frame, one thread per chroma sample: what a cropped output
 * frame holds outside its crop (never what its pool held before).
 */
__global__ void dnn_fill_black(DNNColorConvert p)
{
    int cx = blockIdx.x * blockDim.x + threadIdx.x;
    int cy = blockIdx.y * blockDim.y + threadIdx.y;

    if (cx < dnn_color_chroma_width(&p.layout, &p.frame) &&
        cy < dnn_color_chroma_height(&p.layout, &p.frame))
        dnn_color_black_block(&p.layout, &p.matrix, &p.frame, cx, cy);
}

}
