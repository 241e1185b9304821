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
 * The torch backend as libavfilter sees it: its options, and a DNNModule
 * that loads the backend's module (dnn_backend_torch_module.h) the first
 * time a filter loads a model, then hands every call to it.  The options
 * live here so that -h and option parsing work without LibTorch.
 */

/* dladdr() */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "libavutil/avstring.h"
#include "libavutil/opt.h"
#include "libavutil/thread.h"
#include "dnn_backend_common.h"
#include "dnn_backend_torch_module.h"

#define OFFSET(x) offsetof(THOptions, x)
#define FLAGS AV_OPT_FLAG_FILTERING_PARAM
static const AVOption dnn_th_options[] = {
    { "optimize", "turn on graph executor optimization", OFFSET(optimize), AV_OPT_TYPE_INT, { .i64 = 0 }, 0, 1, FLAGS},
    { "precision", "what the model computes in", OFFSET(precision), AV_OPT_TYPE_INT, { .i64 = TH_PRECISION_FP32 }, 0, TH_PRECISION_BF16, FLAGS, .unit = "precision" },
        { "fp32", "32-bit float", 0, AV_OPT_TYPE_CONST, { .i64 = TH_PRECISION_FP32 }, 0, 0, FLAGS, .unit = "precision" },
        { "fp16", "16-bit float", 0, AV_OPT_TYPE_CONST, { .i64 = TH_PRECISION_FP16 }, 0, 0, FLAGS, .unit = "precision" },
        { "bf16", "bfloat16",     0, AV_OPT_TYPE_CONST, { .i64 = TH_PRECISION_BF16 }, 0, 0, FLAGS, .unit = "precision" },
    { "model_format", "what the model file is", OFFSET(model_format), AV_OPT_TYPE_INT, { .i64 = TH_MODEL_FORMAT_AUTO }, 0, TH_MODEL_FORMAT_PT2, FLAGS, .unit = "model_format" },
        { "auto",        "a .pt2 package if named *.pt2",     0, AV_OPT_TYPE_CONST, { .i64 = TH_MODEL_FORMAT_AUTO },        0, 0, FLAGS, .unit = "model_format" },
        { "torchscript", "TorchScript",                        0, AV_OPT_TYPE_CONST, { .i64 = TH_MODEL_FORMAT_TORCHSCRIPT }, 0, 0, FLAGS, .unit = "model_format" },
        { "pt2",         ".pt2 package (AOTInductor)",         0, AV_OPT_TYPE_CONST, { .i64 = TH_MODEL_FORMAT_PT2 },         0, 0, FLAGS, .unit = "model_format" },
    { "model_sha256", "the model file's SHA-256 (64 hexadecimal digits), checked before it is loaded", OFFSET(model_sha256), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "channels_last", "channels-last memory format (auto: for fp16 and bf16 on a GPU)", OFFSET(channels_last), AV_OPT_TYPE_BOOL, { .i64 = -1 }, -1, 1, FLAGS},
    { "cudnn_benchmark", "turn cuDNN's autotuner on, for the whole process, when the model runs on a GPU", OFFSET(cudnn_benchmark), AV_OPT_TYPE_BOOL, { .i64 = 1 }, 0, 1, FLAGS },
    { "cuda_graph", "capture the model's run on a GPU once and replay it (same work for every frame)", OFFSET(cuda_graph), AV_OPT_TYPE_BOOL, { .i64 = 0 }, 0, 1, FLAGS },
    { NULL }
};

/*
 * Loaded once per process and never unloaded: LibTorch keeps threads and
 * registries of its own that do not survive dlclose().  Every filter that
 * asks after a failure gets the same reason.
 */
static AVOnce module_once = AV_ONCE_INIT;
static const DNNModule *module;
static char module_error[2 * PATH_MAX + 2 * TH_MODULE_IDENTITY_SIZE];

/*
 * The directory of the file that holds libavfilter: libavfilter.so in a
 * shared build, the program in a static one.  The module is built and
 * installed beside it (dnn/torch_module.mak).
 */
static int libavfilter_directory(char *dir, size_t size)
{
    char *slash;

    if (CONFIG_SHARED) {
        Dl_info info;
        if (!dladdr((void *)&module_once, &info) || !info.dli_fname)
            return 0;
        av_strlcpy(dir, info.dli_fname, size);
    } else {
        ssize_t len = readlink("/proc/self/exe", dir, size - 1);
        if (len <= 0)
            return 0;
        dir[len] = 0;
    }
    slash = strrchr(dir, '/');
    if (!slash)
        return 0;
    *slash = 0;
    return 1;
}

/*
 * Global: the code that AOTInductor compiles into a .pt2 package finds
 * LibTorch's functions in the process's global scope, as where LibTorch is
 * linked into the program (a CUDA package crashed otherwise).  The module
 * itself exports its entry alone (dnn/torch_module.ver).
 */
#define MODULE_FLAGS (RTLD_NOW | RTLD_GLOBAL)

/* The module at path, which exists: loaded, or why not. */
static void *open_module(const char *path)
{
    void *handle = dlopen(path, MODULE_FLAGS);

    if (!handle)
        snprintf(module_error, sizeof(module_error),
                 "Could not load the torch backend's module %s: %s", path, dlerror());
    return handle;
}

