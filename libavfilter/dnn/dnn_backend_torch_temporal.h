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
 * Pairs of frames for the LibTorch backend (dnn_interpolate): the model's
 * forward(earlier, later, t), the frames converted once each, and the
 * scene-cut score that makes a pair repeat its earlier frame.
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_TEMPORAL_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_TEMPORAL_H

#include <torch/torch.h>
#include <torch/script.h>

extern "C" {
#include "libavfilter/dnn_interface.h"
}

/**
 * The last two frames as the model takes them (converted, on its device, in
 * its precision), by the ids the filter gave them: a pair shares its later
 * frame with the next pair, and a pair gives several output times.
 */
class THFrameCache {
public:
    /** The tensor of id, or an undefined one. */
    torch::Tensor find(int64_t id) const;
    /** Keep tensor as id, in place of the entry that is not keep_id. */
    void store(int64_t id, const torch::Tensor &tensor, int64_t keep_id);
    void clear();

private:
    int64_t ids[2] = { -1, -1 };
    torch::Tensor tensors[2];
};

/**
 * forward(earlier, later, t) of model into *output, with t a 0-D tensor of
 * the inputs' dtype on their device.  With scene > 0, the mean absolute
 * difference of the two frames is computed first (*score); above scene the
 * output is the earlier frame and the model does not run.
 */
int th_temporal_forward(torch::jit::Module *model, const torch::Tensor &earlier,
                        const torch::Tensor &later, float t, float scene,
                        torch::Tensor *output, float *score, void *log_ctx);

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_TEMPORAL_H */
