/*
 * Copyright (c) 2026 the FFmpeg DNN CUDA fork developers
 *
 * Preloaded by a test (tests/fate/dnn-torch.mak): the threads that the
 * filter graph's thread starts for libavfilter's code (with -filter_threads
 * 1 only the async inferences of the DNN filters) cannot be created, as
 * when a process runs out of threads.  Threads of LibTorch (whose start
 * routines are in its libraries) and the other ffmpeg threads start as
 * usual.
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

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/auxv.h>

typedef int (*CreateFunc)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/**
 * Whether func is libavfilter's code: in libavfilter.so (a shared build:
 * where avfilter_version() is), else in the program itself (a static build,
 * whose symbols are not exported: the object of its program headers), or
 * in the torch backend's module, libavfilter-torch.so.
 */
static int in_libavfilter(void *func)
{
    void *avfilter = dlsym(RTLD_DEFAULT, "avfilter_version");
    Dl_info lib, code;
    const char *slash;

    if (!avfilter)
        avfilter = (void *)getauxval(AT_PHDR);
    if (!dladdr(avfilter, &lib) || !dladdr(func, &code))
        return 0;
    slash = code.dli_fname ? strrchr(code.dli_fname, '/') : NULL;
    if (slash && !strncmp(slash + 1, "libavfilter-torch.", 18))
        return 1;
    return lib.dli_fbase == code.dli_fbase;
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                   void *(*start)(void *), void *arg)
{
    CreateFunc create = (CreateFunc)dlsym(RTLD_NEXT, "pthread_create");
    char name[16] = "";

    // fftools names a simple video graph's thread "vf" + the output's name
    pthread_getname_np(pthread_self(), name, sizeof(name));
    if (!strncmp(name, "vf", 2) && in_libavfilter((void *)start))
        return EAGAIN;
    return create(thread, attr, start, arg);
}
