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
 * The torch backend module's entry (dnn_backend_torch_module.h): the only
 * symbols it exports, so that nothing else of it can clash with the program
 * that loads it.
 */

#include <string.h>

#include "dnn_backend_torch_module.h"

/* The backend, each call guarded (dnn_backend_torch_boundary.cpp) */
extern const DNNModule ff_dnn_backend_torch_guarded;

void ff_dnn_torch_module_identity(char *buf, size_t size)
{
    th_module_identity(buf, size);
}

const DNNModule *ff_dnn_torch_module(const char *identity)
{
    char own[TH_MODULE_IDENTITY_SIZE];

    th_module_identity(own, sizeof(own));
    return strcmp(identity, own) ? NULL : &ff_dnn_backend_torch_guarded;
}
