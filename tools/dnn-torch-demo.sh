#!/bin/sh
# Demo of dnn_processing with the LibTorch backend:
#
#   tools/dnn-torch-demo.sh BUILDDIR
#
# makes a 10 s 640x360 test clip and the test models, runs the clip through a
# small convolutional network (CPU, device=cpu) and writes a playable MPEG-4
# file next to the clip.  Prints the filter's throughput.
set -eu

build=$(cd "${1:-build}" && pwd)
python=${TORCH_PYTHON:-python3}
src=$(cd "$(dirname "$0")/.." && pwd)
demo=$build/demo
ffmpeg="$build/ffmpeg -hide_banner -nostdin -y -loglevel error"
mkdir -p "$demo"

"$python" "$src/tests/dnn/gen_torch_models.py" "$demo/models"
$ffmpeg -f lavfi -i "testsrc2=s=640x360:r=25:d=10" -c:v mpeg4 -q:v 3 "$demo/clip.mp4"

start=$(date +%s.%N)
$ffmpeg -i "$demo/clip.mp4" \
    -vf "format=rgb24,dnn_processing=dnn_backend=torch:model=$demo/models/conv.pt,format=yuv420p" \
    -c:v mpeg4 -q:v 3 "$demo/out.mp4"
end=$(date +%s.%N)

frames=$("$build/ffmpeg" -v error -i "$demo/out.mp4" -map 0:v -c copy -f framecrc - | grep -c '^0,')
awk -v f="$frames" -v s="$start" -v e="$end" \
    'BEGIN { printf "dnn_processing (torch, conv 3->8->3, 640x360, CPU): %d frames in %.2f s = %.1f fps\n", f, e - s, f / (e - s) }'
echo "wrote $demo/out.mp4 (MPEG-4 in MP4; play it with ffplay or any player)"
