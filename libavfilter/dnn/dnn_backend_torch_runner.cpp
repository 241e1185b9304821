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

#include <new>

#include "dnn_backend_torch_runner.h"
#include "dnn_backend_torch_archive.h"
#include "dnn_backend_torch_error.h"
#include "dnn_backend_torch_graph.h"
#include "dnn_backend_torch_output.h"
#include "dnn_backend_torch_package.h"
#include "dnn_backend_torch_place.h"
#include "dnn_backend_torch_precision.h"

int th_runner_init(THRunner *runner, const char *device_name, DnnContext *ctx)
{
    runner->ctx = ctx;
    new (&runner->device) c10::Device(c10::kCPU);
    // device_id is read by the ONNX Runtime backend only: this one names its
    // device in device, and would run elsewhere than the user asked
    if (ctx->device_id) {
        av_log(ctx, AV_LOG_ERROR, "The torch backend does not read device_id: it takes the "
               "device's index in the device option (such as cuda:1, its colon escaped in a "
               "filter graph)\n");
        return AVERROR(EINVAL);
    }
    try {
        runner->device = c10::Device(device_name);
    } catch (const c10::Error &e) {
        av_log(ctx, AV_LOG_ERROR, "Not supported device:\"%s\"\n", device_name);
        return AVERROR(EINVAL);
    }
    return 0;
}

int th_runner_open(THRunner *runner) noexcept
{
    runner->file = new (std::nothrow) THModelFile;
    if (!runner->file)
        return AVERROR(ENOMEM);
    int ret = th_model_file_open(runner->file, runner->ctx);
    if (ret < 0)
        return ret;
    return th_package_open(&runner->package, *runner->file, runner->ctx);
}

int th_runner_load(THRunner *runner, DNNFunctionType func_type)
{
    DnnContext *ctx = runner->ctx;
    int ret;

    // a package's compiled code trusts its inputs: they must be what the filter gives
    if (runner->package && (ret = th_package_check_signature(runner->package, func_type, ctx)) < 0)
        return ret;
    if (func_type == DFT_PROCESS_FRAMES) {
        if ((ret = th_frames_check_options(ctx)) < 0)
            return ret;
        runner->frames = new (std::nothrow) THFrameCache;
        if (!runner->frames)
            return AVERROR(ENOMEM);
    }
    runner->output_values = new (std::nothrow) THOutputValues;
    return runner->output_values ? 0 : AVERROR(ENOMEM);
}

int th_runner_configure(THRunner *runner, const DNNModel *model, torch::jit::Module *jit_model,
                        int width, int height)
{
    AVFilterLink *inlink = model->filter_ctx->inputs[0];

    if (!runner->placed) {
        // where the model runs is known now, with the input
        int ret = th_place_model(&runner->cuda, inlink, jit_model, runner->package,
                                 &runner->device, runner->ctx);
        if (ret < 0)
            return ret;
        runner->placed = 1;
    }
    // the path of the frames; their size, what a frame is checked against
    // (a filter before may change its link's)
    th_io_configure(&runner->io, model, &runner->cuda, (enum AVPixelFormat)inlink->format,
                    width, height, runner->ctx);
    return 0;
}

int th_runner_read_frames(const THRunner *runner, const THFramesTask *run, AVFrame *in_frame,
                          int convert, std::vector<torch::Tensor> *tensors)
{
    return th_frames_task_read(run, in_frame, runner->frames, [&](AVFrame *frame, torch::Tensor *tensor) {
        int ret = th_io_read_frame(&runner->io, frame, convert, tensor);
        if (ret >= 0)
            *tensor = th_precision_input(*tensor, runner->device, runner->ctx);
        return ret;
    }, tensors, runner->ctx);
}

/** One plain run of the model of one frame: the .pt2 package's or TorchScript's. */
static int run_model(THRunner *runner, torch::jit::Module *jit_model,
                     const std::vector<torch::jit::IValue> &inputs, c10::IValue *result)
{
    if (runner->package) {
        torch::Tensor output;
        int ret = th_package_run(runner->package, inputs[0].toTensor(), &output, runner->ctx);
        if (ret >= 0)
            *result = output;
        return ret;
    }
    *result = jit_model->forward(inputs);
    return 0;
}

int th_runner_forward(THRunner *runner, torch::jit::Module *jit_model, torch::Tensor *input,
                      torch::Tensor *output)
{
    std::vector<torch::jit::IValue> inputs;
    c10::IValue result;
    int ret;

    // the device the model was placed on, its precision and memory format
    *input = th_precision_input(*input, runner->device, runner->ctx);
    inputs.push_back(*input);
    ret = th_graph_forward(&runner->graph, inputs, [&](const std::vector<torch::jit::IValue> &given,
                                                       c10::IValue *res) {
        return run_model(runner, jit_model, given, res);
    }, &result, runner->ctx);
    if (ret < 0) {
        th_io_log_input(&runner->io);
        return ret;
    }
    if (!result.isTensor()) {
        av_log(runner->ctx, AV_LOG_ERROR, "The model returned a %s, not a tensor\n",
               result.tagKind().c_str());
        return AVERROR(EINVAL);
    }
    *output = result.toTensor();
    return 0;
}

int th_runner_prepare_output(THRunner *runner, const THFramesTask *run, const TaskItem *task,
                             torch::Tensor *output)
{
    int64_t images = th_frames_task_images(run);
    THOutputFrame frames[DNN_TIMES_MAX];
    int ret = THOutputValues::check_type(*output, runner->ctx);

    if (ret < 0)
        return ret;
    ret = th_io_check_output(&runner->io, *output, images);
    if (ret < 0 || !task->do_ioproc)
        return ret;
    th_frames_task_describe(run, runner->ctx, task->in_frame->pts, frames);
    ret = runner->output_values->sanitize(output, frames, th_cuda_bound(&runner->cuda), runner->ctx);
    if (ret < 0)
        return ret;
    return th_io_output_for_frame(&runner->io, task->in_frame, task->out_frame, output);
}

/** Read what the GPU counted of the output, in the frames' context. */
static void collect_output_counts(THRunner *runner)
{
    THCudaRequest section;

    if (section.enter(&runner->cuda, runner->ctx) >= 0)
        runner->output_values->collect(runner->ctx);
}

int th_runner_flush(THRunner *runner)
{
    int ret = th_cuda_flush(&runner->cuda, runner->ctx);

    if (ret < 0)
        return ret;
    // the frames' stream is done
    collect_output_counts(runner);
    return 0;
}

void th_runner_free(THRunner *runner, torch::jit::Module **jit_model)
{
    if (!runner->ctx)
        return; // never set up
    if (runner->output_values) {
        collect_output_counts(runner);
        runner->output_values->report(runner->ctx);
        delete runner->output_values;
        runner->output_values = NULL;
    }
    {
        // the CUDA graphs' and cached frames' memory is the frames' context's
        THCudaRequest section;
        section.enter_to_free(&runner->cuda, runner->ctx);
        th_graph_free(&runner->graph);
        delete runner->frames;
        runner->frames = NULL;
    }
    th_cuda_release_model(&runner->cuda, jit_model, &runner->package, runner->ctx);
    th_place_release(runner->ctx);
    th_package_free(&runner->package);
    delete runner->file;
    runner->file = NULL;
    runner->device.~Device();
    runner->ctx = NULL;
}
