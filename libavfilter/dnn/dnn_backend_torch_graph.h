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
 * CUDA graphs of the LibTorch backend's model runs (cuda_graph=1): a model
 * that launches hundreds of small kernels for each frame (the coarse
 * scales of a frame-interpolation network) keeps the GPU waiting for the
 * CPU; replaying the captured run launches them all at once.
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_GRAPH_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_GRAPH_H

#include <functional>
#include <string>
#include <vector>
#include <torch/torch.h>

extern "C" {
#include "libavfilter/dnn_interface.h"
}

/** A model's CUDA graph, of the inputs' shapes it was captured for. */
struct THGraph;

/** One plain run of the model: forward(inputs) into *result; 0 or an AVERROR. */
typedef std::function<int(const std::vector<torch::jit::IValue> &inputs, c10::IValue *result)> THGraphRun;

/**
 * run the model on inputs into *result, through *graph when the option
 * cuda_graph is set and the inputs are tensors on a GPU: the first runs of
 * one set of shapes (and strides, dtypes) are plain, the next one is
 * captured (on a side stream ordered with the current one), and from then
 * on the graph is replayed on the current stream with the inputs copied
 * into its own; *result is then a copy of the graph's output, which the
 * next replay overwrites.  Each set of shapes has its own count and graph
 * (a few are kept, the least recently run dropped first: a batch of times
 * that changes from run to run), all in one memory pool.  A model that
 * cannot be captured (it waits for the GPU, say) is said once and runs
 * plain.
 * Exceptions of run pass through; *graph is created on first use.
 */
int th_graph_forward(THGraph **graph, const std::vector<torch::jit::IValue> &inputs,
                     const THGraphRun &run, c10::IValue *result, DnnContext *ctx);

/** "[2, 3, 48, 64], [2, 1, 1, 1]": the inputs' shapes (None for no tensor), for the log. */
std::string th_inputs_shapes(const std::vector<torch::jit::IValue> &inputs);

/** Free *graph and its memory (NULL: nothing). */
void th_graph_free(THGraph **graph) noexcept;

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_GRAPH_H */
