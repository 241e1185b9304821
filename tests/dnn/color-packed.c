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
 * The packed RGB layouts of dnn_color (what CUDA frames of rgb0, bgr0, rgba
 * and bgra go through in the kernels), run on the CPU through the same
 * functions: the tensor holds the colour bytes in memory order over 255,
 * the way back rounds and clips (NaN gives 0), alpha is passed through when
 * the size is kept and opaque otherwise, rgb0's padding byte is opaque.
 * Prints one line per layout; any mismatch is printed and fails.
 */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "libavutil/frame.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/dnn/dnn_color_frame.h"

#define W 7
#define H 3

static int check_layout(enum AVPixelFormat format)
{
    AVFrame *in = av_frame_alloc(), *out = av_frame_alloc(), *big = av_frame_alloc();
    float tensor[3 * W * H], big_tensor[3 * 2 * W * H];
    DNNColorConvert p = { 0 };
    int guessed, errors = 0;

    in->format = out->format = big->format = format;
    in->width = out->width = W;
    in->height = out->height = H;
    big->width = 2 * W;
    big->height = H;
    if (av_frame_get_buffer(in, 0) < 0 || av_frame_get_buffer(out, 0) < 0 ||
        av_frame_get_buffer(big, 0) < 0 || ff_dnn_color_layout(format, &p.layout) < 0)
        return 1;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < 4 * W; x++)
            in->data[0][y * in->linesize[0] + x] = (uint8_t)(x * 37 + y * 101 + 3);
    ff_dnn_color_matrix(NULL, in, &p.layout, &p.matrix, &guessed);

    // frame -> tensor: bytes 0, 1, 2 of each pixel, over 255
    ff_dnn_color_planes(in, &p.layout, &p.frame);
    p.tensor = (DNNColorTensor){ tensor, DNN_COLOR_FLOAT32, 3, W * H, W, 1 };
    ff_dnn_color_frame_to_tensor_rows(&p, 0, p.frame.height);
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                float want = in->data[0][y * in->linesize[0] + 4 * x + c] * (1.0f / 255.0f);
                if (tensor[c * W * H + y * W + x] != want && errors++ < 4)
                    printf("tensor %d,%d,%d: %f, not %f\n", c, y, x, tensor[c * W * H + y * W + x], want);
            }

    // tensor -> frame, same size: the bytes back, alpha kept (or padding opaque)
    tensor[0] = NAN;
    tensor[1] = 1.7f;
    tensor[2] = -0.2f;
    ff_dnn_color_planes(out, &p.layout, &p.frame);
    ff_dnn_color_planes(in, &p.layout, &p.source);
    ff_dnn_color_tensor_to_frame_rows(&p, 0, ff_dnn_color_chroma_rows(&p));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int b = 0; b < 4; b++) {
                int got = out->data[0][y * out->linesize[0] + 4 * x + b];
                int want = in->data[0][y * in->linesize[0] + 4 * x + b];
                if (b == 3 && !p.layout.alpha)
                    want = 255;            // rgb0's padding: opaque
                if (y == 0 && b == 0 && x < 3)
                    want = x == 1 ? 255 : 0; // NaN -> 0, 1.7 and -0.2 clipped
                if (got != want && errors++ < 8)
                    printf("out %d,%d byte %d: %d, not %d\n", y, x, b, got, want);
            }

    // another size: alpha opaque
    for (int i = 0; i < 3 * 2 * W * H; i++)
        big_tensor[i] = 0.5f;
    ff_dnn_color_planes(big, &p.layout, &p.frame);
    p.tensor = (DNNColorTensor){ big_tensor, DNN_COLOR_FLOAT32, 3, 2 * W * H, 2 * W, 1 };
    ff_dnn_color_tensor_to_frame_rows(&p, 0, ff_dnn_color_chroma_rows(&p));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < 2 * W; x++)
            for (int b = 0; b < 4; b++) {
                int got = big->data[0][y * big->linesize[0] + 4 * x + b];
                int want = b == 3 ? 255 : 128; // lrintf(127.5) rounds to even
                if (got != want && errors++ < 12)
                    printf("resized %d,%d byte %d: %d, not %d\n", y, x, b, got, want);
            }

    printf("%s: %s\n", av_get_pix_fmt_name(format), errors ? "errors" : "ok");
    av_frame_free(&in);
    av_frame_free(&out);
    av_frame_free(&big);
    return !!errors;
}

int main(void)
{
    static const enum AVPixelFormat formats[] = {
        AV_PIX_FMT_RGB0, AV_PIX_FMT_BGR0, AV_PIX_FMT_RGBA, AV_PIX_FMT_BGRA,
    };
    int ret = 0;

    for (int i = 0; i < FF_ARRAY_ELEMS(formats); i++)
        ret |= check_layout(formats[i]);
    return ret;
}
