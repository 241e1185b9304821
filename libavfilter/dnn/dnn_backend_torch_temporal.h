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
 * Models of several frames for the LibTorch backend (DFT_PROCESS_FRAMES):
 * a pair and a time (dnn_interpolate), a window of neighbours
 * (dnn_processing frames=N), a frame and the state a recurrent model
 * carries (dnn_processing recurrent), an extra input such as a noise
 * level; the frames converted once each, and the scene-cut score that
 * makes a pair repeat its earlier frame and a recurrent model start again.
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_TEMPORAL_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_TEMPORAL_H

#include <functional>
#include <vector>
#include <torch/torch.h>
#include <torch/script.h>

extern "C" {
#include "libavfilter/dnn_interface.h"
}

class THPackage;
struct THGraph;
struct THOutputFrame;

/**
 * What a model of several frames keeps from one input to the next: the
 * frames of the last input as the model takes them (converted, on its
 * device, in its precision), by the ids the filter gave them (a window
 * shares all but one of its frames with the next, and a pair its later
 * frame with the next pair, and gives several output times); a recurrent
 * model's state and previous frame.
 */
class THFrameCache {
public:
    ~THFrameCache();
    /** The tensor of id, or an undefined one. */
    torch::Tensor find(int64_t id) const;
    /** Keep tensor as id (id < 0: not kept). */
    void store(int64_t id, const torch::Tensor &tensor);
    /** Forget every frame but those of ids[0..nb-1]. */
    void retain(const int64_t *ids, int nb);

    torch::Tensor state;     ///< DNN_FRAMES_RECURRENT: undefined before the first frame
    torch::Tensor previous;  ///< DNN_FRAMES_RECURRENT: the previous frame, for scene
    THGraph *graph = nullptr; ///< cuda_graph: the model's run (not of a recurrent model)

private:
    std::vector<std::pair<int64_t, torch::Tensor>> entries;
};

/** How the frames of one input go to the model, and what comes with them. */
struct THFramesInput {
    DNNFramesLayout layout;
    float t;            ///< DNN_FRAMES_PAIR
    bool t_plane;
    bool batched;       ///< DNN_FRAMES_PAIR: the pair and times[] as a batch, t of shape [N, 1, 1, 1]
    int nb_times;       ///< batched: times in one run, 1 to DNN_TIMES_MAX (times[0] is t)
    float times[DNN_TIMES_MAX];
    float scene;        ///< DNN_FRAMES_PAIR and _RECURRENT, > 0: the scene-cut threshold
    bool reset;         ///< DNN_FRAMES_RECURRENT: start again from no state
    bool keep_state;    ///< DNN_FRAMES_RECURRENT: false for the dry run of get_output
    float sigma;        ///< >= 0: an input after the frames
    bool sigma_plane;
};

/**
 * What the filter asks of one run of a model of several frames
 * (DNNExecFramesParams), kept in the backend's task until the run.  A task
 * of one frame (DFT_PROCESS_FRAME) sets nb_times to 0 only: one output.
 */
struct THFramesTask {
    AVFrame *frames[DNN_FRAMES_MAX]; ///< NULL: the task's in_frame (the dry run of get_output)
    int64_t ids[DNN_FRAMES_MAX];     ///< < 0: a frame kept by no id (the dry run)
    float t, scene;
    int reset;
    int nb_times;                    ///< > 0: a pair's output times of one run
    float times[DNN_TIMES_MAX];
    /// out_frames[0] is the task's out_frame, the others the filter's, written in place
    AVFrame *out_frames[DNN_TIMES_MAX];
};

/** At load: whether ctx's frames (nb_frames, frames_layout) are a model's input.  0 or AVERROR(EINVAL), logged. */
int th_frames_check_options(const DnnContext *ctx);

/** The dry run of get_output: the trial frame as each frame, at t = 0.5. */
void th_frames_task_dry_run(THFramesTask *task);

/** params into task, checked against ctx (batch).  0 or AVERROR(EINVAL), logged. */
int th_frames_task_fill(THFramesTask *task, const DNNExecFramesParams *params, const DnnContext *ctx);

/** The images a run of task makes: one, or one per output time. */
int th_frames_task_images(const THFramesTask *task);

/** The frame image i goes to: out_frame, or the output time's. */
AVFrame *th_frames_task_output(const THFramesTask *task, int i, AVFrame *out_frame);

/** Which frames the images are, for the NaN and infinity report: a pair's at their times. */
void th_frames_task_describe(const THFramesTask *task, const DnnContext *ctx, int64_t pts,
                             THOutputFrame *frames);

/** One frame as the model takes it (the backend's frame I/O, device and precision). */
typedef std::function<int(AVFrame *frame, torch::Tensor *tensor)> THFrameReader;

/**
 * The tensors of task's frames (in_frame where it names none): a frame seen
 * before from cache, the others read and kept; the cache keeps these only.
 * 0 or an AVERROR, logged.
 */
int th_frames_task_read(const THFramesTask *task, AVFrame *in_frame, THFrameCache *cache,
                        const THFrameReader &read, std::vector<torch::Tensor> *tensors,
                        const DnnContext *ctx);

/**
 * One run of task's frames, its scene score set on each
 * output frame's metadata, which is how dnn_interpolate learns of a cut.
 * 0 or an AVERROR, logged.
 */
int th_frames_task_run(const THFramesTask *task, AVFrame *out_frame, torch::jit::Module *model,
                       THPackage *package, const std::vector<torch::Tensor> &frames,
                       THFrameCache *cache, torch::Tensor *output, DnnContext *ctx);

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_TEMPORAL_H */
