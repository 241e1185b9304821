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

/*
 * The C boundary of the torch backend: libavfilter calls the module from C
 * (dnn_backend_torch_loader.c, through dnn_backend_torch_entry.c), where an
 * exception would end the process, so every call into the backend's
 * DNNModule (dnn_backend_torch.cpp) goes through a guard here.
 */

extern "C" {
#include "libavfilter/dnn_interface.h"
}
#include "dnn_backend_torch_error.h"

/* The backend, unguarded (dnn_backend_torch.cpp) */
extern const DNNModule ff_dnn_backend_torch_module;
static const DNNModule &backend = ff_dnn_backend_torch_module;

/*
 * An exception the backend let through (std::bad_alloc from new, a LibTorch
 * call outside its try blocks) becomes an error of the call.
 */
static DNNModel *load_model(DnnContext *ctx, DNNFunctionType func_type,
                            AVFilterContext *filter_ctx) noexcept
{
    return th_catch_all(ctx, "Could not load the model", (DNNModel *)NULL,
                        [&] { return backend.load_model(ctx, func_type, filter_ctx); });
}

static int execute_model(const DNNModel *model, DNNExecBaseParams *exec_params) noexcept
{
    return th_catch_all(th_model_log_ctx(model), "Could not run the model",
                        [&] { return backend.execute_model(model, exec_params); });
}

static DNNAsyncStatusType get_result(const DNNModel *model, AVFrame **in, AVFrame **out) noexcept
{
    return th_catch_all(th_model_log_ctx(model), "Could not get the model's result", DAST_FAIL,
                        [&] { return backend.get_result(model, in, out); });
}

static int flush(const DNNModel *model) noexcept
{
    return th_catch_all(th_model_log_ctx(model), "Could not flush the model",
                        [&] { return backend.flush(model); });
}

static void free_model(DNNModel **model) noexcept
{
    void *log_ctx = model && *model ? th_model_log_ctx(*model) : NULL;
    th_catch_all(log_ctx, "Could not free the model", [&] {
        backend.free_model(model);
        return 0;
    });
}

/* What the module's entry gives the loader (dnn_backend_torch_entry.c) */
extern "C" const DNNModule ff_dnn_backend_torch_guarded = {
    .type           = DNN_TH,
    .load_model     = load_model,
    .execute_model  = execute_model,
    .get_result     = get_result,
    .flush          = flush,
    .free_model     = free_model,
};
