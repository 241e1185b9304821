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

#include "libavutil/error.h"
#include "libavutil/log.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/dnn_interface.h"
#include "dnn_color_frame.h"

#define UNSUPPORTED_FLAGS (AV_PIX_FMT_FLAG_BE | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM | \
                           AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_FLOAT | AV_PIX_FMT_FLAG_BAYER | \
                           AV_PIX_FMT_FLAG_XYZ)

/**
 * Packed 8-bit R'G'B' in 4 bytes, the colour channels first: components 0,
 * 1, 2 are bytes 0, 1, 2 (the tensor's channels in memory order, as for
 * rgb24/bgr24 in system memory), and the 4th is alpha or a padding byte
 * written opaque.
 */
static int packed_rgb_layout(const AVPixFmtDescriptor *desc, DNNColorLayout *l)
{
    if ((desc->flags & AV_PIX_FMT_FLAG_PLANAR) || desc->comp[0].step != 4 ||
        desc->comp[0].offset == 3 || desc->comp[1].offset == 3 || desc->comp[2].offset == 3)
        return AVERROR(ENOSYS); // 0rgb and the like: the channels would not start at byte 0
    l->rgb   = 1;
    l->alpha = desc->nb_components == 4;
    for (int c = 0; c < DNN_COLOR_COMPONENTS; c++) {
        l->plane[c]  = 0;
        l->step[c]   = 4;
        l->offset[c] = c;
    }
    return 0;
}

int ff_dnn_color_layout(enum AVPixelFormat format, DNNColorLayout *l)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(format);

    if (!desc || (desc->flags & UNSUPPORTED_FLAGS) || desc->nb_components < 3)
        return AVERROR(ENOSYS);
    *l = (DNNColorLayout){ 0 };
    for (int c = 0; c < 3; c++) {
        if (desc->comp[c].depth != desc->comp[0].depth || desc->comp[c].shift != desc->comp[0].shift)
            return AVERROR(ENOSYS);
        l->plane[c]  = desc->comp[c].plane;
        l->step[c]   = desc->comp[c].step;
        l->offset[c] = desc->comp[c].offset;
    }
    l->depth = desc->comp[0].depth;
    l->shift = desc->comp[0].shift;
    l->bytes = l->depth + l->shift > 8 ? 2 : 1;
    l->log2_chroma_w = desc->log2_chroma_w;
    l->log2_chroma_h = desc->log2_chroma_h;
    l->plane[DNN_COLOR_ALPHA] = l->offset[DNN_COLOR_ALPHA] = -1;
    if (desc->flags & AV_PIX_FMT_FLAG_RGB)
        return l->depth == 8 ? packed_rgb_layout(desc, l) : AVERROR(ENOSYS);
    // Y'CbCr, alpha not taken (yuva*: the model could not keep it)
    if (desc->nb_components != 3 || l->depth > 16 || l->depth < 8)
        return AVERROR(ENOSYS);
    return 0;
}

/** Kr, Kb of a Y'CbCr matrix; 0 if not a Kr/Kb matrix.  *guessed when unknown. */
static int matrix_coefficients(enum AVColorSpace space, float *kr, float *kb, int *guessed)
{
    *guessed = 0;
    switch (space) {
    case AVCOL_SPC_BT709:      *kr = 0.2126f; *kb = 0.0722f; return 1;
    case AVCOL_SPC_BT2020_NCL: *kr = 0.2627f; *kb = 0.0593f; return 1;
    case AVCOL_SPC_SMPTE240M:  *kr = 0.212f;  *kb = 0.087f;  return 1;
    case AVCOL_SPC_FCC:        *kr = 0.30f;   *kb = 0.11f;   return 1;
    case AVCOL_SPC_BT470BG:
    case AVCOL_SPC_SMPTE170M:  *kr = 0.299f;  *kb = 0.114f;  return 1;
    case AVCOL_SPC_UNSPECIFIED:
    case AVCOL_SPC_RESERVED:   *kr = 0.299f;  *kb = 0.114f;  *guessed = 1; return 1;
    default:                   return 0;
    }
}

