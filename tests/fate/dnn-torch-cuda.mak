# FATE tests of CUDA frames through dnn_processing with the torch backend.
# They need a CUDA device (and NVDEC for the -nvdec tests): "make check-gpu"
# runs them; they are not part of "make fate".  Most compare with the CPU
# path: the same references as tests/fate/dnn-torch.mak, bit for bit.

DNN_TORCH_CUDA_DEV = -init_hw_device cuda=cu -filter_hw_device cu

# $(1) test name, $(2) model, $(3) CUDA frames layout, $(4) size, $(5) frames,
# $(6) layout of the CPU reference (rgb24 or bgr24), $(7) CPU test whose
# reference must match, $(8) extra options, $(9) device options
define FATE_DNN_TORCH_CUDA_CRC
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-$(1)
fate-dnn-torch-cuda-$(1): REF = $(SRC_PATH)/tests/ref/fate/dnn-torch-$(7)
fate-dnn-torch-cuda-$(1): CMD = framecrc $(if $(9),$(9),$(DNN_TORCH_CUDA_DEV)) \
    -f lavfi -i testsrc2=s=$(4):r=25,format=rgb24 -frames:v $(5) \
    -vf scale,format=$(3),hwupload,dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/$(2).pt$(8),hwdownload,format=$(3),scale,format=$(6)
endef

# every layout, 317x239 (odd: padded pitch)
$(eval $(call FATE_DNN_TORCH_CUDA_CRC,swap-invert-rgb0,swap_invert,rgb0,317x239,3,rgb24,swap-invert-317x239,))
$(eval $(call FATE_DNN_TORCH_CUDA_CRC,swap-invert-rgba,swap_invert,rgba,317x239,3,rgb24,swap-invert-317x239,:device=cuda))
$(eval $(call FATE_DNN_TORCH_CUDA_CRC,swap-invert-bgr0,swap_invert,bgr0,317x239,3,bgr24,swap-invert-bgr24-317x239,))
$(eval $(call FATE_DNN_TORCH_CUDA_CRC,swap-invert-bgra,swap_invert,bgra,317x239,3,bgr24,swap-invert-bgr24-317x239,:device=cuda))
$(eval $(call FATE_DNN_TORCH_CUDA_CRC,identity-bgr0,identity,bgr0,320x240,5,bgr24,identity-bgr24-sync,:async=0))
# sizes
$(eval $(call FATE_DNN_TORCH_CUDA_CRC,swap-invert-1080p,swap_invert,rgb0,1920x1080,2,rgb24,swap-invert-1080p-sync,))
$(eval $(call FATE_DNN_TORCH_CUDA_CRC,swap-invert-2160p,swap_invert,bgr0,3840x2160,1,bgr24,swap-invert-2160p-bgr24,))
# output size differs: 2x, and 2x in one axis
$(eval $(call FATE_DNN_TORCH_CUDA_CRC,nearest2x-rgb0,nearest2x,rgb0,160x120,3,rgb24,nearest2x-rgb24,))
$(eval $(call FATE_DNN_TORCH_CUDA_CRC,nearest-w2x-rgba,nearest_w2x,rgba,160x120,3,rgb24,nearest-w2x-rgb24,))
# FFmpeg's CUDA device kinds: the primary context, and the default (a context of its own)
$(eval $(call FATE_DNN_TORCH_CUDA_CRC,primary-context,swap_invert,rgb0,317x239,3,rgb24,swap-invert-317x239,,-init_hw_device cuda=cu:0$(DNN_TORCH_COMMA)primary_ctx=1 -filter_hw_device cu))
# frames in system memory with device=cuda (upstream's way)
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-system-frames
fate-dnn-torch-cuda-system-frames: REF = $(SRC_PATH)/tests/ref/fate/dnn-torch-swap-invert-rgb24
fate-dnn-torch-cuda-system-frames: CMD = framecrc -f lavfi -i testsrc2=s=320x240:r=25,format=rgb24 -frames:v 5 \
    -vf scale,format=rgb24,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/swap_invert.pt:device=cuda

# The convolutional net: PSNR against PyTorch's own output.
$(eval $(call FATE_DNN_TORCH_PSNR,cuda-conv-rgb0,conv,rgb24,317x239,5,50,,rgb0))
$(eval $(call FATE_DNN_TORCH_PSNR,cuda-conv-1080p-bgra,conv,bgr24,1920x1080,3,50,,bgra))
$(eval $(call FATE_DNN_TORCH_PSNR,cuda-nearest2x-bgr0,nearest2x,bgr24,317x239,3,exact,,bgr0))
FATE_DNN_TORCH_CUDA += $(filter fate-dnn-torch-cuda-%,$(FATE_DNN_TORCH))
FATE_DNN_TORCH := $(filter-out fate-dnn-torch-cuda-%,$(FATE_DNN_TORCH))

# dnn_interpolate on CUDA frames: rgb0 against the model in eager PyTorch
# (timestamps exact, >= 50 dB); nv12 and p010 against the same filter on
# 8-bit frames in system memory (one meaning of YUV: the same colour math;
# p010's 10 bits of the same picture are rounded to 8 at the end: 40 dB).
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-interpolate-rgb0
fate-dnn-torch-cuda-interpolate-rgb0: $(DNN_TORCH_IFNET)
fate-dnn-torch-cuda-interpolate-rgb0: CMD = $(DNN_TORCH_CHECK) interpolate $(TARGET_PATH) $(TORCH_PYTHON) \
    $(DNN_TORCH_DIR)/ifnet.pt "testsrc2=s=63x47:r=24000/1001:d=0.4" fps=60 0 50 rgb0
