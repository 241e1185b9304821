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
 * Models of several frames for the LibTorch backend: see
 * dnn_backend_torch_temporal.h.
 */

#include "dnn_backend_torch_temporal.h"
#include "dnn_backend_torch_error.h"
#include "dnn_backend_torch_graph.h"
#include "dnn_backend_torch_output.h"
#include "dnn_backend_torch_package.h"
#include "dnn_backend_torch_precision.h"

#include <algorithm>
#include <cstdio>
#include <string>

extern "C" {
#include "libavutil/dict.h"
#include "libavutil/error.h"
#include "libavutil/frame.h"
#include "libavutil/log.h"
#include "libavutil/macros.h"
}

torch::Tensor THFrameCache::find(int64_t id) const
{
    for (const auto &entry : entries)
        if (id >= 0 && entry.first == id)
            return entry.second;
    return torch::Tensor();
}

THFrameCache::~THFrameCache()
{
    th_graph_free(&graph);
}

void THFrameCache::store(int64_t id, const torch::Tensor &tensor)
{
    if (id < 0)
        return; // a frame without an id (the dry run of get_output) is not kept
    entries.emplace_back(id, tensor);
}

void THFrameCache::retain(const int64_t *ids, int nb)
{
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [&](const std::pair<int64_t, torch::Tensor> &entry) {
                                     return std::find(ids, ids + nb, entry.first) == ids + nb;
                                 }), entries.end());
}

/**
 * How task's frames are given to the model: a pair's times (one, unless
 * batch: t is the first); the first frame's id < 0 (the dry run) changes
 * no state.
 */
static THFramesInput th_frames_input(const DnnContext *ctx, const THFramesTask *task)
{
    THFramesInput how;

    how.layout      = (DNNFramesLayout)ctx->frames_layout;
    how.t           = task->nb_times > 0 ? task->times[0] : task->t;
    how.t_plane     = ctx->t_plane;
    how.batched     = ctx->frames_layout == DNN_FRAMES_PAIR && ctx->batch > 1;
    how.nb_times    = FFMAX(task->nb_times, 1);
    if (task->nb_times > 0)
        std::copy(task->times, task->times + task->nb_times, how.times);
    else
        how.times[0] = how.t;
    how.scene       = task->scene;
    how.sigma       = ctx->sigma;
    how.sigma_plane = ctx->sigma_plane;
    how.reset       = task->reset;
    how.keep_state  = task->ids[0] >= 0;
    return how;
}

/** value as the model takes it: a 0-D tensor, or a 1x1xHxW plane of like's size. */
static torch::Tensor th_scalar_input(float value, bool plane, const torch::Tensor &like)
{
    if (!plane)
        return torch::full({}, value, like.options());
    return torch::full({ 1, 1, like.size(-2), like.size(-1) }, value, like.options());
}

/**
 * The times of a batched pair: N x 1 x 1 x 1, or N x 1 x H x W planes, made
 * on the frames' device (a fill each: no copy from the host, which would
 * wait for the stream).
 */
static torch::Tensor th_times_input(const THFramesInput &how, const torch::Tensor &like)
{
    torch::Tensor times = torch::empty({ how.nb_times, 1, how.t_plane ? like.size(-2) : 1,
                                         how.t_plane ? like.size(-1) : 1 }, like.options());

    for (int i = 0; i < how.nb_times; i++)
        times.select(0, i).fill_(how.times[i]);
    return times;
}

/** frame (1 x C x H x W) once for each time of a batched pair, in the model's memory format. */
static torch::Tensor th_repeat_frame(const torch::Tensor &frame, const THFramesInput &how,
                                     DnnContext *ctx)
{
    if (how.nb_times == 1)
        return frame;
    return frame.expand({ how.nb_times, -1, -1, -1 })
                .contiguous(th_precision_memory_format(ctx, frame.device()));
}

static const char *th_layout_name(DNNFramesLayout layout)
{
    switch (layout) {
    case DNN_FRAMES_PAIR:     return "a pair";
    case DNN_FRAMES_STACKED:  return "stacked channels";
    case DNN_FRAMES_SEQUENCE: return "a sequence";
    case DNN_FRAMES_RECURRENT: return "a frame and a state";
    }
    return "?";
}

