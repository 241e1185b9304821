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
#include <memory>
#include <mutex>
#include <sstream>
#include <string>

extern "C" {
#include "config.h"
#include "libavutil/log.h"
#include "libavutil/error.h"
}
#include "dnn_backend_torch_graph.h"
#include "dnn_backend_torch_error.h"

#if CONFIG_LIBTORCH_CUDA
#include "dnn_backend_torch_cuda.h"
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

/** Plain runs of one set of shapes before it is captured: TorchScript's
 * profiling executor settles on its optimized graph in the first ones. */
#define TH_GRAPH_WARMUP_RUNS 3

/**
 * Sets of input shapes kept, each with its graph once captured: a pair's
 * batch of times changes from run to run (dnn_interpolate's fps, or a
 * batch that does not divide the pair's times: 2 and 3 times a run, 1 at
 * the end), and every size must keep its graph and its count of plain
 * runs.  The least recently run goes first.
 */
#define TH_GRAPH_MAX_SHAPES 4

/** One set of input shapes and, after its plain runs, its graph. */
struct THGraphShape {
    std::vector<int64_t> key;           ///< the inputs' devices, dtypes, shapes and strides
    int plain_runs = 0;                 ///< before the capture
    uint64_t last_run = 0;              ///< THGraph.runs when it last ran
#if CONFIG_LIBTORCH_CUDA
    std::unique_ptr<at::cuda::CUDAGraph> graph;
    std::vector<torch::Tensor> inputs;  ///< what the graph reads: the inputs are copied in
    torch::Tensor output;               ///< what the graph writes
#endif
};

struct THGraph {
    std::mutex lock;                    ///< the requests of async=1 run on threads of their own
    std::vector<std::unique_ptr<THGraphShape>> shapes; ///< at most TH_GRAPH_MAX_SHAPES
    uint64_t runs = 0;                  ///< of the model, for the least recently run shape
    bool refused = false;               ///< not capturable: no graphs for this model
    bool said_cpu = false;              ///< "no effect on the CPU" was said
#if CONFIG_LIBTORCH_CUDA
    /* One memory pool for all the shapes' graphs: they run one at a time on
     * the frames' stream and each output is cloned out before the next
     * replay, so a graph may reuse what another freed during its capture,
     * and the memory is that of the largest, not of all of them. */
    at::cuda::MempoolId_t pool = { 0, 0 };

    ~THGraph()
    {
        shapes.clear(); // the graphs first: each holds the pool
        if (pool.first || pool.second)
            th_cuda_empty_pool(pool); // LibTorch frees it with its last block
    }
#endif
};

/** The inputs' key, or an empty one where an input is not a CUDA tensor. */
static std::vector<int64_t> graph_key(const std::vector<torch::jit::IValue> &inputs)
{
    std::vector<int64_t> key;

    for (const auto &input : inputs) {
        if (!input.isTensor() || !input.toTensor().is_cuda())
            return {};
        const torch::Tensor &t = input.toTensor();
        key.push_back(t.get_device());
        key.push_back((int64_t)t.scalar_type());
        key.push_back(t.dim());
        for (int64_t i = 0; i < t.dim(); i++) {
            key.push_back(t.size(i));
            key.push_back(t.stride(i));
        }
    }
    return key;
}

#if CONFIG_LIBTORCH_CUDA
/**
 * Capture run on a copy of inputs into g.  Capturing needs a stream other
 * than the legacy default one, which FFmpeg's frames may use: a side
 * stream of the current context (LibTorch's pool streams belong to the
 * context that was current when it made them, not necessarily the
 * frames'), ordered after the current stream and before it again.
 * Relaxed mode: FFmpeg's other threads (the decoder's) go on using CUDA
 * meanwhile.
 */
static int graph_capture(THGraph *g, THGraphShape *shape,
                         const std::vector<torch::jit::IValue> &inputs,
                         const THGraphRun &run, DnnContext *ctx)
{
    c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream();
    std::vector<torch::jit::IValue> graph_inputs;
    at::cuda::CUDAEvent inputs_ready, captured;
    cudaStream_t side_handle;
    c10::IValue output;
    int ret;

    if (cudaStreamCreateWithFlags(&side_handle, cudaStreamNonBlocking) != cudaSuccess) {
        (void)cudaGetLastError();
        av_log(ctx, AV_LOG_WARNING, "cuda_graph: could not create a stream to capture on\n");
        return AVERROR(ENOTSUP);
    }
    std::unique_ptr<CUstream_st, void (*)(cudaStream_t)> side_owner(side_handle,
        [](cudaStream_t s) { (void)cudaStreamDestroy(s); });
    c10::cuda::CUDAStream side = c10::cuda::getStreamFromExternal(side_handle, stream.device_index());

    shape->inputs.clear();
    for (const auto &input : inputs) {
        const torch::Tensor &t = input.toTensor();
        shape->inputs.push_back(torch::empty_strided(t.sizes(), t.strides(), t.options()));
        shape->inputs.back().copy_(t, true);
        graph_inputs.push_back(shape->inputs.back());
    }
    inputs_ready.record(stream);
    inputs_ready.block(side);

    if (g->pool.first == 0 && g->pool.second == 0)
        g->pool = at::cuda::graph_pool_handle();
    shape->graph = std::make_unique<at::cuda::CUDAGraph>();
    {
        c10::cuda::CUDAStreamGuard on_side(side);
        shape->graph->capture_begin(g->pool, cudaStreamCaptureModeRelaxed);
        try {
            // a failure here is the capture's (an error of the model itself
            // comes again from the plain run that follows)
            ret = run(graph_inputs, &output) < 0 ? AVERROR(ENOTSUP) : 0;
        } catch (const std::exception &e) {
            th_log_exception(ctx, "The model cannot run in a CUDA graph", e);
            ret = AVERROR(ENOTSUP);
        }
        try {
            shape->graph->capture_end();
        } catch (const std::exception &e) {
            if (ret >= 0)
                th_log_exception(ctx, "The model cannot run in a CUDA graph", e);
            ret = AVERROR(ENOTSUP);
        }
        captured.record(side);
    }
    captured.block(stream);
    if (ret < 0) // a failed capture leaves its error for the next CUDA call to find
        (void)cudaGetLastError();
    if (ret >= 0 && !output.isTensor()) {
        av_log(ctx, AV_LOG_WARNING, "cuda_graph: the model returns a %s, not a tensor\n",
               output.tagKind().c_str());
        ret = AVERROR(ENOTSUP);
    }
    if (ret < 0) {
        shape->graph.reset();
        shape->inputs.clear();
        return ret;
    }
    shape->output = output.toTensor();
    return 0;
}