static void set_range(const DNNColorLayout *l, int full_range, DNNColorMatrix *m)
{
    float scale = (float)(1 << (l->depth - 8));

    m->max_code = (float)((1 << l->depth) - 1);
    if (full_range) {
        m->y_offset = 0.0f;
        m->y_code   = m->max_code;
        m->c_offset = (float)(1 << (l->depth - 1));
        m->c_code   = m->max_code;
    } else {
        m->y_offset = 16.0f * scale;
        m->y_code   = 219.0f * scale;
        m->c_offset = 128.0f * scale;
        m->c_code   = 224.0f * scale;
    }
    m->y_scale = 1.0f / m->y_code;
    m->c_scale = 1.0f / m->c_code;
}

static void set_siting(const DNNColorLayout *l, enum AVChromaLocation location, DNNColorMatrix *m)
{
    int xpos = 0, ypos = 128;

    // unspecified: left, MPEG-2's and H.264's default for 4:2:0
    if (location != AVCHROMA_LOC_UNSPECIFIED)
        av_chroma_location_enum_to_pos(&xpos, &ypos, location);
    m->chroma_x = xpos / 256.0f * ((1 << l->log2_chroma_w) - 1);
    m->chroma_y = ypos / 256.0f * ((1 << l->log2_chroma_h) - 1);
}

int ff_dnn_color_matrix(void *log_ctx, const AVFrame *frame, const DNNColorLayout *l,
                        DNNColorMatrix *m, int *guessed)
{
    float kr, kb, kg;

    *m = (DNNColorMatrix){ 0 };
    *guessed = 0;
    if (l->rgb) {
        set_range(l, 1, m);
        return 0;
    }
    if (!matrix_coefficients(frame->colorspace, &kr, &kb, guessed)) {
        av_log(log_ctx, AV_LOG_ERROR, "Y'CbCr frames of matrix %s cannot be converted to RGB: "
               "the matrices are bt470bg, smpte170m, bt709, bt2020nc, smpte240m and fcc "
               "(unspecified: as bt470bg)\n", av_color_space_name(frame->colorspace));
        return AVERROR(ENOSYS);
    }
    kg = 1.0f - kr - kb;
    set_range(l, frame->color_range == AVCOL_RANGE_JPEG, m);
    set_siting(l, frame->chroma_location, m);
    m->kr = kr;
    m->kg = kg;
    m->kb = kb;
    m->cr_r = 2.0f * (1.0f - kr);
    m->cb_b = 2.0f * (1.0f - kb);
    m->cb_g = -2.0f * (1.0f - kb) * kb / kg;
    m->cr_g = -2.0f * (1.0f - kr) * kr / kg;
    m->cb_scale = 1.0f / m->cb_b;
    m->cr_scale = 1.0f / m->cr_r;
    return 0;
}

/** The picture of frame inside the crop left, top, right, bottom. */
static void cropped_planes(const AVFrame *frame, const DNNColorLayout *l, DNNColorPlanes *p,
                           size_t left, size_t top, size_t right, size_t bottom)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(ff_dnn_color_frame_layout(frame));
    uint8_t *planes[DNN_COLOR_MAX_PLANES];

    p->width   = frame->width  - left - right;
    p->height  = frame->height - top  - bottom;
    // a crop inside a chroma sample's block: the planes below start at that
    // sample, which sits phase luma pixels before the visible origin
    p->phase_x = left & ((1 << l->log2_chroma_w) - 1);
    p->phase_y = top  & ((1 << l->log2_chroma_h) - 1);
    for (int i = 0; i < DNN_COLOR_MAX_PLANES; i++) {
        // as av_frame_apply_cropping(): the step of the plane's first
        // component, chroma offsets rounded down
        int shift_x = i == 1 || i == 2 ? desc->log2_chroma_w : 0;
        int shift_y = i == 1 || i == 2 ? desc->log2_chroma_h : 0;
        int step = 0;

        for (int c = desc->nb_components - 1; c >= 0; c--)
            if (desc->comp[c].plane == i)
                step = desc->comp[c].step;
        planes[i] = step ? frame->data[i] + (top >> shift_y) * frame->linesize[i]
                                          + (left >> shift_x) * step : NULL;
    }
    for (int c = 0; c < DNN_COLOR_COMPONENTS; c++) {
        int plane = l->plane[c];
        p->data[c]     = plane >= 0 && planes[plane] ? planes[plane] + l->offset[c] : NULL;
        p->linesize[c] = plane >= 0 ? frame->linesize[plane] : 0;
    }
}

