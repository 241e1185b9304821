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
 * The colour math of dnn_color.h for frames: a layout from its pixel
 * descriptor, a frame's matrix, range and siting, its visible planes, and
 * the conversions of frames in system memory (the CUDA kernels do the same
 * for CUDA frames, dnn_cuda.c).
 */

#ifndef AVFILTER_DNN_DNN_COLOR_FRAME_H
#define AVFILTER_DNN_DNN_COLOR_FRAME_H

#include "libavutil/frame.h"
#include "libavutil/hwcontext.h"
#include "libavutil/pixfmt.h"
#include "dnn_color.h"

/**
 * Where a layout keeps its components.  AVERROR(ENOSYS) for layouts the
 * conversions do not take: 4-byte packed 8-bit R'G'B' and 8 to 16-bit
 * Y'CbCr (planar or semi-planar, any subsampling, MSB- or LSB-aligned,
 * little-endian) are taken.
 */
int ff_dnn_color_layout(enum AVPixelFormat format, DNNColorLayout *l);

/**
 * The factors of frame's matrix and range and its chroma siting, for a
 * frame of layout l.  *guessed is set when the matrix is unspecified (taken
 * as BT.601, as swscale does), for the caller to say so once.  A matrix
 * without Kr/Kb (YCgCo, BT.2020 CL, ICtCp...) is AVERROR(ENOSYS), logged.
 */
int ff_dnn_color_matrix(void *log_ctx, const AVFrame *frame, const DNNColorLayout *l,
                        DNNColorMatrix *m, int *guessed);

/** The layout of a frame's data: its format, or its CUDA frames' sw_format. */
enum AVPixelFormat ff_dnn_color_frame_layout(const AVFrame *frame);

/**
 * The visible picture of a frame of layout l, by component: its crop_*
 * fields applied to the planes as av_frame_apply_cropping() would, without
 * touching the frame (hardware frames keep their size when cropped).
 */
void ff_dnn_color_planes(const AVFrame *frame, const DNNColorLayout *l, DNNColorPlanes *p);

/** The whole picture of a frame of layout l, by component: its crop_* fields ignored. */
void ff_dnn_color_whole_planes(const AVFrame *frame, const DNNColorLayout *l, DNNColorPlanes *p);

/**
 * The conversions, for frames in system memory and float32 tensors, a band
 * at a time (callers spread the bands over threads): luma rows [y0, y1) to
 * the tensor; chroma rows [cy0, cy1) (with their luma) to the frame, of
 * ff_dnn_color_chroma_rows() in all.  Bands write disjoint memory.
 */
void ff_dnn_color_frame_to_tensor_rows(const DNNColorConvert *p, int y0, int y1);
void ff_dnn_color_tensor_to_frame_rows(const DNNColorConvert *p, int cy0, int cy1);
int ff_dnn_color_chroma_rows(const DNNColorConvert *p);

/* ff_dnn_color_channels() and ff_dnn_color_converts(), which the filters
 * call, are declared in dnn_interface.h. */

/**
 * Set p up to convert a frame in system memory to, or from, a float32 NCHW
 * contiguous tensor of the picture's size (data).  Writing, in is the input
 * frame (a luma model's chroma).  Then run the conversion above.
 */
int ff_dnn_color_prepare_read(void *log_ctx, const AVFrame *frame, float *data, int channels,
                              DNNColorConvert *p);
int ff_dnn_color_prepare_write(void *log_ctx, const float *data, int channels,
                               const AVFrame *in, AVFrame *out, DNNColorConvert *p);

#endif /* AVFILTER_DNN_DNN_COLOR_FRAME_H */
