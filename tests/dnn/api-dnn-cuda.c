/*
 * An API program, as those of tests/api/: dnn_processing on CUDA frames
 * through FFmpeg's public API, where the command line cannot go.
 *
 *   api-dnn-cuda MODEL
 *
 * 1. Twice on the same thread: create a CUDA device and frames, run a graph
 *    buffer -> dnn_processing -> buffersink on frames uploaded to it, free
 *    everything, the device included.  The second round must work (LibTorch
 *    makes its cuBLAS and cuDNN handles in the context current at first
 *    use, one that the first round destroyed) and give the same frames.
 * 2. Two CUDA devices (two contexts on one GPU) at once, a graph on each, their
 *    frames interleaved; then the first device freed while the second goes
 *    on.  Each gives the frames of step 1: no model is handed memory of the
 *    other's context (LibTorch's cache is per GPU), and freeing one model
 *    leaves the other's memory alone.
 * 3. Frames the graph was not configured with: a frame of another frames
 *    context (another layout) and a frame whose crop fields wrap around
 *    when added are refused with EINVAL, never read out of bounds.
 * 4. An upload to a device pointer that is not one fails (it returned 0).
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

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavfilter/avfilter.h"
#include "libavfilter/buffersink.h"
#include "libavfilter/buffersrc.h"
#include "libavutil/error.h"
#include "libavutil/frame.h"
#include "libavutil/hwcontext.h"
#include "libavutil/log.h"
#include "libavutil/mem.h"

#define WIDTH  320
#define HEIGHT 240
#define FRAMES 3

typedef struct Graph {
    AVFilterGraph *graph;
    AVFilterContext *src, *sink;
} Graph;

static AVBufferRef *frames_context(AVBufferRef *device, enum AVPixelFormat sw_format)
{
    AVBufferRef *ref = av_hwframe_ctx_alloc(device);
    AVHWFramesContext *frames;

    if (!ref)
        return NULL;
    frames = (AVHWFramesContext *)ref->data;
    frames->format    = AV_PIX_FMT_CUDA;
    frames->sw_format = sw_format;
    frames->width     = WIDTH;
    frames->height    = HEIGHT;
    if (av_hwframe_ctx_init(ref) < 0)
        av_buffer_unref(&ref);
    return ref;
}

/* An rgb0 picture that changes with n: gradients and a moving bar. */
static AVFrame *picture(int n)
{
    AVFrame *frame = av_frame_alloc();

    if (!frame)
        return NULL;
    frame->format = AV_PIX_FMT_RGB0;
    frame->width  = WIDTH;
    frame->height = HEIGHT;
    if (av_frame_get_buffer(frame, 0) < 0) {
        av_frame_free(&frame);
        return NULL;
    }
    for (int y = 0; y < HEIGHT; y++) {
        for (int x = 0; x < WIDTH; x++) {
            uint8_t *p = frame->data[0] + y * frame->linesize[0] + 4 * x;
            p[0] = x * 255 / (WIDTH - 1);
            p[1] = y * 255 / (HEIGHT - 1);
            p[2] = (x + 7 * n) % 64 < 8 ? 250 : 30;
            p[3] = 255;
        }
    }
    return frame;
}

/* A CUDA frame of frames holding picture(n) (its layout: the frames'). */
static AVFrame *upload(AVBufferRef *frames, int n)
{
    AVFrame *sw = picture(n), *hw = av_frame_alloc();

    int rgb0 = ((AVHWFramesContext *)frames->data)->sw_format == AV_PIX_FMT_RGB0;

    // frames of another layout stay unwritten: they are refused unread
    if (!sw || !hw || av_hwframe_get_buffer(frames, hw, 0) < 0 ||
        (rgb0 && av_hwframe_transfer_data(hw, sw, 0) < 0))
        av_frame_free(&hw);
    av_frame_free(&sw);
    if (hw)
        hw->pts = n;
    return hw;
}