# $(1) CUDA layout, $(2) layout of the frames in system memory, $(3) PSNR
define FATE_DNN_TORCH_CUDA_INTERPOLATE
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-interpolate-$(1)
fate-dnn-torch-cuda-interpolate-$(1): $(DNN_TORCH_IFNET)
fate-dnn-torch-cuda-interpolate-$(1): CMD = $$(DNN_TORCH_CHECK) compare $(TARGET_PATH) $(3) \
    $$(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=64x48:r=25:d=0.4,format=$(2),format=$(1) \
    -vf hwupload,dnn_interpolate=model=$$(DNN_TORCH_DIR)/ifnet.pt:factor=3,hwdownload,format=$(1),format=$(2) -- \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.4,format=$(2) \
    -vf dnn_interpolate=model=$$(DNN_TORCH_DIR)/ifnet.pt:factor=3
endef
$(eval $(call FATE_DNN_TORCH_CUDA_INTERPOLATE,nv12,nv12,45))
$(eval $(call FATE_DNN_TORCH_CUDA_INTERPOLATE,p010le,yuv420p,40))
# batch=3: the times of a pair in one run on the GPU, against eager PyTorch
# one time a run (rgb0, 60 fps: runs of 1 to 3 times), and on nv12 against
# the same filter one time a run
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-interpolate-batch-rgb0
fate-dnn-torch-cuda-interpolate-batch-rgb0: $(DNN_TORCH_IFNET)
fate-dnn-torch-cuda-interpolate-batch-rgb0: CMD = $(DNN_TORCH_CHECK) interpolate $(TARGET_PATH) $(TORCH_PYTHON) \
    $(DNN_TORCH_DIR)/ifnet.pt "testsrc2=s=63x47:r=24000/1001:d=0.4" fps=60:batch=3 0 50 rgb0
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-interpolate-batch-nv12
fate-dnn-torch-cuda-interpolate-batch-nv12: $(DNN_TORCH_IFNET)
fate-dnn-torch-cuda-interpolate-batch-nv12: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) 50 \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=64x48:r=25:d=0.4,format=nv12 \
    -vf hwupload,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:factor=4:batch=3,hwdownload,format=nv12 -- \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=64x48:r=25:d=0.4,format=nv12 \
    -vf hwupload,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:factor=4,hwdownload,format=nv12

# a scene cut on CUDA frames: rgb0 against eager PyTorch (no output frame
# mixes the two shots: the reference, whose cuts the reference's own score
# finds, repeats the earlier frame there, and the PSNR catches a cut the
# filter missed), and nv12: the frames between the shots are the earlier
# frame itself, copied on the device (output 9 to 11: pair 3)
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-interpolate-scene-rgb0
fate-dnn-torch-cuda-interpolate-scene-rgb0: $(DNN_TORCH_IFNET)
fate-dnn-torch-cuda-interpolate-scene-rgb0: CMD = $(DNN_TORCH_CHECK) interpolate $(TARGET_PATH) $(TORCH_PYTHON) \
    $(DNN_TORCH_DIR)/ifnet.pt "testsrc2=s=64x48:r=25:d=0.16[a];testsrc=s=64x48:r=25:d=0.16[b];[a][b]concat" factor=3 0.2 50 rgb0
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-interpolate-scene-exact-nv12
fate-dnn-torch-cuda-interpolate-scene-exact-nv12: $(DNN_TORCH_IFNET)
fate-dnn-torch-cuda-interpolate-scene-exact-nv12: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i "testsrc2=s=64x48:r=25:d=0.16[a];testsrc=s=64x48:r=25:d=0.16[b];[a][b]concat" -fps_mode passthrough \
    -vf "format=nv12,hwupload,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:factor=3:scene=0.2,hwdownload,format=nv12,select=between(n\,9\,11)" -- \
    -f lavfi -i "testsrc2=s=64x48:r=25:d=0.16[a];testsrc=s=64x48:r=25:d=0.16[b];[a][b]concat" -fps_mode passthrough \
    -vf "format=nv12,select=eq(n\,3),loop=loop=2:size=1"

# dnn_processing with a window of frames on CUDA frames, each converted once
# and kept on the device: rgb0 against the model in eager PyTorch (the
# input's timestamps, >= 50 dB); nv12 and p010 against the same filter on
# frames in system memory, as for dnn_interpolate
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-window-rgb0
fate-dnn-torch-cuda-window-rgb0: $(DNN_TORCH_IFNET)
fate-dnn-torch-cuda-window-rgb0: CMD = $(DNN_TORCH_CHECK) window $(TARGET_PATH) $(TORCH_PYTHON) \
    $(DNN_TORCH_DIR)/fastdvd.pt "testsrc2=s=63x47:r=25:d=0.4" 5 stacked 0.1 1 50 rgb0
# a recurrent model on rgb0 CUDA frames, its state on the GPU, started again
# at the scene cut, against eager PyTorch
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-recurrent-rgb0
fate-dnn-torch-cuda-recurrent-rgb0: $(DNN_TORCH_IFNET)
fate-dnn-torch-cuda-recurrent-rgb0: CMD = $(DNN_TORCH_CHECK) recurrent $(TARGET_PATH) $(TORCH_PYTHON) \
    $(DNN_TORCH_DIR)/recurrent.pt "testsrc2=s=63x47:r=25:d=0.2[a];testsrc=s=63x47:r=25:d=0.2[b];[a][b]concat" \
    0.2 - -1 50 rgb0
# the recurrent model as a package for this machine's GPU (its two
# programs: the first frame's, and the next frames' with the state), on
# nv12 and rgb0 CUDA frames, as the TorchScript file (held against eager
# PyTorch above), started again at the scene cut
$(DNN_TORCH_DATA)/cuda_recurrent.pt2: $(DNN_TORCH_IFNET) $(SRC_PATH)/tools/dnn-torch-export.py
	$(M)unset CC CXX && $(TORCH_PYTHON) $(SRC_PATH)/tools/dnn-torch-export.py $(SRC_PATH)/tests/dnn/temporal_models.py:RecurrentTiny \
	    $@ --checkpoint $(DNN_TORCH_DATA)/recurrent.state.pt --inputs recurrent --device cuda --no-check >$@.log
define FATE_DNN_TORCH_CUDA_RECURRENT_PT2
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-recurrent-pt2-$(1)
fate-dnn-torch-cuda-recurrent-pt2-$(1): $(DNN_TORCH_DATA)/cuda_recurrent.pt2
fate-dnn-torch-cuda-recurrent-pt2-$(1): CMD = $$(DNN_TORCH_CHECK) compare $(TARGET_PATH) 50 \
    $$(DNN_TORCH_CUDA_DEV) -f lavfi -i "testsrc2=s=64x48:r=25:d=0.2[a];testsrc=s=64x48:r=25:d=0.2[b];[a][b]concat,format=$(1)" \
    -vf hwupload,dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/cuda_recurrent.pt2:recurrent=1:scene=0.2$(2),hwdownload,format=$(1) -- \
    $$(DNN_TORCH_CUDA_DEV) -f lavfi -i "testsrc2=s=64x48:r=25:d=0.2[a];testsrc=s=64x48:r=25:d=0.2[b];[a][b]concat,format=$(1)" \
    -vf hwupload,dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/recurrent.pt:recurrent=1:scene=0.2$(2),hwdownload,format=$(1)