/** After a failed forward(): what the model was given, which names the options that decide it. */
static void th_log_frames_given(const std::vector<torch::jit::IValue> &inputs,
                                const THFramesInput &how, size_t nb_frames, void *log_ctx)
{
    std::string shapes = th_inputs_shapes(inputs);

    av_log(log_ctx, AV_LOG_ERROR, "The model was given %zu frame%s as %s%s%s: forward(%s)\n",
           nb_frames, nb_frames > 1 ? "s" : "", th_layout_name(how.layout),
           how.batched ? " with a batch of times (batch)" : "",
           how.sigma >= 0 ? (how.sigma_plane ? " and a sigma plane" : " and a 0-D sigma") : "",
           shapes.c_str());
}

/**
 * A scene score as metadata text: the float exactly (it reads back as the
 * same value), so that a filter compares it with its threshold as the
 * backend did.
 */
static std::string th_scene_score_text(float score)
{
    char text[32];
    // 9 significant digits: enough for any float to read back unchanged
    snprintf(text, sizeof(text), "%.9g", score);
    return text;
}

/** The mean absolute difference of a and b, computed on their device. */
static float th_scene_score(const torch::Tensor &a, const torch::Tensor &b)
{
    // one reduction on the frames' device; the value decides on the host
    return (a.to(torch::kFloat32) - b.to(torch::kFloat32)).abs().mean().item<float>();
}

/**
 * The state of a recurrent model for frame: none after a reset, at a
 * scene cut or a change of size; the frame is kept for the next score.
 */
static c10::IValue th_recurrent_state(THFrameCache *cache, const torch::Tensor &frame,
                                      const THFramesInput &how, float *score)
{
    bool start_again = how.reset || !cache->previous.defined() ||
                       cache->previous.sizes() != frame.sizes();

    if (!start_again && how.scene > 0) {
        *score = th_scene_score(cache->previous, frame);
        start_again = *score > how.scene;
    }
    if (how.keep_state)
        cache->previous = frame;
    if (start_again || !cache->state.defined())
        return c10::IValue();
    return cache->state;
}

/** An image of the model: an undefined one would read as a scene cut's (no image). */
static int th_defined_output(const torch::Tensor &output, void *log_ctx)
{
    if (output.defined())
        return 0;
    av_log(log_ctx, AV_LOG_ERROR, "The model returned an undefined tensor\n");
    return AVERROR(EINVAL);
}

/** A recurrent model's (frame, state): the frame into *output, the state kept for the next. */
static int th_recurrent_output(const c10::IValue &result, const THFramesInput &how,
                               THFrameCache *cache, torch::Tensor *output, void *log_ctx)
{
    if (!result.isTuple() || result.toTupleRef().elements().size() != 2 ||
        !result.toTupleRef().elements()[0].isTensor() ||
        !result.toTupleRef().elements()[1].isTensor()) {
        av_log(log_ctx, AV_LOG_ERROR, "The model returned a %s: a recurrent model returns "
               "(frame, state), two tensors\n", result.tagKind().c_str());
        return AVERROR(EINVAL);
    }
    *output = result.toTupleRef().elements()[0].toTensor();
    if (how.keep_state)
        cache->state = result.toTupleRef().elements()[1].toTensor();
    return th_defined_output(*output, log_ctx);
}

/**
 * The inputs of a .pt2 package, tensors (a recurrent model's None state:
 * undefined): its result as a TorchScript module's would be.
 */
static int th_package_forward(THPackage *package, const std::vector<torch::jit::IValue> &inputs,
                              const THFramesInput &how, c10::IValue *result, DnnContext *ctx)
{
    std::vector<torch::Tensor> tensors;
    torch::Tensor output, state;
    int ret;

    for (const auto &input : inputs)
        tensors.push_back(input.isNone() ? torch::Tensor() : input.toTensor());
    if (how.layout != DNN_FRAMES_RECURRENT) {
        ret = th_package_run_inputs(package, tensors, &output, ctx);
        if (ret >= 0)
            *result = output;
        return ret;
    }
    ret = th_package_run_recurrent(package, tensors, &output, &state, ctx);
    if (ret >= 0)
        *result = c10::ivalue::Tuple::create({ output, state });
    return ret;
}

/**
 * The model's forward() of frames into *output (the .pt2 package's when
 * package is not NULL, else the TorchScript model's), as how says:
 * forward(earlier, later, t[, sigma]) for a pair (batched: the pair
 * repeated N times and t of shape [N, 1, 1, 1] or N x 1 x H x W, one
 * output image per time), forward(window[, sigma])
 * with the window 1 x N*C x H x W (stacked) or 1 x N x C x H x W
 * (sequence), forward(frame, state[, sigma]) -> (frame, state) for a
 * recurrent model, its state None at first and after a reset.  t and sigma
 * are 0-D tensors or 1x1xHxW planes of the frames' dtype on their device.
 * With scene > 0, the mean absolute difference of the two frames (of a
 * pair; of this frame and the previous one of a recurrent model) is
 * computed first (*score): above scene, a pair gives no image (*output
 * undefined: the caller writes no frame) without running the model, and a
 * recurrent model starts again.
 */
