# FATE tests of the LibTorch DNN backend (dnn_processing=dnn_backend=torch).
# The models are TorchScript files made by tests/dnn/gen_torch_models.py with
# the torch of $(TORCH_PYTHON).  "make fate-dnn-torch" runs them all.

TORCH_PYTHON   ?= python3
DNN_TORCH_DATA  = tests/data/dnn-torch
DNN_TORCH_STAMP = $(DNN_TORCH_DATA)/models.stamp
DNN_TORCH_DIR   = $(TARGET_PATH)/$(DNN_TORCH_DATA)
DNN_TORCH_CHECK = $(SRC_PATH)/tests/dnn/torch-check.sh

# The torch of $(TORCH_PYTHON): "cuda" or "cpu", or empty where it imports
# none (asked only for FATE's goals: importing torch takes a while)
ifneq ($(CONFIG_LIBTORCH),)
ifneq ($(filter fate fate-dnn-torch% fate-list%,$(MAKECMDGOALS)),)
DNN_TORCH_PYTHON_TORCH := $(shell $(TORCH_PYTHON) -c \
    'import torch; print("cuda" if torch.version.cuda else "cpu")' 2>/dev/null)
endif
endif

$(DNN_TORCH_STAMP): $(SRC_PATH)/tests/dnn/gen_torch_models.py | tests/data
	$(M)$(TORCH_PYTHON) $< $(@D) && touch $@

# $(1) test name, $(2) model, $(3) pixel format, $(4) size, $(5) frames,
# $(6) extra dnn_processing options (":async=0")
define FATE_DNN_TORCH_CRC
FATE_DNN_TORCH += fate-dnn-torch-$(1)
fate-dnn-torch-$(1): CMD = framecrc -f lavfi -i testsrc2=s=$(4):r=25,format=rgb24 -frames:v $(5) \
    -vf scale,format=$(3),dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/$(2).pt$(6)
endef

# Exact models: checksums of every frame.
$(eval $(call FATE_DNN_TORCH_CRC,identity-rgb24,identity,rgb24,320x240,5,))
$(eval $(call FATE_DNN_TORCH_CRC,identity-bgr24-sync,identity,bgr24,320x240,5,:async=0))
$(eval $(call FATE_DNN_TORCH_CRC,swap-invert-rgb24,swap_invert,rgb24,320x240,5,))
$(eval $(call FATE_DNN_TORCH_CRC,swap-invert-bgr24-sync,swap_invert,bgr24,320x240,5,:async=0))
$(eval $(call FATE_DNN_TORCH_CRC,swap-invert-1x1,swap_invert,rgb24,1x1,3,))
$(eval $(call FATE_DNN_TORCH_CRC,swap-invert-317x239,swap_invert,rgb24,317x239,3,))
$(eval $(call FATE_DNN_TORCH_CRC,swap-invert-bgr24-317x239,swap_invert,bgr24,317x239,3,))
$(eval $(call FATE_DNN_TORCH_CRC,swap-invert-1080p-sync,swap_invert,rgb24,1920x1080,2,:async=0))
$(eval $(call FATE_DNN_TORCH_CRC,swap-invert-2160p-bgr24,swap_invert,bgr24,3840x2160,1,))
$(eval $(call FATE_DNN_TORCH_CRC,nearest2x-rgb24,nearest2x,rgb24,160x120,3,))
$(eval $(call FATE_DNN_TORCH_CRC,nearest2x-bgr24-sync,nearest2x,bgr24,160x120,3,:async=0))
$(eval $(call FATE_DNN_TORCH_CRC,nearest-w2x-rgb24,nearest_w2x,rgb24,160x120,3,))
$(eval $(call FATE_DNN_TORCH_CRC,identity-gray8,identity,gray,320x240,3,))
$(eval $(call FATE_DNN_TORCH_CRC,swap-invert-gray8-sync,swap_invert,gray,320x240,3,:async=0))
$(eval $(call FATE_DNN_TORCH_CRC,identity-grayf32,identity,grayf32,320x240,3,))
$(eval $(call FATE_DNN_TORCH_CRC,swap-invert-yuv420p,swap_invert,yuv420p,320x240,3,))
$(eval $(call FATE_DNN_TORCH_CRC,swap-invert-yuv444p-sync,swap_invert,yuv444p,317x239,3,:async=0))
$(eval $(call FATE_DNN_TORCH_CRC,identity-yuv422p,identity,yuv422p,320x240,3,))
$(eval $(call FATE_DNN_TORCH_CRC,swap-invert-nv12,swap_invert,nv12,320x240,3,))
$(eval $(call FATE_DNN_TORCH_CRC,nearest2x-yuv420p,nearest2x,yuv420p,160x120,3,))
$(eval $(call FATE_DNN_TORCH_CRC,nearest2x-nv12-sync,nearest2x,nv12,160x120,3,:async=0))

# Regression: a model without parameters used to crash (the backend read the
# device of its first parameter).
$(eval $(call FATE_DNN_TORCH_CRC,no-parameters-sync,identity,rgb24,64x48,2,:async=0))

# Inexact model: PSNR against PyTorch's own output for the same frames.
# $(1) test name, $(2) model, $(3) pixel format, $(4) size, $(5) frames,
# $(6) minimum PSNR in dB or "exact", $(7) options
define FATE_DNN_TORCH_PSNR
FATE_DNN_TORCH += fate-dnn-torch-$(1)
fate-dnn-torch-$(1): CMD = $$(DNN_TORCH_CHECK) psnr $(TARGET_PATH) $(TORCH_PYTHON) \
    $$(DNN_TORCH_DIR)/$(2).pt $(4) $(3) $(5) $(6) "$(7)"
endef

$(eval $(call FATE_DNN_TORCH_PSNR,conv-rgb24,conv,rgb24,320x240,5,50,))
$(eval $(call FATE_DNN_TORCH_PSNR,conv-bgr24-sync,conv,bgr24,317x239,5,50,:async=0))
# Regression: the default async=1 died with SIGSEGV at 1080p when the output
# ended (-frames:v) while an inference was still running.
$(eval $(call FATE_DNN_TORCH_PSNR,conv-1080p-async,conv,rgb24,1920x1080,8,50,:async=1))
# The exact models, byte for byte against PyTorch.
$(eval $(call FATE_DNN_TORCH_PSNR,swap-invert-rgb24-vs-torch,swap_invert,rgb24,317x239,3,exact,))
$(eval $(call FATE_DNN_TORCH_PSNR,nearest2x-bgr24-vs-torch,nearest2x,bgr24,161x121,3,exact,:async=0))

# Regression: the model ran in the mode it was saved in.  Saved in training
# mode, it gave other pictures than PyTorch's inference (BatchNorm on each
# frame's own statistics, Dropout active) ...
$(eval $(call FATE_DNN_TORCH_PSNR,train-mode-vs-torch,train_mode,rgb24,317x239,3,50,))
# ... and one frame, repeated, gave a different picture each time.
FATE_DNN_TORCH += fate-dnn-torch-train-mode-repeat
fate-dnn-torch-train-mode-repeat: CMD = framecrc -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 4 \
    -vf loop=loop=-1:size=1,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/train_mode.pt

# Bad models and options: the exact error and exit code.
# $(1) test name, $(2) model, $(3) size, $(4) extra options
define FATE_DNN_TORCH_ERROR
FATE_DNN_TORCH += fate-dnn-torch-error-$(1)
fate-dnn-torch-error-$(1): CMD = $$(DNN_TORCH_CHECK) error $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=$(3):r=25,format=rgb24 -frames:v 2 \
    -vf dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/$(2)$(4) -f null -
endef

$(eval $(call FATE_DNN_TORCH_ERROR,raises,raises.pt,64x48,))
$(eval $(call FATE_DNN_TORCH_ERROR,raises-sync,raises.pt,64x48,:async=0))
# failing on a frame, after configuration: in the worker thread with async=1
$(eval $(call FATE_DNN_TORCH_ERROR,raises-on-frame,raises_on_data.pt,64x48,))
$(eval $(call FATE_DNN_TORCH_ERROR,raises-on-frame-sync,raises_on_data.pt,64x48,:async=0))
$(eval $(call FATE_DNN_TORCH_ERROR,three-dims,three_dim.pt,64x48,))
# indexing out of range on real frames (on a GPU: a device-side assert)
$(eval $(call FATE_DNN_TORCH_ERROR,lut-out-of-range,lut_out_of_range.pt,64x48,))
$(eval $(call FATE_DNN_TORCH_ERROR,two-channels,two_channels.pt,64x48,))
$(eval $(call FATE_DNN_TORCH_ERROR,missing-model,does-not-exist.pt,64x48,))
$(eval $(call FATE_DNN_TORCH_ERROR,corrupt-model,corrupt.pt,64x48,))
$(eval $(call FATE_DNN_TORCH_ERROR,model-directory,,64x48,))
$(eval $(call FATE_DNN_TORCH_ERROR,bad-device,identity.pt,64x48,:device=tpu))
# device_id, which only the ONNX Runtime backend reads
$(eval $(call FATE_DNN_TORCH_ERROR,device-id,identity.pt,64x48,:device_id=1))

# YUV frames: what the model sees is yuv_input's choice, and the wrong one
# ends in an error that names the option.
define FATE_DNN_TORCH_YUV_ERROR
FATE_DNN_TORCH += fate-dnn-torch-error-$(1)
fate-dnn-torch-error-$(1): CMD = $$(DNN_TORCH_CHECK) error $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25,format=yuv420p -frames:v 2 \
    -vf dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/$(2)$(3) -f null -
endef
$(eval $(call FATE_DNN_TORCH_YUV_ERROR,rgb-model-on-luma,conv.pt,))
$(eval $(call FATE_DNN_TORCH_YUV_ERROR,luma-model-on-rgb,luma_conv.pt,:yuv_input=rgb))

# precision on the CPU: fp16 and bf16 against fp32 on the conv net (PSNR on stderr)
define FATE_DNN_TORCH_CPU_PRECISION
FATE_DNN_TORCH += fate-dnn-torch-conv-$(1)
fate-dnn-torch-conv-$(1): CMD = $$(DNN_TORCH_CHECK) compare $(TARGET_PATH) 45 \
    -f lavfi -i testsrc2=s=160x120:r=25,format=rgb24 -frames:v 3 \
    -vf dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/conv.pt:precision=$(1) -- \
    -f lavfi -i testsrc2=s=160x120:r=25,format=rgb24 -frames:v 3 \
    -vf dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/conv.pt
endef
$(eval $(call FATE_DNN_TORCH_CPU_PRECISION,fp16))
$(eval $(call FATE_DNN_TORCH_CPU_PRECISION,bf16))

# The packed RGB layouts of dnn_color.h (those of CUDA frames), run on the
# CPU through the same functions: bytes in memory order, rounding, clipping,
# NaN, alpha passed through or opaque (tests/dnn/color-packed.c)
DNN_TORCH_COLOR_PACKED = $(DNN_TORCH_DATA)/color-packed$(EXESUF)
$(DNN_TORCH_COLOR_PACKED): $(SRC_PATH)/tests/dnn/color-packed.c libavfilter/dnn/dnn_color.o $(FF_DEP_LIBS) | $(DNN_TORCH_STAMP)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@.o $<
	$(LD) $(LDFLAGS) $(LDEXEFLAGS) -o $@ $@.o libavfilter/dnn/dnn_color.o $(FF_EXTRALIBS) $(ELIBS)
FATE_DNN_TORCH += fate-dnn-torch-color-packed
fate-dnn-torch-color-packed: $(DNN_TORCH_COLOR_PACKED)
fate-dnn-torch-color-packed: CMD = run $(DNN_TORCH_COLOR_PACKED)

