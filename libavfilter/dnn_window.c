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
