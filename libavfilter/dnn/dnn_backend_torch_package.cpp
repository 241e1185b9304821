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
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>
#include <torch/version.h>

#include "dnn_backend_torch_package.h"

extern "C" {
#include "config.h"
#include "libavutil/avstring.h"
}
#if CONFIG_LIBTORCH_CUDA
#include <ATen/cuda/CUDAContextLight.h>
#endif

#include "dnn_backend_torch_aoti.h"
#include "dnn_backend_torch_error.h"
#include "dnn_backend_torch_precision.h"

/**
 * What a model's forward takes, as the filter gives it: a layout of frames
 * and their count.  One frame is DNN_FRAMES_STACKED with 1.
 */
struct THInputs {
    int layout;                         ///< enum DNNFramesLayout
    int frames;

    bool operator==(const THInputs &o) const { return layout == o.layout && frames == o.frames; }
    bool operator!=(const THInputs &o) const { return !(*this == o); }
};

/*
 * The words of ffmpeg_dnn_inputs, which tools/dnn-torch-export.py writes
 * (its --inputs takes the same words, "stacked:N") and
 * tools/bench/dnn-torch-bare.cpp reads; tests/dnn/check-signatures.py
 * checks that the three agree.  A counted word is followed by its frames:
 * "stacked 5".
 */
static const struct THInputsWord {
    const char *word;
    int layout;                         ///< enum DNNFramesLayout
    int frames;                         ///< 0: counted
} th_inputs_words[] = {
    { "frame",     DNN_FRAMES_STACKED,   1 },
    { "pair",      DNN_FRAMES_PAIR,      2 },
    { "recurrent", DNN_FRAMES_RECURRENT, 1 },
    { "stacked",   DNN_FRAMES_STACKED,   0 },
    { "sequence",  DNN_FRAMES_SEQUENCE,  0 },
};

/** ffmpeg_dnn_inputs as THInputs; false if it is none of the words. */
static bool parse_inputs(const std::string &text, THInputs *inputs)
{
    for (const THInputsWord &w : th_inputs_words) {
        const std::string word = w.word;
        if (w.frames) {
            if (text != word)
                continue;
            *inputs = { w.layout, w.frames };
            return true;
        }
        if (text.compare(0, word.size() + 1, word + " ") != 0)
            continue;
        for (int n = 1; n <= DNN_FRAMES_MAX; n++) {
            if (text.substr(word.size() + 1) != std::to_string(n))
                continue;
            *inputs = { w.layout, n };
            // one frame is "frame", as the export tool writes stacked:1
            return !(w.layout == DNN_FRAMES_STACKED && n == 1);
        }
    }
    return false;
}

/** inputs as the export tool's --inputs says it: "pair", "stacked:5". */
static std::string inputs_option(const THInputs &inputs)
{
    for (const THInputsWord &w : th_inputs_words) {
        if (w.layout != inputs.layout || (w.frames && w.frames != inputs.frames))
            continue;
        return w.frames ? w.word : std::string(w.word) + ":" + std::to_string(inputs.frames);
    }
    return "?";
}

/** One side of the input's size: [min, max]; equal for a static size. */
struct THPackageRange {
    int64_t min, max;
};

class THPackage {
public:
    std::string path;                   ///< the model option's, for messages
    std::string load_path;              ///< what the loaders read (THModelFile)
    std::string device_key;             ///< AOTI_DEVICE_KEY: "cpu", "cuda"
    std::string cpu_isa;                ///< AOTI_CPU_ISA: "AVX512 AVX512_VNNI", ...
    std::string cpu_features;           ///< what -march=native enabled: "avx2 fma f16c", ...
    std::string cuda_capability;        ///< of the GPU it was compiled on: "9.0"
    int precision;                      ///< enum THPrecision of its input
    c10::MemoryFormat memory_format;
    int64_t channels;                   ///< of one frame
    THPackageRange height, width;
    THInputs inputs;                    ///< what forward takes (ffmpeg_dnn_inputs)
    std::string t;                      ///< a pair's t: "0-d" or "plane"
    int64_t batch;                      ///< a pair: > 1, the most times of one run (t [N, 1, 1, 1])
    std::string sigma;                  ///< after the frames: "none", "0-d" or "plane"
    std::unique_ptr<THAotiProgram> loader;
    /** a recurrent package's program of the first frame (no state yet) */
    std::unique_ptr<THAotiProgram> start;
};

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
    // packages of one frame made before these keys said nothing of them
    p->t          = meta.count("ffmpeg_dnn_t") ? value("ffmpeg_dnn_t") : "0-d";
    p->batch      = meta.count("ffmpeg_dnn_batch") ? strtoll(value("ffmpeg_dnn_batch").c_str(), NULL, 10) : 1;
    p->sigma      = meta.count("ffmpeg_dnn_sigma") ? value("ffmpeg_dnn_sigma") : "none";
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
    else if (!parse_inputs(meta.count("ffmpeg_dnn_inputs") ? value("ffmpeg_dnn_inputs") : "frame",
                           &p->inputs))
        bad = "ffmpeg_dnn_inputs";
    else if (p->t != "0-d" && p->t != "plane")
        bad = "ffmpeg_dnn_t";
    else if (p->batch < 1 || p->batch > DNN_TIMES_MAX || (p->batch > 1 && p->inputs.layout != DNN_FRAMES_PAIR))
        bad = "ffmpeg_dnn_batch";
    else if (p->sigma != "none" && p->sigma != "0-d" && p->sigma != "plane")
        bad = "ffmpeg_dnn_sigma";
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