endef
$(eval $(call FATE_DNN_TORCH_CUDA_RECURRENT_PT2,rgb0))
$(eval $(call FATE_DNN_TORCH_CUDA_RECURRENT_PT2,nv12,:yuv_input=rgb))
# the recurrent model on nv12 and p010 CUDA frames, against the same filter
# on 8-bit frames in system memory (held against eager PyTorch by the CPU
# tests), as for dnn_interpolate: the state on the GPU, started again at
# the scene cut
define FATE_DNN_TORCH_CUDA_RECURRENT
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-recurrent-$(1)
fate-dnn-torch-cuda-recurrent-$(1): $(DNN_TORCH_IFNET)
fate-dnn-torch-cuda-recurrent-$(1): CMD = $$(DNN_TORCH_CHECK) compare $(TARGET_PATH) $(3) \
    $$(DNN_TORCH_CUDA_DEV) -f lavfi -i "testsrc2=s=64x48:r=25:d=0.2[a];testsrc=s=64x48:r=25:d=0.2[b];[a][b]concat,format=$(2),format=$(1)" \
    -vf hwupload,dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/recurrent.pt:recurrent=1:scene=0.2:yuv_input=rgb,hwdownload,format=$(1),format=$(2) -fps_mode passthrough -- \
    -f lavfi -i "testsrc2=s=64x48:r=25:d=0.2[a];testsrc=s=64x48:r=25:d=0.2[b];[a][b]concat,format=$(2)" \
    -vf dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/recurrent.pt:recurrent=1:scene=0.2:yuv_input=rgb -fps_mode passthrough
