# FATE tests of tools/dnn-torch-parts.py: a video in parts, each an ffmpeg
# of its own, joined; on the devices of one machine (--engine local) or of
# a Ray cluster (--engine ray).  Included by tests/fate/dnn-torch.mak, whose
# models and helpers they use; tests/dnn/parts-check.sh runs most of them.

DNN_TORCH_PARTS_CHECK = $(SRC_PATH)/tests/dnn/parts-check.sh
# the tests' input: MPEG-4 (a key frame every 0.4 s), AAC, SubRip, chapters
DNN_TORCH_PARTS_CLIP = $(DNN_TORCH_DATA)/parts-av.mkv
$(DNN_TORCH_PARTS_CLIP): $(SRC_PATH)/tests/dnn/subtitle_mkv.py ffmpeg$(PROGSSUF)$(EXESUF) | $(DNN_TORCH_STAMP)
	$(M)$(DNN_TORCH_PARTS_CHECK) clip . $(TORCH_PYTHON) $@

# The Ray of $(TORCH_PYTHON) (scripts/install-deps.sh --ray), asked only for
# FATE's goals; without it the Ray tests are skipped, and said so
ifneq ($(CONFIG_LIBTORCH),)
ifneq ($(filter fate fate-dnn-torch% fate-list%,$(MAKECMDGOALS)),)
DNN_TORCH_PYTHON_RAY := $(shell $(TORCH_PYTHON) -c 'import ray' 2>/dev/null && echo yes)
ifeq ($(DNN_TORCH_PYTHON_RAY),)
$(warning skipping the Ray tests of tools/dnn-torch-parts.py: "$(TORCH_PYTHON)" cannot import ray (scripts/install-deps.sh --ray))
endif
endif
endif

# Three parts of the committed clips (key frames at 0 and 1 s, so that a
# part seeks), against one ffmpeg over the whole, framecrc for framecrc,
# video and audio; the tool reads each part's context from the filters.
# A recurrent model (without --warmup) and an encoder that reorders frames
# are refused.
define FATE_DNN_TORCH_PARTS_TEST
FATE_DNN_TORCH_PARTS += fate-dnn-torch-parts-$(1)
fate-dnn-torch-parts-$(1): CMD = $$(DNN_TORCH_CHECK) parts $(TARGET_PATH) $(TORCH_PYTHON) \
    $(SRC_PATH)/tests/dnn/h264-aac.mp4 "format=rgb24,$(2)" 3
endef
$(eval $(call FATE_DNN_TORCH_PARTS_TEST,one-frame,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt))
$(eval $(call FATE_DNN_TORCH_PARTS_TEST,window,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/fastdvd.pt:frames=5:sigma=0.1))
$(eval $(call FATE_DNN_TORCH_PARTS_TEST,interpolate,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:factor=2))
$(eval $(call FATE_DNN_TORCH_PARTS_TEST,interpolate-fps,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:fps=60))
# VP9 + Opus in Matroska: the first output time is not the file's start
FATE_DNN_TORCH_PARTS += fate-dnn-torch-parts-vp9-interpolate-fps
fate-dnn-torch-parts-vp9-interpolate-fps: CMD = $(DNN_TORCH_CHECK) parts $(TARGET_PATH) $(TORCH_PYTHON) \
    $(SRC_PATH)/tests/dnn/vp9-opus.mkv "format=rgb24,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:fps=60" 3
# an encoder that reorders frames: the parts would not join in decoding order
FATE_DNN_TORCH_PARTS += fate-dnn-torch-parts-reorder
fate-dnn-torch-parts-reorder: CMD = $(DNN_TORCH_CHECK) parts-fails $(TORCH_PYTHON) \
    --ffmpeg $(TARGET_PATH)/ffmpeg --devices cpu --parts 2 --encode "-c:v mpeg4 -bf 2" \
    -i $(SRC_PATH)/tests/dnn/h264-aac.mp4 -vf format=yuv420p $(TARGET_PATH)/tests/data/fate/dnn-torch-parts-reorder.nut
# an encoder whose packets decode before their times (mpeg2video with -bf 0):
# the concat demuxer would move a part by that delay
FATE_DNN_TORCH_PARTS += fate-dnn-torch-parts-delay
fate-dnn-torch-parts-delay: CMD = $(DNN_TORCH_CHECK) parts-fails $(TORCH_PYTHON) \
    --ffmpeg $(TARGET_PATH)/ffmpeg --devices cpu --parts 2 --encode "-c:v mpeg2video -bf 0" \
    -i $(SRC_PATH)/tests/dnn/h264-aac.mp4 -vf format=yuv420p $(TARGET_PATH)/tests/data/fate/dnn-torch-parts-delay.mkv
FATE_DNN_TORCH_PARTS += fate-dnn-torch-parts-recurrent
fate-dnn-torch-parts-recurrent: CMD = $(DNN_TORCH_CHECK) parts-fails $(TORCH_PYTHON) \
    --ffmpeg $(TARGET_PATH)/ffmpeg --devices cpu -i $(SRC_PATH)/tests/dnn/h264-aac.mp4 \
    -vf dnn_processing=model=$(DNN_TORCH_DIR)/recurrent.pt:recurrent=1 $(TARGET_PATH)/tests/data/fate/dnn-torch-parts-recurrent.nut
