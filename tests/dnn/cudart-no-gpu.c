/*
 * Preloaded by a GPU test (tests/fate/dnn-torch-cuda.mak): LibTorch asks the
 * CUDA runtime how many GPUs there are and is told none, while FFmpeg's own
 * CUDA calls go to the driver API and still find them.  That is what a
 * LibTorch built for a newer CUDA than the driver sees.
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

#define CUDA_ERROR_NO_DEVICE 100 /* cudaErrorNoDevice */

int cudaGetDeviceCount(int *count);

int cudaGetDeviceCount(int *count)
{
    *count = 0;
    return CUDA_ERROR_NO_DEVICE;
}