endef
$(eval $(call FATE_DNN_TORCH_CUDA_RECURRENT,nv12,nv12,45))
$(eval $(call FATE_DNN_TORCH_CUDA_RECURRENT,p010le,yuv420p,40))
define FATE_DNN_TORCH_CUDA_WINDOW
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-window-$(1)
fate-dnn-torch-cuda-window-$(1): $(DNN_TORCH_IFNET)
fate-dnn-torch-cuda-window-$(1): CMD = $$(DNN_TORCH_CHECK) compare $(TARGET_PATH) $(3) \
    $$(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=64x48:r=25:d=0.4,format=$(2),format=$(1) \
    -vf hwupload,dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/sequence.pt:frames=3:window=sequence:sigma=0.5:sigma_plane=0:yuv_input=rgb,hwdownload,format=$(1),format=$(2) -- \
    -f lavfi -i testsrc2=s=64x48:r=25:d=0.4,format=$(2) \
    -vf dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/sequence.pt:frames=3:window=sequence:sigma=0.5:sigma_plane=0:yuv_input=rgb
endef
$(eval $(call FATE_DNN_TORCH_CUDA_WINDOW,nv12,nv12,45))
$(eval $(call FATE_DNN_TORCH_CUDA_WINDOW,p010le,yuv420p,40))

# cuda_graph: the model's run captured once and replayed gives the very
# frames of the plain run (cuDNN's autotuner off in both: it may pick other
# kernels in another process), for one frame, a window and a pair; 10 input
# frames, so that the graph is replayed after 3 plain runs and the capture.
# $(1) test name, $(2) filter, with its options but cuda_graph
define FATE_DNN_TORCH_CUDA_GRAPH
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-graph-$(1)
fate-dnn-torch-cuda-graph-$(1): $(DNN_TORCH_IFNET)
fate-dnn-torch-cuda-graph-$(1): CMD = $$(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    $$(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=64x48:r=25:d=0.4,format=nv12 \
    -vf hwupload,$(2):cudnn_benchmark=0:cuda_graph=1,hwdownload,format=nv12 -- \
    $$(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=64x48:r=25:d=0.4,format=nv12 \
    -vf hwupload,$(2):cudnn_benchmark=0:cuda_graph=0,hwdownload,format=nv12
endef
$(eval $(call FATE_DNN_TORCH_CUDA_GRAPH,conv,dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/conv.pt:yuv_input=rgb))
$(eval $(call FATE_DNN_TORCH_CUDA_GRAPH,window,dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/fastdvd.pt:frames=5:sigma=0.1:sigma_plane=1:yuv_input=rgb))
$(eval $(call FATE_DNN_TORCH_CUDA_GRAPH,interpolate,dnn_interpolate=model=$$(DNN_TORCH_DIR)/ifnet.pt:factor=3))
$(eval $(call FATE_DNN_TORCH_CUDA_GRAPH,interpolate-pt2,dnn_interpolate=model=$$(DNN_TORCH_DIR)/cuda_ifnet.pt2:factor=3))
$(eval $(call FATE_DNN_TORCH_CUDA_GRAPH,interpolate-batch,dnn_interpolate=model=$$(DNN_TORCH_DIR)/ifnet.pt:factor=4:batch=3))
$(eval $(call FATE_DNN_TORCH_CUDA_GRAPH,interpolate-batch-pt2,dnn_interpolate=model=$$(DNN_TORCH_DIR)/cuda_ifnet_batch.pt2:factor=4:batch=3))
fate-dnn-torch-cuda-graph-interpolate-batch-pt2: $(DNN_TORCH_DATA)/cuda_ifnet_batch.pt2
# fps=60 from 24000/1001 with batch=3: runs of 3 and 2 times in turn, each
# size with a graph of its own (captured after its own 3 plain runs, then
# replayed): the frames of the plain runs, and the two captures said
DNN_TORCH_GRAPH_FPS = -f lavfi -i testsrc2=s=64x48:r=24000/1001:d=1,format=nv12 \
    -vf hwupload,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:fps=60:batch=3:cudnn_benchmark=0
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-graph-interpolate-fps
fate-dnn-torch-cuda-graph-interpolate-fps: $(DNN_TORCH_IFNET)
fate-dnn-torch-cuda-graph-interpolate-fps: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    $(DNN_TORCH_CUDA_DEV) $(DNN_TORCH_GRAPH_FPS):cuda_graph=1,hwdownload,format=nv12 -- \
    $(DNN_TORCH_CUDA_DEV) $(DNN_TORCH_GRAPH_FPS):cuda_graph=0,hwdownload,format=nv12
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-graph-interpolate-fps-captures
fate-dnn-torch-cuda-graph-interpolate-fps-captures: $(DNN_TORCH_IFNET)
fate-dnn-torch-cuda-graph-interpolate-fps-captures: CMD = $(DNN_TORCH_CHECK) graphs $(TARGET_PATH)/ffmpeg \
    $(DNN_TORCH_CUDA_DEV) $(DNN_TORCH_GRAPH_FPS):cuda_graph=1 -f null -
$(DNN_TORCH_DATA)/cuda_ifnet_batch.pt2: $(DNN_TORCH_IFNET) $(SRC_PATH)/tools/dnn-torch-export.py
	$(M)unset CC CXX && $(TORCH_PYTHON) $(SRC_PATH)/tools/dnn-torch-export.py $(SRC_PATH)/tests/dnn/temporal_models.py:IFNetTiny \
	    $@ --checkpoint $(DNN_TORCH_DATA)/ifnet.state.pt --inputs pair --batch 3 --device cuda --no-check >$@.log
# the batch package on the GPU, as the TorchScript file one time a run
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-interpolate-batch-pt2
fate-dnn-torch-cuda-interpolate-batch-pt2: $(DNN_TORCH_DATA)/cuda_ifnet_batch.pt2
fate-dnn-torch-cuda-interpolate-batch-pt2: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) 50 \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=63x47:r=24000/1001:d=0.4,format=rgb0 \
    -vf hwupload,dnn_interpolate=model=$(DNN_TORCH_DIR)/cuda_ifnet_batch.pt2:fps=60:batch=3,hwdownload,format=rgb0 -- \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=63x47:r=24000/1001:d=0.4,format=rgb0 \
    -vf hwupload,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:fps=60,hwdownload,format=rgb0
# an fp16 package with LibTorch's grid_sample and bilinear resizing
# (--aten-kernels grid_sample,bilinear; channels-last): the TorchScript
# file's frames, as close as fp16 gives them (51 dB without those kernels;
# a result read with the wrong strides made 14 dB, which
# fate-dnn-torch-interpolate-aten-layouts-* shows without a GPU)
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-interpolate-aten-fp16
fate-dnn-torch-cuda-interpolate-aten-fp16: $(DNN_TORCH_DATA)/cuda_ifnet_aten_fp16.pt2
fate-dnn-torch-cuda-interpolate-aten-fp16: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) 45 \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=320x240:r=24000/1001:d=0.4,format=rgb0 \
    -vf hwupload,dnn_interpolate=model=$(DNN_TORCH_DIR)/cuda_ifnet_aten_fp16.pt2:fps=60:precision=fp16,hwdownload,format=rgb0 -- \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=320x240:r=24000/1001:d=0.4,format=rgb0 \
    -vf hwupload,dnn_interpolate=model=$(DNN_TORCH_DIR)/ifnet.pt:fps=60,hwdownload,format=rgb0
$(DNN_TORCH_DATA)/cuda_ifnet_aten_fp16.pt2: $(DNN_TORCH_IFNET) $(SRC_PATH)/tools/dnn-torch-export.py
	$(M)unset CC CXX && $(TORCH_PYTHON) $(SRC_PATH)/tools/dnn-torch-export.py $(SRC_PATH)/tests/dnn/temporal_models.py:IFNetTiny \
	    $@ --checkpoint $(DNN_TORCH_DATA)/ifnet.state.pt --inputs pair --device cuda --precision fp16 \
	    --aten-kernels grid_sample,bilinear --no-check >$@.log
# the pair model as a package for this machine's GPU (loaded where Python's
# loader crashes: no check at export)
fate-dnn-torch-cuda-graph-interpolate-pt2: $(DNN_TORCH_DATA)/cuda_ifnet.pt2
$(DNN_TORCH_DATA)/cuda_ifnet.pt2: $(DNN_TORCH_IFNET) $(SRC_PATH)/tools/dnn-torch-export.py
	$(M)unset CC CXX && $(TORCH_PYTHON) $(SRC_PATH)/tools/dnn-torch-export.py $(SRC_PATH)/tests/dnn/temporal_models.py:IFNetTiny \
	    $@ --checkpoint $(DNN_TORCH_DATA)/ifnet.state.pt --inputs pair --device cuda --no-check >$@.log
# a model that waits for the GPU cannot be captured: said, and run plain
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-graph-uncapturable
fate-dnn-torch-cuda-graph-uncapturable: CMD = $(DNN_TORCH_CHECK) warning $(TARGET_PATH)/ffmpeg \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=64x48:r=25:d=0.4,format=rgb0 \
    -vf hwupload,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/branch_on_value.pt:cuda_graph=1,hwdownload,format=rgb0 -f null -

# NVDEC: an MPEG-2 clip made by FFmpeg's own encoder, decoded to nv12 CUDA
# frames.  One meaning for YUV: the same graph on the frames downloaded to
# system memory gives the same picture, in both yuv_input modes (RGB made
# with the same math, dnn_color.h, on the CPU; the luma through upstream's
# path, its chroma resized by swscale): PSNR, printed on stderr.
DNN_TORCH_CLIP = $(DNN_TORCH_DATA)/clip.m2v
$(DNN_TORCH_CLIP): ffmpeg$(PROGSSUF)$(EXESUF) | $(DNN_TORCH_STAMP)
	$(M)./ffmpeg$(PROGSSUF)$(EXESUF) -nostdin -v error -y -f lavfi -i testsrc2=s=352x288:r=25 -frames:v 12 \
	    -c:v mpeg2video -q:v 2 $@

DNN_TORCH_NVDEC = -hwaccel cuda -hwaccel_output_format cuda -i $(TARGET_PATH)/$(DNN_TORCH_CLIP)

# $(1) test name, $(2) model, $(3) minimum PSNR, $(4) yuv_input
define FATE_DNN_TORCH_NVDEC
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-nvdec-$(1)
fate-dnn-torch-cuda-nvdec-$(1): $(DNN_TORCH_CLIP)
fate-dnn-torch-cuda-nvdec-$(1): CMD = $$(DNN_TORCH_CHECK) compare $(TARGET_PATH) $(3) \
    $$(DNN_TORCH_NVDEC) -vf dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/$(2).pt:yuv_input=$(4),hwdownload,format=nv12 -- \
    $$(DNN_TORCH_NVDEC) -vf hwdownload,format=nv12,dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/$(2).pt:yuv_input=$(4)
endef

$(eval $(call FATE_DNN_TORCH_NVDEC,identity,identity,45,rgb))
$(eval $(call FATE_DNN_TORCH_NVDEC,swap-invert,swap_invert,45,rgb))
$(eval $(call FATE_DNN_TORCH_NVDEC,nearest2x,nearest2x,45,rgb))
$(eval $(call FATE_DNN_TORCH_NVDEC,conv,conv,45,rgb))
$(eval $(call FATE_DNN_TORCH_NVDEC,luma-conv,luma_conv,45,luma))
$(eval $(call FATE_DNN_TORCH_NVDEC,luma-nearest2x,nearest2x,45,luma))

# Through FFmpeg's public API (tests/dnn/api-dnn-cuda.c): a graph on CUDA
# frames run, its device freed and a new one created, twice on one thread,
# with the same frames (cuDNN's handles of the first context must not be
# reused); two devices (contexts) on one GPU at once, then one freed, with
# the same frames (no model gets memory of another's context, nor loses its
# own); frames of another frames context and crop fields that wrap around
# are EINVAL; a failed upload is an error.  The same with a matrix product
# (cuBLAS) for the convolutions (cuDNN).
# Linked as a program of the user's: with static libraries it exports what
# the torch backend's module calls (dnn/torch_module.mak) and finds the
# module through its RUNPATH.
DNN_TORCH_API_CUDA = $(DNN_TORCH_DATA)/api-dnn-cuda$(EXESUF)
$(DNN_TORCH_API_CUDA): $(SRC_PATH)/tests/dnn/api-dnn-cuda.c $(FF_DEP_LIBS) $(TORCH_MODULE) $(TORCH_MODULE_EXPORTS) | $(DNN_TORCH_STAMP)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@.o $<
	$(LD) $(LDFLAGS) $(LDEXEFLAGS) $(if $(TORCH_MODULE_EXPORTS),@$(TORCH_MODULE_EXPORTS) -Wl$(DNN_TORCH_COMMA)-rpath$(DNN_TORCH_COMMA)$(CURDIR)) \
	    -o $@ $@.o $(FF_EXTRALIBS) $(ELIBS)
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-api
fate-dnn-torch-cuda-api: $(DNN_TORCH_API_CUDA)
fate-dnn-torch-cuda-api: CMD = run $(DNN_TORCH_API_CUDA) $(DNN_TORCH_DIR)/conv.pt
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-api-cublas
fate-dnn-torch-cuda-api-cublas: $(DNN_TORCH_API_CUDA)
fate-dnn-torch-cuda-api-cublas: CMD = run $(DNN_TORCH_API_CUDA) $(DNN_TORCH_DIR)/color_mix.pt
fate-dnn-torch-cuda-api-cublas: REF = $(SRC_PATH)/tests/ref/fate/dnn-torch-cuda-api

# NaN and infinities on CUDA frames: counted behind the stream, written as
# 0 and 1 as on the CPU
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-warning-non-finite
fate-dnn-torch-cuda-warning-non-finite: CMD = $(DNN_TORCH_CHECK) warning $(TARGET_PATH)/ffmpeg \
    -init_hw_device cuda=cu -filter_hw_device cu -f lavfi -i testsrc2=s=64x48:r=25:d=0.12,format=rgb0 \
    -vf hwupload,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/non_finite.pt -f null -
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-non-finite-nv12
fate-dnn-torch-cuda-non-finite-nv12: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    -init_hw_device cuda=cu -filter_hw_device cu -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 3 \
    -vf format=nv12,hwupload,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/non_finite.pt:yuv_input=rgb,hwdownload,format=nv12 -- \
    -init_hw_device cuda=cu -filter_hw_device cu -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 3 \
    -vf format=nv12,hwupload,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/non_finite_written.pt:yuv_input=rgb,hwdownload,format=nv12

# NVDEC of the committed H.264 clip (tests/dnn/make-clips.sh): the model on
# its nv12 CUDA frames gives the picture of FFmpeg's software decoder and the
# CPU path, all 50 frames (5760000 bytes of nv12)
DNN_TORCH_H264_SR = dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/swap_invert.pt:yuv_input=rgb
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-nvdec-h264
fate-dnn-torch-cuda-nvdec-h264: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) 45 \
    -hwaccel cuda -hwaccel_output_format cuda -i $(SRC_PATH)/tests/dnn/h264-aac.mp4 -an \
    -vf $(DNN_TORCH_H264_SR),hwdownload,format=nv12 -- \
    -i $(SRC_PATH)/tests/dnn/h264-aac.mp4 -an -vf format=nv12,$(DNN_TORCH_H264_SR)

# NVDEC of a real 10-bit stream: HEVC Main10 with HDR10 metadata (made by
# x265, tests/dnn/make-hevc-main10.sh), decoded to p010 CUDA frames.  The
# output frames keep the layout, colour properties and side data.
DNN_TORCH_HEVC10 = -hwaccel cuda -hwaccel_output_format cuda -i $(SRC_PATH)/tests/dnn/hevc-main10-hdr.hevc
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-nvdec-hevc-main10
fate-dnn-torch-cuda-nvdec-hevc-main10: CMD = $(DNN_TORCH_CHECK) showinfo $(TARGET_PATH)/ffmpeg \
    $(DNN_TORCH_HEVC10) -frames:v 2 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/swap_invert.pt:yuv_input=rgb,hwdownload,format=p010le,showinfo -f null -
# ... and an identity model gives the decoded picture back (PSNR on stderr;
# compared as yuv420p10le, whose samples tiny_psnr's signed 16-bit reads right)
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-nvdec-hevc-main10-identity
fate-dnn-torch-cuda-nvdec-hevc-main10-identity: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) 45/2 \
    $(DNN_TORCH_HEVC10) -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/identity.pt:yuv_input=rgb,hwdownload,format=p010le,format=yuv420p10le -- \
    $(DNN_TORCH_HEVC10) -vf hwdownload,format=p010le,format=yuv420p10le

