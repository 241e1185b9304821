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
 * A torch backend module of another revision of the fork, of this version
 * and configuration: the module's own entry (dnn_backend_torch_entry.c),
 * built as a module (dnn/torch_module.ver) with the layout hash of other
 * headers, and no backend behind it (the loader must refuse it before it
 * asks for one).  tests/dnn/torch-module-check.sh puts it beside a copy of
 * ffmpeg.
 */

#define TH_MODULE_LAYOUT "0-0"
#include "libavfilter/dnn/dnn_backend_torch_entry.c"

const DNNModule ff_dnn_backend_torch_guarded = { 0 };
