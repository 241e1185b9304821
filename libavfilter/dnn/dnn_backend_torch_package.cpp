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

#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/version.h>

#include "dnn_backend_torch_package.h"

extern "C" {
#include "config.h"
#include "libavutil/avstring.h"
#include "libavutil/mem.h"
#include "libavutil/sha.h"
}
#if CONFIG_LIBTORCH_CUDA
#include <ATen/cuda/CUDAContextLight.h>
#endif

#include "dnn_backend_torch_error.h"
#include "dnn_backend_torch_precision.h"

/** One side of the input's size: [min, max]; equal for a static size. */
struct THPackageRange {
    int64_t min, max;
};

class THPackage {
public:
    std::string path;
    std::string device_key;             ///< AOTI_DEVICE_KEY: "cpu", "cuda"
    std::string cpu_isa;                ///< AOTI_CPU_ISA: "AVX512 AVX512_VNNI", ...
    std::string cpu_features;           ///< what -march=native enabled: "avx2 fma f16c", ...
    std::string cuda_capability;        ///< of the GPU it was compiled on: "9.0"
    int precision;                      ///< enum THPrecision of its input
    c10::MemoryFormat memory_format;
    int64_t channels;
    THPackageRange height, width;
    std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader;
};

/** Whether the file is a zip archive holding AOTInductor's compiled model. */
static bool is_package_file(const char *filename)
{
    try {
        caffe2::serialize::PyTorchStreamReader reader(filename);
        for (const std::string &name : reader.getAllRecords())
            if (name.rfind("data/aotinductor/", 0) == 0)
                return true;
    } catch (const std::exception &) {
        // not a PyTorch archive: TorchScript's loader says what it is
    }
    return false;
}

static int parse_precision(const std::string &name)
{
    for (int p = TH_PRECISION_FP32; p <= TH_PRECISION_BF16; p++)
        if (name == th_precision_name(p))
            return p;
    return -1;
}

/** "N" (static) or "MIN-MAX", positive. */
static bool parse_range(const std::string &text, THPackageRange *range)
{
    char *end;
    long long min = strtoll(text.c_str(), &end, 10), max = min;

    if (*end == '-')
        max = strtoll(end + 1, &end, 10);
    if (end == text.c_str() || *end || min < 1 || max < min)
        return false;
    range->min = min;
    range->max = max;
    return true;
}

static std::string range_text(const THPackageRange &r)
{
    return r.min == r.max ? std::to_string(r.min)
                          : std::to_string(r.min) + "-" + std::to_string(r.max);
}

/** LibTorch's version without its build's suffix ("2.11.0+cu130" -> "2.11.0"). */
static std::string base_version(const std::string &version)
{
    return version.substr(0, version.find('+'));
}

/** Read the ffmpeg_dnn_* metadata of tools/dnn-torch-export.py into p. */
static int read_description(THPackage *p, const std::unordered_map<std::string, std::string> &meta,
                            DnnContext *ctx)
{
    auto value = [&](const char *key) {
        auto it = meta.find(key);
        return it == meta.end() ? std::string() : it->second;
    };
    const std::string torch_version = base_version(value("ffmpeg_dnn_torch"));
    const std::string format = value("ffmpeg_dnn_memory_format");
    const char *bad = NULL;

    if (value("ffmpeg_dnn_version") != "1") {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package \"%s\" does not say what input it takes "
               "(no ffmpeg_dnn_* metadata): its compiled code would read frames of another "
               "size or type out of bounds, so it is not run. Make it with "
               "tools/dnn-torch-export.py\n", p->path.c_str());
        return AVERROR(EINVAL);
    }
    if (torch_version != base_version(TORCH_VERSION)) {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package \"%s\" was made by torch %s, but this "
               "LibTorch is %s: export it again with torch %s\n", p->path.c_str(),
               torch_version.c_str(), TORCH_VERSION, TORCH_VERSION);
        return AVERROR(EINVAL);
    }
    p->device_key = value("AOTI_DEVICE_KEY");
    p->cpu_isa    = value("AOTI_CPU_ISA");
    p->cpu_features = value("ffmpeg_dnn_cpu_features");
    p->cuda_capability = value("ffmpeg_dnn_cuda_capability");
    p->precision  = parse_precision(value("ffmpeg_dnn_dtype"));
    p->channels   = strtoll(value("ffmpeg_dnn_channels").c_str(), NULL, 10);
    if (p->precision < 0)
        bad = "ffmpeg_dnn_dtype";
    else if (format != "contiguous" && format != "channels_last")
        bad = "ffmpeg_dnn_memory_format";
    else if (p->channels < 1)
        bad = "ffmpeg_dnn_channels";
    else if (!parse_range(value("ffmpeg_dnn_height"), &p->height))
        bad = "ffmpeg_dnn_height";
    else if (!parse_range(value("ffmpeg_dnn_width"), &p->width))
        bad = "ffmpeg_dnn_width";
    if (bad) {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package \"%s\" has an invalid %s: \"%s\"\n",
               p->path.c_str(), bad, value(bad).c_str());
        return AVERROR_INVALIDDATA;
    }
    p->memory_format = format == "channels_last" ? c10::MemoryFormat::ChannelsLast
                                                 : c10::MemoryFormat::Contiguous;
    av_log(ctx, AV_LOG_VERBOSE, "A .pt2 package for %s: %s %s input of %" PRId64 " channels, "
           "height %s, width %s\n", p->device_key.c_str(), th_precision_name(p->precision),
           format.c_str(), p->channels, range_text(p->height).c_str(),
           range_text(p->width).c_str());
    return 0;
}