void ff_dnn_color_planes(const AVFrame *frame, const DNNColorLayout *l, DNNColorPlanes *p)
{
    cropped_planes(frame, l, p, frame->crop_left, frame->crop_top,
                   frame->crop_right, frame->crop_bottom);
}

void ff_dnn_color_whole_planes(const AVFrame *frame, const DNNColorLayout *l, DNNColorPlanes *p)
{
    cropped_planes(frame, l, p, 0, 0, 0, 0);
}

enum AVPixelFormat ff_dnn_color_frame_layout(const AVFrame *frame)
{
    if (frame->format == AV_PIX_FMT_CUDA && frame->hw_frames_ctx)
        return ((AVHWFramesContext *)frame->hw_frames_ctx->data)->sw_format;
    return frame->format;
}

void ff_dnn_color_frame_to_tensor_rows(const DNNColorConvert *p, int y0, int y1)
{
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < p->frame.width; x++)
            dnn_color_pixel_to_tensor(&p->layout, &p->matrix, &p->frame, NULL, &p->tensor, x, y);
}

int ff_dnn_color_chroma_rows(const DNNColorConvert *p)
{
    return dnn_color_chroma_size(p->frame.height, p->layout.log2_chroma_h);
}

void ff_dnn_color_tensor_to_frame_rows(const DNNColorConvert *p, int cy0, int cy1)
{
    int width = dnn_color_chroma_size(p->frame.width, p->layout.log2_chroma_w);

    for (int cy = cy0; cy < cy1; cy++)
        for (int cx = 0; cx < width; cx++)
            dnn_color_tensor_to_block(&p->layout, &p->matrix, &p->frame, &p->tensor, cx, cy, &p->source);
}

int ff_dnn_color_channels(enum AVPixelFormat format, int yuv_input)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(format);

    if (!desc || (desc->flags & AV_PIX_FMT_FLAG_RGB))
        return 3;
    if (desc->nb_components >= 3 && yuv_input == DNN_COLOR_YUV_RGB)
        return 3;
    return 1;
}

int ff_dnn_color_converts(enum AVPixelFormat format, int yuv_input)
{
    DNNColorLayout layout;
    return yuv_input == DNN_COLOR_YUV_RGB && ff_dnn_color_layout(format, &layout) >= 0 &&
           !layout.rgb;
}

/** A float32 NCHW tensor of the picture's size, contiguous. */
static DNNColorTensor contiguous_tensor(float *data, int channels, const DNNColorPlanes *p)
{
    DNNColorTensor t = {
        .data     = data,
        .dtype    = DNN_COLOR_FLOAT32,
        .channels = channels,
        .stride_c = (long long)p->width * p->height,
        .stride_y = p->width,
        .stride_x = 1,
    };
    return t;
}

int ff_dnn_color_prepare_read(void *log_ctx, const AVFrame *frame, float *data, int channels,
                              DNNColorConvert *p)
{
    int guessed, ret = ff_dnn_color_layout(frame->format, &p->layout);

    if (ret < 0)
        return ret;
    ret = ff_dnn_color_matrix(log_ctx, frame, &p->layout, &p->matrix, &guessed);
    if (ret < 0)
        return ret;
    ff_dnn_color_planes(frame, &p->layout, &p->frame);
    p->tensor = contiguous_tensor(data, channels, &p->frame);
    return 0;
}

int ff_dnn_color_prepare_write(void *log_ctx, const float *data, int channels,
                               const AVFrame *in, AVFrame *out, DNNColorConvert *p)
{
    // the same as reading out, plus the input frame as the source
    int ret = ff_dnn_color_prepare_read(log_ctx, out, (float *)data, channels, p);

    if (ret >= 0)
        ff_dnn_color_planes(in, &p->layout, &p->source);
    return ret;
}