# yuv_input=rgb in system memory (dnn_color.c) against the float64 reference
# of tests/dnn/color_check.py: every layout the filter takes, matrix, range
# and chroma siting, and luma models; within 1 code value
FATE_DNN_TORCH += fate-dnn-torch-color-cpu
fate-dnn-torch-color-cpu: CMD = $(DNN_TORCH_CHECK) color $(TORCH_PYTHON) \
    $(TARGET_PATH)/ffmpeg $(DNN_TORCH_DIR) $(TARGET_PATH)/tests/data/fate/dnn-torch-color-cpu.d cpu --jobs 2

# A request whose async inference cannot start (no thread to be had:
# tests/dnn/thread-fail.c, preloaded, makes the filter graph thread's
# pthread_create fail) is given back: the run ends with the error instead of
# waiting at the end, forever, for the request that was lost.
DNN_TORCH_THREAD_FAIL = $(DNN_TORCH_DATA)/thread-fail$(SLIBSUF)
$(DNN_TORCH_THREAD_FAIL): $(SRC_PATH)/tests/dnn/thread-fail.c | $(DNN_TORCH_STAMP)
	$(CC) -shared -fPIC -o $@ $< -ldl
FATE_DNN_TORCH += fate-dnn-torch-error-no-thread
fate-dnn-torch-error-no-thread: $(DNN_TORCH_THREAD_FAIL)
fate-dnn-torch-error-no-thread: CMD = LD_PRELOAD=$(TARGET_PATH)/$(DNN_TORCH_THREAD_FAIL) \
    $(DNN_TORCH_CHECK) fails async.inference $(TARGET_PATH)/ffmpeg -filter_threads 1 \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 2 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/identity.pt:async=1 -f null -

# Through the API (tests/dnn/api-dnn-error.c): a model that fails on the
# first frame, and the application goes on (more frames, the end, draining
# the output): every call returns, with the error, synchronously or not.
# Linked as a user's program (dnn-torch-cuda.mak: DNN_TORCH_API_CUDA).
# A static build's loader takes the module from beside the program only:
# the programs built here get a link to it, as a user's program installed
# beside it (the CUDA one too, dnn-torch-cuda.mak's DNN_TORCH_API_CUDA)
DNN_TORCH_MODULE_BESIDE = $(if $(CONFIG_SHARED),,$(DNN_TORCH_DATA)/$(TORCH_MODULE_NAME))
$(DNN_TORCH_DATA)/$(TORCH_MODULE_NAME): $(TORCH_MODULE) | $(DNN_TORCH_STAMP)
	$(Q)ln -sf $(CURDIR)/$(TORCH_MODULE) $@
$(DNN_TORCH_DATA)/api-dnn-cuda$(EXESUF): $(DNN_TORCH_MODULE_BESIDE)
DNN_TORCH_API_ERROR = $(DNN_TORCH_DATA)/api-dnn-error$(EXESUF)
$(DNN_TORCH_API_ERROR): $(SRC_PATH)/tests/dnn/api-dnn-error.c $(FF_DEP_LIBS) $(TORCH_MODULE) $(TORCH_MODULE_EXPORTS) \
                        $(DNN_TORCH_MODULE_BESIDE) | $(DNN_TORCH_STAMP)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@.o $<
	$(LD) $(LDFLAGS) $(LDEXEFLAGS) $(if $(TORCH_MODULE_EXPORTS),@$(TORCH_MODULE_EXPORTS)) \
	    -o $@ $@.o $(FF_EXTRALIBS) $(ELIBS)
FATE_DNN_TORCH += fate-dnn-torch-api-error-sync fate-dnn-torch-api-error-async
fate-dnn-torch-api-error-sync fate-dnn-torch-api-error-async: $(DNN_TORCH_API_ERROR)
fate-dnn-torch-api-error-sync: CMD = timeout -s KILL 120 $(TARGET_PATH)/$(DNN_TORCH_API_ERROR) $(DNN_TORCH_DIR)/raises_on_data.pt 0
fate-dnn-torch-api-error-async: CMD = timeout -s KILL 120 $(TARGET_PATH)/$(DNN_TORCH_API_ERROR) $(DNN_TORCH_DIR)/raises_on_data.pt 1

# The torch backend's module, from a copy of ffmpeg in a directory of its
# own (tests/dnn/torch-module-check.sh): a module of another revision, of
# this version and configuration (tests/dnn/module-stale.c), is refused,
# naming its layout and ours; a module only on LD_LIBRARY_PATH is not loaded.
# (config.h: the configuration it must share, made again by a new configure)
DNN_TORCH_MODULE_STALE = $(DNN_TORCH_DATA)/module-stale$(SLIBSUF)
$(DNN_TORCH_MODULE_STALE): $(SRC_PATH)/tests/dnn/module-stale.c $(SRC_PATH)/libavfilter/dnn/dnn_backend_torch_entry.c \
                           $(SRC_PATH)/libavfilter/dnn/torch_module.ver $(TORCH_MODULE_LAYOUT_H) config.h | $(DNN_TORCH_STAMP)
	$(CC) $(CPPFLAGS) -DHAVE_AV_CONFIG_H $(CFLAGS) -fPIC -shared \
	    -Wl,--version-script,$(SRC_PATH)/libavfilter/dnn/torch_module.ver -o $@ $<
DNN_TORCH_MODULE_CHECK = $(SRC_PATH)/tests/dnn/torch-module-check.sh
FATE_DNN_TORCH += fate-dnn-torch-module-stale fate-dnn-torch-module-library-path
fate-dnn-torch-module-stale: $(DNN_TORCH_MODULE_STALE)
fate-dnn-torch-module-stale: CMD = $(DNN_TORCH_MODULE_CHECK) stale $(TARGET_PATH)/ffmpeg$(PROGSSUF)$(EXESUF) \
    "$(TORCH_MODULE_DIR)" $(TORCH_MODULE_NAME) $(TARGET_PATH)/$(DNN_TORCH_MODULE_STALE)
fate-dnn-torch-module-library-path: $(TORCH_MODULE)
fate-dnn-torch-module-library-path: CMD = $(DNN_TORCH_MODULE_CHECK) library-path $(TARGET_PATH)/ffmpeg$(PROGSSUF)$(EXESUF) \
    "$(TORCH_MODULE_DIR)" $(TORCH_MODULE_NAME) $(TARGET_PATH)/$(TORCH_MODULE)

# Regression: async=1 crashed (SIGSEGV) when the output stopped while an
# inference was still running: the model was freed under the worker thread.
FATE_DNN_TORCH += fate-dnn-torch-async-early-stop
fate-dnn-torch-async-early-stop: CMD = $(DNN_TORCH_CHECK) error $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=1280x720:r=25,format=rgb24 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt -frames:v 20 -f null -

# .pt2 packages (torch.export + AOTInductor), compiled for this CPU at test
# time by tools/dnn-torch-export.py (tests/dnn/make-torch-packages.sh): the
# same frames as the TorchScript models give, and the mismatches refused
DNN_TORCH_PT2_STAMP = $(DNN_TORCH_DATA)/packages.stamp
# A model that changes the size: the sample aspect ratio of the new size, no
# side data that describes the input's geometry (regions of interest here);
# a model that keeps the size keeps both.
# $(1) test name, $(2) model
define FATE_DNN_TORCH_PROPS
FATE_DNN_TORCH += fate-dnn-torch-props-$(1)
fate-dnn-torch-props-$(1): CMD = $$(DNN_TORCH_CHECK) props $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 1 \
    -vf setsar=4/3,addroi=x=8:y=8:w=16:h=16:qoffset=-0.2,dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/$(2).pt,showinfo -f null -
endef
$(eval $(call FATE_DNN_TORCH_PROPS,width2x,nearest_w2x))
$(eval $(call FATE_DNN_TORCH_PROPS,2x,nearest2x))
$(eval $(call FATE_DNN_TORCH_PROPS,same-size,identity))

# Several inferences in flight (nireq=4, async=1): 200 frames in the order
# and with the content of one inference at a time
FATE_DNN_TORCH += fate-dnn-torch-nireq4-async
fate-dnn-torch-nireq4-async: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 200 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt:nireq=4:async=1 -- \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 200 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt:nireq=1:async=0