static void graph_replay(THGraphShape *shape, const std::vector<torch::jit::IValue> &inputs,
                         c10::IValue *result)
{
    for (size_t i = 0; i < inputs.size(); i++)
        shape->inputs[i].copy_(inputs[i].toTensor(), true);
    shape->graph->replay();
    *result = shape->output.clone();
}

/** The shape of key, a new one in place of the least recently run when none is. */
static THGraphShape *graph_shape(THGraph *g, const std::vector<int64_t> &key)
{
    auto oldest = g->shapes.begin();

    for (auto it = g->shapes.begin(); it != g->shapes.end(); ++it) {
        if ((*it)->key == key)
            return it->get();
        if ((*it)->last_run < (*oldest)->last_run)
            oldest = it;
    }
    if (g->shapes.size() < TH_GRAPH_MAX_SHAPES) {
        g->shapes.push_back(std::make_unique<THGraphShape>());
        oldest = g->shapes.end() - 1;
    } else {
        // its graph and the memory only it held go
        *oldest = std::make_unique<THGraphShape>();
    }
    (*oldest)->key = key;
    return oldest->get();
}

#endif /* CONFIG_LIBTORCH_CUDA */

std::string th_inputs_shapes(const std::vector<torch::jit::IValue> &inputs)
{
    std::string text;

    for (const auto &input : inputs) {
        std::ostringstream shape;
        if (input.isTensor())
            shape << input.toTensor().sizes();
        else
            shape << input.tagKind();
        text += (text.empty() ? "" : ", ") + shape.str();
    }
    return text;
}

int th_graph_forward(THGraph **graph, const std::vector<torch::jit::IValue> &inputs,
                     const THGraphRun &run, c10::IValue *result, DnnContext *ctx)
{
    THGraph *g = *graph;
    std::vector<int64_t> key;

    if (!ctx->torch_option.cuda_graph)
        return run(inputs, result);
    if (!g)
        g = *graph = new THGraph;
    std::lock_guard<std::mutex> locked(g->lock);
    if (g->refused)
        return run(inputs, result);
    key = graph_key(inputs);
    if (key.empty()) {
        if (!g->said_cpu)
            av_log(ctx, AV_LOG_WARNING, "cuda_graph has no effect on a model whose inputs "
                   "are not all tensors on a GPU\n");
        g->said_cpu = true;
        return run(inputs, result);
    }
#if CONFIG_LIBTORCH_CUDA
    THGraphShape *shape = graph_shape(g, key);
    shape->last_run = ++g->runs;
    if (!shape->graph) {
        int ret;
        if (shape->plain_runs < TH_GRAPH_WARMUP_RUNS) {
            shape->plain_runs++;
            return run(inputs, result);
        }
        try {
            ret = graph_capture(g, shape, inputs, run, ctx);
        } catch (const std::exception &e) {
            th_log_exception(ctx, "Could not capture the model's run in a CUDA graph", e);
            shape->graph.reset();
            shape->inputs.clear();
            (void)cudaGetLastError();
            ret = AVERROR(ENOTSUP);
        }
        if (ret == AVERROR(ENOTSUP)) {
            av_log(ctx, AV_LOG_WARNING, "cuda_graph: the model runs without a CUDA graph\n");
            g->refused = true;
            g->shapes.clear();
            return run(inputs, result);
        }
        if (ret < 0)
            return ret;
        av_log(ctx, AV_LOG_VERBOSE, "cuda_graph: captured the model's run of inputs %s\n",
               th_inputs_shapes(inputs).c_str());
    }
    graph_replay(shape, inputs, result);
    return 0;
#else
    return run(inputs, result);
#endif
}

void th_graph_free(THGraph **graph) noexcept
{
    try {
        delete *graph;
    } catch (...) {
        // a CUDA error while freeing the graph: nothing to do about it here
    }
    *graph = NULL;
}
