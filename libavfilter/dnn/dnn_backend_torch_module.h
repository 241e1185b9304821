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
 * are: it must come from the very build of the libavfilter that loads it.
 * Both sides say which build they are with th_module_identity(), computed
 * the same way on each side: the version, a hash of the headers that
 * declare what crosses between them (TH_MODULE_LAYOUT, made by
 * dnn/torch_module.mak), the sizes of the structures passed across as this
 * side's compiler lays them out, and the configuration.  The version does
 * not change between revisions of the fork; the hash and the sizes do.
 *
 * The module exports two functions (dnn/torch_module.ver), whose signatures
 * never change, so that a loader and a module of any two revisions can tell
 * each other apart: TH_MODULE_IDENTITY and TH_MODULE_ENTRY.
 */

#ifndef AVFILTER_DNN_DNN_BACKEND_TORCH_MODULE_H
#define AVFILTER_DNN_DNN_BACKEND_TORCH_MODULE_H

#include <stddef.h>
#include <stdio.h>

#include "config.h"
#include "libavutil/ffversion.h"
#include "libavutil/frame.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/dnn_interface.h"
/* TH_MODULE_LAYOUT, generated in the build tree (dnn/torch_module.mak) */
#include "libavfilter/dnn/torch_module_layout.h"

/** The module's entry: THModuleEntry. */
#define TH_MODULE_ENTRY "ff_dnn_torch_module"
/** The module's own identity: THModuleIdentity (none in older modules). */
#define TH_MODULE_IDENTITY "ff_dnn_torch_module_identity"

/** Room for th_module_identity()'s string, its terminating 0 included. */
#define TH_MODULE_IDENTITY_SIZE (sizeof(FFMPEG_VERSION) + sizeof(TH_MODULE_LAYOUT) + \
                                 sizeof(FFMPEG_CONFIGURATION) + 256)

/**
 * Write this side's identity into buf: "version V; layout L; sizes S;
 * configuration C", fields in this order, the configuration last (the
 * loader names the fields that differ).
 */
static inline void th_module_identity(char *buf, size_t size)
{
    snprintf(buf, size, "version %s; layout %s; sizes %zu %zu %zu %zu %zu %zu %zu %zu; configuration %s",
             FFMPEG_VERSION, TH_MODULE_LAYOUT,
             sizeof(DnnContext), sizeof(DNNModule), sizeof(DNNModel), sizeof(THOptions),
             sizeof(DNNExecBaseParams), sizeof(DNNData), sizeof(AVFrame), sizeof(AVFilterContext),
             FFMPEG_CONFIGURATION);
}

/**
 * The module's backend, if identity is the module's own th_module_identity();
 * else NULL.  (Modules older than the identity took their version and
 * configuration string: they refuse any identity.)
 */
typedef const DNNModule *THModuleEntry(const char *identity);

/** Write the module's th_module_identity() into buf. */
typedef void THModuleIdentity(char *buf, size_t size);

const DNNModule *ff_dnn_torch_module(const char *identity);
void ff_dnn_torch_module_identity(char *buf, size_t size);

#endif /* AVFILTER_DNN_DNN_BACKEND_TORCH_MODULE_H */