# FFmpeg's uploads and downloads of odd-height 4:2:0 frames keep their last
# chroma row (patch "avutil/hwcontext_cuda: transfer the last chroma row
# of odd-height frames"; 9.0.2 dropped it)
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-hwupload-odd-height
fate-dnn-torch-cuda-hwupload-odd-height: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=317x239:r=25,format=rgb24 -frames:v 2 -vf scale,format=nv12,hwupload,hwdownload,format=nv12 -- \
    -f lavfi -i testsrc2=s=317x239:r=25,format=rgb24 -frames:v 2 -vf scale,format=nv12

# The conversion kernels against the float64 reference (tests/dnn/color_check.py):
# every layout, matrix, range, chroma siting, precision and size; 1 code value
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-color
fate-dnn-torch-cuda-color: CMD = $(DNN_TORCH_CHECK) color $(TORCH_PYTHON) \
    $(TARGET_PATH)/ffmpeg $(DNN_TORCH_DIR) $(TARGET_PATH)/tests/data/fate/dnn-torch-color-cuda.d cuda

# Precision: fp16 and bf16 against fp32 on the conv nets (PSNR on stderr)
define FATE_DNN_TORCH_PRECISION
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-$(1)-$(2)
fate-dnn-torch-cuda-$(1)-$(2): CMD = $$(DNN_TORCH_CHECK) compare $(TARGET_PATH) 45 \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=317x239:r=25,format=rgb0 -frames:v 3 \
    -vf hwupload,dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/$(1).pt:precision=$(2),hwdownload,format=rgb0 -- \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=317x239:r=25,format=rgb0 -frames:v 3 \
    -vf hwupload,dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/$(1).pt,hwdownload,format=rgb0