# --parts-per-gpu shares a GPU of a Ray cluster: not for CPU slots nor the local engine
FATE_DNN_TORCH_PARTS += fate-dnn-torch-parts-per-gpu-cpu
fate-dnn-torch-parts-per-gpu-cpu: CMD = $(DNN_TORCH_CHECK) parts-fails $(TORCH_PYTHON) \
    --engine ray --devices cpu --parts-per-gpu 2 -i $(SRC_PATH)/tests/dnn/h264-aac.mp4 -vf format=yuv420p out.nut
FATE_DNN_TORCH_PARTS += fate-dnn-torch-parts-per-gpu-local
fate-dnn-torch-parts-per-gpu-local: CMD = $(DNN_TORCH_CHECK) parts-fails $(TORCH_PYTHON) \
    --parts-per-gpu 2 -i $(SRC_PATH)/tests/dnn/h264-aac.mp4 -vf format=yuv420p out.nut
FATE_DNN_TORCH_PARTS += fate-dnn-torch-parts-per-gpu-zero
fate-dnn-torch-parts-per-gpu-zero: CMD = $(DNN_TORCH_CHECK) parts-fails $(TORCH_PYTHON) \
    --engine ray --parts-per-gpu 0 -i $(SRC_PATH)/tests/dnn/h264-aac.mp4 -vf format=yuv420p out.nut

# Parts cut at key frames (--part-seconds 0.4: five of 10 frames) on two
# CPU slots, over a clip with audio, subtitles and chapters: every packet
# of every stream (framecrc) and the container's duration, chapters and
# title are one ffmpeg's.
FATE_DNN_TORCH_PARTS += fate-dnn-torch-parts-keyframes
fate-dnn-torch-parts-keyframes: CMD = $(DNN_TORCH_PARTS_CHECK) same $(TARGET_PATH) $(TORCH_PYTHON) \
    $(TARGET_PATH)/$(DNN_TORCH_PARTS_CLIP) \
    "format=rgb24,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/fastdvd.pt:frames=5:sigma=0.1,format=yuv420p" \
    --devices cpu,cpu --part-seconds 0.4
# The temporary files are in a private directory: files of the user's named
# as the old ones (OUTPUT.partK.nut, OUTPUT.parts.ffconcat) and a symlink so
# named stay untouched, OUTPUT's directory has a quote, a space and a
# newline in its name; SIGTERM leaves nothing.
FATE_DNN_TORCH_PARTS += fate-dnn-torch-parts-neighbours
fate-dnn-torch-parts-neighbours: CMD = $(DNN_TORCH_PARTS_CHECK) neighbours $(TARGET_PATH) $(TORCH_PYTHON) \
    $(SRC_PATH)/tests/dnn/h264-aac.mp4
# An input that cannot be read: its error, exit 1, no file left (both engines)
FATE_DNN_TORCH_PARTS += fate-dnn-torch-parts-corrupt
fate-dnn-torch-parts-corrupt: CMD = $(DNN_TORCH_PARTS_CHECK) corrupt $(TARGET_PATH) $(TORCH_PYTHON) \
    $(TARGET_PATH)/$(DNN_TORCH_PARTS_CLIP)
# A recurrent model with --warmup K: not one run's frames, closer with more
# warm-up (the PSNR of each K is in the test's .err file)
FATE_DNN_TORCH_PARTS += fate-dnn-torch-parts-warmup
fate-dnn-torch-parts-warmup: CMD = $(DNN_TORCH_PARTS_CHECK) warmup $(TARGET_PATH) $(TORCH_PYTHON) \
    $(TARGET_PATH)/$(DNN_TORCH_PARTS_CLIP) $(DNN_TORCH_DIR)/recurrent.pt 0 5

# Ray: a Ray of this machine started by the tool (models and parts through
# the object store), and a cluster of two nodes (ray start --head, ray
# start --address) with three CPU slots: a model of one frame, a window, an
# interpolation at fps=60 across the parts' borders, a worker killed
# (SIGKILL) during a part: one ffmpeg's packets; a failing part: its error.
FATE_DNN_TORCH_PARTS_RAY += fate-dnn-torch-parts-ray-local
fate-dnn-torch-parts-ray-local: CMD = $(DNN_TORCH_PARTS_CHECK) ray-local $(TARGET_PATH) $(TORCH_PYTHON) \
    $(TARGET_PATH)/$(DNN_TORCH_PARTS_CLIP) \
    "format=rgb24,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt,format=yuv420p"
FATE_DNN_TORCH_PARTS_RAY += fate-dnn-torch-parts-ray-cluster
fate-dnn-torch-parts-ray-cluster: CMD = $(DNN_TORCH_PARTS_CHECK) ray-cluster $(TARGET_PATH) $(TORCH_PYTHON) \
    $(TARGET_PATH)/$(DNN_TORCH_PARTS_CLIP) $(DNN_TORCH_DIR)
FATE_DNN_TORCH_PARTS += $(if $(DNN_TORCH_PYTHON_RAY),$(FATE_DNN_TORCH_PARTS_RAY))

$(FATE_DNN_TORCH_PARTS): $(DNN_TORCH_IFNET) $(DNN_TORCH_PARTS_CLIP) ffprobe$(PROGSSUF)$(EXESUF)
FATE_DNN_TORCH_PARTS-$(call ALLYES, FFPROBE MOV_DEMUXER H264_DECODER MATROSKA_DEMUXER VP9_DECODER \
    MPEG4_ENCODER MPEG4_DECODER MATROSKA_MUXER CONCAT_DEMUXER NUT_MUXER NUT_DEMUXER PSNR_FILTER \
    TESTSRC2_FILTER) += $(FATE_DNN_TORCH_PARTS)
FATE_DNN_TORCH += $(FATE_DNN_TORCH_PARTS-yes)
