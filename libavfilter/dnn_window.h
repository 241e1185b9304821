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
 * A sliding window of frames for dnn_processing's frames=N: the output of
 * each input frame is made of the N frames centred on it, the edges of the
 * stream replicated.  The window keeps references to the frames it still
 * needs and names each by its position in the stream, the id with which the
 * backend keeps it converted.  It also drives the filter's model of several
 * frames: the options' checks, the run of each complete window, and a
 * recurrent model's start again at a seek.
 */

#ifndef AVFILTER_DNN_WINDOW_H
#define AVFILTER_DNN_WINDOW_H

#include <stdint.h>

#include "libavutil/frame.h"
#include "dnn_interface.h"

typedef struct DNNWindow {
    int size;                             ///< N, odd
    AVFrame *frames[DNN_FRAMES_MAX];      ///< from the oldest still needed on
    int nb_frames;
    int64_t first_id;                     ///< the id of frames[0]
    int64_t centre_id;                    ///< the id of the next output's centre frame
    int64_t start_id;                     ///< the first frame of the stream, or since a restart
    int recurrent;                        ///< the model carries a state from frame to frame
    float scene;                          ///< recurrent: the scene-cut threshold, 0: off
    int64_t last_pts;                     ///< recurrent: of the previous window's centre
} DNNWindow;

/** An empty window of size frames. */
void ff_dnn_window_init(DNNWindow *window, int size);

/** Add the next frame of the stream; the window owns it from here. */
int ff_dnn_window_push(DNNWindow *window, AVFrame *frame);

/**
 * The next output's window, if its frames are there (or the stream has
 * ended: eof): its size frames into frames and their ids into ids, the
 * centre frame (still the window's) into *centre.  Returns 1 if there was
 * one, then ff_dnn_window_advance() must follow; 0 if not.
 */
int ff_dnn_window_next(const DNNWindow *window, int eof, AVFrame **frames, int64_t *ids,
                       AVFrame **centre);

/** Go on to the next output, and let go of the frames it does not need. */
void ff_dnn_window_advance(DNNWindow *window);

/**
 * Whether frame starts the stream anew: its timestamp is before the last
 * frame's (a seek).  The outputs of the frames before are then those
 * of an end of the stream (eof), and ff_dnn_window_restart() follows.
 */
int ff_dnn_window_jumps_back(const DNNWindow *window, const AVFrame *frame);

/**
 * After the last output of the frames so far: the next frame starts a new
 * stream, whose first frame is its own edge (the ids go on).
 */
void ff_dnn_window_restart(DNNWindow *window);

void ff_dnn_window_uninit(DNNWindow *window);

/**
 * Check a filter's options of a model of several frames (frames, window,
 * sigma, sigma_plane, and recurrent and scene, dnn_processing's own),
 * logging any mistake to log_ctx; recurrent sets dnnctx's frames_layout.
 *
 * @return 1 for a model of several frames (a window, a state or an input
 *         after the frame: DFT_PROCESS_FRAMES), 0 for the frame as it is,
 *         or a negative AVERROR
 */
int ff_dnn_window_check_options(void *log_ctx, DnnContext *dnnctx, int recurrent, float scene);

/**
 * Set up a filter's model of several frames from its options: check them
 * (ff_dnn_window_check_options()) and, for a model of several frames, make
 * window, of dnnctx's frames (no window, size 0, for the frame as it is).
 *
 * @return the model's function type for ff_dnn_init(): DFT_PROCESS_FRAMES,
 *         or DFT_PROCESS_FRAME for the frame as it is; or a negative AVERROR
 */
int ff_dnn_window_setup(DNNWindow *window, void *log_ctx, DnnContext *dnnctx,
                        int recurrent, float scene);

/**
 * Send one window to the model of dnnctx (ff_dnn_execute_model_frames()),
 * into out: centre the window's centre frame, which the backend owns from
 * here, frames and ids the window's.  A recurrent model starts again from
 * no state where the timestamps go back (a seek), and, with scene, at a
 * scene cut.
 */
int ff_dnn_window_execute(DNNWindow *window, DnnContext *dnnctx, AVFrame *centre,
                          AVFrame *const *frames, const int64_t *ids, AVFrame *out);

/**
 * Run the model on one window: centre, a reference of the callee's own to
 * the window's centre frame (the window keeps its own), frames and ids the
 * window's frames and their ids.
 */
typedef int (*DNNWindowRunFunc)(void *opaque, AVFrame *centre, AVFrame *const *frames,
                                const int64_t *ids);

/**
 * Add frame to the window (NULL: the stream has ended, the edge replicated
 * for the last windows) and call run on each window that is complete.  A
 * frame whose timestamp goes back (a seek) first ends the windows before
 * as at the end of the stream, and the window starts again from it.  The
 * window owns frame from here, on every path.
 */
int ff_dnn_window_feed(DNNWindow *window, AVFrame *frame, DNNWindowRunFunc run, void *opaque);

#endif /* AVFILTER_DNN_WINDOW_H */