endef
$(foreach p,fp16 bf16,$(foreach m,conv nearest2x,$(eval $(call FATE_DNN_TORCH_PRECISION,$(m),$(p)))))
# exact models stay exact in fp16 (8-bit values are exact in its 11-bit mantissa)
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-swap-invert-fp16-exact
fate-dnn-torch-cuda-swap-invert-fp16-exact: REF = $(SRC_PATH)/tests/ref/fate/dnn-torch-swap-invert-317x239
fate-dnn-torch-cuda-swap-invert-fp16-exact: CMD = framecrc $(DNN_TORCH_CUDA_DEV) \
    -f lavfi -i testsrc2=s=317x239:r=25,format=rgb24 -frames:v 3 \
    -vf scale,format=rgb0,hwupload,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/swap_invert.pt:precision=fp16,hwdownload,format=rgb0,scale,format=rgb24
# system frames with device=cuda take the precision too
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-system-frames-fp16
fate-dnn-torch-cuda-system-frames-fp16: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) 45 \
    -f lavfi -i testsrc2=s=320x240:r=25,format=rgb24 -frames:v 3 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt:device=cuda:precision=fp16 -- \
    -f lavfi -i testsrc2=s=320x240:r=25,format=rgb24 -frames:v 3 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt

# Checks at configuration.  (In a filter graph the ':' of cuda:7 is escaped
# twice: once for the graph, once for the option list.)
# $(1) test name, $(2) layout, $(3) model, $(4) options, $(5) mode (error or log)
define FATE_DNN_TORCH_CUDA_CHECK
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-$(1)
fate-dnn-torch-cuda-$(1): CMD = $$(DNN_TORCH_CHECK) $(5) $(TARGET_PATH)/ffmpeg $(DNN_TORCH_CUDA_DEV) \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 2 \
    -vf format=$(2),hwupload,dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/$(3).pt$(4) -f null -
endef

$(eval $(call FATE_DNN_TORCH_CUDA_CHECK,error-yuva420p,yuva420p,identity,,error))
$(eval $(call FATE_DNN_TORCH_CUDA_CHECK,error-rgb-model-on-luma,nv12,conv,,error))
$(eval $(call FATE_DNN_TORCH_CUDA_CHECK,error-luma-model-on-rgb,nv12,luma_conv,:yuv_input=rgb,error))
$(eval $(call FATE_DNN_TORCH_CUDA_CHECK,error-device-index,rgb0,identity,:device=cuda\\\\\\:7,error))
$(eval $(call FATE_DNN_TORCH_CUDA_CHECK,error-two-channels,rgb0,two_channels,,error))
$(eval $(call FATE_DNN_TORCH_CUDA_CHECK,error-raises-on-frame,rgb0,raises_on_data,,error))
$(eval $(call FATE_DNN_TORCH_CUDA_CHECK,device-cpu,rgb0,identity,:device=cpu,log))

# cuDNN's autotuner is one switch of the process: two filters on a GPU that
# ask for different values are refused (the second one configured), and run
# where they agree
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-error-cudnn-benchmark-conflict
fate-dnn-torch-cuda-error-cudnn-benchmark-conflict: CMD = $(DNN_TORCH_CHECK) error $(TARGET_PATH)/ffmpeg \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=64x48:r=25,format=rgb0 -frames:v 2 \
    -vf hwupload,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt:cudnn_benchmark=1,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt:cudnn_benchmark=0 \
    -f null -
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-cudnn-benchmark-agree
fate-dnn-torch-cuda-cudnn-benchmark-agree: CMD = $(DNN_TORCH_CHECK) frames $(TARGET_PATH)/ffmpeg \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=64x48:r=25,format=rgb0 -frames:v 2 \
    -vf hwupload,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt:cudnn_benchmark=0,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt:cudnn_benchmark=0,hwdownload,format=rgb0

# Upstream's negotiation is kept: an rgb24 source reaches CUDA as one of
# hwcontext_cuda's own layouts (rgb0, bgr0, ...), which scale_cuda takes.
# The fork once listed rgb24 there, and this pipeline failed.
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-hwupload-scale-cuda
fate-dnn-torch-cuda-hwupload-scale-cuda: REF = $(SRC_PATH)/tests/ref/fate/dnn-torch-identity-rgb24
fate-dnn-torch-cuda-hwupload-scale-cuda: CMD = framecrc $(DNN_TORCH_CUDA_DEV) \
    -f lavfi -i testsrc2=s=320x240:r=25,format=rgb24 -frames:v 5 \
    -vf scale,hwupload,scale_cuda=format=rgb0:passthrough=0,hwdownload,format=rgb0,scale,format=rgb24

# Cropped CUDA frames keep their size; crop sets their crop_* fields (and
# rounds them to even numbers, as for 4:2:0, on CUDA frames).  The
# model sees the visible picture; its output goes where the crop lies in the
# output frame (offsets scaled by 2 here), which carries it as its crop:
# cropped after the download, the same picture as cropping first.  RGB
# against the CPU path; nv12 (chroma offsets) against cropping before the
# upload.
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-crop-rgb0
fate-dnn-torch-cuda-crop-rgb0: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=160x120:r=25,format=rgb24 -frames:v 3 \
    -vf format=rgb0,hwupload,crop=100:60:12:6,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/nearest2x.pt,hwdownload,format=rgb0,crop=200:120:24:12,format=rgb24 -- \
    -f lavfi -i testsrc2=s=160x120:r=25,format=rgb24 -frames:v 3 \
    -vf crop=100:60:12:6,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/nearest2x.pt

# A model that is not local (a mirror) shows whether it saw only the crop.
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-crop-mirror
fate-dnn-torch-cuda-crop-mirror: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=160x120:r=25,format=rgb24 -frames:v 3 \
    -vf format=rgb0,hwupload,crop=100:60:12:6,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/mirror.pt,hwdownload,format=rgb0,crop=100:60:12:6,format=rgb24 -- \
    -f lavfi -i testsrc2=s=160x120:r=25,format=rgb24 -frames:v 3 \
    -vf crop=100:60:12:6,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/mirror.pt

FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-crop-nv12
fate-dnn-torch-cuda-crop-nv12: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=160x120:r=25,format=rgb24 -frames:v 3 \
    -vf format=nv12,hwupload,crop=100:60:14:8,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/nearest2x.pt,hwdownload,format=nv12,crop=200:120:28:16 -- \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=160x120:r=25,format=rgb24 -frames:v 3 \
    -vf format=nv12,crop=100:60:14:8,hwupload,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/nearest2x.pt,hwdownload,format=nv12

