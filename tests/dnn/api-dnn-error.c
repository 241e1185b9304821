/*
 * Copyright (c) 2026 the FFmpeg DNN CUDA fork developers
 *
 * An API program, as those of tests/api/: after dnn_processing or
 * dnn_interpolate fails on a frame, the application goes on as a library
 * user may (more frames, then the end of the input, draining the output)
 * and must get errors back, not wait forever for a result of the run that
 * failed.
 *
 *   api-dnn-error MODEL ASYNC
 *   api-dnn-error PAIR-MODEL interpolate
 *
 * MODEL fails on frames that are not all zero (RaisesOnData of
 * tests/dnn/gen_torch_models.py), PAIR-MODEL on real pairs
 * (PairLutOutOfRange of tests/dnn/temporal_models.py).  Prints what the
 * end returned, the frames output and whether an error came back (when,
 * with ASYNC 1, depends on the worker thread: not printed).
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

#include <stdio.h>
#include <string.h>

#include "libavfilter/avfilter.h"
#include "libavfilter/buffersink.h"
#include "libavfilter/buffersrc.h"
#include "libavutil/error.h"
#include "libavutil/frame.h"
#include "libavutil/mem.h"

static const char *result(int ret)
{
    static char text[AV_ERROR_MAX_STRING_SIZE + 16];
    if (ret >= 0)
        return "ok";
    if (ret == AVERROR(EAGAIN))
        return "EAGAIN";
    if (ret == AVERROR_EOF)
        return "EOF";
    snprintf(text, sizeof(text), "error (%s)", av_err2str(ret));
    return text;
}

/* What the sink gives now: frames, then its answer. */
static int drain(AVFilterContext *sink, AVFrame *out, int *frames)
{
    int ret;
    while ((ret = av_buffersink_get_frame(sink, out)) >= 0) {
        (*frames)++;
        av_frame_unref(out);
    }
    return ret;
}

int main(int argc, char **argv)
{
    AVFilterGraph *graph = avfilter_graph_alloc();
    AVFilterInOut *outputs = avfilter_inout_alloc(), *inputs = avfilter_inout_alloc();
    AVFilterContext *src = NULL, *sink = NULL;
    AVFrame *out = av_frame_alloc();
    char desc[1024];
    int ret, frames = 0, errors = 0;

    if (argc != 3) {
        fprintf(stderr, "usage: %s MODEL ASYNC|interpolate\n", argv[0]);
        return 1;
    }
    av_log_set_level(AV_LOG_QUIET);
    if (!graph || !outputs || !inputs || !out ||
        avfilter_graph_create_filter(&src, avfilter_get_by_name("buffer"), "in",
                                     "video_size=64x48:pix_fmt=rgb24:time_base=1/25:pixel_aspect=1/1",
                                     NULL, graph) < 0 ||
        avfilter_graph_create_filter(&sink, avfilter_get_by_name("buffersink"), "out",
                                     NULL, NULL, graph) < 0) {
        fprintf(stderr, "could not make the graph\n");
        return 1;
    }
    outputs->name = av_strdup("in");
    outputs->filter_ctx = src;
    inputs->name = av_strdup("out");
    inputs->filter_ctx = sink;
    if (!strcmp(argv[2], "interpolate"))
        snprintf(desc, sizeof(desc), "dnn_interpolate=model=%s", argv[1]);
    else
        snprintf(desc, sizeof(desc), "dnn_processing=dnn_backend=torch:model=%s:async=%s", argv[1], argv[2]);
    ret = avfilter_graph_parse_ptr(graph, desc, &inputs, &outputs, NULL);
    if (ret >= 0)
        ret = avfilter_graph_config(graph, NULL);
    avfilter_inout_free(&inputs);
    avfilter_inout_free(&outputs);
    if (ret < 0) {
        fprintf(stderr, "could not configure the graph: %s\n", av_err2str(ret));
        return 1;
    }

    for (int i = 0; i < 3; i++) {
        AVFrame *in = av_frame_alloc();
        if (!in)
            return 1;
        in->format = AV_PIX_FMT_RGB24;
        in->width  = 64;
        in->height = 48;
        in->pts    = i;
        if (av_frame_get_buffer(in, 0) < 0)
            return 1;
        memset(in->data[0], 128, in->linesize[0] * in->height);
        ret = av_buffersrc_add_frame(src, in);
        av_frame_free(&in);
        if (ret < 0 || (ret = drain(sink, out, &frames)) != AVERROR(EAGAIN))
            errors++;
    }
    ret = av_buffersrc_add_frame(src, NULL);
    printf("end: add %s", result(ret));
    ret = drain(sink, out, &frames);
    errors += ret != AVERROR_EOF;
    printf(", get %s\n", result(ret));
    printf("frames out: %d\n", frames);
    printf("an error came back: %s\n", errors ? "yes" : "no");

    av_frame_free(&out);
    avfilter_graph_free(&graph);
    return 0;
}