/** Whether the file's name says it is a .pt2 package. */
static bool named_pt2(const char *filename)
{
    size_t len = strlen(filename);
    return len >= 4 && !av_strcasecmp(filename + len - 4, ".pt2");
}

static int open_package(THPackage **package, DnnContext *ctx)
{
    const char *filename = ctx->model_filename;
    std::unique_ptr<THPackage> p;
    int ret;

    if (!is_package_file(filename)) {
        if (ctx->torch_option.model_format != TH_MODEL_FORMAT_PT2)
            return 0;
        av_log(ctx, AV_LOG_ERROR, "\"%s\" is not a .pt2 package (torch.export + AOTInductor), "
               "but model_format=pt2\n", filename);
        return AVERROR_INVALIDDATA;
    }
    // native code: loaded only where the user asked for a package
    if (ctx->torch_option.model_format != TH_MODEL_FORMAT_PT2 && !named_pt2(filename)) {
        av_log(ctx, AV_LOG_ERROR, "\"%s\" is a .pt2 package, native code that would run in "
               "this process: it is loaded only when named *.pt2 or with model_format=pt2\n",
               filename);
        return AVERROR(EINVAL);
    }
    p.reset(new THPackage);
    p->path = filename;
    ret = read_description(p.get(),
                           torch::inductor::AOTIModelPackageLoader::load_metadata_from_package(
                               filename, "model"), ctx);
    if (ret < 0)
        return ret;
    *package = p.release();
    return 0;
}

/** The SHA-256 of a file as 64 lowercase hexadecimal digits; 0 or an AVERROR. */
static int file_sha256(const char *filename, char hex[65], void *log_ctx)
{
    std::unique_ptr<AVSHA, decltype(&av_free)> sha(av_sha_alloc(), &av_free);
    std::ifstream file(filename, std::ios::binary);
    uint8_t digest[32];
    char buf[65536];

    if (!sha)
        return AVERROR(ENOMEM);
    if (!file) {
        av_log(log_ctx, AV_LOG_ERROR, "Could not read the model file \"%s\"\n", filename);
        return AVERROR(ENOENT);
    }
    av_sha_init(sha.get(), 256);
    while (file.read(buf, sizeof(buf)) || file.gcount() > 0)
        av_sha_update(sha.get(), (const uint8_t *)buf, file.gcount());
    if (file.bad()) {
        av_log(log_ctx, AV_LOG_ERROR, "Could not read the model file \"%s\"\n", filename);
        return AVERROR(EIO);
    }
    av_sha_final(sha.get(), digest);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    return 0;
}

int th_model_check_sha256(DnnContext *ctx) noexcept
{
    const char *want = ctx->torch_option.model_sha256;
    char have[65];
    int ret;

    if (!want)
        return 0;
    if (strlen(want) != 64 || strspn(want, "0123456789abcdefABCDEF") != 64) {
        av_log(ctx, AV_LOG_ERROR, "model_sha256 must be 64 hexadecimal digits, not \"%s\"\n",
               want);
        return AVERROR(EINVAL);
    }
    ret = th_catch_all(ctx, "Could not hash the model file", [&] {
        return file_sha256(ctx->model_filename, have, ctx);
    });
    if (ret < 0)
        return ret;
    if (av_strcasecmp(want, have)) {
        av_log(ctx, AV_LOG_ERROR, "The model file \"%s\" has the SHA-256 %s, not %s "
               "(model_sha256): it is not loaded\n", ctx->model_filename, have, want);
        return AVERROR(EINVAL);
    }
    av_log(ctx, AV_LOG_VERBOSE, "The model file's SHA-256 is model_sha256's\n");
    return 0;
}

int th_package_open(THPackage **package, DnnContext *ctx) noexcept
{
    *package = NULL;
    return th_catch_all(ctx, "Could not read the .pt2 package", [&] {
        if (ctx->torch_option.model_format != TH_MODEL_FORMAT_TORCHSCRIPT)
            return open_package(package, ctx);
        // TorchScript's loader would call a package a corrupted checkpoint
        if (is_package_file(ctx->model_filename)) {
            av_log(ctx, AV_LOG_ERROR, "\"%s\" is a .pt2 package (torch.export + AOTInductor), "
                   "not TorchScript: set model_format=pt2 (or auto)\n", ctx->model_filename);
            return AVERROR(EINVAL);
        }
        return 0;
    });
}