# Outside the crop, an output frame is black, never what its pool held: the
# crop moves from frame to frame, so the pooled frames held the model's
# output elsewhere before.  Against the same kernels on frames cropped
# before the upload, laid over black where the output frame's crop lies.
# (FATE puts the command in single quotes and evaluates it: the graphs are
# quoted for the evaluation, their semicolons escaped for make; positions
# from the timestamps, as overlay's frame number starts at 1.)
DNN_TORCH_MOVING_CROP = crop=100:60:round(t*500):round(t*250)
DNN_TORCH_CROP_MODEL = dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/nearest2x.pt:yuv_input=rgb
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-crop-outside
fate-dnn-torch-cuda-crop-outside: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=160x120:r=25,format=rgb24 -frames:v 3 \
    -vf "format=nv12,hwupload,$(DNN_TORCH_MOVING_CROP),$(DNN_TORCH_CROP_MODEL),hwdownload,format=nv12" -- \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=160x120:r=25,format=rgb24 -frames:v 3 \
    -filter_complex "[0:v]format=nv12,$(DNN_TORCH_MOVING_CROP),hwupload,$(DNN_TORCH_CROP_MODEL),hwdownload,format=nv12[model]\;color=black:s=320x240:r=25,format=nv12[black]\;[black][model]overlay=x=round(t*1000):y=round(t*500):format=yuv420:shortest=1,format=nv12"

# A kernel that faults (a device-side assert: the model indexes a table out
# of range) ends the run with an error, not an abort, on CUDA frames and on
# system frames with device=cuda.  The GPU runs behind the filter: which
# call sees the fault first varies, so the check is for an error that names
# it and an exit code that is an error, not a signal.
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-error-device-assert
fate-dnn-torch-cuda-error-device-assert: CMD = $(DNN_TORCH_CHECK) fails device-side.assert $(TARGET_PATH)/ffmpeg \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 4 \
    -vf format=rgb0,hwupload,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/lut_out_of_range.pt -f null -
# dnn_interpolate: the fault is in the one pair of a 2-frame stream, after
# which no frame comes: the end of the stream waits for the GPU and ends
# the run with the error, not with a warning while freeing the model.  The
# input ends (d=): a limit on the output would close it at its second
# frame, before the end of the stream reaches the filter.
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-error-device-assert-interpolate-eof
fate-dnn-torch-cuda-error-device-assert-interpolate-eof: $(DNN_TORCH_IFNET)
fate-dnn-torch-cuda-error-device-assert-interpolate-eof: CMD = $(DNN_TORCH_CHECK) fails device-side.assert $(TARGET_PATH)/ffmpeg \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=64x48:r=25:d=0.08,format=rgb24 \
    -vf format=rgb0,hwupload,dnn_interpolate=model=$(DNN_TORCH_DIR)/pair-lut-out-of-range.pt:factor=2 -f null -
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-error-device-assert-system-frames
fate-dnn-torch-cuda-error-device-assert-system-frames: CMD = $(DNN_TORCH_CHECK) fails device-side.assert $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 2 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/lut_out_of_range.pt:device=cuda -f null -

# LibTorch sees no GPU while FFmpeg's driver API does (as with a LibTorch
# made for a newer CUDA than the driver): simulated by preloading a
# cudaGetDeviceCount that finds none.  The configuration fails with ENODEV
# and the teardown, which used to throw through C (abort), is clean.
DNN_TORCH_NO_GPU = $(DNN_TORCH_DATA)/cudart-no-gpu.so
$(DNN_TORCH_NO_GPU): $(SRC_PATH)/tests/dnn/cudart-no-gpu.c | $(DNN_TORCH_STAMP)
	$(CC) -shared -fPIC -o $@ $<
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-error-torch-sees-no-gpu
fate-dnn-torch-cuda-error-torch-sees-no-gpu: $(DNN_TORCH_NO_GPU)
fate-dnn-torch-cuda-error-torch-sees-no-gpu: CMD = LD_PRELOAD=$(TARGET_PATH)/$(DNN_TORCH_NO_GPU) \
    $(DNN_TORCH_CHECK) error $(TARGET_PATH)/ffmpeg $(DNN_TORCH_CUDA_DEV) \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 2 \
    -vf format=rgb0,hwupload,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/identity.pt -f null -

# Two models in one process, each on its own filter graph and thread: the
# first is torn down and made again when its input changes size (an MPEG-2
# clip whose second sequence is smaller), while the second runs on; the
# second's frames stay bit-exact.
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-two-models-reconfigure
fate-dnn-torch-cuda-two-models-reconfigure: $(DNN_TORCH_CLIP_RESIZE)
fate-dnn-torch-cuda-two-models-reconfigure: REF = $(SRC_PATH)/tests/ref/fate/dnn-torch-swap-invert-rgb24
fate-dnn-torch-cuda-two-models-reconfigure: CMD = framecrc $(DNN_TORCH_CUDA_DEV) \
    -i $(TARGET_PATH)/$(DNN_TORCH_CLIP_RESIZE) -f lavfi -i testsrc2=s=320x240:r=25,format=rgb24 \
    -map 0 -vf scale,format=rgb0,hwupload,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt,hwdownload,format=rgb0 -f null - \
    -map 1 -frames:v 5 -vf scale,format=rgb0,hwupload,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/swap_invert.pt,hwdownload,format=rgb0,scale,format=rgb24

# 1000 frames (replayed on the GPU by loop): GPU memory must not grow once
# warmed up.  The tolerance, 8 frames of 1080p rgb0, is the frames pool
# settling to the queue between the filter and the encoder thread.
FATE_DNN_TORCH_CUDA += fate-dnn-torch-cuda-gpu-memory
fate-dnn-torch-cuda-gpu-memory: CMD = $(DNN_TORCH_CHECK) gpu-memory $(TARGET_PATH)/ffmpeg 64 \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=1920x1080:r=25,format=rgb0 \
    -vf hwupload,loop=loop=-1:size=1,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/conv.pt -frames:v 1000 -f null -

# .pt2 packages compiled for this machine's GPU at test time
# (tests/dnn/make-torch-packages.sh cuda; a GPU is needed to compile them):
# CUDA frames of every kind of layout, NVDEC's and system frames with
# device=cuda give the same frames as the TorchScript models; the
# mismatches are refused at configuration.
DNN_TORCH_PT2_CUDA_STAMP = $(DNN_TORCH_DATA)/cuda-packages.stamp
$(DNN_TORCH_PT2_CUDA_STAMP): $(SRC_PATH)/tests/dnn/make-torch-packages.sh $(SRC_PATH)/tools/dnn-torch-export.py $(DNN_TORCH_STAMP)
	$(M)$< $(TORCH_PYTHON) $(SRC_PATH) $(@D) cuda && touch $@

