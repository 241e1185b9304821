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
 * The torch backend as a module of its own: LibTorch and the backend built
 * into a shared library, libavfilter-torch, which libavfilter loads on first
 * use (dnn_backend_torch_loader.c), so that FFmpeg runs where LibTorch is not
 * installed and loads it only for the filters that run a model.
 *
 * The module takes FFmpeg's own structures (DnnContext, AVFrame...) as they
 * are: it must come from the very build of the libavfilter that loads it,
 * which both sides check with TH_MODULE_BUILD.
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_MODULE_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_MODULE_H

#include "config.h"
#include "libavutil/ffversion.h"
#include "libavfilter/dnn_interface.h"

/** The one symbol the module exports (dnn/torch_module.ver). */
#define TH_MODULE_ENTRY "ff_dnn_torch_module"

/** What identifies a build: its version and configuration. */
#define TH_MODULE_BUILD FFMPEG_VERSION " " FFMPEG_CONFIGURATION

/**
 * The module's backend, if build is the TH_MODULE_BUILD it was built with;
 * else NULL.
 */
typedef const DNNModule *THModuleEntry(const char *build);

const DNNModule *ff_dnn_torch_module(const char *build);

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_MODULE_H */