# Outputs that are no picture: integers are an error that names the type;
# NaN and infinities are written as 0 (NaN, -Inf) and 1 (+Inf), with a
# warning for the first frame that has them and a summary at the end.
$(eval $(call FATE_DNN_TORCH_ERROR,byte-output,byte_output.pt,64x48,))
FATE_DNN_TORCH += fate-dnn-torch-warning-non-finite
fate-dnn-torch-warning-non-finite: CMD = $(DNN_TORCH_CHECK) warning $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.12,format=rgb24 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/non_finite.pt -f null -
# $(1) test name, $(2) pixel format, $(3) options
define FATE_DNN_TORCH_NON_FINITE
FATE_DNN_TORCH += fate-dnn-torch-non-finite-$(1)
fate-dnn-torch-non-finite-$(1): CMD = $$(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 3 \
    -vf format=$(2),dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/non_finite.pt$(3) -- \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 3 \
    -vf format=$(2),dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/non_finite_written.pt$(3)
endef
# the export tool refuses integer outputs and warns of NaN and infinities
# $(1) test name, $(2) module of gen_torch_models.py
define FATE_DNN_TORCH_EXPORT_CHECK
FATE_DNN_TORCH += fate-dnn-torch-export-$(1)
fate-dnn-torch-export-$(1): CMD = $$(DNN_TORCH_CHECK) export $(TORCH_PYTHON) \
    $(SRC_PATH)/tests/dnn/gen_torch_models.py:$(2) $$(DNN_TORCH_DIR)/export-$(1).pt --format torchscript
endef
$(eval $(call FATE_DNN_TORCH_EXPORT_CHECK,byte-output,ByteOutput))
# the user's mistakes are errors that say which, not Python tracebacks:
# --args that is no list of arguments, a state_dict of another module (one
# temporal_models.py makes with ifnet.pt; DNN_TORCH_IFNET is set below, and
# a prerequisite is expanded where it is read), an output in no directory
FATE_DNN_TORCH += fate-dnn-torch-export-error-args
fate-dnn-torch-export-error-args: CMD = $(DNN_TORCH_CHECK) export $(TORCH_PYTHON) \
    $(SRC_PATH)/tests/dnn/gen_torch_models.py:SmallConv $(DNN_TORCH_DATA)/export-error.pt --args 3
FATE_DNN_TORCH += fate-dnn-torch-export-error-checkpoint
fate-dnn-torch-export-error-checkpoint: $(DNN_TORCH_DATA)/ifnet.pt
fate-dnn-torch-export-error-checkpoint: CMD = $(DNN_TORCH_CHECK) export $(TORCH_PYTHON) \
    $(SRC_PATH)/tests/dnn/gen_torch_models.py:SmallConv $(DNN_TORCH_DATA)/export-error.pt \
    --checkpoint $(DNN_TORCH_DATA)/fastdvd.state.pt --format torchscript
FATE_DNN_TORCH += fate-dnn-torch-export-error-output
fate-dnn-torch-export-error-output: CMD = $(DNN_TORCH_CHECK) export $(TORCH_PYTHON) \
    $(SRC_PATH)/tests/dnn/gen_torch_models.py:SmallConv $(DNN_TORCH_DATA)/no-such-directory/x.pt
# a C++ compile error of AOTInductor: the compiler's first diagnostic in the
# message (not the command, nor the file's path), the next as a note, and
# --no-simd named (a CUDA package has host code too)
FATE_DNN_TORCH += fate-dnn-torch-export-compile-error
fate-dnn-torch-export-compile-error: CMD = $(DNN_TORCH_CHECK) compile-error $(TORCH_PYTHON) \
    $(SRC_PATH)/tests/dnn/gen_torch_models.py:Conv3x3 $(DNN_TORCH_DIR)/export-compile-error.pt2
$(eval $(call FATE_DNN_TORCH_EXPORT_CHECK,non-finite,NonFinite))
$(eval $(call FATE_DNN_TORCH_NON_FINITE,rgb24,rgb24,))
$(eval $(call FATE_DNN_TORCH_NON_FINITE,yuv420p-rgb,yuv420p,:yuv_input=rgb))
$(eval $(call FATE_DNN_TORCH_NON_FINITE,gray-sync,gray,:async=0))

# Real files: the committed clips of tests/dnn/make-clips.sh, decoded by
# FFmpeg's own decoders and run through exact models, every frame's checksum
# against the reference; the audio is copied, packet for packet.
DNN_TORCH_H264 = -i $(SRC_PATH)/tests/dnn/h264-aac.mp4
DNN_TORCH_VP9  = -i $(SRC_PATH)/tests/dnn/vp9-opus.mkv
FATE_DNN_TORCH_H264-$(call ALLYES, MOV_DEMUXER H264_DECODER H264_PARSER AAC_PARSER) += fate-dnn-torch-h264-aac
fate-dnn-torch-h264-aac: CMD = framecrc $(DNN_TORCH_H264) -c:a copy \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/swap_invert.pt:yuv_input=rgb
FATE_DNN_TORCH_H264-$(call ALLYES, MATROSKA_DEMUXER VP9_DECODER VP9_PARSER OPUS_PARSER) += fate-dnn-torch-vp9-opus
fate-dnn-torch-vp9-opus: CMD = framecrc $(DNN_TORCH_VP9) -c:a copy \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/nearest2x.pt
FATE_DNN_TORCH += $(FATE_DNN_TORCH_H264-yes)

# What the options say and take.  dnn_backend left out: torch is the default
# where TensorFlow is not built; a backend that is not built is named as such.
ifeq ($(CONFIG_LIBTENSORFLOW),)
FATE_DNN_TORCH += fate-dnn-torch-default-backend
fate-dnn-torch-default-backend: CMD = framecrc -f lavfi -i testsrc2=s=320x240:r=25,format=rgb24 -frames:v 5 \
    -vf dnn_processing=model=$(DNN_TORCH_DIR)/swap_invert.pt
FATE_DNN_TORCH += fate-dnn-torch-error-backend-not-built
fate-dnn-torch-error-backend-not-built: CMD = $(DNN_TORCH_CHECK) error $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 2 \
    -vf dnn_processing=dnn_backend=1:model=$(DNN_TORCH_DIR)/identity.pt -f null -
endif
# The words of a model's inputs (ffmpeg_dnn_inputs): the backend's table, the
# export tool's --inputs and metadata, and the bare bench agree
FATE_DNN_TORCH += fate-dnn-torch-signatures
fate-dnn-torch-signatures: CMD = $(TORCH_PYTHON) $(SRC_PATH)/tests/dnn/check-signatures.py $(SRC_PATH)

# model_sha256: the file's hash, checked before it is loaded
FATE_DNN_TORCH += fate-dnn-torch-sha256-match
fate-dnn-torch-sha256-match: CMD = framecrc -f lavfi -i testsrc2=s=320x240:r=25,format=rgb24 -frames:v 5 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/swap_invert.pt:model_sha256=$$(sha256sum $(DNN_TORCH_DIR)/swap_invert.pt | cut -c1-64)
FATE_DNN_TORCH += fate-dnn-torch-error-sha256-mismatch
fate-dnn-torch-error-sha256-mismatch: CMD = $(DNN_TORCH_CHECK) fails "(model_sha256): it is not loaded" \
    $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 2 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/swap_invert.pt:model_sha256=$$(sha256sum $(DNN_TORCH_DIR)/identity.pt | cut -c1-64) -f null -
$(eval $(call FATE_DNN_TORCH_ERROR,sha256-malformed,identity.pt,64x48,:model_sha256=0123abc))

# the help of the options a user sets first: defaults that exist, devices
FATE_DNN_TORCH += fate-dnn-torch-help
fate-dnn-torch-help: CMD = $(DNN_TORCH_CHECK) help $(TARGET_PATH)/ffmpeg dnn_processing \
    dnn_backend nireq device async precision
$(eval $(call FATE_DNN_TORCH_ERROR,nireq-too-many,identity.pt,64x48,:nireq=17))
# cuda_graph on the CPU: said once, at the warning level
FATE_DNN_TORCH += fate-dnn-torch-warning-cuda-graph-cpu
fate-dnn-torch-warning-cuda-graph-cpu: CMD = $(DNN_TORCH_CHECK) warning $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 3 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt:cuda_graph=1 -f null -
# fp16 on the CPU is slow in LibTorch: said once, at the warning level
FATE_DNN_TORCH += fate-dnn-torch-warning-fp16-cpu
fate-dnn-torch-warning-fp16-cpu: CMD = $(DNN_TORCH_CHECK) warning $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 3 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt:precision=fp16 -f null -

$(DNN_TORCH_PT2_STAMP): $(SRC_PATH)/tests/dnn/make-torch-packages.sh $(SRC_PATH)/tools/dnn-torch-export.py $(DNN_TORCH_STAMP)
	$(M)$< $(TORCH_PYTHON) $(SRC_PATH) $(@D) && touch $@

# $(1) test name, $(2) package, $(3) TorchScript model, $(4) pixel format,
# $(5) size, $(6) "exact" or the minimum PSNR, $(7) more options of both
define FATE_DNN_TORCH_PT2_COMPARE
FATE_DNN_TORCH_PT2 += fate-dnn-torch-pt2-$(1)
fate-dnn-torch-pt2-$(1): CMD = $$(DNN_TORCH_CHECK) compare $(TARGET_PATH) $(6) \
    -f lavfi -i testsrc2=s=$(5):r=25,format=rgb24 -frames:v 3 \
    -vf scale,format=$(4),dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/$(2).pt2$(7),format=$(4) -- \
    -f lavfi -i testsrc2=s=$(5):r=25,format=rgb24 -frames:v 3 \
    -vf scale,format=$(4),dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/$(3).pt$(7),format=$(4)
endef
$(eval $(call FATE_DNN_TORCH_PT2_COMPARE,swap-invert-rgb24,swap_invert,swap_invert,rgb24,317x239,exact))
$(eval $(call FATE_DNN_TORCH_PT2_COMPARE,swap-invert-yuv420p,swap_invert,swap_invert,yuv420p,320x240,exact,:yuv_input=rgb))
$(eval $(call FATE_DNN_TORCH_PT2_COMPARE,static-64x48,swap_invert_64x48,swap_invert,bgr24,64x48,exact))
$(eval $(call FATE_DNN_TORCH_PT2_COMPARE,conv-rgb24,conv,conv,rgb24,320x240,50))
# an fp16 package (precision=fp16) against the fp32 TorchScript model
FATE_DNN_TORCH_PT2 += fate-dnn-torch-pt2-conv-fp16
fate-dnn-torch-pt2-conv-fp16: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) 45 \
    -f lavfi -i testsrc2=s=160x120:r=25,format=rgb24 -frames:v 3 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv_fp16.pt2:precision=fp16 -- \
    -f lavfi -i testsrc2=s=160x120:r=25,format=rgb24 -frames:v 3 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt
# and the frames themselves, for the record
FATE_DNN_TORCH_PT2 += fate-dnn-torch-pt2-swap-invert-crc
fate-dnn-torch-pt2-swap-invert-crc: CMD = framecrc -f lavfi -i testsrc2=s=320x240:r=25,format=rgb24 -frames:v 5 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/swap_invert.pt2:model_format=pt2
# model_sha256 on a package: the package is read once, hashed, and loaded
# from that copy; the same frames
FATE_DNN_TORCH_PT2 += fate-dnn-torch-pt2-sha256-match
fate-dnn-torch-pt2-sha256-match: CMD = framecrc -f lavfi -i testsrc2=s=320x240:r=25,format=rgb24 -frames:v 5 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/swap_invert.pt2:model_format=pt2:model_sha256=$$(sha256sum $(DNN_TORCH_DIR)/swap_invert.pt2 | cut -c1-64)

# $(1) test name, $(2) model file, $(3) size, $(4) pixel format, $(5) options
define FATE_DNN_TORCH_PT2_ERROR
FATE_DNN_TORCH_PT2 += fate-dnn-torch-pt2-error-$(1)
fate-dnn-torch-pt2-error-$(1): CMD = $$(DNN_TORCH_CHECK) error $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=$(3):r=25,format=$(4) -frames:v 2 \
    -vf dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/$(2)$(5) -f null -
endef
$(eval $(call FATE_DNN_TORCH_PT2_ERROR,static-size,swap_invert_64x48.pt2,320x240,rgb24,))
$(eval $(call FATE_DNN_TORCH_PT2_ERROR,precision,swap_invert-fp16.pt2,64x48,rgb24,))
$(eval $(call FATE_DNN_TORCH_PT2_ERROR,torch-version,swap_invert-torch2.10.pt2,64x48,rgb24,))
$(eval $(call FATE_DNN_TORCH_PT2_ERROR,no-metadata,swap_invert-nometa.pt2,64x48,rgb24,))
$(eval $(call FATE_DNN_TORCH_PT2_ERROR,channels,swap_invert.pt2,64x48,gray,))
$(eval $(call FATE_DNN_TORCH_PT2_ERROR,not-a-package,swap_invert.pt,64x48,rgb24,:model_format=pt2))
$(eval $(call FATE_DNN_TORCH_PT2_ERROR,corrupt,corrupt.pt,64x48,rgb24,:model_format=pt2))
$(eval $(call FATE_DNN_TORCH_PT2_ERROR,forced-torchscript,swap_invert.pt2,64x48,rgb24,:model_format=torchscript))
# compiled for a CPU with instructions this one lacks (-march=native there):
# refused, never SIGILL
FATE_DNN_TORCH_PT2 += fate-dnn-torch-pt2-error-cpu-lacks
fate-dnn-torch-pt2-error-cpu-lacks: CMD = $(DNN_TORCH_CHECK) fails "uses instructions this CPU lacks" \
    $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 2 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/swap_invert-isa.pt2 -f null -
# native code only where asked for: a package named otherwise is refused
# under model_format=auto, and runs with model_format=pt2
$(eval $(call FATE_DNN_TORCH_PT2_ERROR,not-asked,swap_invert_package.pt,64x48,rgb24,))
FATE_DNN_TORCH_PT2 += fate-dnn-torch-pt2-asked
fate-dnn-torch-pt2-asked: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 3 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/swap_invert_package.pt:model_format=pt2 -- \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 3 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/swap_invert.pt
# a package's code is extracted into a directory of TMPDIR's, removed after
# every load, failed or not; LibTorch's /tmp/XXXXXX is never made; a noexec
# TMPDIR is said to be one
FATE_DNN_TORCH_PT2 += fate-dnn-torch-pt2-tmpdir
fate-dnn-torch-pt2-tmpdir: CMD = $(SRC_PATH)/tests/dnn/pt2-tmpdir.sh $(TARGET_PATH)/ffmpeg \
    $(TORCH_PYTHON) $(DNN_TORCH_DIR)
