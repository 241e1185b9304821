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
 * What the LibTorch backend keeps of a model beside upstream's THModel, and
 * the steps of its run that are the fork's: the model file and its checks,
 * where the model runs, the frames' path, the frames kept for models of
 * several frames, the CUDA graph and the checks of the output.
 * dnn_backend_torch.cpp calls each step from upstream's flow: load,
 * configure (get_output), read, run, the output's checks, flush and free.
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_RUNNER_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_RUNNER_H

#include <atomic>
#include <cstdint>
#include <vector>

#include <torch/torch.h>
#include <torch/script.h>

extern "C" {
#include "dnn_backend_common.h"
}
#include "dnn_backend_torch_cuda.h"
#include "dnn_backend_torch_io.h"
#include "dnn_backend_torch_temporal.h"

class THModelFile;
class THOutputValues;

typedef struct THRunner {
    DnnContext *ctx;
    THModelFile *file;                    ///< what the loaders read (model_sha256: a checked copy)
    THPackage *package;                   ///< a .pt2 package, instead of the TorchScript module
    c10::Device device;                   ///< where the model runs
    int placed;                           ///< the model is on device (done at configuration)
    DNNCudaFrames cuda;                   ///< the CUDA frames' device, when the input has them
    THFrameIO io;                         ///< how frames become tensors, and back (at configuration)
    THOutputValues *output_values;        ///< NaN and infinities of the output, counted
    THFrameCache *frames;                 ///< DFT_PROCESS_FRAMES: the frames converted
    THGraph *graph;                       ///< cuda_graph: the model's run of one frame
} THRunner;

/**
 * A task of this backend.  The common code reads task.inference_done on the
 * filter's thread, while an async inference finishes on the worker's: the
 * worker publishes its count here (release), and the filter's thread copies
 * it into task.inference_done (acquire) before it looks, so the frames the
 * worker wrote are seen whole.
 */
typedef struct THTaskItem {
    TaskItem task;                        ///< first: freed as a TaskItem by the common code
    std::atomic<uint32_t> inferences_done;
    THFramesTask frames;                  ///< DFT_PROCESS_FRAMES: the frames and times of the run
} THTaskItem;

static inline THTaskItem *th_task(TaskItem *task)
{
    return reinterpret_cast<THTaskItem *>(task);
}

/** The filter's thread: what the worker has finished of task, into task. */
static inline void th_task_sync(TaskItem *task)
{
    task->inference_done = th_task(task)->inferences_done.load(std::memory_order_acquire);
}

/**
 * Set up runner, in zeroed memory, for the model of ctx on device_name:
 * logged if LibTorch cannot read the name, or if ctx sets device_id, which
 * this backend does not read.  th_runner_free() must follow,
 * whatever this returns.
 */
int th_runner_init(THRunner *runner, const char *device_name, DnnContext *ctx);

/** Open the model file (its hash pin checked) and, if it is one, the .pt2 package. */
int th_runner_open(THRunner *runner) noexcept;

/**
 * After the TorchScript module or the package is loaded: check the
 * package's inputs against func_type and the options of a model of several
 * frames, and set up what the run keeps.
 */
int th_runner_load(THRunner *runner, DNNFunctionType func_type);

/**
 * At configuration, with the input of model known: place the TorchScript
 * module jit_model or the package on the first call, and choose the frames'
 * path for width x height frames of the input's format.
 */
int th_runner_configure(THRunner *runner, const DNNModel *model, torch::jit::Module *jit_model,
                        int width, int height);

/** The frames of a DFT_PROCESS_FRAMES task, each as the model takes it (device, precision). */
int th_runner_read_frames(const THRunner *runner, const THFramesTask *run, AVFrame *in_frame,
                          int convert, std::vector<torch::Tensor> *tensors);

/**
 * Run the model (the package, else jit_model) on the tensor of one frame,
 * brought to the model's device, precision and memory format; in its CUDA
 * graph with cuda_graph, into output.  Logs the input on failure; a
 * result that is not a tensor is EINVAL.
 */
int th_runner_forward(THRunner *runner, torch::jit::Module *jit_model, torch::Tensor *input,
                      torch::Tensor *output);

/**
 * Check the model's output of task (run: its frames and times) against what
 * dnn_processing can turn into a frame of the input's format, and bring it
 * to what the frames' path writes.
 */
int th_runner_prepare_output(THRunner *runner, const THFramesTask *run, const TaskItem *task,
                             torch::Tensor *output);

/** The end of the stream: the frames' stream done, what the GPU counted read. */
int th_runner_flush(THRunner *runner);

/**
 * Report the output's counts and free what runner holds, the model itself
 * (jit_model, the package) in the frames' CUDA context.
 */
void th_runner_free(THRunner *runner, torch::jit::Module **jit_model);

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_RUNNER_H */
