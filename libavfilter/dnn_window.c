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
 * A sliding window of frames: see dnn_window.h.
 */

#include "libavutil/common.h"
#include "libavutil/error.h"
#include "libavutil/log.h"
#include "dnn_filter_common.h"
#include "dnn_window.h"

void ff_dnn_window_init(DNNWindow *window, int size)
{
    memset(window, 0, sizeof(*window));
    window->size = size;
}

int ff_dnn_window_push(DNNWindow *window, AVFrame *frame)
{
    // the frames of one window at most: the centre is at most size / 2 behind
    if (window->nb_frames == window->size) {
        av_frame_free(&frame);
        return AVERROR_BUG;
    }
    window->frames[window->nb_frames++] = frame;
    return 0;
}

int ff_dnn_window_next(const DNNWindow *window, int eof, AVFrame **frames, int64_t *ids,
                       AVFrame **centre)
{
    const int radius = window->size / 2;
    const int64_t last_id = window->first_id + window->nb_frames - 1;

    if (window->centre_id > last_id || (!eof && window->centre_id + radius > last_id))
        return 0;
    for (int i = 0; i < window->size; i++) {
        // before the first frame of the stream and after its last: the edges
        int64_t id = av_clip64(window->centre_id - radius + i, window->start_id, last_id);
        ids[i] = id;
        frames[i] = window->frames[id - window->first_id];
    }
    *centre = window->frames[window->centre_id - window->first_id];
    return 1;
}

void ff_dnn_window_advance(DNNWindow *window)
{
    const int radius = window->size / 2;

    window->centre_id++;
    while (window->nb_frames && window->first_id < window->centre_id - radius) {
        av_frame_free(&window->frames[0]);
        memmove(window->frames, window->frames + 1, --window->nb_frames * sizeof(*window->frames));
        window->first_id++;
    }
}

int ff_dnn_window_jumps_back(const DNNWindow *window, const AVFrame *frame)
{
    const AVFrame *last = window->nb_frames ? window->frames[window->nb_frames - 1] : NULL;

    return last && frame->pts != AV_NOPTS_VALUE && last->pts != AV_NOPTS_VALUE &&
           frame->pts < last->pts;
}

void ff_dnn_window_restart(DNNWindow *window)
{
    ff_dnn_window_uninit(window);
    window->first_id = window->start_id = window->centre_id;
}

void ff_dnn_window_uninit(DNNWindow *window)
{
    for (int i = 0; i < window->nb_frames; i++)
        av_frame_free(&window->frames[i]);
    window->nb_frames = 0;
}

int ff_dnn_window_check_options(void *log_ctx, DnnContext *dnnctx, int recurrent, float scene)
{
    if (scene > 0 && !recurrent) {
        av_log(log_ctx, AV_LOG_ERROR, "scene is where a recurrent model starts again: it needs recurrent=1\n");
        return AVERROR(EINVAL);
    }
    if (recurrent && dnnctx->nb_frames != 1) {
        av_log(log_ctx, AV_LOG_ERROR, "A recurrent model takes one frame and its state: frames=1\n");
        return AVERROR(EINVAL);
    }
    // an option that would change nothing is a mistake to report
    if (dnnctx->sigma_plane >= 0 && dnnctx->sigma == -1) {
        av_log(log_ctx, AV_LOG_ERROR, "sigma_plane is set but sigma is not: give sigma, or leave sigma_plane out\n");
        return AVERROR(EINVAL);
    }
    if (recurrent)
        dnnctx->frames_layout = DNN_FRAMES_RECURRENT;
    else if (dnnctx->nb_frames == 1 && dnnctx->sigma == -1 &&
             dnnctx->frames_layout == DNN_FRAMES_STACKED) // the frame as it is
        return 0;
    // a window of frames, or an input after the frame
    if (!(dnnctx->nb_frames & 1)) {
        av_log(log_ctx, AV_LOG_ERROR, "frames=%d: the output is the centre frame of the window, "
               "so the window has an odd number of frames\n", dnnctx->nb_frames);
        return AVERROR(EINVAL);
    }
    if (dnnctx->sigma < 0 && dnnctx->sigma != -1) {
        av_log(log_ctx, AV_LOG_ERROR, "sigma=%g: a value >= 0, or -1 for none\n", dnnctx->sigma);
        return AVERROR(EINVAL);
    }
    if (dnnctx->backend_type != DNN_TH) {
        av_log(log_ctx, AV_LOG_ERROR, "frames, sigma and recurrent need dnn_backend=torch\n");
        return AVERROR(EINVAL);
    }
    return 1;
}

int ff_dnn_window_setup(DNNWindow *window, void *log_ctx, DnnContext *dnnctx,
                        int recurrent, float scene)
{
    int ret = ff_dnn_window_check_options(log_ctx, dnnctx, recurrent, scene);

    if (ret <= 0) // a mistake in the options, or the frame as it is
        return ret < 0 ? ret : DFT_PROCESS_FRAME;
    ff_dnn_window_init(window, dnnctx->nb_frames);
    window->recurrent = recurrent;
    window->scene     = scene;
    window->last_pts  = AV_NOPTS_VALUE;
    return DFT_PROCESS_FRAMES;
}

int ff_dnn_window_execute(DNNWindow *window, DnnContext *dnnctx, AVFrame *centre,
                          AVFrame *const *frames, const int64_t *ids, AVFrame *out)
{
    int reset = window->recurrent && centre->pts != AV_NOPTS_VALUE &&
                window->last_pts != AV_NOPTS_VALUE && centre->pts <= window->last_pts;

    window->last_pts = centre->pts;
    return ff_dnn_execute_model_frames(dnnctx, centre, frames, ids, 0, window->scene, reset, out);
}

/** Run each window that is complete (eof: the edge replicated for the last). */
static int run_complete_windows(DNNWindow *window, int eof, DNNWindowRunFunc run, void *opaque)
{
    AVFrame *frames[DNN_FRAMES_MAX], *centre;
    int64_t ids[DNN_FRAMES_MAX];
    int ret;

    while (ff_dnn_window_next(window, eof, frames, ids, &centre)) {
        AVFrame *centre_ref = av_frame_clone(centre);
        if (!centre_ref)
            return AVERROR(ENOMEM);
        ret = run(opaque, centre_ref, frames, ids);
        if (ret < 0)
            return ret;
        ff_dnn_window_advance(window);
    }
    return 0;
}

int ff_dnn_window_feed(DNNWindow *window, AVFrame *frame, DNNWindowRunFunc run, void *opaque)
{
    int ret;

    if (frame && ff_dnn_window_jumps_back(window, frame)) {
        if ((ret = run_complete_windows(window, 1, run, opaque)) < 0) {
            av_frame_free(&frame);
            return ret;
        }
        ff_dnn_window_restart(window);
    }
    if (frame && (ret = ff_dnn_window_push(window, frame)) < 0)
        return ret;
    return run_complete_windows(window, !frame, run, opaque);
}