# auto takes a *.pt2 name for a package: a TorchScript file so named is
# refused, and loads with model_format=torchscript
$(eval $(call FATE_DNN_TORCH_PT2_ERROR,named-pt2,torchscript_named.pt2,64x48,rgb24,))
FATE_DNN_TORCH_PT2 += fate-dnn-torch-pt2-named-pt2-torchscript
fate-dnn-torch-pt2-named-pt2-torchscript: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 3 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/torchscript_named.pt2:model_format=torchscript -- \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 3 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/swap_invert.pt
# Malformed model files: about 600 mutants of the TorchScript models and
# .pt2 packages (tests/dnn/mutate_models.py: truncated, bits flipped,
# members removed, renamed or added, metadata edited, huge sizes, zip bombs,
# no zip at all), each through dnn_processing: a clean error or the right
# frames, never a signal, a hang, or memory or disk without bound
# (tests/dnn/run_mutants.py).  Each run is forked from one started ffmpeg
# (tests/dnn/fork-server.c, preloaded): 0.1 s a file instead of LibTorch's
# 0.7 s start, about 25 s in all on 2 cores.
DNN_TORCH_FORK_SERVER = $(DNN_TORCH_DATA)/fork-server$(SLIBSUF)
$(DNN_TORCH_FORK_SERVER): $(SRC_PATH)/tests/dnn/fork-server.c | $(DNN_TORCH_STAMP)
	$(CC) -shared -fPIC -O2 -o $@ $< -ldl
FATE_DNN_TORCH_PT2 += fate-dnn-torch-mutation-corpus
fate-dnn-torch-mutation-corpus: $(DNN_TORCH_FORK_SERVER)
fate-dnn-torch-mutation-corpus: CMD = $(TORCH_PYTHON) $(SRC_PATH)/tests/dnn/run_mutants.py \
    $(TARGET_PATH)/ffmpeg $(DNN_TORCH_DIR) $(TARGET_PATH)/tests/data/fate/dnn-torch-mutation-corpus.d \
    --fork-server $(TARGET_PATH)/$(DNN_TORCH_FORK_SERVER)

# The archive check reads what LibTorch reads.  A traced model's tensor
# constant (constants.pkl, its record under constants/, not data/) loads
# and gives PyTorch's frames: it was refused as malformed.
$(eval $(call FATE_DNN_TORCH_PSNR,tensor-constant-vs-torch,tensor_constant,rgb24,317x239,3,exact,))
# model_sha256 reads the model once, a pipe too, and everything after reads
# the copy it hashed: the checks read the path again, found nothing in the
# pipe and were skipped, so that a malformed model was loaded (SIGSEGV).
# A pipe that loads gives the file's frames (sha256-match's reference):
# ffmpeg configures its filters twice, and the second load reads the copy
# that the first hashed, by the model's name and the pin.
FATE_DNN_TORCH += fate-dnn-torch-sha256-stdin
fate-dnn-torch-sha256-stdin: REF = $(SRC_PATH)/tests/ref/fate/dnn-torch-sha256-match
fate-dnn-torch-sha256-stdin: CMD = cat $(DNN_TORCH_DIR)/swap_invert.pt | \
    framecrc -f lavfi -i testsrc2=s=320x240:r=25,format=rgb24 -frames:v 5 \
    -vf dnn_processing=dnn_backend=torch:model=/dev/stdin:model_sha256=$$(sha256sum $(DNN_TORCH_DIR)/swap_invert.pt | cut -c1-64)
DNN_TORCH_STORAGE_PAST = $(DNN_TORCH_DATA)/conv_storage_past_record.pt
$(DNN_TORCH_STORAGE_PAST): $(SRC_PATH)/tests/dnn/mutate_models.py | $(DNN_TORCH_STAMP)
	$(M)$(TORCH_PYTHON) $< --storage-past-record $(DNN_TORCH_DATA)/conv.pt $@
FATE_DNN_TORCH += fate-dnn-torch-error-sha256-stdin-checked
fate-dnn-torch-error-sha256-stdin-checked: $(DNN_TORCH_STORAGE_PAST)
fate-dnn-torch-error-sha256-stdin-checked: CMD = cat $(DNN_TORCH_DIR)/conv_storage_past_record.pt | \
    $(DNN_TORCH_CHECK) error $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 2 \
    -vf dnn_processing=dnn_backend=torch:model=/dev/stdin:model_sha256=$$(sha256sum $(DNN_TORCH_DIR)/conv_storage_past_record.pt | cut -c1-64) -f null -
# without model_sha256 a pipe cannot be checked, then read again: refused
FATE_DNN_TORCH += fate-dnn-torch-error-stdin-unpinned
fate-dnn-torch-error-stdin-unpinned: CMD = cat $(DNN_TORCH_DIR)/swap_invert.pt | \
    $(DNN_TORCH_CHECK) error $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 2 \
    -vf dnn_processing=dnn_backend=torch:model=/dev/stdin -f null -

# Community models (tests/dnn/community_models.py): weights of
# architectures people download (Real-ESRGAN's Compact, SPAN, SwinIR), made
# here with random weights, exported by tools/dnn-torch-export.py from the
# weights alone (spandrel recognises the architecture, its scale and
# channels), and run through dnn_processing at an odd size (SwinIR pads to
# its windows inside) against spandrel's own eager model: >= 50 dB.  SwinIR
# is compiled without vector instructions (--no-simd): torch 2.11's
# vectorised CPU code of its windows does not compile, or takes an hour.
# Weights of no known architecture are refused with the reason.  With
# spandrel only (scripts/install-deps.sh --spandrel; ./configure says
# whether it is there).
ifeq ($(DNN_TORCH_SPANDREL),yes)
DNN_TORCH_COMMUNITY_STAMP = $(DNN_TORCH_DATA)/community.stamp
$(DNN_TORCH_COMMUNITY_STAMP): $(SRC_PATH)/tests/dnn/community_models.py | $(DNN_TORCH_STAMP)
	$(M)$(TORCH_PYTHON) $< make $(@D) && touch $@
# $(1) test name, $(2) weights, $(3) options of the export
define FATE_DNN_TORCH_COMMUNITY
$(DNN_TORCH_DATA)/community-$(1).pt2: $(DNN_TORCH_COMMUNITY_STAMP) $(SRC_PATH)/tools/dnn-torch-export.py
	$(M)unset CC CXX && $(TORCH_PYTHON) $(SRC_PATH)/tools/dnn-torch-export.py \
	    $(DNN_TORCH_DATA)/$(2) $$@ $(3) >$$@.log 2>&1 || { grep -E '^error:' $$@.log; exit 1; }
FATE_DNN_TORCH += fate-dnn-torch-community-$(1)
fate-dnn-torch-community-$(1): $(DNN_TORCH_DATA)/community-$(1).pt2
fate-dnn-torch-community-$(1): CMD = $$(DNN_TORCH_CHECK) community $(TARGET_PATH) $(TORCH_PYTHON) \
    $$(DNN_TORCH_DIR)/$(2) $$(DNN_TORCH_DIR)/community-$(1).pt2 62x46 3 50
endef
$(eval $(call FATE_DNN_TORCH_COMMUNITY,compact,compact.pth))
$(eval $(call FATE_DNN_TORCH_COMMUNITY,span,span.safetensors))
$(eval $(call FATE_DNN_TORCH_COMMUNITY,swinir,swinir.pth,--no-simd))
FATE_DNN_TORCH += fate-dnn-torch-community-unknown
fate-dnn-torch-community-unknown: CMD = $(DNN_TORCH_CHECK) export $(TORCH_PYTHON) \
    $(DNN_TORCH_DATA)/conv.state.pt $(DNN_TORCH_DATA)/unknown.pt2
endif

$(FATE_DNN_TORCH_PT2): $(DNN_TORCH_PT2_STAMP)
FATE_DNN_TORCH += $(FATE_DNN_TORCH_PT2)

# dnn_interpolate (tests/dnn/temporal_models.py): an IFNet-shaped model of
# two frames and t, against the same model in eager PyTorch on the same
# frames (>= 50 dB) with every timestamp exact: twice and 4x the rate,
# 24000/1001 to 60 fps (t from the timestamps), variable frame rate input,
# a scene cut (two sources one after the other: no output frame mixes
# them; found by the filter, or by scdet before it), the last frame at the
# end; timestamps far from 0 (2*10^14, where pts * 1001 * 60 no longer fits
# in 64 bits): exact still.
DNN_TORCH_IFNET = $(DNN_TORCH_DATA)/ifnet.pt
DNN_TORCH_COMMA := ,
$(DNN_TORCH_IFNET): $(SRC_PATH)/tests/dnn/temporal_models.py | $(DNN_TORCH_STAMP)
	$(M)$(TORCH_PYTHON) $< make $(@D)
# a pair's frames are counted one by one, batched or not, and named by their
# time after the pair's first frame
FATE_DNN_TORCH += fate-dnn-torch-warning-non-finite-pair fate-dnn-torch-warning-non-finite-batch
fate-dnn-torch-warning-non-finite-pair fate-dnn-torch-warning-non-finite-batch: $(DNN_TORCH_IFNET)
fate-dnn-torch-warning-non-finite-pair: CMD = $(DNN_TORCH_CHECK) warning $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.12,format=rgb24 \
    -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/pair-non-finite.pt:factor=4 -f null -
fate-dnn-torch-warning-non-finite-batch: CMD = $(DNN_TORCH_CHECK) warning $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.12,format=rgb24 \
    -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/pair-non-finite.pt:factor=4:batch=3 -f null -
# $(1) test name, $(2) lavfi source, $(3) factor=N or fps=RATE, $(4) scene
define FATE_DNN_TORCH_INTERPOLATE_TEST
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-$(1)
fate-dnn-torch-interpolate-$(1): CMD = $$(DNN_TORCH_CHECK) interpolate $(TARGET_PATH) $(TORCH_PYTHON) \
    $$(DNN_TORCH_DIR)/ifnet.pt "$(2)" $(3) $(4) 50
endef
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_TEST,x2,testsrc2=s=64x48:r=25:d=0.4,factor=2,0))
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_TEST,x4-odd,testsrc2=s=63x47:r=25:d=0.2,factor=4,0))
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_TEST,fps60,testsrc2=s=64x48:r=24000/1001:d=0.5,fps=60,0))
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_TEST,fps60-late,testsrc2=s=32x24:r=24000/1001:d=0.3$(DNN_TORCH_COMMA)setpts=PTS+200000000000000,fps=60,0))
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_TEST,vfr,testsrc2=s=64x48:r=25:d=0.4$(DNN_TORCH_COMMA)setpts=N*N/TB,factor=2,0))
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_TEST,scene,testsrc2=s=64x48:r=25:d=0.16[a];testsrc=s=64x48:r=25:d=0.16[b];[a][b]concat,factor=3,0.2))
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_TEST,scdet,testsrc2=s=64x48:r=25:d=0.16[a];testsrc=s=64x48:r=25:d=0.16[b];[a][b]concat,factor=3,scdet:3))
# no drift over 10,000 frames, 24000/1001 to 60 fps: every output time (25,025
# of them) is the exact multiple of 1/60 that the timestamps give, and every
# t, held by a blend of the pair at t (blend-scalar-t.pt, cheap) against
# eager PyTorch
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-fps60-10000
fate-dnn-torch-interpolate-fps60-10000: CMD = $(DNN_TORCH_CHECK) interpolate $(TARGET_PATH) $(TORCH_PYTHON) \
    $(DNN_TORCH_DIR)/blend-scalar-t.pt "testsrc2=s=16x16:r=24000/1001$(DNN_TORCH_COMMA)trim=end_frame=10000" fps=60 0 50
