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
 * Pairs of frames for the LibTorch backend: see dnn_backend_torch_temporal.h.
 */

#include "dnn_backend_torch_temporal.h"

extern "C" {
#include "libavutil/log.h"
#include "libavutil/error.h"
}

torch::Tensor THFrameCache::find(int64_t id) const
{
    for (int i = 0; i < 2; i++)
        if (id >= 0 && ids[i] == id)
            return tensors[i];
    return torch::Tensor();
}

void THFrameCache::store(int64_t id, const torch::Tensor &tensor, int64_t keep_id)
{
    int slot = ids[0] == keep_id && keep_id >= 0 ? 1 : 0;

    if (id < 0)
        return; // a frame without an id (the dry run of get_output) is not kept
    ids[slot] = id;
    tensors[slot] = tensor;
}

void THFrameCache::clear()
{
    ids[0] = ids[1] = -1;
    tensors[0] = tensors[1] = torch::Tensor();
}

int th_temporal_forward(torch::jit::Module *model, const torch::Tensor &earlier,
                        const torch::Tensor &later, float t, float scene,
                        torch::Tensor *output, float *score, void *log_ctx)
{
    std::vector<torch::jit::IValue> inputs;
    c10::IValue result;

    *score = -1.0f;
    if (earlier.sizes() != later.sizes()) {
        av_log(log_ctx, AV_LOG_ERROR, "The two frames of a pair differ in size\n");
        return AVERROR(EINVAL);
    }
    if (scene > 0) {
        // one reduction on the frames' device; the value decides on the host
        *score = (earlier.to(torch::kFloat32) - later.to(torch::kFloat32)).abs().mean().item<float>();
        if (*score > scene) {
            *output = earlier;
            return 0;
        }
    }
    inputs.push_back(earlier);
    inputs.push_back(later);
    inputs.push_back(torch::full({}, t, earlier.options()));
    result = model->forward(inputs);
    if (!result.isTensor()) {
        av_log(log_ctx, AV_LOG_ERROR, "The model returned a %s, not a tensor: dnn_interpolate "
               "needs forward(earlier, later, t) -> frame\n", result.tagKind().c_str());
        return AVERROR(EINVAL);
    }
    *output = result.toTensor();
    return 0;
}