static int graph_init(Graph *g, AVBufferRef *frames, const char *model)
{
    AVBufferSrcParameters *par = av_buffersrc_parameters_alloc();
    AVFilterContext *dnn;
    char args[1024];
    int ret;

    g->graph = avfilter_graph_alloc();
    if (!par || !g->graph) {
        av_free(par);
        return AVERROR(ENOMEM);
    }
    // CUDA frames: the source needs their frames context before its init
    g->src = avfilter_graph_alloc_filter(g->graph, avfilter_get_by_name("buffer"), "in");
    if (!g->src) {
        av_free(par);
        return AVERROR(ENOMEM);
    }
    par->format              = AV_PIX_FMT_CUDA;
    par->width               = WIDTH;
    par->height              = HEIGHT;
    par->time_base           = (AVRational){ 1, 25 };
    par->sample_aspect_ratio = (AVRational){ 1, 1 };
    par->hw_frames_ctx       = frames;
    ret = av_buffersrc_parameters_set(g->src, par);
    av_free(par);
    if (ret < 0 || (ret = avfilter_init_str(g->src, NULL)) < 0)
        return ret;
    snprintf(args, sizeof(args), "dnn_backend=torch:model=%s", model);
    if ((ret = avfilter_graph_create_filter(&dnn, avfilter_get_by_name("dnn_processing"), "dnn",
                                            args, NULL, g->graph)) < 0 ||
        (ret = avfilter_graph_create_filter(&g->sink, avfilter_get_by_name("buffersink"), "out",
                                            NULL, NULL, g->graph)) < 0 ||
        (ret = avfilter_link(g->src, 0, dnn, 0)) < 0 ||
        (ret = avfilter_link(dnn, 0, g->sink, 0)) < 0)
        return ret;
    return avfilter_graph_config(g->graph, NULL);
}

/* Send frame (taken), then ask for an output: 0, or the graph's error. */
static int filter(Graph *g, AVFrame *frame, AVFrame *out)
{
    int ret = av_buffersrc_add_frame(g->src, frame);

    av_frame_free(&frame);
    if (ret < 0)
        return ret;
    return av_buffersink_get_frame(g->sink, out);
}

/* Filter frame n in g and download the output into frame n of pixels. */
static int filter_frame(Graph *g, AVBufferRef *frames, int n, uint8_t *pixels)
{
    AVFrame *out = av_frame_alloc(), *sw = av_frame_alloc();
    int ret = out && sw ? 0 : AVERROR(ENOMEM);

    if (ret >= 0)
        ret = filter(g, upload(frames, n), out);
    if (ret >= 0) {
        sw->format = AV_PIX_FMT_RGB0;
        ret = av_hwframe_transfer_data(sw, out, 0);
    }
    for (int y = 0; ret >= 0 && y < HEIGHT; y++)
        memcpy(pixels + (n * HEIGHT + y) * WIDTH * 4, sw->data[0] + y * sw->linesize[0],
               WIDTH * 4);
    av_frame_free(&out);
    av_frame_free(&sw);
    return ret;
}

/* A new CUDA device (its own context), rgb0 frames on it and a graph. */
static int device_graph(const char *model, AVBufferRef **device, AVBufferRef **frames, Graph *g)
{
    int ret = av_hwdevice_ctx_create(device, AV_HWDEVICE_TYPE_CUDA, NULL, NULL, 0);

    if (ret < 0)
        return ret;
    if (!(*frames = frames_context(*device, AV_PIX_FMT_RGB0)))
        return AVERROR(ENOMEM);
    return graph_init(g, *frames, model);
}

static void device_graph_free(AVBufferRef **device, AVBufferRef **frames, Graph *g)
{
    avfilter_graph_free(&g->graph);
    av_buffer_unref(frames);
    av_buffer_unref(device);
}

/*
 * Two devices at once: frames through both, interleaved, into a and b;
 * the first device freed, then the frames through the second again, into c.
 */
static int two_devices(const char *model, uint8_t *a, uint8_t *b, uint8_t *c)
{
    AVBufferRef *device[2] = { NULL }, *frames[2] = { NULL };
    Graph g[2] = { { 0 } };
    int ret = device_graph(model, &device[0], &frames[0], &g[0]);

    if (ret >= 0)
        ret = device_graph(model, &device[1], &frames[1], &g[1]);
    for (int n = 0; ret >= 0 && n < FRAMES; n++)
        if ((ret = filter_frame(&g[0], frames[0], n, a)) >= 0)
            ret = filter_frame(&g[1], frames[1], n, b);
    device_graph_free(&device[0], &frames[0], &g[0]);
    for (int n = 0; ret >= 0 && n < FRAMES; n++)
        ret = filter_frame(&g[1], frames[1], n, c);
    device_graph_free(&device[1], &frames[1], &g[1]);
    return ret;
}

/* One round: FRAMES frames through a new device, downloaded into pixels. */
static int round_trip(const char *model, uint8_t *pixels)
{
    AVBufferRef *device = NULL, *frames = NULL;
    Graph g = { 0 };
    int ret = device_graph(model, &device, &frames, &g);

    for (int n = 0; ret >= 0 && n < FRAMES; n++)
        ret = filter_frame(&g, frames, n, pixels);
    device_graph_free(&device, &frames, &g);
    return ret;
}