static int th_frames_forward(torch::jit::Module *model, THPackage *package,
                             const std::vector<torch::Tensor> &frames, const THFramesInput &how,
                             THFrameCache *cache, torch::Tensor *output, float *score, DnnContext *ctx)
{
    void *log_ctx = ctx;
    std::vector<torch::jit::IValue> inputs;
    c10::IValue result;

    *score = -1.0f;
    for (const auto &frame : frames) {
        if (frame.sizes() != frames[0].sizes()) {
            // ffmpeg starts a new graph where the decoded size changes: a
            // filter inside the graph changed it (scale with eval=frame)
            av_log(log_ctx, AV_LOG_ERROR, "The frames of one input of the model differ in "
                   "size (%" PRId64 "x%" PRId64 " and %" PRId64 "x%" PRId64 "): the frame size "
                   "cannot change inside a filter graph\n",
                   (int64_t)frames[0].size(-1), (int64_t)frames[0].size(-2),
                   (int64_t)frame.size(-1), (int64_t)frame.size(-2));
            return AVERROR(EINVAL);
        }
    }
    switch (how.layout) {
    case DNN_FRAMES_PAIR:
        if (how.scene > 0) {
            *score = th_scene_score(frames[0], frames[1]);
            if (*score > how.scene) {
                // no image: dnn_interpolate sends the earlier frame as it
                // is, not through the model's colour path and back
                output->reset();
                return 0;
            }
        }
        if (how.batched) {
            inputs.push_back(th_repeat_frame(frames[0], how, ctx));
            inputs.push_back(th_repeat_frame(frames[1], how, ctx));
            inputs.push_back(th_times_input(how, frames[0]));
            break;
        }
        inputs.push_back(frames[0]);
        inputs.push_back(frames[1]);
        inputs.push_back(th_scalar_input(how.t, how.t_plane, frames[0]));
        break;
    case DNN_FRAMES_STACKED:
        // in the model's memory format, as a package was compiled for (not
        // what a 1-channel frame suggests: it is both)
        inputs.push_back(frames.size() == 1 ? frames[0] :
                         torch::cat(frames, 1).contiguous(th_precision_memory_format(ctx, frames[0].device())));
        break;
    case DNN_FRAMES_SEQUENCE:
        inputs.push_back(torch::stack(frames, 1).contiguous());
        break;
    case DNN_FRAMES_RECURRENT:
        inputs.push_back(frames[0]);
        inputs.push_back(th_recurrent_state(cache, frames[0], how, score));
        break;
    }
    if (how.sigma >= 0)
        inputs.push_back(th_scalar_input(how.sigma, how.sigma_plane, frames[0]));

    auto run = [&](const std::vector<torch::jit::IValue> &given, c10::IValue *res) {
        if (package)
            return th_package_forward(package, given, how, res, ctx);
        *res = model->forward(given);
        return 0;
    };
    try {
        // a recurrent model's state is its own output: no graph, whose
        // output the next replay overwrites
        int ret = how.layout == DNN_FRAMES_RECURRENT ? run(inputs, &result) :
                  th_graph_forward(&cache->graph, inputs, run, &result, ctx);
        if (ret < 0) {
            th_log_frames_given(inputs, how, frames.size(), log_ctx);
            return ret;
        }
    } catch (const std::exception &e) {
        th_log_exception(log_ctx, "Model inference failed", e);
        th_log_frames_given(inputs, how, frames.size(), log_ctx);
        return AVERROR_EXTERNAL;
    }
    if (how.layout == DNN_FRAMES_RECURRENT)
        return th_recurrent_output(result, how, cache, output, log_ctx);
    if (!result.isTensor()) {
        av_log(log_ctx, AV_LOG_ERROR, "The model returned a %s, not a tensor: %s\n",
               result.tagKind().c_str(), how.layout == DNN_FRAMES_PAIR ?
               "dnn_interpolate needs forward(earlier, later, t) -> frame" :
               "dnn_processing needs forward(window) -> frame");
        return AVERROR(EINVAL);
    }
    *output = result.toTensor();
    return th_defined_output(*output, log_ctx);
}