/**
 * A recurrent package's "start" program (its first frame's) must be there
 * and say what "model" says: both are compiled by one export, for one
 * machine, and the backend checks the package by model's metadata.
 */
static int check_start_program(const THPackage *p,
                               const std::unordered_map<std::string, std::string> &model,
                               DnnContext *ctx)
{
    std::unordered_map<std::string, std::string> start;
    int ret = th_aoti_read_metadata(p->load_path, p->path, "start", &start, ctx);

    if (ret < 0 && ret != AVERROR(ENOENT))
        return ret;
    if (ret < 0) {
        av_log(ctx, AV_LOG_ERROR, "The recurrent .pt2 package \"%s\" has no program for its "
               "first frame (\"start\"): export it again with tools/dnn-torch-export.py "
               "--inputs recurrent\n", p->path.c_str());
        return AVERROR_INVALIDDATA;
    }
    if (start != model) {
        av_log(ctx, AV_LOG_ERROR, "The recurrent .pt2 package \"%s\" has programs of another "
               "description (metadata) each: it is not one export's\n", p->path.c_str());
        return AVERROR_INVALIDDATA;
    }
    return 0;
}

static int open_package(THPackage **package, const THModelFile &file, DnnContext *ctx)
{
    const char *filename = ctx->model_filename;
    std::unordered_map<std::string, std::string> metadata;
    std::unique_ptr<THPackage> p;
    int ret;

    if (!th_archive_is_package(file.path.c_str())) {
        // auto reads the name as the user's word: a *.pt2 is a package
        if (ctx->torch_option.model_format == TH_MODEL_FORMAT_AUTO && named_pt2(filename)) {
            av_log(ctx, AV_LOG_ERROR, "\"%s\" is named *.pt2 but is not a .pt2 package "
                   "(torch.export + AOTInductor): rename it, or set model_format=torchscript "
                   "for a TorchScript file\n", filename);
            return AVERROR_INVALIDDATA;
        }
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
    p->load_path = file.path;
    ret = th_aoti_read_metadata(p->load_path, p->path, "model", &metadata, ctx);
    if (ret == AVERROR(ENOENT))
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package \"%s\" has no program \"model\": it is "
               "not one the export tool made\n", filename);
    if (ret >= 0)
        ret = read_description(p.get(), metadata, ctx);
    if (ret >= 0 && p->inputs.layout == DNN_FRAMES_RECURRENT)
        ret = check_start_program(p.get(), metadata, ctx);
    if (ret < 0)
        return ret;
    *package = p.release();
    return 0;
}