# a scene cut found by the score on yuv420p frames: the frames between the
# two shots are the earlier frame itself (output 9 to 11: pair 3, the cut),
# not the earlier frame through the model's RGB conversion
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-scene-exact
fate-dnn-torch-interpolate-scene-exact: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    -f lavfi -i "testsrc2=s=64x48:r=25:d=0.16[a];testsrc=s=64x48:r=25:d=0.16[b];[a][b]concat" -fps_mode passthrough \
    -vf "format=yuv420p,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:factor=3:scene=0.2,select=between(n\,9\,11)" -- \
    -f lavfi -i "testsrc2=s=64x48:r=25:d=0.16[a];testsrc=s=64x48:r=25:d=0.16[b];[a][b]concat" -fps_mode passthrough \
    -vf "format=yuv420p,select=eq(n\,3),loop=loop=2:size=1"
# batch=N: the times of a pair in one run, the pair and t as a batch,
# against the same eager reference of one time a run: 4x (one run of 3
# times a pair), 24000/1001 to 60 fps (runs of 1 and 2 times), a scene cut
# (the earlier frame at each time of the batch)
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_TEST,batch-x4,testsrc2=s=63x47:r=25:d=0.2,factor=4:batch=3,0))
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_TEST,batch-fps60,testsrc2=s=64x48:r=24000/1001:d=0.5,fps=60:batch=2,0))
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_TEST,batch-scene,testsrc2=s=64x48:r=25:d=0.16[a];testsrc=s=64x48:r=25:d=0.16[b];[a][b]concat,factor=3:batch=2,0.2))
# the same net exported by tools/dnn-torch-export.py --inputs pair; the
# tool's errors for a pair model as .pt2 and a one-frame model as a pair
DNN_TORCH_IFNET_EXPORTED = $(DNN_TORCH_DATA)/ifnet-exported.pt
$(DNN_TORCH_IFNET_EXPORTED): $(SRC_PATH)/tools/dnn-torch-export.py $(SRC_PATH)/tests/dnn/temporal_models.py | $(DNN_TORCH_STAMP)
	$(M)$(TORCH_PYTHON) $< $(SRC_PATH)/tests/dnn/temporal_models.py:IFNetTiny $@ --inputs pair --format torchscript >$@.log
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-exported
fate-dnn-torch-interpolate-exported: $(DNN_TORCH_IFNET_EXPORTED)
fate-dnn-torch-interpolate-exported: CMD = $(DNN_TORCH_CHECK) interpolate $(TARGET_PATH) $(TORCH_PYTHON) \
    $(DNN_TORCH_DIR)/ifnet-exported.pt "testsrc2=s=64x48:r=25:d=0.2" factor=2 0 50
# the same weights as .pt2 packages (tools/dnn-torch-export.py --inputs
# pair, and stacked:5 with a sigma plane): the filters give the same
# frames as with the TorchScript files, which the tests above hold against
# eager PyTorch (the pair's frames channels-last, as CUDA packages in fp16
# take them: a package's code assumes the strides it was compiled for); the
# package's signature against the filter's options
DNN_TORCH_TEMPORAL_PT2 = $(DNN_TORCH_DATA)/ifnet.pt2 $(DNN_TORCH_DATA)/fastdvd.pt2
# and a package of batches of up to 3 times (--batch 3).  (unset CC CXX:
# where the environment has them, FFmpeg's make exports its own, an echo
# in front of the compiler, and torch's compiles, Triton's too, call them)
DNN_TORCH_IFNET_BATCH_PT2 = $(DNN_TORCH_DATA)/ifnet-batch.pt2
$(DNN_TORCH_IFNET_BATCH_PT2): $(DNN_TORCH_IFNET) $(SRC_PATH)/tools/dnn-torch-export.py
	$(M)unset CC CXX && $(TORCH_PYTHON) $(SRC_PATH)/tools/dnn-torch-export.py $(SRC_PATH)/tests/dnn/temporal_models.py:IFNetTiny \
	    $@ --checkpoint $(DNN_TORCH_DATA)/ifnet.state.pt --inputs pair --batch 3 --no-simd --channels-last on >$@.log
$(DNN_TORCH_DATA)/ifnet.pt2: $(DNN_TORCH_IFNET) $(SRC_PATH)/tools/dnn-torch-export.py
	$(M)unset CC CXX && $(TORCH_PYTHON) $(SRC_PATH)/tools/dnn-torch-export.py $(SRC_PATH)/tests/dnn/temporal_models.py:IFNetTiny \
	    $@ --checkpoint $(DNN_TORCH_DATA)/ifnet.state.pt --inputs pair --no-simd --channels-last on >$@.log
$(DNN_TORCH_DATA)/fastdvd.pt2: $(DNN_TORCH_IFNET) $(SRC_PATH)/tools/dnn-torch-export.py
	$(M)unset CC CXX && $(TORCH_PYTHON) $(SRC_PATH)/tools/dnn-torch-export.py $(SRC_PATH)/tests/dnn/temporal_models.py:FastDVDTiny \
	    $@ --checkpoint $(DNN_TORCH_DATA)/fastdvd.state.pt --inputs stacked:5 --sigma plane --no-simd >$@.log
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-pt2
fate-dnn-torch-interpolate-pt2: $(DNN_TORCH_TEMPORAL_PT2)
fate-dnn-torch-interpolate-pt2: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) 50 \
    -f lavfi -i testsrc2=s=63x47:r=25:d=0.4,format=rgb24 -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt2:factor=3 -- \
    -f lavfi -i testsrc2=s=63x47:r=25:d=0.4,format=rgb24 -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:factor=3
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-pt2-error-t
fate-dnn-torch-interpolate-pt2-error-t: $(DNN_TORCH_TEMPORAL_PT2)
fate-dnn-torch-interpolate-pt2-error-t: CMD = $(DNN_TORCH_CHECK) fails "takes t as a 0-D tensor: set t_plane=0" \
    $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 \
    -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt2:t_plane=1 -f null -
# the batch package: 60 fps from 24000/1001 (runs of 1 to 3 times) as the
# TorchScript file one time a run; its batch against the filter's
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-batch-pt2
fate-dnn-torch-interpolate-batch-pt2: $(DNN_TORCH_IFNET_BATCH_PT2)
fate-dnn-torch-interpolate-batch-pt2: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) 50 \
    -f lavfi -i testsrc2=s=63x47:r=24000/1001:d=0.5,format=rgb24 -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet-batch.pt2:fps=60:batch=3 -- \
    -f lavfi -i testsrc2=s=63x47:r=24000/1001:d=0.5,format=rgb24 -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:fps=60
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-batch-pt2-error-unset
fate-dnn-torch-interpolate-batch-pt2-error-unset: $(DNN_TORCH_IFNET_BATCH_PT2)
fate-dnn-torch-interpolate-batch-pt2-error-unset: CMD = $(DNN_TORCH_CHECK) fails "takes a batch of up to 3 times (tools/dnn-torch-export.py --batch 3): set batch" \
    $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 \
    -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet-batch.pt2:factor=4 -f null -
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-batch-pt2-error-more
fate-dnn-torch-interpolate-batch-pt2-error-more: $(DNN_TORCH_IFNET_BATCH_PT2)
fate-dnn-torch-interpolate-batch-pt2-error-more: CMD = $(DNN_TORCH_CHECK) fails "batch=4 asks for more" \
    $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 \
    -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet-batch.pt2:factor=5:batch=4 -f null -
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-batch-pt2-error-one
fate-dnn-torch-interpolate-batch-pt2-error-one: $(DNN_TORCH_TEMPORAL_PT2)
fate-dnn-torch-interpolate-batch-pt2-error-one: CMD = $(DNN_TORCH_CHECK) fails "takes one time a run: batch=3 needs a package exported with --batch 3" \
    $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 \
    -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt2:factor=4:batch=3 -f null -
# a model of 0-D t only, given a batch: the error names the inputs and the option
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-batch-error-model
fate-dnn-torch-interpolate-batch-error-model: CMD = $(DNN_TORCH_CHECK) fails "with a batch of times (batch)" \
    $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 \
    -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/blend-scalar-t.pt:factor=4:batch=3 -f null -
# timestamps that go back (a seek): the frames before end as at the end of
# the input, and interpolation starts again from the new frame; the very
# frames of the two parts run alone, one after the other (the frames after
# the jump were dropped before)
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-jump-back
fate-dnn-torch-interpolate-jump-back: $(DNN_TORCH_IFNET)
fate-dnn-torch-interpolate-jump-back: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.4 -fps_mode passthrough \
    -vf "setpts=N-5*gte(N\,5),format=rgb24,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:factor=2" -- \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.4 -fps_mode passthrough -filter_complex \
    "[0]format=rgb24,split[x][y];[x]trim=end_frame=5,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:factor=2[a];[y]trim=start_frame=5,setpts=PTS-STARTPTS,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:factor=2[b];[a][b]concat"
# Through the API (api-dnn-error.c): a pair model that fails on the first
# real pair (an index out of range), and the application goes on: every
# later call returns with the error; none waits for the run that failed
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-api-error-interpolate
fate-dnn-torch-api-error-interpolate: $(DNN_TORCH_API_ERROR)
fate-dnn-torch-api-error-interpolate: CMD = timeout -s KILL 120 $(TARGET_PATH)/$(DNN_TORCH_API_ERROR) \
    $(DNN_TORCH_DIR)/pair-lut-out-of-range.pt interpolate
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-export-error-batch
fate-dnn-torch-interpolate-export-error-batch: CMD = $(DNN_TORCH_CHECK) export $(TORCH_PYTHON) \
    $(SRC_PATH)/tests/dnn/gen_torch_models.py:SmallConv $(DNN_TORCH_DATA)/x.pt2 --batch 3
# --aten-kernels (both are the default for CUDA packages): the package
# calls LibTorch's grid_sample and bilinear resizing, the sizes still
# dynamic, and gives the TorchScript file's frames
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-export-aten-kernels
fate-dnn-torch-interpolate-export-aten-kernels: $(DNN_TORCH_IFNET)
fate-dnn-torch-interpolate-export-aten-kernels: CMD = $(DNN_TORCH_CHECK) export $(TORCH_PYTHON) \
    $(SRC_PATH)/tests/dnn/temporal_models.py:IFNetTiny $(DNN_TORCH_DATA)/ifnet-aten-export.pt2 \
    --checkpoint $(DNN_TORCH_DATA)/ifnet.state.pt --inputs pair --aten-kernels grid_sample,bilinear --no-simd
DNN_TORCH_IFNET_ATEN_PT2 = $(DNN_TORCH_DATA)/ifnet-aten.pt2
$(DNN_TORCH_IFNET_ATEN_PT2): $(DNN_TORCH_IFNET) $(SRC_PATH)/tools/dnn-torch-export.py
	$(M)unset CC CXX && $(TORCH_PYTHON) $(SRC_PATH)/tools/dnn-torch-export.py $(SRC_PATH)/tests/dnn/temporal_models.py:IFNetTiny \
	    $@ --checkpoint $(DNN_TORCH_DATA)/ifnet.state.pt --inputs pair --aten-kernels grid_sample,bilinear \
	    --no-simd --channels-last on >$@.log
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-aten-pt2
fate-dnn-torch-interpolate-aten-pt2: $(DNN_TORCH_IFNET_ATEN_PT2)
fate-dnn-torch-interpolate-aten-pt2: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) 50 \
    -f lavfi -i testsrc2=s=63x47:r=24000/1001:d=0.5,format=rgb24 -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet-aten.pt2:fps=60 -- \
    -f lavfi -i testsrc2=s=63x47:r=24000/1001:d=0.5,format=rgb24 -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:fps=60
