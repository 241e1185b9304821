/*
 * Bare LibTorch throughput: the ceiling for dnn_processing with device=cuda.
 *
 *   dnn-torch-bare MODEL.pt|MODEL.pt2 [WIDTH HEIGHT [SECONDS [PRECISION]]]
 *       (default 1920 1080 3 fp32)
 *
 * Runs MODEL on one preallocated 1xCxHxW input on cuda:0 (C 3, or a package's
 * ffmpeg_dnn_channels), back to back, with no frame conversion or copies, and
 * prints "fps: N" (model runs a second) and "channels: C".  A slow model
 * (a run longer than SECONDS / 20) warms up for SECONDS, 2 runs at least,
 * instead of 20 runs.  Models of several frames take what the filter gives them: a
 * package's signature (ffmpeg_dnn_inputs, _t, _sigma, which
 * tools/dnn-torch-export.py records), or for TorchScript BARE_INPUTS, in
 * the export tool's words: "pair" (two frames and a 0-D t), "pair plane"
 * (t as a plane), "pair batch N" (the pair and N times as a batch, as
 * dnn_interpolate batch=N gives them; a package's ffmpeg_dnn_batch),
 * "stacked N" or "sequence N", followed by "sigma" or
 * "sigma plane" for a noise level after the frames.  PRECISION fp16
 * or bf16 casts the model and input, channels-last (the filter's default for
 * them on a GPU).  A .pt2 package (tools/dnn-torch-export.py --device cuda)
 * runs through LibTorch's AOTIModelPackageLoader, on an input in the
 * package's precision (PRECISION must be it) and memory format.
 * Used by tools/bench/dnn-torch-bench.sh.
 */

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/Context.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/cuda.h>
#include <torch/script.h>

/** What the model takes, as the filter gives it. */
struct Signature {
    std::string layout = "frame"; ///< frame, pair, stacked or sequence
    long frames = 1;
    bool t_plane = false;
    long batch = 0;               ///< a pair: > 0, its times as a batch (t N x 1 x 1 x 1)
    long channels = 3;            ///< of one frame: a package's ffmpeg_dnn_channels
    std::string sigma = "none";   ///< none, plane or 0-d
};

/** "pair", "stacked 5"... with "plane" (t), "batch N" and "sigma [plane]" words after. */
static Signature parse_signature(const std::string &text)
{
    std::istringstream words(text);
    std::string w;
    Signature sig;
    words >> sig.layout;
    if (sig.layout == "stacked" || sig.layout == "sequence")
        words >> sig.frames;
    else if (sig.layout == "pair")
        sig.frames = 2;
    else if (sig.layout != "frame")
        throw std::runtime_error("unknown inputs: " + text);
    while (words >> w) {
        if (w == "plane" && sig.sigma == "none")
            sig.t_plane = true;
        else if (w == "batch" && sig.layout == "pair" && (words >> sig.batch) && sig.batch > 0)
            continue;
        else if (w == "sigma")
            sig.sigma = "0-d";
        else if (w == "plane")
            sig.sigma = "plane";
        else
            throw std::runtime_error("unknown word " + w + " in inputs: " + text);
    }
    return sig;
}

/** Random inputs of the signature: frames of HxW, t = 0.5, sigma = 0.1. */
static std::vector<torch::IValue> make_inputs(const Signature &sig, long h, long w,
                                              const torch::TensorOptions &opt,
                                              c10::MemoryFormat format)
{
    const long c = sig.channels;
    auto frame = [&] { return torch::rand({1, c, h, w}, opt).contiguous(format); };
    auto plane = [&](double v) { return torch::full({1, 1, h, w}, v, opt).contiguous(format); };
    std::vector<torch::IValue> in;

    if (sig.layout == "pair" && sig.batch > 0) {
        // the pair once for each of the times, as dnn_interpolate batch=N gives it
        long n = sig.batch;
        in = { torch::rand({n, c, h, w}, opt).contiguous(format),
               torch::rand({n, c, h, w}, opt).contiguous(format),
               torch::full({n, 1, sig.t_plane ? h : 1, sig.t_plane ? w : 1}, 0.5, opt) };
    } else if (sig.layout == "pair") {
        in = { frame(), frame(), sig.t_plane ? plane(0.5) : torch::full({}, 0.5, opt) };
    } else if (sig.layout == "stacked") {
        in.push_back(torch::rand({1, c * sig.frames, h, w}, opt).contiguous(format));
    } else if (sig.layout == "sequence") {
        in.push_back(torch::rand({1, sig.frames, c, h, w}, opt));
    } else {
        in.push_back(frame());
    }
    if (sig.sigma == "plane")
        in.push_back(plane(0.1));
    else if (sig.sigma == "0-d")
        in.push_back(torch::full({}, 0.1, opt));
    return in;
}