/** The words of text, separated by blanks. */
static std::set<std::string> words(const std::string &text)
{
    std::istringstream in(text);
    std::set<std::string> set;
    std::string word;

    while (in >> word)
        set.insert(word);
    return set;
}

/**
 * The instruction sets a CPU package's code needs, named as Linux's
 * /proc/cpuinfo names them: those of its vector ISA (AOTI_CPU_ISA, the
 * flags AOTInductor compiles with) and those -march=native enabled on the
 * machine that compiled it (ffmpeg_dnn_cpu_features, written by
 * tools/dnn-torch-export.py), any of which the compiler may have used.
 */
static std::set<std::string> cpu_needs(const THPackage *p)
{
    static const std::unordered_map<std::string, const char *> isa_flags = {
        { "AVX2",        "avx2 fma f16c" },
        { "AVX512",      "avx512f avx512dq avx512vl avx512bw fma" },
        { "AVX512_VNNI", "avx512_vnni" },
        { "AMX_TILE",    "amx_tile amx_bf16 amx_int8" },
    };
    std::set<std::string> needs = words(p->cpu_features);

    for (const std::string &isa : words(p->cpu_isa)) {
        auto it = isa_flags.find(isa);
        for (const std::string &flag : words(it == isa_flags.end() ? isa : it->second))
            needs.insert(flag);
    }
    return needs;
}

/**
 * What of needs this CPU lacks, as "a, b", by the flags of /proc/cpuinfo
 * (it would die of SIGILL on the first such instruction).  Empty where
 * there is no /proc/cpuinfo to tell (the package then runs as it is).
 */
static std::string cpu_lacks(const std::set<std::string> &needs)
{
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line, lacks;

    while (std::getline(cpuinfo, line)) {
        if (line.rfind("flags", 0) != 0 || line.find(':') == std::string::npos)
            continue;
        const std::set<std::string> has = words(line.substr(line.find(':') + 1));
        for (const std::string &flag : needs)
            if (!has.count(flag))
                lacks += (lacks.empty() ? "" : ", ") + flag;
        break;
    }
    return lacks;
}

/** "cpu" or "cuda", as AOTI_DEVICE_KEY names them. */
static std::string device_key(const c10::Device &device)
{
    return c10::DeviceTypeName(device.type(), /* lower_case */ true);
}

/** Whether the package was compiled for the device where the model runs; logs why not. */
static int check_device(const THPackage *p, const c10::Device &device, int cuda_frames,
                        DnnContext *ctx)
{
    const char *compiled_for = p->device_key.empty() ? "an unknown device" : p->device_key.c_str();

    if (p->device_key == device_key(device))
        return 0;
    if (cuda_frames)
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package was compiled for %s, but the frames are "
               "in CUDA memory: export it with --device cuda, or download the frames "
               "(hwdownload)\n", compiled_for);
    else if (p->device_key == "cuda")
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package was compiled for cuda, but device=%s: "
               "use device=cuda or CUDA frames, or export it with --device %s\n",
               ctx->device ? ctx->device : "cpu", device_key(device).c_str());
    else
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package was compiled for %s, but device=%s: "
               "use device=%s, or export it with --device %s\n", compiled_for,
               ctx->device ? ctx->device : "cpu", compiled_for, device_key(device).c_str());
    return AVERROR(EINVAL);
}

/**
 * Whether the machine runs the package's code: CPU instruction sets (it
 * would die of SIGILL otherwise), or the GPU's architecture (its kernels are
 * compiled for the GPU it was made on).
 */
static int check_machine(const THPackage *p, const c10::Device &device, DnnContext *ctx)
{
    if (device.is_cpu()) {
        const std::string lacks = cpu_lacks(cpu_needs(p));
        if (!lacks.empty()) {
            av_log(ctx, AV_LOG_ERROR, "The .pt2 package holds code that uses instructions "
                   "this CPU lacks (%s): export it on this kind of machine\n", lacks.c_str());
            return AVERROR(ENOSYS);
        }
    }
#if CONFIG_LIBTORCH_CUDA
    if (device.is_cuda() && !p->cuda_capability.empty()) {
        int index = device.has_index() ? device.index() : at::cuda::current_device();
        const cudaDeviceProp *gpu = at::cuda::getDeviceProperties(index);
        std::string capability = std::to_string(gpu->major) + "." + std::to_string(gpu->minor);

        if (capability != p->cuda_capability) {
            av_log(ctx, AV_LOG_ERROR, "The .pt2 package holds kernels for GPUs of compute "
                   "capability %s; GPU %d (%s) is %s: export it on a GPU of this kind\n",
                   p->cuda_capability.c_str(), index, gpu->name, capability.c_str());
            return AVERROR(ENOSYS);
        }
    }
#endif
    return 0;
}