# What a CUDA package with LibTorch's kernels reads their results as
# (Inductor's plan of its buffers, made without a GPU from fake CUDA tensors):
# the strides LibTorch's kernels write, for the test IFNet and the bench's.
# torch's meta function of bilinear resizing says contiguous for a
# channels-last input of fewer than 16 channels on CUDA, where the kernel
# keeps channels-last; the export tool makes such inputs contiguous.  The
# test IFNet for any size (as the GPU test's package), the bench's for one
# size (where its 12-channel resizes are channels-last).  Needs a torch
# with CUDA (PyPI's), not the GPU.
define FATE_DNN_TORCH_ATEN_LAYOUTS
FATE_DNN_TORCH_LAYOUTS += fate-dnn-torch-interpolate-aten-layouts-$(1)
fate-dnn-torch-interpolate-aten-layouts-$(1): CMD = $$(DNN_TORCH_CHECK) aten-layouts $(TORCH_PYTHON) \
    $(SRC_PATH)/tests/dnn/temporal_models.py:$(2) grid_sample,bilinear $(3)
endef
$(eval $(call FATE_DNN_TORCH_ATEN_LAYOUTS,tiny,IFNetTiny,any))
$(eval $(call FATE_DNN_TORCH_ATEN_LAYOUTS,bench,IFNetBench,192x128))
FATE_DNN_TORCH += $(if $(filter cuda,$(DNN_TORCH_PYTHON_TORCH)),$(FATE_DNN_TORCH_LAYOUTS))
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-export-one-frame
fate-dnn-torch-interpolate-export-one-frame: CMD = $(DNN_TORCH_CHECK) export $(TORCH_PYTHON) \
    $(SRC_PATH)/tests/dnn/gen_torch_models.py:SmallConv $(DNN_TORCH_DATA)/x.pt --inputs pair --format torchscript
# a frame that scdet marks as a scene's first and whose timestamp goes back
# is dropped: the cut moves to the next frame (as if the dropped frame had
# never been there, when scdet finds the cut on the next one)
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-scdet-dropped
fate-dnn-torch-interpolate-scdet-dropped: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    -f lavfi -i "testsrc2=s=64x48:r=25:d=0.16[a];testsrc=s=64x48:r=25:d=0.16[b];[a][b]concat,format=rgb24" \
    -vf "scdet,setpts=if(eq(N\,4)\,PREV_INPTS\,PTS),dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:factor=3:scdet=1" -- \
    -f lavfi -i "testsrc2=s=64x48:r=25:d=0.16[a];testsrc=s=64x48:r=25:d=0.16[b];[a][b]concat,format=rgb24" \
    -vf "select=not(eq(n\,4)),scdet,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:factor=3:scdet=1"
# scdet's mark of a scene's first frame stays on that frame: not on the
# frames made after it, interpolated or repeated at the end (a later filter
# with scdet=1 would find a cut at each)
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-scdet-marks
fate-dnn-torch-interpolate-scdet-marks: CMD = $(DNN_TORCH_CHECK) frames $(TARGET_PATH)/ffmpeg \
    -f lavfi -i "testsrc2=s=64x48:r=25:d=0.2[a];testsrc=s=64x48:r=25:d=0.2[b];[a][b]concat,format=rgb24" \
    -vf "scdet,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:factor=4:scdet=1,metadata=mode=select:key=lavfi.scd.time"
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-scdet-marks-end
fate-dnn-torch-interpolate-scdet-marks-end: CMD = $(DNN_TORCH_CHECK) frames $(TARGET_PATH)/ffmpeg \
    -f lavfi -i "testsrc2=s=64x48:r=25:d=0.2[a];testsrc=s=64x48:r=25:d=0.04[b];[a][b]concat,format=rgb24" \
    -vf "scdet,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:factor=4:scdet=1,metadata=mode=select:key=lavfi.scd.time"
# with fps the first frame sent at or after the marked one's time (0.417 s)
# carries the mark: 26/60 s, and at 3 fps 2/3 s, two pairs later (pairs
# without an output time pass it on)
define FATE_DNN_TORCH_SCDET_MARKS_FPS
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-scdet-marks-fps$(1)
fate-dnn-torch-interpolate-scdet-marks-fps$(1): CMD = $$(DNN_TORCH_CHECK) frames $(TARGET_PATH)/ffmpeg \
    -f lavfi -i "testsrc2=s=64x48:r=24000/1001:d=0.4[a];testsrc=s=64x48:r=24000/1001:d=0.4[b];[a][b]concat,format=rgb24" \
    -vf "scdet,dnn_interpolate=model=$$(DNN_TORCH_DIR)/ifnet.pt:fps=$(1):scdet=1,metadata=mode=select:key=lavfi.scd.time"
endef
$(eval $(call FATE_DNN_TORCH_SCDET_MARKS_FPS,60))
$(eval $(call FATE_DNN_TORCH_SCDET_MARKS_FPS,3))
# errors: scene and scdet both set; a model of one frame, as TorchScript
# and as a .pt2 package
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-error-scdet-scene
fate-dnn-torch-interpolate-error-scdet-scene: CMD = $(DNN_TORCH_CHECK) fails \
    "scene and scdet are two ways of finding scene cuts: set one of them" $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:scene=0.2:scdet=1 -f null -
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-error-one-frame-model
fate-dnn-torch-interpolate-error-one-frame-model: CMD = $(DNN_TORCH_CHECK) error $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/conv.pt -f null -
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-error-pt2
fate-dnn-torch-interpolate-error-pt2: $(DNN_TORCH_PT2_STAMP)
fate-dnn-torch-interpolate-error-pt2: CMD = $(DNN_TORCH_CHECK) error $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/conv.pt2 -f null -
# scdet=1 without the scdet filter before it finds no cut: said at the end
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-scdet-missing
fate-dnn-torch-interpolate-scdet-missing: CMD = $(DNN_TORCH_CHECK) warning $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:scdet=1 -f null -
# fps takes a rate's name as the fps filter does: ntsc is 30000/1001
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-fps-name
fate-dnn-torch-interpolate-fps-name: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.4,format=rgb24 -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:fps=ntsc -- \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.4,format=rgb24 -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:fps=30000/1001
# frames of the timestamp of the frame before are dropped: said once, with
# the time in seconds, and counted at the end
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-same-pts
fate-dnn-torch-interpolate-same-pts: CMD = $(DNN_TORCH_CHECK) warning $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=50:d=0.4,format=rgb24 \
    -vf "settb=1/25,setpts=floor(N/2)+2,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt" -f null -
# a model that fails in a run (an index out of range at the first real
# pair): the exception, what the model was given, and EIO as dnn_processing
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-error-run
fate-dnn-torch-interpolate-error-run: CMD = $(DNN_TORCH_CHECK) error $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 -vf dnn_interpolate=model=$(DNN_TORCH_DIR)/pair-lut-out-of-range.pt -f null -
# fps=RATE gives the frame count and timestamps of the fps filter at RATE
# (tests/dnn/interpolate-times.sh, the filter graph's own output): the
# first frame's time and the end of the input rounded to the nearest
# output time, halves away from 0 (fps's round=near, eof_action=round),
# the end the input's end (its status); 24000/1001 to 60 over 1.001 s (60
# frames, not 61), variable frame rate (setpts=N*N: its end is N=10, 100
# ticks), downsampling, ntsc, a first frame rounded down (0.04 s: 2.4) and
# a negative start at a half (-5/24 s: -12.5 to -13, the end 17.5 to 18),
# a scene cut
# $(1) test name, $(2) lavfi source, $(3) filters before (null: none), $(4) rate, $(5) model and options
define FATE_DNN_TORCH_INTERPOLATE_AS_FPS
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-as-fps-$(1)
fate-dnn-torch-interpolate-as-fps-$(1): CMD = $$(DNN_TORCH_TIMES) same $(TARGET_PATH)/ffmpeg "$(2)" \
    "$(3),fps=$(4)" "$(3),dnn_interpolate=model=$$(DNN_TORCH_DIR)/$(if $(5),$(5),blend-scalar-t.pt):fps=$(4)"
endef
DNN_TORCH_TIMES = $(SRC_PATH)/tests/dnn/interpolate-times.sh
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_AS_FPS,cfr,testsrc2=s=16x16:r=24000/1001:d=1.001,null,60))
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_AS_FPS,vfr,testsrc2=s=16x16:r=25:d=0.4,setpts=N*N,60))
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_AS_FPS,down10,testsrc2=s=16x16:r=25:d=1.04,null,10))
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_AS_FPS,down7,testsrc2=s=16x16:r=25:d=1.04,null,7))
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_AS_FPS,ntsc,testsrc2=s=16x16:r=24000/1001:d=2,null,ntsc))
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_AS_FPS,start,testsrc2=s=16x16:r=25:d=0.4,setpts=PTS+1,60))
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_AS_FPS,negative,testsrc2=s=16x16:r=24:d=0.5,setpts=PTS-5,60))
$(eval $(call FATE_DNN_TORCH_INTERPOLATE_AS_FPS,scene,testsrc2=s=64x48:r=25:d=0.16[a];testsrc=s=64x48:r=25:d=0.16[b];[a][b]concat,format=rgb24,60,ifnet.pt:scene=0.2))
# timestamps near 2^62: exact where the output's fit in 64 bits (frames at
# 2^62 - 512 * (4 - N), 1/25: factor=2 and fps=50 against the same frames
# at 512 * (N + 1), the output's times 2 * (2^62 - 2560) later, the same
# pictures), else an error that names the timestamp, ERANGE (factor=4 and
# fps=100 at the first frame: fps=100 hung, factor=4 wrapped to negative
# times), an interval of more than 2^63 (fps=1; it ran for ever), an end of
# the input that does not fit (fps=50: the end at 2^62 is 2^63; the frames
# before it are sent); never a hang (killed after 60 s) nor a wrapped time
DNN_TORCH_NEAR62 = setpts=4611686018427387904-512*(4-N)
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-range-factor
fate-dnn-torch-interpolate-range-factor: CMD = $(DNN_TORCH_TIMES) shifted $(TARGET_PATH)/ffmpeg testsrc2=s=16x16:r=25:d=0.12 \
    9223372036854770688 "$(DNN_TORCH_NEAR62),dnn_interpolate=model=$(DNN_TORCH_DIR)/blend-scalar-t.pt:factor=2" \
    "setpts=512*(N+1),dnn_interpolate=model=$(DNN_TORCH_DIR)/blend-scalar-t.pt:factor=2"
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-range-fps
fate-dnn-torch-interpolate-range-fps: CMD = $(DNN_TORCH_TIMES) shifted $(TARGET_PATH)/ffmpeg testsrc2=s=16x16:r=25:d=0.12 \
    9223372036854770688 "$(DNN_TORCH_NEAR62),dnn_interpolate=model=$(DNN_TORCH_DIR)/blend-scalar-t.pt:fps=50" \
    "setpts=512*(N+1),dnn_interpolate=model=$(DNN_TORCH_DIR)/blend-scalar-t.pt:fps=50"
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-range-error-factor
fate-dnn-torch-interpolate-range-error-factor: CMD = $(DNN_TORCH_TIMES) frames $(TARGET_PATH)/ffmpeg testsrc2=s=16x16:r=25:d=0.12 \
    "$(DNN_TORCH_NEAR62),dnn_interpolate=model=$(DNN_TORCH_DIR)/blend-scalar-t.pt:factor=4"
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-range-error-fps
fate-dnn-torch-interpolate-range-error-fps: CMD = $(DNN_TORCH_TIMES) frames $(TARGET_PATH)/ffmpeg testsrc2=s=16x16:r=25:d=0.12 \
    "$(DNN_TORCH_NEAR62),dnn_interpolate=model=$(DNN_TORCH_DIR)/blend-scalar-t.pt:fps=100"
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-range-error-interval
fate-dnn-torch-interpolate-range-error-interval: CMD = $(DNN_TORCH_TIMES) frames $(TARGET_PATH)/ffmpeg testsrc2=s=16x16:r=25:d=0.12 \
    "setpts=if(N\,5e18\,-5e18),dnn_interpolate=model=$(DNN_TORCH_DIR)/blend-scalar-t.pt:fps=1"
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-range-error-end
fate-dnn-torch-interpolate-range-error-end: CMD = $(DNN_TORCH_TIMES) frames $(TARGET_PATH)/ffmpeg testsrc2=s=16x16:r=25:d=0.12 \
    "setpts=4611686018427387904-512*(3-N),dnn_interpolate=model=$(DNN_TORCH_DIR)/blend-scalar-t.pt:fps=50"