int th_package_open(THPackage **package, const THModelFile &file, DnnContext *ctx) noexcept
{
    *package = NULL;
    return th_catch_all(ctx, "Could not read the .pt2 package", [&] {
        int ret = th_archive_check(file.path.c_str(), ctx->model_filename, ctx);
        if (ret < 0)
            return ret;
        if (ctx->torch_option.model_format != TH_MODEL_FORMAT_TORCHSCRIPT)
            return open_package(package, file, ctx);
        // TorchScript's loader would call a package a corrupted checkpoint
        if (th_archive_is_package(file.path.c_str())) {
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
        if (isa == "INVALID_VEC_ISA")
            continue; // AOTInductor's name for none: scalar code (cpp.simdlen 1, --no-simd)
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
    c10::Device on = device.is_cuda() ? device : c10::Device(c10::kCPU);
    int ret = th_aoti_load(&p->loader, p->load_path, p->path, "model", on, ctx);

    if (ret >= 0 && p->inputs.layout == DNN_FRAMES_RECURRENT)
        ret = th_aoti_load(&p->start, p->load_path, p->path, "start", on, ctx);
    if (ret < 0)
        return ret;
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
/**
 * One frame input: 1 x channels x H x W in format (a frame, or a window's
 * frames stacked; a sequence flattened to that).
 */
static int check_input(const THPackage *p, const torch::Tensor &input, int64_t channels,
                       c10::MemoryFormat format, DnnContext *ctx)
{
    // the input is made in the package's dtype and memory format (placement
    // set channels_last), on its device: anything else is our bug; a
    // batched pair's frames come once for each of up to batch times
    if (input.dim() != 4 || input.size(0) < 1 || input.size(0) > p->batch ||
        input.scalar_type() != th_precision_dtype(ctx) ||
        device_key(input.device()) != p->device_key || !input.is_contiguous(format)) {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package's input is not one %s picture\n",
               th_precision_name(p->precision));
        return AVERROR_BUG;
    }
    if (input.size(1) != channels) {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package takes %" PRId64 " channels; the input "
               "has %" PRId64 "\n", channels, (int64_t)input.size(1));
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

/**
 * The frame inputs of inputs as the package's ffmpeg_dnn_inputs says: one
 * frame, two (a pair), N stacked on the channels or a contiguous sequence.
 * What follows them (t, sigma) the backend made to the package's metadata.
 */
static int check_inputs(const THPackage *p, const std::vector<torch::Tensor> &inputs,
                        DnnContext *ctx)
{
    int frames = p->inputs.frames, ret;

    if (p->inputs.layout == DNN_FRAMES_SEQUENCE) {
        const torch::Tensor &window = inputs[0];
        if (window.dim() != 5 || window.size(1) != frames) {
            av_log(ctx, AV_LOG_ERROR, "The .pt2 package takes a sequence of %d frames\n", frames);
            return AVERROR(EINVAL);
        }
        return check_input(p, window.flatten(1, 2), frames * p->channels,
                           c10::MemoryFormat::Contiguous, ctx);
    }
    if (p->inputs.layout == DNN_FRAMES_PAIR) {
        if (inputs.size() < 2)
            return AVERROR_BUG;
        ret = check_input(p, inputs[1], p->channels, p->memory_format, ctx);
        if (ret < 0)
            return ret;
        frames = 1;
    }
    return check_input(p, inputs[0], frames * p->channels, p->memory_format, ctx);
}

/** Run loader on inputs, which must give nb_outputs tensors. */
static int run_package(THPackage *p, THAotiProgram *loader,
                       const std::vector<torch::Tensor> &inputs, size_t nb_outputs,
                       std::vector<torch::Tensor> *outputs, DnnContext *ctx)
{
    int ret = check_inputs(p, inputs, ctx);

    if (ret < 0)
        return ret;
    // no stream handle: a CUDA package then runs on LibTorch's current
    // stream, which a THCudaSection has made the frames' one
    *outputs = loader->run(inputs);
    if (outputs->size() != nb_outputs) {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package returned %zu tensors, not %s\n",
               outputs->size(), nb_outputs == 1 ? "one" : "two (frame, state)");
        return AVERROR(EINVAL);
    }
    return 0;
}

static int run_one_output(THPackage *p, const std::vector<torch::Tensor> &inputs,
                          torch::Tensor *output, DnnContext *ctx)
{
    std::vector<torch::Tensor> outputs;
    int ret = run_package(p, p->loader.get(), inputs, 1, &outputs, ctx);

    if (ret >= 0)
        *output = outputs[0];
    return ret;
}

int th_package_run(THPackage *package, const torch::Tensor &input, torch::Tensor *output,
                   DnnContext *ctx) noexcept
{
    return th_package_run_inputs(package, { input }, output, ctx);
}

int th_package_run_inputs(THPackage *package, const std::vector<torch::Tensor> &inputs,
                          torch::Tensor *output, DnnContext *ctx) noexcept
{
    return th_catch_all(ctx, "Model inference failed",
                        [&] { return run_one_output(package, inputs, output, ctx); });
}

static bool same_layout(const torch::Tensor &a, const torch::Tensor &b)
{
    return a.sizes() == b.sizes() && a.strides() == b.strides() &&
           a.scalar_type() == b.scalar_type() && a.device() == b.device();
}

static int run_recurrent(THPackage *p, const std::vector<torch::Tensor> &inputs,
                         torch::Tensor *output, torch::Tensor *state, DnnContext *ctx)
{
    std::vector<torch::Tensor> given, outputs;
    int ret;

    if (p->inputs.layout != DNN_FRAMES_RECURRENT || inputs.size() < 2)
        return AVERROR_BUG;
    // no state: the program compiled without one (its input is left out)
    for (size_t i = 0; i < inputs.size(); i++)
        if (i != 1 || inputs[1].defined())
            given.push_back(inputs[i]);
    ret = run_package(p, inputs[1].defined() ? p->loader.get() : p->start.get(), given, 2,
                      &outputs, ctx);
    if (ret < 0)
        return ret;
    // the next run gives this state to the program compiled for the one it
    // took (the export tool checks that the module keeps it so): read out
    // of bounds, not refused, if it did not
    if (inputs[1].defined() && !same_layout(outputs[1], inputs[1])) {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package's state changed from one frame to the "
               "next (sizes %s, then %s): its program takes one\n",
               c10::str(inputs[1].sizes()).c_str(), c10::str(outputs[1].sizes()).c_str());
        return AVERROR(EINVAL);
    }
    *output = outputs[0];
    *state  = outputs[1];
    return 0;
}

int th_package_run_recurrent(THPackage *package, const std::vector<torch::Tensor> &inputs,
                             torch::Tensor *output, torch::Tensor *state,
                             DnnContext *ctx) noexcept
{
    return th_catch_all(ctx, "Model inference failed",
                        [&] { return run_recurrent(package, inputs, output, state, ctx); });
}

/** What the filter gives the model. */
static THInputs given_inputs(DNNFunctionType func_type, const DnnContext *ctx)
{
    if (func_type != DFT_PROCESS_FRAMES)
        return { DNN_FRAMES_STACKED, 1 };
    return { ctx->frames_layout, ctx->nb_frames };
}

static std::string inputs_text(const THInputs &inputs)
{
    switch (inputs.layout) {
    case DNN_FRAMES_PAIR:      return "two frames and t";
    case DNN_FRAMES_RECURRENT: return "one frame and its state";
    case DNN_FRAMES_SEQUENCE:  return std::to_string(inputs.frames) + " frames in a sequence";
    default:
        return inputs.frames == 1 ? "one frame" :
               std::to_string(inputs.frames) + " frames stacked on the channels";
    }
}

static std::string sigma_text(const std::string &sigma)
{
    return sigma == "none" ? "no sigma" : sigma == "plane" ? "sigma as a plane" : "sigma as a 0-D tensor";
}

static int check_signature(const THPackage *p, DNNFunctionType func_type, DnnContext *ctx)
{
    const THInputs given = given_inputs(func_type, ctx);
    const std::string sigma = func_type != DFT_PROCESS_FRAMES || ctx->sigma < 0 ? "none" :
                              ctx->sigma_plane ? "plane" : "0-d";

    if (given != p->inputs) {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package takes %s (tools/dnn-torch-export.py "
               "--inputs %s); the filter gives %s\n", inputs_text(p->inputs).c_str(),
               inputs_option(p->inputs).c_str(), inputs_text(given).c_str());
        return AVERROR(EINVAL);
    }
    if (given.layout == DNN_FRAMES_PAIR && p->t != (ctx->t_plane ? "plane" : "0-d")) {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package takes t as a %s: set t_plane=%d\n",
               p->t == "plane" ? "1x1xHxW plane" : "0-D tensor", p->t == "plane");
        return AVERROR(EINVAL);
    }
    if (given.layout == DNN_FRAMES_PAIR && (p->batch > 1) != (ctx->batch > 1)) {
        if (p->batch > 1)
            av_log(ctx, AV_LOG_ERROR, "The .pt2 package takes a batch of up to %" PRId64 " times "
                   "(tools/dnn-torch-export.py --batch %" PRId64 "): set batch\n", p->batch, p->batch);
        else
            av_log(ctx, AV_LOG_ERROR, "The .pt2 package takes one time a run: batch=%d needs a "
                   "package exported with --batch %d\n", ctx->batch, ctx->batch);
        return AVERROR(EINVAL);
    }
    if (given.layout == DNN_FRAMES_PAIR && ctx->batch > p->batch) {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package takes a batch of up to %" PRId64 " times "
               "(tools/dnn-torch-export.py --batch %" PRId64 "); batch=%d asks for more\n",
               p->batch, p->batch, ctx->batch);
        return AVERROR(EINVAL);
    }
    if (sigma != p->sigma) {
        av_log(ctx, AV_LOG_ERROR, "The .pt2 package takes %s after %s; sigma and "
               "sigma_plane give %s\n", sigma_text(p->sigma).c_str(),
               given.layout == DNN_FRAMES_RECURRENT ? "the frame and its state" : "the frames",
               sigma_text(sigma).c_str());
        return AVERROR(EINVAL);
    }
    return 0;
}

int th_package_check_signature(const THPackage *package, DNNFunctionType func_type,
                               DnnContext *ctx) noexcept
{
    return th_catch_all(ctx, "Could not check the .pt2 package",
                        [&] { return check_signature(package, func_type, ctx); });
}

void th_package_free(THPackage **package) noexcept
{
    delete *package; // destructors do not throw: an exception there terminates anyway
    *package = NULL;
}