/** The package's precision and memory format are those of the input; logs why not. */
static int check_input_format(const THPackage *p, DnnContext *ctx)
{
    int channels_last = p->memory_format == c10::MemoryFormat::ChannelsLast;

    if (p->precision != ctx->torch_option.precision) {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package computes in %s, but precision=%s: set "
               "precision=%s\n", th_precision_name(p->precision),
               th_precision_name(ctx->torch_option.precision), th_precision_name(p->precision));
        return AVERROR(EINVAL);
    }
    if (ctx->torch_option.channels_last >= 0 && ctx->torch_option.channels_last != channels_last) {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package takes %s input, but channels_last=%d: "
               "leave channels_last unset, the package decides\n",
               channels_last ? "channels-last" : "NCHW", ctx->torch_option.channels_last);
        return AVERROR(EINVAL);
    }
    // auto: the input is made in the package's format (th_precision_memory_format)
    ctx->torch_option.channels_last = channels_last;
    return 0;
}

static int load_package(THPackage *p, const c10::Device &device, DnnContext *ctx)
{
    c10::DeviceIndex index = device.is_cuda() && device.has_index() ? device.index() : -1;

    p->loader.reset(new torch::inductor::AOTIModelPackageLoader(p->path, "model", false, 1, index));
    av_log(ctx, AV_LOG_VERBOSE, "The .pt2 package runs on %s\n", device.str().c_str());
    return 0;
}

static int place_package(THPackage *p, const c10::Device &device, int cuda_frames,
                         DnnContext *ctx)
{
    int ret;

    if ((ret = check_device(p, device, cuda_frames, ctx)) < 0 ||
        (ret = check_machine(p, device, ctx)) < 0 ||
        (ret = check_input_format(p, ctx)) < 0)
        return ret;
    return load_package(p, device, ctx);
}

int th_package_place(THPackage *package, const c10::Device &device, int cuda_frames,
                     DnnContext *ctx) noexcept
{
    return th_catch_all(ctx, "Could not load the .pt2 package's code",
                        [&] { return place_package(package, device, cuda_frames, ctx); });
}

static bool in_range(int64_t v, const THPackageRange &r)
{
    return v >= r.min && v <= r.max;
}

/** Whether input is what the package takes; logs why not. */
static int check_input(const THPackage *p, const torch::Tensor &input, DnnContext *ctx)
{
    // the input is made in the package's dtype and memory format (placement
    // set channels_last), on its device: anything else is our bug
    if (input.dim() != 4 || input.size(0) != 1 || input.scalar_type() != th_precision_dtype(ctx) ||
        device_key(input.device()) != p->device_key || !input.is_contiguous(p->memory_format)) {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package's input is not one %s picture\n",
               th_precision_name(p->precision));
        return AVERROR_BUG;
    }
    if (input.size(1) != p->channels) {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package takes %" PRId64 " channels; the input "
               "has %" PRId64 "\n", p->channels, (int64_t)input.size(1));
        return AVERROR(EINVAL);
    }
    if (!in_range(input.size(2), p->height) || !in_range(input.size(3), p->width)) {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package takes pictures of width %s and height "
               "%s; these are %" PRId64 "x%" PRId64 "%s\n", range_text(p->width).c_str(),
               range_text(p->height).c_str(), (int64_t)input.size(3), (int64_t)input.size(2),
               p->width.min == p->width.max && p->height.min == p->height.max ?
               " (a static package: export one with dynamic height and width)" : "");
        return AVERROR(EINVAL);
    }
    return 0;
}

static int run_package(THPackage *p, const torch::Tensor &input, torch::Tensor *output,
                       DnnContext *ctx)
{
    std::vector<torch::Tensor> outputs;
    int ret = check_input(p, input, ctx);

    if (ret < 0)
        return ret;
    // no stream handle: a CUDA package then runs on LibTorch's current
    // stream, which a THCudaSection has made the frames' one
    outputs = p->loader->run({ input });
    if (outputs.size() != 1) {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package returned %zu tensors, not one\n",
               outputs.size());
        return AVERROR(EINVAL);
    }
    *output = outputs[0];
    return 0;
}

int th_package_run(THPackage *package, const torch::Tensor &input, torch::Tensor *output,
                   DnnContext *ctx) noexcept
{
    return th_catch_all(ctx, "Model inference failed",
                        [&] { return run_package(package, input, output, ctx); });
}

void th_package_free(THPackage **package) noexcept
{
    delete *package; // destructors do not throw: an exception there terminates anyway
    *package = NULL;
}
