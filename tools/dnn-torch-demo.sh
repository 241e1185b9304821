#!/bin/sh
# Demo of dnn_processing with the LibTorch backend:
#
#   tools/dnn-torch-demo.sh BUILDDIR
#
# makes the test models and runs a real file, the committed H.264 + AAC clip
# (tests/dnn/h264-aac.mp4, looped to 10 s), through a small convolutional
# network (CPU, device=cpu); writes a playable MP4 (MPEG-4 video, the AAC
# audio copied) and prints the filter's throughput.  On a machine with
# a CUDA GPU it also runs the GPU pipeline at 1080p (NVDEC -> dnn_processing
# -> NVENC, or hwdownload and a software encoder where there is no NVENC)
# and prints its fps beside that of frames in system memory (device=cuda).
set -eu

build=$(cd "${1:-build}" && pwd)
python=${TORCH_PYTHON:-python3}
src=$(cd "$(dirname "$0")/.." && pwd)
demo=$build/demo
ffmpeg="$build/ffmpeg -hide_banner -nostdin -y -loglevel error"
mkdir -p "$demo"

"$python" "$src/tests/dnn/gen_torch_models.py" "$demo/models"
clip=$src/tests/dnn/h264-aac.mp4

start=$(date +%s.%N)
$ffmpeg -stream_loop 4 -i "$clip" \
    -vf "format=rgb24,dnn_processing=dnn_backend=torch:model=$demo/models/conv.pt,format=yuv420p" \
    -c:v mpeg4 -q:v 3 -c:a copy "$demo/out.mp4"
end=$(date +%s.%N)

count() { "$build/ffmpeg" -v error -i "$demo/out.mp4" -map "0:$1" -c copy -f framecrc - | grep -c "^$2,"; }
frames=$(count v 0) packets=$(count a 1)
awk -v f="$frames" -v s="$start" -v e="$end" \
    'BEGIN { printf "dnn_processing (torch, conv 3->8->3, H.264 320x240, CPU): %d frames in %.2f s = %.1f fps\n", f, e - s, f / (e - s) }'
echo "wrote $demo/out.mp4: MPEG-4 video, $packets AAC packets copied from $clip (play it with ffplay or any player)"

# the GPU pipeline, where there is a GPU this build can use
if ! $ffmpeg -init_hw_device cuda=cu -f lavfi -i testsrc2=s=64x64 -frames:v 1 -f null - 2>/dev/null; then
    echo "no CUDA device: the GPU pipeline is not run"
    exit 0
fi
# timed FPS_LABEL FRAMES ARGS...: run ffmpeg and print its fps
timed() {
    label=$1 frames=$2
    shift 2
    start=$(date +%s.%N)
    $ffmpeg "$@"
    end=$(date +%s.%N)
    awk -v l="$label" -v f="$frames" -v s="$start" -v e="$end" \
        'BEGIN { printf "%s: %d frames in %.2f s = %.1f fps\n", l, f, e - s, f / (e - s) }'
}
$ffmpeg -f lavfi -i "testsrc2=s=1920x1080:r=25:d=10" -c:v mpeg2video -q:v 2 "$demo/clip1080.m2v"
model="dnn_processing=dnn_backend=torch:model=$demo/models/conv.pt:yuv_input=rgb"
nvdec="-hwaccel cuda -hwaccel_output_format cuda -i $demo/clip1080.m2v"
if $ffmpeg -init_hw_device cuda=cu -filter_hw_device cu -f lavfi -i testsrc2=s=256x256 -frames:v 1 \
        -vf format=nv12,hwupload -c:v h264_nvenc -f null - 2>/dev/null; then
    # shellcheck disable=SC2086 # $nvdec is a word list
    timed "GPU pipeline (NVDEC -> dnn_processing -> NVENC, 1080p)" 250 \
        $nvdec -vf "$model" -c:v h264_nvenc "$demo/out-gpu.mp4"
else
    # shellcheck disable=SC2086 # $nvdec is a word list
    timed "GPU pipeline (NVDEC -> dnn_processing -> hwdownload -> MPEG-4; no NVENC here, 1080p)" 250 \
        $nvdec -vf "$model,hwdownload,format=nv12" -c:v mpeg4 -q:v 3 "$demo/out-gpu.mp4"
fi
# upstream's way: frames in system memory, RGB by swscale, the model on the GPU
timed "frames in system memory (decoder -> rgb24 -> dnn_processing device=cuda -> MPEG-4, 1080p)" 250 \
    -i "$demo/clip1080.m2v" -vf "format=rgb24,dnn_processing=dnn_backend=torch:model=$demo/models/conv.pt:device=cuda,format=yuv420p" \
    -c:v mpeg4 -q:v 3 "$demo/out-cpu-frames.mp4"
echo "wrote $demo/out-gpu.mp4"