static int max_difference(const uint8_t *a, const uint8_t *b, size_t size)
{
    int max = 0;

    for (size_t i = 0; i < size; i++)
        max = FFMAX(max, abs(a[i] - b[i]));
    return max;
}

/* Frames that the graph of rgb0 frames was not configured with. */
static int bad_frames(const char *model)
{
    AVBufferRef *device = NULL, *frames = NULL, *nv12 = NULL;
    AVFrame *out = av_frame_alloc(), *frame = NULL;
    Graph g = { 0 };
    int ret = av_hwdevice_ctx_create(&device, AV_HWDEVICE_TYPE_CUDA, NULL, NULL, 0);

    if (ret < 0 || !out || !(frames = frames_context(device, AV_PIX_FMT_RGB0)) ||
        !(nv12 = frames_context(device, AV_PIX_FMT_NV12)) ||
        (ret = graph_init(&g, frames, model)) < 0) {
        ret = ret < 0 ? ret : AVERROR(ENOMEM);
        goto end;
    }
    ret = filter(&g, upload(nv12, 0), out);
    printf("a frame of other CUDA frames (nv12): %s\n", av_err2str(ret));
    av_frame_unref(out);

    avfilter_graph_free(&g.graph);
    if ((ret = graph_init(&g, frames, model)) < 0 || !(frame = upload(frames, 0)))
        goto end;
    // crop_left + crop_right is 4 in size_t arithmetic, crop_left small
    frame->crop_left  = 8;
    frame->crop_right = SIZE_MAX - 3;
    ret = filter(&g, frame, out);
    frame = NULL;
    printf("crop fields whose sum wraps around: %s\n", av_err2str(ret));

    // an upload to a pointer that is no device memory of this context
    av_frame_free(&out);
    frame = upload(frames, 0);
    out = picture(0);
    if (frame && out) {
        uint8_t *data = frame->data[0];
        frame->data[0] = (uint8_t *)(uintptr_t)4096;
        ret = av_hwframe_transfer_data(frame, out, 0);
        frame->data[0] = data;
        printf("an upload to a bad device pointer fails: %s\n", ret < 0 ? "yes" : "no");
    }
    ret = 0;
end:
    av_frame_free(&frame);
    avfilter_graph_free(&g.graph);
    av_frame_free(&out);
    av_buffer_unref(&nv12);
    av_buffer_unref(&frames);
    av_buffer_unref(&device);
    return ret;
}

int main(int argc, char **argv)
{
    size_t size = (size_t)FRAMES * WIDTH * HEIGHT * 4;
    uint8_t *first, *second, *third, *fourth;
    int ret;

    if (argc != 2) {
        fprintf(stderr, "usage: %s MODEL\n", argv[0]);
        return 1;
    }
    av_log_set_level(AV_LOG_ERROR);
    first  = av_malloc(size);
    second = av_malloc(size);
    third  = av_malloc(size);
    fourth = av_malloc(size);
    if (!first || !second || !third || !fourth)
        return 1;

    ret = round_trip(argv[1], first);
    printf("round 1, a new CUDA device: %s\n", ret < 0 ? av_err2str(ret) : "3 frames");
    if (ret >= 0) {
        ret = round_trip(argv[1], second);
        printf("round 2, a new CUDA device: %s\n", ret < 0 ? av_err2str(ret) : "3 frames");
    }
    if (ret >= 0)
        printf("round 2 gives the frames of round 1 (within 1): %s\n",
               max_difference(first, second, size) <= 1 ? "yes" : "no");
    if (ret >= 0) {
        ret = two_devices(argv[1], second, third, fourth);
        printf("two CUDA devices at once: %s\n", ret < 0 ? av_err2str(ret) : "3 frames each");
    }
    if (ret >= 0) {
        printf("each gives the frames of round 1 (within 1): %s\n",
               max_difference(first, second, size) <= 1 &&
               max_difference(first, third, size) <= 1 ? "yes" : "no");
        printf("the second after the first was freed (within 1): %s\n",
               max_difference(first, fourth, size) <= 1 ? "yes" : "no");
    }
    if (ret >= 0)
        ret = bad_frames(argv[1]);
    av_free(first);
    av_free(second);
    av_free(third);
    av_free(fourth);
    return ret < 0;
}
