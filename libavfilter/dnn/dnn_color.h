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
 * Pixels <-> the model's tensor, one pixel (or one chroma sample) at a time:
 * the colour math of the DNN filters, shared by the CUDA kernels
 * (dnn_cuda_convert.cu) and the loops over frames in system memory
 * (dnn_color.c), so that a filter graph gives the same picture whichever
 * memory its frames are in.
 *
 * Plain C that also compiles as CUDA (clang's, with FFmpeg's compat header,
 * or nvcc's): no libc, no FFmpeg headers, no types wider than the structs'.
 *
 * The meaning, in float:
 * - code values: the component's bits (shifted down when MSB-aligned);
 * - Y'CbCr: Y' in [0, 1], Cb and Cr in [-0.5, 0.5], from limited range
 *   (Y' = (v - 16 * 2^(n-8)) / (219 * 2^(n-8)), C = (v - 128 * 2^(n-8)) / (224 * 2^(n-8)))
 *   or full range (Y' = v / (2^n - 1), C = (v - 2^(n-1)) / (2^n - 1));
 * - R'G'B' from Y'CbCr with the frame's matrix (Kr, Kb), not clipped: a code
 *   the frame holds reaches the model as it is, so that Y'CbCr made again of
 *   an unchanged R'G'B' gives back its luma (clipping R'G'B' made of
 *   upsampled chroma would change it);
 * - chroma upsampled bilinearly, each chroma sample at its siting: sample k
 *   of a plane subsampled by s lies at luma x = s * k + off, off = pos / 256
 *   * (s - 1) with pos from av_chroma_location_enum_to_pos(), x counted from
 *   the visible origin (a crop at an odd offset moves the siting: phase);
 * - chroma downsampled with the transpose: a tent of radius s around each
 *   chroma sample's position, normalized over the pixels inside the picture;
 * - packed RGB: v / (2^n - 1), the channels in memory order; the luma plane alone: v / (2^n - 1) (as
 *   swscale's gray to float);
 * - the model's R'G'B' made Y'CbCr as it is (NaN and -Inf as 0, +Inf as
 *   1), then the codes clipped: only what no code holds is lost;
 * - back to code values: round half to even (lrintf), clamp, NaN -> 0.
 */

#ifndef AVFILTER_DNN_DNN_COLOR_H
#define AVFILTER_DNN_DNN_COLOR_H

#if defined(__CUDACC__) || defined(__CUDA__)
// inlined into the kernels, so that components are constants there: an
// array indexed by a run-time value would send the kernel's parameters to
// local memory
#define DNN_COLOR_FUNC static inline __device__ __attribute__((always_inline))
#define DNN_COLOR_RINT(x) rintf(x)
#define DNN_COLOR_FLOOR(x) floorf(x)
#else
#include <math.h>
#define DNN_COLOR_FUNC static inline
#define DNN_COLOR_RINT(x) rintf(x)
#define DNN_COLOR_FLOOR(x) floorf(x)
#endif

#define DNN_COLOR_MAX_PLANES 4

/** The CUDA kernels' blocks: a warp along a row, as FFmpeg's CUDA filters. */
#define DNN_COLOR_BLOCK_W 32
#define DNN_COLOR_BLOCK_H 8

/**
 * A picture, by component: where the first visible sample of each is, and
 * the pitch of its plane.  Indexed by component, not plane, so that the
 * kernels index no array by a value known only at run time (which would
 * copy their parameters to local memory).
 */
typedef struct DNNColorPlanes {
    unsigned char *data[DNN_COLOR_MAX_PLANES];
    int linesize[DNN_COLOR_MAX_PLANES];
    int width, height;                  ///< visible size, in luma pixels
    /**
     * Luma pixels from the first chroma sample's block to the visible
     * origin (a crop at an offset that is not a multiple of the
     * subsampling): data[] point at the chroma samples whose block holds
     * the origin.
     */
    int phase_x, phase_y;
} DNNColorPlanes;

/** Components, in the order of the pixel descriptor's (packed R'G'B': of the bytes). */
enum { DNN_COLOR_Y, DNN_COLOR_CB, DNN_COLOR_CR, DNN_COLOR_ALPHA, DNN_COLOR_COMPONENTS };

/** Where a layout keeps its components: from its AVPixFmtDescriptor. */
typedef struct DNNColorLayout {
    int rgb;                            ///< packed R'G'B' (else Y'CbCr)
    int alpha;                          ///< packed R'G'B' with an alpha byte (else padding)
    int bytes;                          ///< of a sample container: 1 or 2 (or 4 for packed RGB's pixel)
    int depth;                          ///< significant bits of every component
    int shift;                          ///< their shift in the container
    int log2_chroma_w, log2_chroma_h;
    int plane[DNN_COLOR_COMPONENTS];    ///< -1: no such component (Y'CbCr's alpha)
    int step[DNN_COLOR_COMPONENTS];     ///< bytes from one sample to the next
    int offset[DNN_COLOR_COMPONENTS];   ///< bytes from the pixel to the sample
} DNNColorLayout;

/**
 * A frame's colour: its matrix and range as the factors used per pixel
 * (computed once by the host), and its chroma siting.
 */
typedef struct DNNColorMatrix {
    float y_offset, y_scale;            ///< code value -> Y': (v - y_offset) * y_scale
    float c_offset, c_scale;            ///< code value -> Cb, Cr
    float y_code, c_code;               ///< Y', C -> code value: x * y_code + y_offset
    float max_code;                     ///< 2^n - 1
    float cr_r, cb_g, cr_g, cb_b;       ///< Y'CbCr -> R'G'B'
    float kr, kg, kb;                   ///< R'G'B' -> Y'
    float cb_scale, cr_scale;           ///< 1 / (2 (1 - Kb)), 1 / (2 (1 - Kr))
    float chroma_x, chroma_y;           ///< siting: offset of chroma sample 0, in luma pixels
} DNNColorMatrix;

enum DNNColorDtype { DNN_COLOR_FLOAT32, DNN_COLOR_FLOAT16, DNN_COLOR_BFLOAT16 };

/** The model's tensor of one picture: CxHxW elements, any strides. */
typedef struct DNNColorTensor {
    void *data;
    int dtype;                          ///< enum DNNColorDtype
    int channels;                       ///< 3 (R'G'B') or 1 (Y')
    long long stride_c, stride_y, stride_x; ///< in elements
} DNNColorTensor;

/** Everything a conversion needs; passed by value to the CUDA kernels. */
typedef struct DNNColorConvert {
    DNNColorLayout layout;
    DNNColorMatrix matrix;
    DNNColorPlanes frame;               ///< the frame read or written
    DNNColorPlanes source;              ///< tensor -> frame: the input frame (alpha, a luma model's chroma)
    DNNColorTensor tensor;
} DNNColorConvert;

/**
 * Samples loaded once, as floats, where neighbouring threads of a CUDA
 * kernel read the same ones: the chroma samples that upsampling reads, or
 * the finite R'G'B' that the chroma tents read.  The functions below take
 * a null pointer for none (they then read the frame or the tensor itself).
 */
typedef struct DNNColorTile {
    float *data;                        ///< planes of plane_size floats (in shared memory)
    int x0, y0;                         ///< the sample of each plane's first float
    int pitch, plane_size;              ///< in floats
} DNNColorTile;

typedef union DNNColorBits {
    float f;
    unsigned u;
} DNNColorBits;

/**
 * 2^-n, exactly: scaling by it is the same as dividing by 2^n, without a
 * division (about ten instructions on a GPU, for each chroma tap).
 */
DNN_COLOR_FUNC float dnn_color_exp2_neg(int n)
{
    DNNColorBits b;
    b.u = (unsigned)(127 - n) << 23;
    return b.f;
}

DNN_COLOR_FUNC float dnn_color_clip01(float v)
{
    // NaN fails both tests: 0
    return v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f;
}

/**
 * A value of the model's R'G'B' made finite as the CPU path's
 * nan_to_num(0, 1, 0) does: NaN and -Inf 0, +Inf 1.
 */
DNN_COLOR_FUNC float dnn_color_finite(float v)
{
    if (v - v == 0.0f) // false for NaN and both infinities
        return v;
    return v > 0.0f ? 1.0f : 0.0f;
}

DNN_COLOR_FUNC int dnn_color_chroma_size(int size, int log2)
{
    return -((-size) >> log2);
}

/** The chroma samples of a plane: those whose block holds a visible pixel. */
DNN_COLOR_FUNC int dnn_color_chroma_width(const DNNColorLayout *l, const DNNColorPlanes *p)
{
    return dnn_color_chroma_size(p->width + p->phase_x, l->log2_chroma_w);
}

DNN_COLOR_FUNC int dnn_color_chroma_height(const DNNColorLayout *l, const DNNColorPlanes *p)
{
    return dnn_color_chroma_size(p->height + p->phase_y, l->log2_chroma_h);
}

DNN_COLOR_FUNC float *dnn_color_tile_at(const DNNColorTile *tile, int plane, int x, int y)
{
    return tile->data + plane * tile->plane_size + (y - tile->y0) * tile->pitch + (x - tile->x0);
}

DNN_COLOR_FUNC const unsigned char *dnn_color_sample_ptr(const DNNColorLayout *l,
                                                         const DNNColorPlanes *p,
                                                         int c, int x, int y)
{
    return p->data[c] + (long long)y * p->linesize[c] + (long long)x * l->step[c];
}

/** The code value of component c at (x, y) of its plane. */
DNN_COLOR_FUNC float dnn_color_read(const DNNColorLayout *l, const DNNColorPlanes *p,
                                    int c, int x, int y)
{
    const unsigned char *s = dnn_color_sample_ptr(l, p, c, x, y);
    unsigned v = l->bytes == 2 ? *(const unsigned short *)s : *s;
    return (float)(v >> l->shift);
}

DNN_COLOR_FUNC unsigned dnn_color_code(float v, float max_code)
{
    v = DNN_COLOR_RINT(v);
    return v > 0.0f ? (unsigned)(v < max_code ? v : max_code) : 0;
}

DNN_COLOR_FUNC void dnn_color_write(const DNNColorLayout *l, const DNNColorPlanes *p,
                                    int c, int x, int y, unsigned code)
{
    unsigned char *s = (unsigned char *)dnn_color_sample_ptr(l, p, c, x, y);
    if (l->bytes == 2)
        *(unsigned short *)s = (unsigned short)(code << l->shift);
    else
        *s = (unsigned char)(code << l->shift);
}

/** Copy component c's sample at (sx, sy) of src to (x, y) of dst (same layout). */
DNN_COLOR_FUNC void dnn_color_copy(const DNNColorLayout *l, const DNNColorPlanes *dst, int x, int y,
                                   const DNNColorPlanes *src, int sx, int sy, int c)
{
    const unsigned char *s = dnn_color_sample_ptr(l, src, c, sx, sy);
    unsigned char *d = (unsigned char *)dnn_color_sample_ptr(l, dst, c, x, y);
    if (l->bytes == 2)
        *(unsigned short *)d = *(const unsigned short *)s;
    else
        *d = *s;
}

/**
 * Bilinear weights of chroma samples i0 and i0 + 1 for luma coordinate x:
 * i0 and the weight of i0 + 1; i0 + 1 may be past the edge (then its
 * weight is 0 or it is clamped by the caller).
 */
DNN_COLOR_FUNC int dnn_color_upsample_pos(int x, int log2, float off, float *frac)
{
    float u = ((float)x - off) * dnn_color_exp2_neg(log2);
    float u0 = DNN_COLOR_FLOOR(u);
    *frac = u - u0;
    return (int)u0;
}

DNN_COLOR_FUNC int dnn_color_clampi(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/** Code value of chroma component comp (0: Cb, 1: Cr) at (x, y) of its plane, or of the tile. */
DNN_COLOR_FUNC float dnn_color_read_cbcr(const DNNColorLayout *l, const DNNColorPlanes *p,
                                         const DNNColorTile *tile, int comp, int x, int y)
{
    if (tile)
        return *dnn_color_tile_at(tile, comp, x, y);
    return dnn_color_read(l, p, DNN_COLOR_CB + comp, x, y);
}

/**
 * Chroma samples that upsampling reads for luma pixels [x0, x1) along an
 * axis subsampled by 2^log2 (siting offset in [0, 2^log2 - 1]), before
 * clamping to the plane: within [(x0 >> log2) - 1, ((x1 - 1) >> log2) + 1].
 */
DNN_COLOR_FUNC void dnn_color_upsample_span(int x0, int x1, int log2, int *first, int *count)
{
    *first = (x0 >> log2) - 1;
    *count = ((x1 - 1) >> log2) + 1 - *first + 1;
}

/** Cb, Cr at luma pixel (x, y): chroma interpolated at its siting. */
DNN_COLOR_FUNC void dnn_color_read_chroma(const DNNColorLayout *l, const DNNColorMatrix *m,
                                          const DNNColorPlanes *p, const DNNColorTile *tile,
                                          int x, int y, float *cb, float *cr)
{
    int cw = dnn_color_chroma_width(l, p), ch = dnn_color_chroma_height(l, p);
    float fx, fy;
    int x0 = dnn_color_upsample_pos(x + p->phase_x, l->log2_chroma_w, m->chroma_x, &fx);
    int y0 = dnn_color_upsample_pos(y + p->phase_y, l->log2_chroma_h, m->chroma_y, &fy);
    int xa = dnn_color_clampi(x0, 0, cw - 1), xb = dnn_color_clampi(x0 + 1, 0, cw - 1);
    int ya = dnn_color_clampi(y0, 0, ch - 1), yb = dnn_color_clampi(y0 + 1, 0, ch - 1);
    float c[2];

    for (int i = 0; i < 2; i++) {
        float top = dnn_color_read_cbcr(l, p, tile, i, xa, ya) * (1.0f - fx) +
                    dnn_color_read_cbcr(l, p, tile, i, xb, ya) * fx;
        float bottom = dnn_color_read_cbcr(l, p, tile, i, xa, yb) * (1.0f - fx) +
                       dnn_color_read_cbcr(l, p, tile, i, xb, yb) * fx;
        c[i] = top * (1.0f - fy) + bottom * fy;
    }
    *cb = (c[0] - m->c_offset) * m->c_scale;
    *cr = (c[1] - m->c_offset) * m->c_scale;
}

/** R'G'B' of luma pixel (x, y) of a Y'CbCr picture (beyond [0, 1] where its codes are). */
DNN_COLOR_FUNC void dnn_color_yuv_pixel(const DNNColorLayout *l, const DNNColorMatrix *m,
                                        const DNNColorPlanes *p, const DNNColorTile *chroma,
                                        int x, int y, float rgb[3])
{
    float luma = (dnn_color_read(l, p, DNN_COLOR_Y, x, y) - m->y_offset) * m->y_scale;
    float cb, cr;

    dnn_color_read_chroma(l, m, p, chroma, x, y, &cb, &cr);
    rgb[0] = luma + m->cr_r * cr;
    rgb[1] = luma + m->cb_g * cb + m->cr_g * cr;
    rgb[2] = luma + m->cb_b * cb;
}

/**
 * The tensor's channels at luma pixel (x, y): R'G'B' (packed RGB in memory
 * order, Y'CbCr converted, its chroma from the tile if any) or the luma alone.
 */
DNN_COLOR_FUNC void dnn_color_pixel(const DNNColorLayout *l, const DNNColorMatrix *m,
                                    const DNNColorPlanes *p, const DNNColorTile *chroma,
                                    int channels, int x, int y, float v[3])
{
    if (l->rgb) {
        for (int i = 0; i < 3; i++)
            v[i] = dnn_color_read(l, p, i, x, y) * (1.0f / m->max_code);
    } else if (channels == 1) {
        v[0] = dnn_color_read(l, p, DNN_COLOR_Y, x, y) * (1.0f / m->max_code);
    } else {
        dnn_color_yuv_pixel(l, m, p, chroma, x, y, v);
    }
}

/** Weight of luma pixel x for the chroma sample centred at luma coordinate centre. */
DNN_COLOR_FUNC float dnn_color_tent(int x, float centre, int log2)
{
    float d = (float)x - centre;
    float w = 1.0f - (d < 0.0f ? -d : d) * dnn_color_exp2_neg(log2);
    return w > 0.0f ? w : 0.0f;
}

/**
 * Writes what the model made of pixel (x, y) of packed R'G'B', v in [0, 1]
 * (clipped; NaN is 0), the whole pixel: alpha from src when keep_alpha
 * (else opaque).
 */
DNN_COLOR_FUNC void dnn_color_write_rgb(const DNNColorLayout *l, const DNNColorMatrix *m,
                                        const DNNColorPlanes *p, int x, int y, const float v[3],
                                        const DNNColorPlanes *src, int keep_alpha)
{
    unsigned alpha = (unsigned)m->max_code;

    for (int i = 0; i < 3; i++)
        dnn_color_write(l, p, i, x, y, dnn_color_code(dnn_color_clip01(v[i]) * m->max_code, m->max_code));
    if (keep_alpha)
        alpha = (unsigned)dnn_color_read(l, src, DNN_COLOR_ALPHA, x, y);
    // alpha, or the padding byte of rgb0/bgr0: opaque
    dnn_color_write(l, p, DNN_COLOR_ALPHA, x, y, alpha);
}

DNN_COLOR_FUNC void dnn_color_finite_rgb(float rgb[3])
{
    for (int i = 0; i < 3; i++)
        rgb[i] = dnn_color_finite(rgb[i]);
}

/** Cb, Cr code values of the R'G'B' mean r, g, b with luma y. */
DNN_COLOR_FUNC void dnn_color_write_chroma(const DNNColorLayout *l, const DNNColorMatrix *m,
                                           const DNNColorPlanes *p, int cx, int cy,
                                           const float rgb[3])
{
    float luma = m->kr * rgb[0] + m->kg * rgb[1] + m->kb * rgb[2];
    float cb = (rgb[2] - luma) * m->cb_scale;
    float cr = (rgb[0] - luma) * m->cr_scale;

    dnn_color_write(l, p, DNN_COLOR_CB, cx, cy, dnn_color_code(cb * m->c_code + m->c_offset, m->max_code));
    dnn_color_write(l, p, DNN_COLOR_CR, cx, cy, dnn_color_code(cr * m->c_code + m->c_offset, m->max_code));
}

/** Luma pixels of chroma sample (cx, cy): [x0, x1) x [y0, y1), inside the picture. */
DNN_COLOR_FUNC void dnn_color_block(const DNNColorLayout *l, const DNNColorPlanes *p,
                                    int cx, int cy, int *x0, int *x1, int *y0, int *y1)
{
    *x0 = cx << l->log2_chroma_w;
    *y0 = cy << l->log2_chroma_h;
    *x1 = *x0 + (1 << l->log2_chroma_w);
    *y1 = *y0 + (1 << l->log2_chroma_h);
    if (*x1 > p->width)
        *x1 = p->width;
    if (*y1 > p->height)
        *y1 = p->height;
}

/**
 * Component c of chroma sample (cx, cy) of dst, bilinearly between src's
 * samples (cx, cy) and (xb, yb) at fractions fx, fy.  c is a constant at each
 * call: a component index known only at run time makes clang's PTX copy the
 * kernel's whole parameter block to local memory in every thread.
 */
DNN_COLOR_FUNC void dnn_color_bilinear_chroma(const DNNColorLayout *l, const DNNColorMatrix *m,
                                              const DNNColorPlanes *dst, const DNNColorPlanes *src,
                                              int c, int cx, int cy, int xb, int yb,
                                              float fx, float fy)
{
    float top = dnn_color_read(l, src, c, cx, cy) * (1.0f - fx) +
                dnn_color_read(l, src, c, xb, cy) * fx;
    float bottom = dnn_color_read(l, src, c, cx, yb) * (1.0f - fx) +
                   dnn_color_read(l, src, c, xb, yb) * fx;

    dnn_color_write(l, dst, c, cx, cy,
                    dnn_color_code(top * (1.0f - fy) + bottom * fy, m->max_code));
}

/**
 * Chroma sample (cx, cy) of dst, of the size of src, from src's chroma: the
 * same samples, or, where src is cropped at a phase (its chroma samples sit
 * off dst's by phase luma pixels), bilinearly between its two neighbours
 * there, as the upsampling reads them.
 */
DNN_COLOR_FUNC void dnn_color_keep_chroma(const DNNColorLayout *l, const DNNColorMatrix *m,
                                          const DNNColorPlanes *dst, int cx, int cy,
                                          const DNNColorPlanes *src)
{
    float fx = (float)src->phase_x * dnn_color_exp2_neg(l->log2_chroma_w);
    float fy = (float)src->phase_y * dnn_color_exp2_neg(l->log2_chroma_h);
    int xb, yb;

    if (!src->phase_x && !src->phase_y) {
        dnn_color_copy(l, dst, cx, cy, src, cx, cy, DNN_COLOR_CB);
        dnn_color_copy(l, dst, cx, cy, src, cx, cy, DNN_COLOR_CR);
        return;
    }
    xb = dnn_color_clampi(cx + 1, 0, dnn_color_chroma_width(l, src) - 1);
    yb = dnn_color_clampi(cy + 1, 0, dnn_color_chroma_height(l, src) - 1);
    dnn_color_bilinear_chroma(l, m, dst, src, DNN_COLOR_CB, cx, cy, xb, yb, fx, fy);
    dnn_color_bilinear_chroma(l, m, dst, src, DNN_COLOR_CR, cx, cy, xb, yb, fx, fy);
}

/**
 * Bicubic weight (B = 0, C = 0.6: swscale's SWS_BICUBIC) of a sample at
 * distance d, the kernel stretched by scale when shrinking.
 */
DNN_COLOR_FUNC float dnn_color_cubic(float d, float scale)
{
    const float c = 0.6f;
    d = (d < 0.0f ? -d : d) / scale;
    if (d < 1.0f)
        return ((2.0f - c) * d - (3.0f - c)) * d * d + 1.0f;
    if (d < 2.0f)
        return ((-c * d + 5.0f * c) * d - 8.0f * c) * d + 4.0f * c;
    return 0.0f;
}

/**
 * Chroma sample (cx, cy) of dst resized from src's chroma planes (luma-only
 * models that change the size: the chroma follows, as upstream's swscale
 * does it), centre-aligned bicubic.
 */
DNN_COLOR_FUNC void dnn_color_resize_chroma(const DNNColorLayout *l, const DNNColorMatrix *m,
                                            const DNNColorPlanes *dst, int cx, int cy,
                                            const DNNColorPlanes *src)
{
    int sw = dnn_color_chroma_size(src->width,  l->log2_chroma_w);
    int sh = dnn_color_chroma_size(src->height, l->log2_chroma_h);
    int dw = dnn_color_chroma_size(dst->width,  l->log2_chroma_w);
    int dh = dnn_color_chroma_size(dst->height, l->log2_chroma_h);
    float ratio_x = (float)sw / (float)dw, ratio_y = (float)sh / (float)dh;
    float scale_x = ratio_x > 1.0f ? ratio_x : 1.0f, scale_y = ratio_y > 1.0f ? ratio_y : 1.0f;
    // a cropped src's chroma sits phase luma pixels off: sample there
    float u = ((float)cx + 0.5f) * ratio_x - 0.5f + (float)src->phase_x * dnn_color_exp2_neg(l->log2_chroma_w);
    float v = ((float)cy + 0.5f) * ratio_y - 0.5f + (float)src->phase_y * dnn_color_exp2_neg(l->log2_chroma_h);
    int rx = (int)(2.0f * scale_x) + 1, ry = (int)(2.0f * scale_y) + 1;
    int ux = (int)DNN_COLOR_FLOOR(u), vy = (int)DNN_COLOR_FLOOR(v);
    float sum[2] = { 0.0f, 0.0f }, weights = 0.0f;

    for (int j = vy - ry + 1; j <= vy + ry; j++) {
        float wy = dnn_color_cubic((float)j - v, scale_y);
        if (wy == 0.0f)
            continue;
        for (int i = ux - rx + 1; i <= ux + rx; i++) {
            float w = wy * dnn_color_cubic((float)i - u, scale_x);
            int si = dnn_color_clampi(i, 0, dnn_color_chroma_width(l, src) - 1);
            int sj = dnn_color_clampi(j, 0, dnn_color_chroma_height(l, src) - 1);
            if (w == 0.0f)
                continue;
            sum[0] += w * dnn_color_read(l, src, DNN_COLOR_CB, si, sj);
            sum[1] += w * dnn_color_read(l, src, DNN_COLOR_CR, si, sj);
            weights += w;
        }
    }
    dnn_color_write(l, dst, DNN_COLOR_CB, cx, cy, dnn_color_code(sum[0] / weights, m->max_code));
    dnn_color_write(l, dst, DNN_COLOR_CR, cx, cy, dnn_color_code(sum[1] / weights, m->max_code));
}

/* The tensor's elements: float32, float16 and bfloat16 (the CUDA kernels). */
DNN_COLOR_FUNC float dnn_color_from_bf16(unsigned short h)
{
    DNNColorBits b;
    b.u = (unsigned)h << 16;
    return b.f;
}

DNN_COLOR_FUNC unsigned short dnn_color_to_bf16(float f)
{
    DNNColorBits b;
    b.f = f;
    if ((b.u & 0x7fffffffu) > 0x7f800000u)
        return 0x7fc0; // NaN stays NaN (rounding could make it infinity)
    return (unsigned short)((b.u + 0x7fffu + ((b.u >> 16) & 1)) >> 16); // to nearest, ties to even
}

#if defined(__CUDACC__) || defined(__CUDA__)
DNN_COLOR_FUNC float dnn_color_from_f16(unsigned short h)
{
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}

DNN_COLOR_FUNC unsigned short dnn_color_to_f16(float f)
{
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
#define DNN_COLOR_HAVE_F16 1
#else
// the loops over system memory fill LibTorch's float32 input: no float16
#define DNN_COLOR_HAVE_F16 0
#endif

DNN_COLOR_FUNC long long dnn_color_index(const DNNColorTensor *t, int c, int x, int y)
{
    return c * t->stride_c + y * t->stride_y + x * t->stride_x;
}

DNN_COLOR_FUNC float dnn_color_load(const DNNColorTensor *t, int c, int x, int y)
{
    long long i = dnn_color_index(t, c, x, y);
    switch (t->dtype) {
#if DNN_COLOR_HAVE_F16
    case DNN_COLOR_FLOAT16:  return dnn_color_from_f16(((const unsigned short *)t->data)[i]);
#endif
    case DNN_COLOR_BFLOAT16: return dnn_color_from_bf16(((const unsigned short *)t->data)[i]);
    default:                 return ((const float *)t->data)[i];
    }
}

DNN_COLOR_FUNC void dnn_color_store(const DNNColorTensor *t, int c, int x, int y, float v)
{
    long long i = dnn_color_index(t, c, x, y);
    switch (t->dtype) {
#if DNN_COLOR_HAVE_F16
    case DNN_COLOR_FLOAT16:  ((unsigned short *)t->data)[i] = dnn_color_to_f16(v);  break;
#endif
    case DNN_COLOR_BFLOAT16: ((unsigned short *)t->data)[i] = dnn_color_to_bf16(v); break;
    default:                 ((float *)t->data)[i] = v;                             break;
    }
}

/** Frame -> tensor: the tensor's channels at luma pixel (x, y) (chroma: see dnn_color_pixel()). */
DNN_COLOR_FUNC void dnn_color_pixel_to_tensor(const DNNColorLayout *l, const DNNColorMatrix *m,
                                              const DNNColorPlanes *p, const DNNColorTile *chroma,
                                              const DNNColorTensor *t, int x, int y)
{
    float v[3];

    dnn_color_pixel(l, m, p, chroma, t->channels, x, y, v);
    dnn_color_store(t, 0, x, y, v[0]);
    if (t->channels == 3) { // constant indices: v stays in registers
        dnn_color_store(t, 1, x, y, v[1]);
        dnn_color_store(t, 2, x, y, v[2]);
    }
}

DNN_COLOR_FUNC void dnn_color_load_rgb(const DNNColorTensor *t, int x, int y, float rgb[3])
{
    for (int c = 0; c < 3; c++)
        rgb[c] = dnn_color_load(t, c, x, y);
}

/** R'G'B' of luma pixel (x, y), made finite: from the tensor, or the tile. */
DNN_COLOR_FUNC void dnn_color_finite_rgb_at(const DNNColorTensor *t, const DNNColorTile *tile,
                                          int x, int y, float rgb[3])
{
    if (tile) {
        for (int c = 0; c < 3; c++)
            rgb[c] = *dnn_color_tile_at(tile, c, x, y);
    } else {
        dnn_color_load_rgb(t, x, y, rgb);
        dnn_color_finite_rgb(rgb);
    }
}

/** Writes the Y' of luma pixel (x, y) from its R'G'B' (the code clipped). */
DNN_COLOR_FUNC void dnn_color_write_luma(const DNNColorLayout *l, const DNNColorMatrix *m,
                                         const DNNColorPlanes *dst, int x, int y, const float rgb[3])
{
    float luma = m->kr * rgb[0] + m->kg * rgb[1] + m->kb * rgb[2];

    dnn_color_write(l, dst, DNN_COLOR_Y, x, y,
                    dnn_color_code(luma * m->y_code + m->y_offset, m->max_code));
}

/**
 * Luma pixels, [first, last] inside the picture, that the tent of chroma
 * sample k reads along an axis subsampled by 2^log2 (siting offset in
 * [0, 2^log2 - 1]): within [(k - 1) 2^log2 + 1, (k + 2) 2^log2 - 1].
 */
DNN_COLOR_FUNC void dnn_color_tent_span(int k, float offset, int log2, int size,
                                        float *centre, int *first, int *last)
{
    int radius = 1 << log2;

    *centre = (float)(k << log2) + offset;
    *first  = dnn_color_clampi((int)DNN_COLOR_FLOOR(*centre) - radius + 1, 0, size - 1);
    *last   = dnn_color_clampi((int)DNN_COLOR_FLOOR(*centre) + radius, 0, size - 1);
}

/**
 * Luma pixels that the tents of chroma samples [k0, k1) read, before
 * clamping to the picture (the union of their dnn_color_tent_span()s).
 */
DNN_COLOR_FUNC void dnn_color_tents_span(int k0, int k1, int log2, int *first, int *count)
{
    *first = ((k0 - 1) << log2) + 1;
    *count = ((k1 + 1) << log2) - 1 - *first + 1;
}

/**
 * Chroma sample (cx, cy) of dst from the model's R'G'B' (the tensor's, or
 * the tile's): the tent around its siting (the transpose of the
 * upsampling), normalized over the picture.
 */
DNN_COLOR_FUNC void dnn_color_chroma_tent(const DNNColorLayout *l, const DNNColorMatrix *m,
                                          const DNNColorPlanes *dst, const DNNColorTensor *t,
                                          const DNNColorTile *tile, int cx, int cy)
{
    float centre_x, centre_y, sum[3] = { 0.0f, 0.0f, 0.0f }, weights = 0.0f, rgb[3];
    int x0, x1, y0, y1;

    dnn_color_tent_span(cx, m->chroma_x, l->log2_chroma_w, dst->width,  &centre_x, &x0, &x1);
    dnn_color_tent_span(cy, m->chroma_y, l->log2_chroma_h, dst->height, &centre_y, &y0, &y1);
    for (int y = y0; y <= y1; y++) {
        float wy = dnn_color_tent(y, centre_y, l->log2_chroma_h);
        if (wy == 0.0f)
            continue;
        for (int x = x0; x <= x1; x++) {
            float w = wy * dnn_color_tent(x, centre_x, l->log2_chroma_w);
            if (w == 0.0f)
                continue;
            dnn_color_finite_rgb_at(t, tile, x, y, rgb);
            for (int c = 0; c < 3; c++)
                sum[c] += w * rgb[c];
            weights += w;
        }
    }
    for (int c = 0; c < 3; c++)
        sum[c] /= weights;
    dnn_color_write_chroma(l, m, dst, cx, cy, sum);
}

/**
 * Black at chroma sample (cx, cy) of dst and its block of luma pixels (a
 * pixel for packed RGB, opaque): Y' 0 and neutral chroma in the frame's
 * range, or R'G'B' 0.
 */
DNN_COLOR_FUNC void dnn_color_black_block(const DNNColorLayout *l, const DNNColorMatrix *m,
                                          const DNNColorPlanes *dst, int cx, int cy)
{
    int x0, x1, y0, y1;

    if (l->rgb) {
        const float black[3] = { 0.0f, 0.0f, 0.0f };
        dnn_color_write_rgb(l, m, dst, cx, cy, black, dst, 0);
        return;
    }
    dnn_color_block(l, dst, cx, cy, &x0, &x1, &y0, &y1);
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            dnn_color_write(l, dst, DNN_COLOR_Y, x, y, dnn_color_code(m->y_offset, m->max_code));
    dnn_color_write(l, dst, DNN_COLOR_CB, cx, cy, dnn_color_code(m->c_offset, m->max_code));
    dnn_color_write(l, dst, DNN_COLOR_CR, cx, cy, dnn_color_code(m->c_offset, m->max_code));
}

/** Tensor -> Y'CbCr of an R'G'B' model: the luma of the block, and its chroma sample. */
DNN_COLOR_FUNC void dnn_color_rgb_block(const DNNColorLayout *l, const DNNColorMatrix *m,
                                        const DNNColorPlanes *dst, const DNNColorTensor *t,
                                        int cx, int cy)
{
    int x0, x1, y0, y1;
    float rgb[3];

    dnn_color_block(l, dst, cx, cy, &x0, &x1, &y0, &y1);
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            dnn_color_finite_rgb_at(t, 0, x, y, rgb);
            dnn_color_write_luma(l, m, dst, x, y, rgb);
        }
    dnn_color_chroma_tent(l, m, dst, t, 0, cx, cy);
}

/** Tensor -> Y'CbCr of a luma model: the block's luma; chroma from the input frame src. */
DNN_COLOR_FUNC void dnn_color_luma_block(const DNNColorLayout *l, const DNNColorMatrix *m,
                                         const DNNColorPlanes *dst, const DNNColorTensor *t,
                                         int cx, int cy, const DNNColorPlanes *src)
{
    int x0, x1, y0, y1;

    dnn_color_block(l, dst, cx, cy, &x0, &x1, &y0, &y1);
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            dnn_color_write(l, dst, DNN_COLOR_Y, x, y,
                            dnn_color_code(dnn_color_clip01(dnn_color_load(t, 0, x, y)) * m->max_code,
                                           m->max_code));
    if (src->width == dst->width && src->height == dst->height) {
        dnn_color_keep_chroma(l, m, dst, cx, cy, src);
    } else {
        dnn_color_resize_chroma(l, m, dst, cx, cy, src);
    }
}

/**
 * Tensor -> frame: what the model made of chroma sample (cx, cy) of dst
 * (a pixel for packed RGB), src being the input frame's picture.
 */
DNN_COLOR_FUNC void dnn_color_tensor_to_block(const DNNColorLayout *l, const DNNColorMatrix *m,
                                              const DNNColorPlanes *dst, const DNNColorTensor *t,
                                              int cx, int cy, const DNNColorPlanes *src)
{
    if (l->rgb) {
        float rgb[3];
        int same_size = src->width == dst->width && src->height == dst->height;
        dnn_color_load_rgb(t, cx, cy, rgb);
        dnn_color_write_rgb(l, m, dst, cx, cy, rgb, src, l->alpha && same_size);
    } else if (t->channels == 1) {
        dnn_color_luma_block(l, m, dst, t, cx, cy, src);
    } else {
        dnn_color_rgb_block(l, m, dst, t, cx, cy);
    }
}

#endif /* AVFILTER_DNN_DNN_COLOR_H */