/*
 * The next field of a th_module_identity() string ("name value; ..."; the
 * last, the configuration, takes the rest): its length, *next past it.
 */
static size_t identity_field(const char *s, const char **next)
{
    const char *end = strncmp(s, "configuration ", 14) ? strstr(s, "; ") : NULL;
    size_t len = end ? end - s : strlen(s);

    *next = end ? end + 2 : s + len;
    return len;
}

/*
 * Why the module of the given identity (NULL: it says none) is not this
 * libavfilter's: the fields that differ, the module's and ours.
 */
static void describe_mismatch(char *buf, size_t size, const char *theirs, const char *ours)
{
    size_t n;

    if (!theirs) {
        const char *config = strstr(ours, "; configuration ");
        int len = config ? (int)(config - ours) : (int)strlen(ours);
        snprintf(buf, size, "it does not say which build it is: a module older than this "
                 "libavfilter, which is %.*s", len, ours);
        return;
    }
    *buf = 0;
    while (*theirs || *ours) {
        const char *t, *o;
        size_t tlen = identity_field(theirs, &t), olen = identity_field(ours, &o);

        if (tlen != olen || memcmp(theirs, ours, tlen)) {
            n = strlen(buf);
            snprintf(buf + n, size - n, "%sits %.*s, this libavfilter's %.*s",
                     *buf ? "; " : "", (int)tlen, theirs, (int)olen, ours);
        }
        theirs = t;
        ours   = o;
    }
}

static void load_module(void)
{
    char dir[PATH_MAX], path[PATH_MAX + sizeof(TORCH_MODULE_NAME) + 1];
    const char *dirs[2] = { NULL, TORCH_MODULE_DIR };
    void *handle = NULL;
    THModuleEntry *entry;
    THModuleIdentity *identity;
    char ours[TH_MODULE_IDENTITY_SIZE], theirs[TH_MODULE_IDENTITY_SIZE];
    char why[2 * TH_MODULE_IDENTITY_SIZE];

    /*
     * Only there: not on the library path (LD_LIBRARY_PATH, the RUNPATH of
     * the file that holds libavfilter, which names LibTorch's directory, or
     * ld.so.conf), where a module of another build may lie.
     */
    if (libavfilter_directory(dir, sizeof(dir))) {
        dirs[0] = dir;
        if (!strcmp(dir, TORCH_MODULE_DIR))
            dirs[1] = NULL;
    }
    for (int i = 0; i < FF_ARRAY_ELEMS(dirs) && !handle && !*module_error; i++) {
        if (!dirs[i])
            continue;
        snprintf(path, sizeof(path), "%s/%s", dirs[i], TORCH_MODULE_NAME);
        if (access(path, F_OK) == 0)
            handle = open_module(path);
    }
    if (!handle && !*module_error)
        snprintf(module_error, sizeof(module_error),
                 "The torch DNN backend is a module of its own, %s, and it is not "
                 "installed: looked in %s%s%s", TORCH_MODULE_NAME,
                 dirs[0] ? dirs[0] : "", dirs[0] && dirs[1] ? ", " : "", dirs[1] ? dirs[1] : "");
    if (!handle)
        return;

    th_module_identity(ours, sizeof(ours));
    entry    = (THModuleEntry *)dlsym(handle, TH_MODULE_ENTRY);
    identity = (THModuleIdentity *)dlsym(handle, TH_MODULE_IDENTITY);
    if (identity)
        identity(theirs, sizeof(theirs));
    module = entry && identity && !strcmp(theirs, ours) ? entry(ours) : NULL;
    if (!module) {
        if (!entry)
            snprintf(why, sizeof(why), "it has no %s", TH_MODULE_ENTRY);
        else
            describe_mismatch(why, sizeof(why), identity ? theirs : NULL, ours);
        if (!*why)
            snprintf(why, sizeof(why), "its entry refuses this libavfilter's identity");
        snprintf(module_error, sizeof(module_error),
                 "The torch backend's module %s comes from another build of FFmpeg: "
                 "it must be the one built with this libavfilter (%s)", path, why);
    }
}

static DNNModel *load_model_th(DnnContext *ctx, DNNFunctionType func_type,
                               AVFilterContext *filter_ctx)
{
    ff_thread_once(&module_once, load_module);
    if (!module) {
        av_log(filter_ctx, AV_LOG_ERROR, "%s\n", module_error);
        return NULL;
    }
    return module->load_model(ctx, func_type, filter_ctx);
}

/* A model exists only once the module is loaded: the calls below have it. */
static int execute_model_th(const DNNModel *model, DNNExecBaseParams *exec_params)
{
    return module->execute_model(model, exec_params);
}

static DNNAsyncStatusType get_result_th(const DNNModel *model, AVFrame **in, AVFrame **out)
{
    return module->get_result(model, in, out);
}

static int flush_th(const DNNModel *model)
{
    return module->flush(model);
}

static void free_model_th(DNNModel **model)
{
    if (module)
        module->free_model(model);
}

const DNNModule ff_dnn_backend_torch = {
    .clazz          = DNN_DEFINE_CLASS(dnn_th),
    .type           = DNN_TH,
    .load_model     = load_model_th,
    .execute_model  = execute_model_th,
    .get_result     = get_result_th,
    .flush          = flush_th,
    .free_model     = free_model_th,
};