/** One model, TorchScript or .pt2, run on its inputs. */
class BareModel {
public:
    virtual ~BareModel() = default;
    virtual void run(const std::vector<torch::IValue> &inputs) = 0;
};

class TorchScriptModel : public BareModel {
public:
    TorchScriptModel(const char *path, const torch::Device &dev, c10::ScalarType dtype,
                     c10::MemoryFormat format)
        : model(torch::jit::load(path))
    {
        model.to(dev);
        model.to(dtype);
        model.eval();
        for (torch::Tensor param : model.parameters())
            if (param.dim() == 4)
                param.set_data(param.contiguous(format));
    }
    void run(const std::vector<torch::IValue> &inputs) override { model.forward(inputs); }

private:
    torch::jit::Module model;
};

class PackageModel : public BareModel {
public:
    PackageModel(const char *path, const torch::Device &dev)
        : loader(path, "model", false, 1, dev.index()) {}
    /** Its input's memory format, as tools/dnn-torch-export.py recorded it. */
    c10::MemoryFormat memory_format()
    {
        return loader.get_metadata()["ffmpeg_dnn_memory_format"] == "channels_last" ?
               c10::MemoryFormat::ChannelsLast : c10::MemoryFormat::Contiguous;
    }
    std::string precision() { return loader.get_metadata()["ffmpeg_dnn_dtype"]; }
    /** The signature the export tool recorded (none: one frame). */
    Signature signature()
    {
        auto meta = loader.get_metadata();
        std::string text = meta.count("ffmpeg_dnn_inputs") ? meta["ffmpeg_dnn_inputs"] : "frame";
        if (meta["ffmpeg_dnn_t"] == "plane")
            text += " plane";
        if (meta.count("ffmpeg_dnn_batch"))
            text += " batch " + meta["ffmpeg_dnn_batch"];
        if (meta["ffmpeg_dnn_sigma"] == "plane")
            text += " sigma plane";
        else if (meta["ffmpeg_dnn_sigma"] == "0-d")
            text += " sigma";
        Signature sig = parse_signature(text);
        // the filter refuses a package without it: so does the bench
        if (!meta.count("ffmpeg_dnn_channels"))
            throw std::runtime_error("the package has no ffmpeg_dnn_channels: export it again "
                                     "with tools/dnn-torch-export.py");
        sig.channels = std::stol(meta["ffmpeg_dnn_channels"]);
        return sig;
    }
    // on the current stream, as the filter runs it on FFmpeg's
    void run(const std::vector<torch::IValue> &inputs) override
    {
        std::vector<torch::Tensor> tensors;
        for (const auto &v : inputs)
            tensors.push_back(v.toTensor());
        loader.run(tensors);
    }

private:
    torch::inductor::AOTIModelPackageLoader loader;
};

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 4 && argc != 5 && argc != 6) {
        fprintf(stderr, "usage: %s MODEL.pt [WIDTH HEIGHT [SECONDS [fp32|fp16|bf16]]]\n", argv[0]);
        return 1;
    }
    const std::string precision = argc > 5 ? argv[5] : "fp32";
    if (precision != "fp32" && precision != "fp16" && precision != "bf16") {
        fprintf(stderr, "invalid PRECISION %s\n", precision.c_str());
        return 1;
    }
    const c10::ScalarType dtype = precision == "fp16" ? torch::kFloat16 :
                                  precision == "bf16" ? torch::kBFloat16 : torch::kFloat32;
    // BARE_CHANNELS_LAST=0|1: the memory format (default: channels-last for
    // fp16/bf16, as the filter's channels_last=auto on a GPU)
    const char *cl = getenv("BARE_CHANNELS_LAST");
    const bool channels_last = cl ? atoi(cl) != 0 : precision != "fp32";
    const c10::MemoryFormat format = channels_last ? c10::MemoryFormat::ChannelsLast :
                                                     c10::MemoryFormat::Contiguous;
    const long   width   = argc > 2 ? atol(argv[2]) : 1920;
    const long   height  = argc > 3 ? atol(argv[3]) : 1080;
    const double seconds = argc > 4 ? atof(argv[4]) : 3.0;
    if (width <= 0 || height <= 0 || seconds <= 0) {
        fprintf(stderr, "invalid WIDTH, HEIGHT or SECONDS\n");
        return 1;
    }

    if (!torch::cuda::is_available()) {
        fprintf(stderr, "error: CUDA is not available to LibTorch (no GPU, no driver, "
                "or libtorch_cuda not linked)\n");
        return 1;
    }

    try {
        using clock = std::chrono::steady_clock;
        const torch::Device dev(torch::kCUDA, 0);

        const std::string path = argv[1];
        std::unique_ptr<BareModel> model;
        c10::MemoryFormat input_format = format;
        const char *inputs_env = getenv("BARE_INPUTS");
        Signature sig = parse_signature(inputs_env ? inputs_env : "frame");
        if (path.size() > 4 && path.compare(path.size() - 4, 4, ".pt2") == 0) {
            auto package = std::make_unique<PackageModel>(argv[1], dev);
            if (package->precision() != precision) {
                fprintf(stderr, "error: the package computes in %s, not %s\n",
                        package->precision().c_str(), precision.c_str());
                return 1;
            }
            input_format = package->memory_format();
            sig = package->signature();
            model = std::move(package);
        } else {
            model = std::make_unique<TorchScriptModel>(argv[1], dev, dtype, format);
        }
        // as the filter does: let cuDNN pick the fastest algorithm for the fixed size
        at::globalContext().setBenchmarkCuDNN(true);
        // BARE_OPTIMIZE=0: TorchScript without graph optimization, as the filter's default
        if (const char *opt = getenv("BARE_OPTIMIZE"))
            torch::jit::setGraphExecutorOptimize(atoi(opt) != 0);
        c10::InferenceMode guard;

        const std::vector<torch::IValue> input =
            make_inputs(sig, height, width, torch::TensorOptions().device(dev).dtype(dtype),
                        input_format);

        // warm-up: cuDNN autotuning, CUDA context, caching allocator; 20 runs,
        // or as many as SECONDS hold for a slow model (2 at least)
        double run_seconds = 0;
        const auto warm_start = clock::now();
        for (int i = 0; i < 20; i++) {
            const auto run_start = clock::now();
            model->run(input);
            torch::cuda::synchronize();
            run_seconds = std::chrono::duration<double>(clock::now() - run_start).count();
            if (i >= 1 && std::chrono::duration<double>(clock::now() - warm_start).count() >= seconds)
                break;
        }
        // runs between two readings of the clock: 50, fewer for a slow model
        // (at least 5 readings in SECONDS)
        const long chunk = std::max(1L, std::min(50L, (long)(seconds / 5 / std::max(run_seconds, 1e-6))));

        // BARE_CUDA_GRAPH=1: one run captured in a CUDA graph and replayed,
        // as the filter's cuda_graph=1 (capture needs a non-default stream)
        const char *graph_env = getenv("BARE_CUDA_GRAPH");
        at::cuda::CUDAGraph graph;
        const bool use_graph = graph_env && atoi(graph_env) != 0;
        if (use_graph) {
            c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, 0);
            {
                c10::cuda::CUDAStreamGuard on_side(side);
                graph.capture_begin({0, 0}, cudaStreamCaptureModeRelaxed);
                model->run(input);
                graph.capture_end();
            }
            torch::cuda::synchronize();
        }
        auto run = [&] { if (use_graph) graph.replay(); else model->run(input); };

        // kernels are queued asynchronously: synchronize before reading the clock
        long frames = 0;
        double elapsed = 0;
        const auto start = clock::now();
        do {
            for (long i = 0; i < chunk; i++)
                run();
            frames += chunk;
            torch::cuda::synchronize();
            elapsed = std::chrono::duration<double>(clock::now() - start).count();
        } while (elapsed < seconds);
        torch::cuda::synchronize();
        elapsed = std::chrono::duration<double>(clock::now() - start).count();

        printf("fps: %.1f\n", frames / elapsed);
        printf("channels: %ld\n", sig.channels);
    } catch (const c10::Error &e) {
        fprintf(stderr, "error: %s\n", e.what_without_backtrace());
        return 1;
    } catch (const std::exception &e) {
        // TorchScript's own exceptions (a model that raises) are not c10::Error
        fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
    return 0;
}
