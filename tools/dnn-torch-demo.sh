#!/bin/sh
# Demo of dnn_processing with the LibTorch backend:
#
#   tools/dnn-torch-demo.sh BUILDDIR
#
# makes the test models and runs a real file, the committed H.264 + AAC clip
# (tests/dnn/h264-aac.mp4, looped to 10 s), through a small convolutional
# network (CPU, device=cpu); writes a playable MP4 (MPEG-4 video, the AAC
# audio copied) and prints the filter's throughput.  On a machine with
# a CUDA GPU it also runs
# - the same file through the whole GPU pipeline with a community model:
#   NVDEC -> Real-ESRGAN's Compact x2 exported from its weights to an fp16
#   .pt2 (DEMO_WEIGHTS, a .pth of yours, or weights made here whose last
#   layer is zero, so that the picture is the input upscaled) -> NVENC, or
#   hwdownload and a software encoder where the GPU has no NVENC; the audio
#   copied, the fps printed (needs spandrel: install-deps.sh --spandrel);
# - a 1080p pipeline (NVDEC -> dnn_processing -> NVENC) beside frames in
#   system memory (device=cuda), with their fps.
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

# count FILE v|a: the packets of FILE's video or audio (the one stream mapped)
count() { "$build/ffmpeg" -v error -i "$1" -map "0:$2" -c copy -f framecrc - | grep -c "^0," || :; }
frames=$(count "$demo/out.mp4" v) packets=$(count "$demo/out.mp4" a)
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
nvenc=no
$ffmpeg -init_hw_device cuda=cu -filter_hw_device cu -f lavfi -i testsrc2=s=256x256 -frames:v 1 \
    -vf format=nv12,hwupload -c:v h264_nvenc -f null - 2>/dev/null && nvenc=yes

# the real file, NVDEC -> a community model in fp16 -> NVENC, audio copied
if "$python" -c 'import spandrel' 2>/dev/null; then
    weights=${DEMO_WEIGHTS:-$demo/compact-x2.pth}
    [ -n "${DEMO_WEIGHTS:-}" ] || "$python" "$src/tests/dnn/community_models.py" demo "$weights"
    pt2=$demo/community-fp16.pt2
    echo "exporting $weights to $pt2 (fp16, for this GPU; a minute or two)"
    # the export's status, not grep's, says whether the package is there
    "$python" "$src/tools/dnn-torch-export.py" "$weights" "$pt2" --device cuda --precision fp16 \
        >"$demo/export.log" 2>&1 ||
        { cat "$demo/export.log" >&2; echo "demo: exporting $weights failed" >&2; exit 1; }
    grep -E '^(wrote|check|.*: .*channels)' "$demo/export.log"
    community="dnn_processing=dnn_backend=torch:model=$pt2:precision=fp16:yuv_input=rgb"
    if [ $nvenc = yes ]; then
        timed "community model (NVDEC H.264 -> Compact x2 fp16 -> NVENC, audio copied, 320x240 -> 640x480)" 500 \
            -hwaccel cuda -hwaccel_output_format cuda -stream_loop 9 -i "$clip" \
            -vf "$community" -c:v h264_nvenc -c:a copy "$demo/out-community.mp4"
    else
        timed "community model (NVDEC H.264 -> Compact x2 fp16 -> hwdownload -> MPEG-4, no NVENC here; audio copied, 320x240 -> 640x480)" 500 \
            -hwaccel cuda -hwaccel_output_format cuda -stream_loop 9 -i "$clip" \
            -vf "$community,hwdownload,format=nv12" -c:v mpeg4 -q:v 3 -c:a copy "$demo/out-community.mp4"
    fi
    echo "wrote $demo/out-community.mp4: $(count "$demo/out-community.mp4" v) frames, $(count "$demo/out-community.mp4" a) AAC packets copied"
else
    echo "no spandrel (scripts/install-deps.sh --spandrel): the community model is not run"
fi

$ffmpeg -f lavfi -i "testsrc2=s=1920x1080:r=25:d=10" -c:v mpeg2video -q:v 2 "$demo/clip1080.m2v"
model="dnn_processing=dnn_backend=torch:model=$demo/models/conv.pt:yuv_input=rgb"
nvdec="-hwaccel cuda -hwaccel_output_format cuda -i $demo/clip1080.m2v"
if [ $nvenc = yes ]; then
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