# negative timestamps, exactly: 10 s before 0 (factor=2: 500 ticks of 1/50
# earlier), and at 60 fps from 25 a start off the output's grid (-251 and
# 249 ticks: 1200 output ticks apart), the same pictures
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-negative-factor
fate-dnn-torch-interpolate-negative-factor: CMD = $(DNN_TORCH_TIMES) shifted $(TARGET_PATH)/ffmpeg testsrc2=s=16x16:r=25:d=0.4 \
    -500 "setpts=PTS-10/TB,dnn_interpolate=model=$(DNN_TORCH_DIR)/blend-scalar-t.pt:factor=2" \
    "null,dnn_interpolate=model=$(DNN_TORCH_DIR)/blend-scalar-t.pt:factor=2"
FATE_DNN_TORCH_INTERPOLATE += fate-dnn-torch-interpolate-negative-fps
fate-dnn-torch-interpolate-negative-fps: CMD = $(DNN_TORCH_TIMES) shifted $(TARGET_PATH)/ffmpeg testsrc2=s=16x16:r=25:d=0.4 \
    -1200 "setpts=PTS-251,dnn_interpolate=model=$(DNN_TORCH_DIR)/blend-scalar-t.pt:fps=60" \
    "setpts=PTS+249,dnn_interpolate=model=$(DNN_TORCH_DIR)/blend-scalar-t.pt:fps=60"
$(FATE_DNN_TORCH_INTERPOLATE): $(DNN_TORCH_IFNET)
FATE_DNN_TORCH += $(FATE_DNN_TORCH_INTERPOLATE)

# dnn_processing with a window of frames and sigma (temporal_models.py make
# writes these models with ifnet.pt): shaped like FastDVDnet (5 frames on
# the channels and a noise map), like EDVR's input (3 frames in a sequence
# and a 0-D sigma) and like DPIR (one frame and a noise map), against the
# same model in eager PyTorch on each frame's window (>= 50 dB), with the
# input's frame count and timestamps: edges replicated (4 frames, and a
# single frame, in a window of 5), variable frame rate input, odd sizes.
define FATE_DNN_TORCH_WINDOW_TEST
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-window-$(1)
fate-dnn-torch-window-$(1): CMD = $$(DNN_TORCH_CHECK) window $(TARGET_PATH) $(TORCH_PYTHON) \
    $$(DNN_TORCH_DIR)/$(2) "$(3)" $(4) $(5) $(6) $(7) 50
endef
$(eval $(call FATE_DNN_TORCH_WINDOW_TEST,fastdvd,fastdvd.pt,testsrc2=s=64x48:r=25:d=0.4,5,stacked,0.1,1))
$(eval $(call FATE_DNN_TORCH_WINDOW_TEST,fastdvd-four-frames,fastdvd.pt,testsrc2=s=63x47:r=25:d=0.16,5,stacked,0.05,1))
$(eval $(call FATE_DNN_TORCH_WINDOW_TEST,fastdvd-one-frame,fastdvd.pt,testsrc2=s=64x48:r=25:d=0.04,5,stacked,0.05,1))
$(eval $(call FATE_DNN_TORCH_WINDOW_TEST,sequence-vfr,sequence.pt,testsrc2=s=64x48:r=25:d=0.4$(DNN_TORCH_COMMA)setpts=N*N/TB,3,sequence,0.5,0))
$(eval $(call FATE_DNN_TORCH_WINDOW_TEST,dpir,dpir.pt,testsrc2=s=64x48:r=25:d=0.2,1,stacked,0.1,1))
# the window as a .pt2 package, against the TorchScript file
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-window-pt2
fate-dnn-torch-window-pt2: $(DNN_TORCH_TEMPORAL_PT2)
fate-dnn-torch-window-pt2: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) 50 \
    -f lavfi -i testsrc2=s=63x47:r=25:d=0.4,format=rgb24 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/fastdvd.pt2:frames=5:sigma=0.1 -- \
    -f lavfi -i testsrc2=s=63x47:r=25:d=0.4,format=rgb24 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/fastdvd.pt:frames=5:sigma=0.1
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-window-pt2-error-frames
fate-dnn-torch-window-pt2-error-frames: $(DNN_TORCH_TEMPORAL_PT2)
fate-dnn-torch-window-pt2-error-frames: CMD = $(DNN_TORCH_CHECK) fails \
    "The .pt2 package takes 5 frames stacked on the channels (tools/dnn-torch-export.py --inputs stacked:5); the filter gives 3 frames stacked on the channels" \
    $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/fastdvd.pt2:frames=3:sigma=0.1 -f null -
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-window-pt2-error-sigma
fate-dnn-torch-window-pt2-error-sigma: $(DNN_TORCH_TEMPORAL_PT2)
fate-dnn-torch-window-pt2-error-sigma: CMD = $(DNN_TORCH_CHECK) fails \
    "The .pt2 package takes sigma as a plane after the frames; sigma and sigma_plane give no sigma" \
    $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/fastdvd.pt2:frames=5 -f null -
# the end of the input where the input ends: the last windows come out at
# the end, and fps after the filter must not repeat the last frame (an end
# read from frames passed on, about twice the input's, made it)
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-window-end
fate-dnn-torch-window-end: CMD = $(DNN_TORCH_CHECK) frames $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.4,format=rgb24 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/sequence.pt:frames=3:window=sequence:sigma=0.5:sigma_plane=0,fps=25
# errors: an even window, a model of 5 frames given 3, a .pt2 package of one frame
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-window-error-even
fate-dnn-torch-window-error-even: CMD = $(DNN_TORCH_CHECK) fails "odd number of frames" $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/fastdvd.pt:frames=4:sigma=0.1 -f null -
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-window-error-frames
fate-dnn-torch-window-error-frames: CMD = $(DNN_TORCH_CHECK) fails \
    "The model was given 3 frames as stacked channels and a sigma plane: forward(\[1, 9, 48, 64\], \[1, 1, 48, 64\])" \
    $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/fastdvd.pt:frames=3:sigma=0.1 -f null -
# timestamps that go back (a seek): the frames before end as at the end of
# the input, and the window starts again from the new frame; the very
# frames of the two parts run alone, one after the other (windows mixed
# frames of both sides before)
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-window-jump-back
fate-dnn-torch-window-jump-back: $(DNN_TORCH_IFNET)
fate-dnn-torch-window-jump-back: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.4 -fps_mode passthrough \
    -vf "setpts=N-5*gte(N\,5),format=rgb24,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/fastdvd.pt:frames=5:sigma=0.1" -- \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.4 -fps_mode passthrough -filter_complex \
    "[0]format=rgb24,split[x][y];[x]trim=end_frame=5,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/fastdvd.pt:frames=5:sigma=0.1[a];[y]trim=start_frame=5,setpts=PTS-STARTPTS,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/fastdvd.pt:frames=5:sigma=0.1[b];[a][b]concat"
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-window-error-pt2
fate-dnn-torch-window-error-pt2: $(DNN_TORCH_PT2_STAMP)
fate-dnn-torch-window-error-pt2: CMD = $(DNN_TORCH_CHECK) fails "The .pt2 package takes one frame" $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt2:frames=3 -f null -

# recurrent models (dnn_processing recurrent=1): a recurrent 2x
# super-resolution net against eager PyTorch (>= 50 dB, the input's frame
# count and timestamps), its state carried from frame to frame and started
# again at a scene cut (scene) and where the timestamps go back (a seek:
# frames 5 to 9 have the timestamps of 0 to 4 again)
define FATE_DNN_TORCH_RECURRENT_TEST
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-recurrent-$(1)
fate-dnn-torch-recurrent-$(1): CMD = $$(DNN_TORCH_CHECK) recurrent $(TARGET_PATH) $(TORCH_PYTHON) \
    $$(DNN_TORCH_DIR)/recurrent$(if $(5),-sigma).pt "$(2)" $(3) $(4) $(if $(5),$(5),-1) 50
endef
$(eval $(call FATE_DNN_TORCH_RECURRENT_TEST,carried,testsrc2=s=63x47:r=25:d=0.4,0,-))
$(eval $(call FATE_DNN_TORCH_RECURRENT_TEST,scene,testsrc2=s=64x48:r=25:d=0.2[a];testsrc=s=64x48:r=25:d=0.2[b];[a][b]concat,0.2,-))
$(eval $(call FATE_DNN_TORCH_RECURRENT_TEST,seek,testsrc2=s=64x48:r=25:d=0.4$(DNN_TORCH_COMMA)setpts=N-5*gte(N\$(DNN_TORCH_COMMA)5),0,5))
# a 0-D noise level after the state (forward(frame, state, sigma)), as a
# recurrent denoiser takes one
$(eval $(call FATE_DNN_TORCH_RECURRENT_TEST,sigma,testsrc2=s=64x48:r=25:d=0.2[a];testsrc=s=64x48:r=25:d=0.2[b];[a][b]concat,0.2,-,0.3))
# the same weights as a .pt2 package (tools/dnn-torch-export.py --inputs
# recurrent: a program for the first frame, compiled with no state, and one
# with the state) give the frames of the TorchScript file, which the tests
# above hold against eager PyTorch: its state started again at a scene cut
# and at a seek (every frame kept: timestamps that go back), where the
# package's first program runs again
DNN_TORCH_RECURRENT_PT2 = $(DNN_TORCH_DATA)/recurrent.pt2
$(DNN_TORCH_RECURRENT_PT2): $(DNN_TORCH_IFNET) $(SRC_PATH)/tools/dnn-torch-export.py
	$(M)unset CC CXX && $(TORCH_PYTHON) $(SRC_PATH)/tools/dnn-torch-export.py $(SRC_PATH)/tests/dnn/temporal_models.py:RecurrentTiny \
	    $@ --checkpoint $(DNN_TORCH_DATA)/recurrent.state.pt --inputs recurrent --no-simd >$@.log
define FATE_DNN_TORCH_RECURRENT_PT2_TEST
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-recurrent-pt2-$(1)
fate-dnn-torch-recurrent-pt2-$(1): $(DNN_TORCH_RECURRENT_PT2)
fate-dnn-torch-recurrent-pt2-$(1): CMD = $$(DNN_TORCH_CHECK) compare $(TARGET_PATH) 50 \
    -f lavfi -i "$(2),format=rgb24" -vf dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/recurrent.pt2:recurrent=1:scene=$(3) -fps_mode passthrough -- \
    -f lavfi -i "$(2),format=rgb24" -vf dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/recurrent.pt:recurrent=1:scene=$(3) -fps_mode passthrough