# $(1) test name, $(2) package, $(3) TorchScript model, $(4) layout, $(5) size,
# $(6) "exact" or the minimum PSNR, $(7) options of both, $(8) of the package
define FATE_DNN_TORCH_CUDA_PT2_COMPARE
FATE_DNN_TORCH_CUDA_PT2 += fate-dnn-torch-cuda-pt2-$(1)
fate-dnn-torch-cuda-pt2-$(1): CMD = $$(DNN_TORCH_CHECK) compare $(TARGET_PATH) $(6) \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=$(5):r=25,format=rgb24 -frames:v 3 \
    -vf scale,format=$(4),hwupload,dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/$(2).pt2$(7)$(8),hwdownload,format=$(4) -- \
    $(DNN_TORCH_CUDA_DEV) -f lavfi -i testsrc2=s=$(5):r=25,format=rgb24 -frames:v 3 \
    -vf scale,format=$(4),hwupload,dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/$(3).pt$(7),hwdownload,format=$(4)
endef
# exact: every layout the filter takes on CUDA frames
DNN_TORCH_PT2_PACKED = rgb0 bgr0 rgba bgra
DNN_TORCH_PT2_YUV    = nv12 p010le p012le p016le nv16 p210le p212le p216le \
                       yuv420p yuv422p yuv444p yuv420p10le yuv422p10le yuv444p10le \
                       yuv444p10msble yuv444p12msble yuv444p16le
$(foreach l,$(DNN_TORCH_PT2_PACKED),$(eval $(call FATE_DNN_TORCH_CUDA_PT2_COMPARE,swap-invert-$(l),cuda_swap_invert,swap_invert,$(l),317x239,exact,)))
$(foreach l,$(DNN_TORCH_PT2_YUV),$(eval $(call FATE_DNN_TORCH_CUDA_PT2_COMPARE,swap-invert-$(l),cuda_swap_invert,swap_invert,$(l),320x240,exact,:yuv_input=rgb)))
# a static package gives what the dynamic one gives
$(eval $(call FATE_DNN_TORCH_CUDA_PT2_COMPARE,static-320x240,cuda_swap_invert_320x240,swap_invert,nv12,320x240,exact,:yuv_input=rgb))
# the conv net: Triton's kernels against cuDNN's; fp16 against fp32
$(eval $(call FATE_DNN_TORCH_CUDA_PT2_COMPARE,conv-rgb0,cuda_conv,conv,rgb0,317x239,50,))
$(eval $(call FATE_DNN_TORCH_CUDA_PT2_COMPARE,conv-fp16-rgb0,cuda_conv_fp16,conv,rgb0,317x239,45,,:precision=fp16))

# NVDEC's nv12 frames
FATE_DNN_TORCH_CUDA_PT2 += fate-dnn-torch-cuda-pt2-nvdec
fate-dnn-torch-cuda-pt2-nvdec: $(DNN_TORCH_CLIP)
fate-dnn-torch-cuda-pt2-nvdec: CMD = $(DNN_TORCH_CHECK) compare $(TARGET_PATH) exact \
    $(DNN_TORCH_NVDEC) -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/cuda_swap_invert.pt2:yuv_input=rgb,hwdownload,format=nv12 -- \
    $(DNN_TORCH_NVDEC) -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/swap_invert.pt:yuv_input=rgb,hwdownload,format=nv12

# frames in system memory with device=cuda
FATE_DNN_TORCH_CUDA_PT2 += fate-dnn-torch-cuda-pt2-system-frames
fate-dnn-torch-cuda-pt2-system-frames: REF = $(SRC_PATH)/tests/ref/fate/dnn-torch-swap-invert-rgb24
fate-dnn-torch-cuda-pt2-system-frames: CMD = framecrc -f lavfi -i testsrc2=s=320x240:r=25,format=rgb24 -frames:v 5 \
    -vf scale,format=rgb24,dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/cuda_swap_invert.pt2:device=cuda

# $(1) test name, $(2) package, $(3) options, $(4) mode: error, or fails
# with the pattern the error must match
define FATE_DNN_TORCH_CUDA_PT2_ERROR
FATE_DNN_TORCH_CUDA_PT2 += fate-dnn-torch-cuda-pt2-error-$(1)
fate-dnn-torch-cuda-pt2-error-$(1): CMD = $$(DNN_TORCH_CHECK) $(4) $(TARGET_PATH)/ffmpeg $(DNN_TORCH_CUDA_DEV) \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 2 \
    -vf format=rgb0,hwupload,dnn_processing=dnn_backend=torch:model=$$(DNN_TORCH_DIR)/$(2).pt2$(3) -f null -
endef
$(eval $(call FATE_DNN_TORCH_CUDA_PT2_ERROR,cpu-package,cpu_swap_invert,,error))
$(eval $(call FATE_DNN_TORCH_CUDA_PT2_ERROR,static-size,cuda_swap_invert_320x240,,error))
$(eval $(call FATE_DNN_TORCH_CUDA_PT2_ERROR,precision,cuda_conv_fp16,,error))
$(eval $(call FATE_DNN_TORCH_CUDA_PT2_ERROR,channels-last,cuda_conv_fp16,:precision=fp16:channels_last=0,error))
# (the message names the GPU: matched, not compared)
$(eval $(call FATE_DNN_TORCH_CUDA_PT2_ERROR,other-gpu,cuda_swap_invert-sm10,,fails capability.1.0))
# a CUDA package on the CPU
FATE_DNN_TORCH_CUDA_PT2 += fate-dnn-torch-cuda-pt2-error-device-cpu
fate-dnn-torch-cuda-pt2-error-device-cpu: CMD = $(DNN_TORCH_CHECK) error $(TARGET_PATH)/ffmpeg \
    -f lavfi -i testsrc2=s=64x48:r=25,format=rgb24 -frames:v 2 \
    -vf dnn_processing=dnn_backend=torch:model=$(DNN_TORCH_DIR)/cuda_swap_invert.pt2 -f null -
$(FATE_DNN_TORCH_CUDA_PT2): $(DNN_TORCH_PT2_CUDA_STAMP)
FATE_DNN_TORCH_CUDA += $(FATE_DNN_TORCH_CUDA_PT2)

FATE_DNN_TORCH_CUDA := $(if $(CONFIG_LIBTORCH_CUDA),$(if $(CONFIG_CUDA),$(if $(DNN_TORCH_PYTHON_TORCH),$(FATE_DNN_TORCH_CUDA))))
$(FATE_DNN_TORCH_CUDA): $(DNN_TORCH_STAMP)
$(FATE_DNN_TORCH_CUDA): ffmpeg$(PROGSSUF)$(EXESUF)

# in FATE's list so that "make fate-..." knows them, but not in "make fate"
FATE_HW-yes += $(FATE_DNN_TORCH_CUDA)
fate-dnn-torch-cuda: $(FATE_DNN_TORCH_CUDA)
fate-list-dnn-torch-cuda:
	@printf '%s\n' $(FATE_DNN_TORCH_CUDA)
