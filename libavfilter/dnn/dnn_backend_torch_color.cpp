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

#include <algorithm>
#include <system_error>
#include <thread>
#include <vector>
#include <ATen/Parallel.h>

#include "dnn_backend_torch_color.h"

#include "dnn_backend_torch_error.h"

extern "C" {
#include "dnn_color_frame.h"
}

// rows per band at least: enough work to be worth a thread
#define TH_COLOR_MIN_ROWS 16

/**
 * Run body over [0, rows) in bands, one per thread, as many threads as
 * LibTorch's intra-op setting (at::get_num_threads(): the cores, or
 * OMP_NUM_THREADS).  Plain threads: at::parallel_for's OpenMP pragmas would
 * need this file built with -fopenmp.  If a thread cannot be started, its
 * band runs here.
 */
template <typename Body>
static int run_bands(void *log_ctx, int rows, Body &&body) noexcept
{
    int bands = std::max(1, std::min(at::get_num_threads(), rows / TH_COLOR_MIN_ROWS));
    std::vector<std::thread> threads;

    try {
        threads.reserve(bands - 1);
        for (int i = 1; i < bands; i++) {
            int begin = rows * i / bands, end = rows * (i + 1) / bands;
            try {
                // body is C (dnn_color.c): nothing is thrown in the thread
                threads.emplace_back([&body, begin, end] { body(begin, end); });
            } catch (const std::system_error &) {
                body(begin, end);
            }
        }
        body(0, rows / bands);
    } catch (const std::exception &e) {
        th_log_exception(log_ctx, "Could not convert the frame", e);
        for (std::thread &t : threads)
            t.join();
        return AVERROR_EXTERNAL;
    }
    for (std::thread &t : threads)
        t.join();
    return 0;
}

int th_color_read_frame(void *log_ctx, const AVFrame *frame, float *data, int channels) noexcept
{
    DNNColorConvert p;
    int ret = ff_dnn_color_prepare_read(log_ctx, frame, data, channels, &p);

    if (ret < 0)
        return ret;
    return run_bands(log_ctx, p.frame.height, [&](int y0, int y1) {
        ff_dnn_color_frame_to_tensor_rows(&p, y0, y1);
    });
}

int th_color_write_frame(void *log_ctx, const float *data, int channels,
                         const AVFrame *in, AVFrame *out) noexcept
{
    DNNColorConvert p;
    int ret = ff_dnn_color_prepare_write(log_ctx, data, channels, in, out, &p);

    if (ret < 0)
        return ret;
    return run_bands(log_ctx, ff_dnn_color_chroma_rows(&p), [&](int cy0, int cy1) {
        ff_dnn_color_tensor_to_frame_rows(&p, cy0, cy1);
    });
}
