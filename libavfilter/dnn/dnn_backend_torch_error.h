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
 * LibTorch's exceptions in the LibTorch backend, which FFmpeg calls from C:
 * logged, and turned into AVERROR_EXTERNAL, never let through.
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_ERROR_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_ERROR_H

#include <algorithm>
#include <exception>
#include <string>
#include <utility>
#include <c10/util/Exception.h>

extern "C" {
#include "libavutil/error.h"
#include "libavutil/log.h"
}

/**
 * LibTorch reports failures as exceptions; FFmpeg wants a log line and an
 * error code.  Log e as "what: message".  TorchScript errors carry the
 * interpreter's traceback, whose last line is the error itself: log that,
 * and the whole text at debug level.
 */
inline void th_log_exception(void *log_ctx, const char *what, const std::exception &e)
{
    const c10::Error *c10_error = dynamic_cast<const c10::Error *>(&e);
    std::string text = c10_error ? c10_error->what_without_backtrace() : e.what();
    size_t end = text.find_last_not_of(" \t\r\n");
    size_t begin, cuda_error;
    std::string shown;

    text.erase(end == std::string::npos ? 0 : end + 1);
    // LibTorch's CUDA errors put the error first and advice after it, also
    // at the end of a TorchScript traceback: the error's line is the one
    shown = text;
    cuda_error = shown.find("CUDA error:");
    if (cuda_error != std::string::npos)
        shown.erase(std::min(shown.find('\n', cuda_error), shown.size()));
    begin = shown.find_last_of('\n');
    av_log(log_ctx, AV_LOG_ERROR, "%s: %s\n", what,
           shown.c_str() + (begin == std::string::npos ? 0 : begin + 1));
    av_log(log_ctx, AV_LOG_DEBUG, "%s\n", text.c_str());
}

struct DNNModel;

/**
 * The context a model logs to (dnn_backend_torch.cpp), for the guards of
 * the calls into it (dnn_backend_torch_boundary.cpp).
 */
void *th_model_log_ctx(const struct DNNModel *model);

/**
 * The C boundary: an exception that escapes into C terminates the process.
 * Run func and turn whatever it throws into a log line and AVERROR_EXTERNAL.
 */
template <typename Func>
static int th_catch_all(void *log_ctx, const char *what, Func &&func) noexcept
{
    try {
        return func();
    } catch (const std::exception &e) {
        th_log_exception(log_ctx, what, e);
    } catch (...) {
        av_log(log_ctx, AV_LOG_ERROR, "%s: unknown exception\n", what);
    }
    return AVERROR_EXTERNAL;
}

/** th_catch_all() for a func of another result: fallback where it throws. */
template <typename Ret, typename Func>
static Ret th_catch_all(void *log_ctx, const char *what, Ret fallback, Func &&func) noexcept
{
    Ret ret = fallback;
    th_catch_all(log_ctx, what, [&] { ret = func(); return 0; });
    return ret;
}

/**
 * Run func when the scope ends, however it ends (a return, an exception),
 * unless dismissed: the release that an early error path or an exception
 * must not skip.
 */
template <typename Func>
class THScopeExit {
public:
    explicit THScopeExit(Func func) noexcept : func(std::move(func)) {}
    ~THScopeExit()
    {
        if (armed)
            func();
    }
    void dismiss() noexcept { armed = false; }
    THScopeExit(const THScopeExit &) = delete;
    THScopeExit &operator=(const THScopeExit &) = delete;
private:
    Func func;
    bool armed = true;
};

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_ERROR_H */