int th_frames_check_options(const DnnContext *ctx)
{
    if (ctx->nb_frames < 1 || ctx->nb_frames > DNN_FRAMES_MAX ||
        (ctx->frames_layout == DNN_FRAMES_PAIR && ctx->nb_frames != 2) ||
        (ctx->frames_layout == DNN_FRAMES_RECURRENT && ctx->nb_frames != 1)) {
        av_log((void *)ctx, AV_LOG_ERROR, "%d frames are no input of a model\n", ctx->nb_frames);
        return AVERROR(EINVAL);
    }
    return 0;
}

void th_frames_task_dry_run(THFramesTask *task)
{
    for (int i = 0; i < DNN_FRAMES_MAX; i++) {
        task->frames[i] = NULL;
        task->ids[i] = -1;
    }
    task->t = 0.5f;
}

int th_frames_task_fill(THFramesTask *task, const DNNExecFramesParams *params, const DnnContext *ctx)
{
    void *log_ctx = (void *)ctx;

    for (int i = 0; i < ctx->nb_frames; i++) {
        if (!params->frames || !params->frames[i]) {
            av_log(log_ctx, AV_LOG_ERROR, "frame %d of %d is NULL\n", i, ctx->nb_frames);
            return AVERROR(EINVAL);
        }
        task->frames[i] = params->frames[i];
        task->ids[i] = params->ids ? params->ids[i] : -1;
    }
    task->t = params->t;
    task->scene = params->scene;
    task->reset = params->reset;
    task->nb_times = 0;
    if (params->nb_times <= 0)
        return 0;
    if (ctx->frames_layout != DNN_FRAMES_PAIR || params->nb_times > FFMAX(ctx->batch, 1) ||
        params->nb_times > DNN_TIMES_MAX || !params->times || !params->out_frames) {
        av_log(log_ctx, AV_LOG_ERROR, "%d output times of one run: the model makes at most "
               "%d\n", params->nb_times, FFMAX(ctx->batch, 1));
        return AVERROR(EINVAL);
    }
    task->nb_times = params->nb_times;
    for (int i = 0; i < task->nb_times; i++) {
        task->times[i] = params->times[i];
        task->out_frames[i] = params->out_frames[i];
    }
    return 0;
}

int th_frames_task_images(const THFramesTask *task)
{
    return FFMAX(task->nb_times, 1);
}

AVFrame *th_frames_task_output(const THFramesTask *task, int i, AVFrame *out_frame)
{
    return task->nb_times > 0 ? task->out_frames[i] : out_frame;
}

void th_frames_task_describe(const THFramesTask *task, const DnnContext *ctx, int64_t pts,
                             THOutputFrame *frames)
{
    // a pair's images are at their times after its first frame
    for (int i = 0; i < th_frames_task_images(task); i++) {
        frames[i].pts = pts;
        frames[i].t   = task->nb_times > 0 ? task->times[i] :
                        ctx->frames_layout == DNN_FRAMES_PAIR ? task->t : -1;
    }
}

int th_frames_task_read(const THFramesTask *task, AVFrame *in_frame, THFrameCache *cache,
                        const THFrameReader &read, std::vector<torch::Tensor> *tensors,
                        const DnnContext *ctx)
{
    int nb_frames = ctx->nb_frames;

    tensors->resize(nb_frames);
    for (int i = 0; i < nb_frames; i++) {
        torch::Tensor *tensor = &(*tensors)[i];
        int ret;

        // converted the first time its id is seen, then kept while later inputs use it
        *tensor = cache->find(task->ids[i]);
        if (tensor->defined())
            continue;
        ret = read(task->frames[i] ? task->frames[i] : in_frame, tensor);
        if (ret < 0)
            return ret;
        cache->store(task->ids[i], *tensor);
    }
    cache->retain(task->ids, nb_frames);
    return 0;
}

int th_frames_task_run(const THFramesTask *task, AVFrame *out_frame, torch::jit::Module *model,
                       THPackage *package, const std::vector<torch::Tensor> &frames,
                       THFrameCache *cache, torch::Tensor *output, DnnContext *ctx)
{
    float score;
    int ret = th_frames_forward(model, package, frames, th_frames_input(ctx, task), cache, output,
                                &score, ctx);

    for (int i = 0; ret >= 0 && score >= 0 && i < th_frames_task_images(task); i++) {
        AVFrame *out = th_frames_task_output(task, i, out_frame);
        // the score is what tells dnn_interpolate of a cut: never lost
        if (out)
            ret = av_dict_set(&out->metadata, ctx->frames_layout == DNN_FRAMES_PAIR ?
                              "lavfi.dnn_interpolate.scene_score" : "lavfi.dnn_processing.scene_score",
                              th_scene_score_text(score).c_str(), 0);
    }
    return ret;
}