endef
$(eval $(call FATE_DNN_TORCH_RECURRENT_PT2_TEST,scene,testsrc2=s=64x48:r=25:d=0.2[a];testsrc=s=64x48:r=25:d=0.2[b];[a][b]concat,0.2))
$(eval $(call FATE_DNN_TORCH_RECURRENT_PT2_TEST,seek,testsrc2=s=63x47:r=25:d=0.4$(DNN_TORCH_COMMA)setpts=N-5*gte(N\$(DNN_TORCH_COMMA)5),0))
# with the noise level after the state (--sigma 0-d): both programs take it
DNN_TORCH_RECURRENT_SIGMA_PT2 = $(DNN_TORCH_DATA)/recurrent-sigma.pt2
$(DNN_TORCH_RECURRENT_SIGMA_PT2): $(DNN_TORCH_IFNET) $(SRC_PATH)/tools/dnn-torch-export.py
	$(M)unset CC CXX && $(TORCH_PYTHON) $(SRC_PATH)/tools/dnn-torch-export.py $(SRC_PATH)/tests/dnn/temporal_models.py:RecurrentSigmaTiny \
	    $@ --checkpoint $(DNN_TORCH_DATA)/recurrent-sigma.state.pt --inputs recurrent --sigma 0-d --no-simd >$@.log
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-recurrent-pt2-sigma
fate-dnn-torch-recurrent-pt2-sigma: $(DNN_TORCH_RECURRENT_SIGMA_PT2)
fate-dnn-torch-recurrent-pt2-sigma: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) 50 \
    -f lavfi -i "testsrc2=s=64x48:r=25:d=0.2[a];testsrc=s=64x48:r=25:d=0.2[b];[a][b]concat,format=rgb24" \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/recurrent-sigma.pt2:recurrent=1:scene=0.2:sigma=0.3:sigma_plane=0 -fps_mode passthrough -- \
    -f lavfi -i "testsrc2=s=64x48:r=25:d=0.2[a];testsrc=s=64x48:r=25:d=0.2[b];[a][b]concat,format=rgb24" \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/recurrent-sigma.pt:recurrent=1:scene=0.2:sigma=0.3:sigma_plane=0 -fps_mode passthrough
# a recurrent package of no sigma, given one: the message says where it goes
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-recurrent-pt2-error-sigma
fate-dnn-torch-recurrent-pt2-error-sigma: $(DNN_TORCH_RECURRENT_PT2)
fate-dnn-torch-recurrent-pt2-error-sigma: CMD = $(DNN_TORCH_CHECK) fails \
    "The .pt2 package takes no sigma after the frame and its state; sigma and sigma_plane give sigma as a 0-D tensor" \
    $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/recurrent.pt2:recurrent=1:sigma=0.3:sigma_plane=0 -f null -
# a recurrent package whose first frame's program has no compiled library
# but compile flags (tests/dnn/mutate_models.py): refused before LibTorch
# would run the compiler it names
$(DNN_TORCH_DATA)/recurrent-start-flags.pt2: $(DNN_TORCH_RECURRENT_PT2) $(SRC_PATH)/tests/dnn/mutate_models.py
	$(M)$(TORCH_PYTHON) $(SRC_PATH)/tests/dnn/mutate_models.py --without-library start $< $@
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-recurrent-pt2-error-start-library
fate-dnn-torch-recurrent-pt2-error-start-library: $(DNN_TORCH_DATA)/recurrent-start-flags.pt2
fate-dnn-torch-recurrent-pt2-error-start-library: CMD = $(DNN_TORCH_CHECK) fails \
    "with 0 compiled libraries (.so) for its model \"start\", not one" $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/recurrent-start-flags.pt2:recurrent=1 -f null -
# sigma_plane without sigma would change nothing: an error, not silence
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-window-error-sigma-plane
fate-dnn-torch-window-error-sigma-plane: CMD = $(DNN_TORCH_CHECK) fails "sigma_plane is set but sigma is not" \
    $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/fastdvd.pt:frames=5:sigma_plane=0 -f null -
# errors: a window, scene without recurrent, a model that takes no state
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-recurrent-error-frames
fate-dnn-torch-recurrent-error-frames: CMD = $(DNN_TORCH_CHECK) fails "takes one frame and its state" \
    $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/recurrent.pt:recurrent=1:frames=3 -f null -
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-recurrent-error-scene
fate-dnn-torch-recurrent-error-scene: CMD = $(DNN_TORCH_CHECK) fails "it needs recurrent=1" \
    $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt:scene=0.2 -f null -
FATE_DNN_TORCH_WINDOW += fate-dnn-torch-recurrent-error-no-state
fate-dnn-torch-recurrent-error-no-state: CMD = $(DNN_TORCH_CHECK) error $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.2,format=rgb24 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt:recurrent=1 -f null -
$(FATE_DNN_TORCH_WINDOW): $(DNN_TORCH_IFNET)
FATE_DNN_TORCH += $(FATE_DNN_TORCH_WINDOW)

# A change of frame size mid-stream: an MPEG-2 clip of two sequences,
# 352x288 then 176x144 (the decoder gives 3 frames of the first, 4 of the
# second).  ffmpeg configures a new graph for the second size and drains
# the first one, as at the end of a stream: the filters' output on the
# clip is their output on each sequence alone, one after the other, frame
# for frame (each scaled to 176x144 after the filter); an interpolation
# pair, a window and a recurrent state start again, and nothing held at the
# change is lost (the frame count and timestamps are in the reference).
DNN_TORCH_CLIP_RESIZE = $(DNN_TORCH_DATA)/clip-resize.m2v
DNN_TORCH_CLIP_RESIZE_PARTS = $(DNN_TORCH_DATA)/clip-resize-1.m2v $(DNN_TORCH_DATA)/clip-resize-2.m2v
$(DNN_TORCH_DATA)/clip-resize-1.m2v: DNN_TORCH_CLIP_SIZE = 352x288
$(DNN_TORCH_DATA)/clip-resize-2.m2v: DNN_TORCH_CLIP_SIZE = 176x144
$(DNN_TORCH_CLIP_RESIZE_PARTS): ffmpeg$(PROGSSUF)$(EXESUF) | $(DNN_TORCH_STAMP)
	$(M)./ffmpeg$(PROGSSUF)$(EXESUF) -nostdin -v error -y -f lavfi -i testsrc2=s=$(DNN_TORCH_CLIP_SIZE):r=25 -frames:v 4 \
	    -c:v mpeg2video -q:v 2 -f mpeg2video $@
$(DNN_TORCH_CLIP_RESIZE): $(DNN_TORCH_CLIP_RESIZE_PARTS)
	$(M)cat $^ >$@
define FATE_DNN_TORCH_RESIZE_TEST
FATE_DNN_TORCH_RESIZE += fate-dnn-torch-resize-$(1)
fate-dnn-torch-resize-$(1): CMD = $$(DNN_TORCH_CHECK) segments $(TARGET_PATH) "$(2)" \
    $(TARGET_PATH)/$$(DNN_TORCH_CLIP_RESIZE) $(TARGET_PATH)/$$(DNN_TORCH_DATA)/clip-resize-1.m2v 3 \
    $(TARGET_PATH)/$$(DNN_TORCH_DATA)/clip-resize-2.m2v 176x144
endef
$(eval $(call FATE_DNN_TORCH_RESIZE_TEST,one-frame,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt))
$(eval $(call FATE_DNN_TORCH_RESIZE_TEST,interpolate,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:factor=2))
$(eval $(call FATE_DNN_TORCH_RESIZE_TEST,window,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/fastdvd.pt:frames=5:sigma=0.1))
$(eval $(call FATE_DNN_TORCH_RESIZE_TEST,recurrent,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/recurrent.pt:recurrent=1))
# A size change inside the graph (scale with eval=frame), for which ffmpeg
# starts no new graph: an error that says so, not one that blames the model
define FATE_DNN_TORCH_RESIZE_INSIDE_TEST
FATE_DNN_TORCH_RESIZE += fate-dnn-torch-resize-inside-$(1)
fate-dnn-torch-resize-inside-$(1): CMD = $$(DNN_TORCH_CHECK) fails "the frame size cannot change inside a filter graph" \
    $(TARGET_PATH)/ffmpeg -f lavfi -i testsrc2=s=64x48:r=25:d=0.4 \
    -vf "scale=w=if(gt(n\,3)\,32\,96):h=if(gt(n\,3)\,32\,48):eval=frame,format=rgb24,$(2)" -f null -
endef
$(eval $(call FATE_DNN_TORCH_RESIZE_INSIDE_TEST,one-frame,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt))
$(eval $(call FATE_DNN_TORCH_RESIZE_INSIDE_TEST,interpolate,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt))
$(FATE_DNN_TORCH_RESIZE): $(DNN_TORCH_IFNET) $(DNN_TORCH_CLIP_RESIZE)
FATE_DNN_TORCH += $(FATE_DNN_TORCH_RESIZE)

# A part of a video processed alone, as one GPU of several would: given
# the frames around it that its outputs need (a window's N/2 on each side;
# an interpolation's next frame, and with fps the one before its first
# output time), its output is frame for frame and timestamp for timestamp
# the whole run's.  A recurrent model's part starts at a scene cut, where
# the whole run's state starts again too.  Each against the whole run cut
# to the same times (framecrc: checksums and timestamps).
define FATE_DNN_TORCH_PART_TEST
FATE_DNN_TORCH_PART += fate-dnn-torch-part-$(1)
fate-dnn-torch-part-$(1): CMD = $$(DNN_TORCH_CHECK) part $(TARGET_PATH) "$(2),format=rgb24" "$(3)" $(4)
endef
$(eval $(call FATE_DNN_TORCH_PART_TEST,window,testsrc2=s=64x48:r=25:d=1.2,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/fastdvd.pt:frames=5:sigma=0.1,0.4 0.8 0.32 0.88))
$(eval $(call FATE_DNN_TORCH_PART_TEST,interpolate,testsrc2=s=64x48:r=25:d=1.2,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:factor=2,0.4 0.8 0.4 0.84))
$(eval $(call FATE_DNN_TORCH_PART_TEST,interpolate-fps,testsrc2=s=64x48:r=24000/1001:d=1.5,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:fps=60,0.5 1.0 0.45 1.05))
$(eval $(call FATE_DNN_TORCH_PART_TEST,recurrent,testsrc2=s=64x48:r=25:d=0.4[a];testsrc=s=64x48:r=25:d=0.4[b];[a][b]concat,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/recurrent.pt:recurrent=1:scene=0.2,0.4 0.8 0.4 0.8))
$(FATE_DNN_TORCH_PART): $(DNN_TORCH_IFNET)
FATE_DNN_TORCH += $(FATE_DNN_TORCH_PART)

# A video in parts, on the devices of one machine or of a Ray cluster
# (tools/dnn-torch-parts.py)
include $(SRC_PATH)/tests/fate/dnn-torch-parts.mak

# The models are made at test time by a Python with torch.  A build host
# without one (a distribution building against a C++-only LibTorch) skips
# these tests, and says so, rather than failing them; "make check" then
# finds no test to run and fails.
ifneq ($(CONFIG_LIBTORCH),)
ifneq ($(filter fate fate-dnn-torch% fate-list%,$(MAKECMDGOALS)),)
ifeq ($(DNN_TORCH_PYTHON_TORCH),)
$(warning skipping the torch backend's FATE tests: "$(TORCH_PYTHON)" cannot import torch (set TORCH_PYTHON to a Python with torch to run them))
endif
endif
endif
FATE_DNN_TORCH := $(if $(CONFIG_LIBTORCH),$(if $(DNN_TORCH_PYTHON_TORCH),$(FATE_DNN_TORCH)))
$(FATE_DNN_TORCH): $(DNN_TORCH_STAMP)
$(FATE_DNN_TORCH): ffmpeg$(PROGSSUF)$(EXESUF)

FATE += $(FATE_DNN_TORCH)
fate-dnn-torch: $(FATE_DNN_TORCH)
fate-list-dnn-torch:
	@printf '%s\n' $(FATE_DNN_TORCH)

-include $(SRC_PATH)/tests/fate/dnn-torch-cuda.mak
