# The torch DNN backend as a module of its own, libavfilter-torch, which
# libavfilter loads the first time a filter loads a model
# (dnn_backend_torch_loader.c): LibTorch is linked into the module alone, so
# that FFmpeg runs where LibTorch is not installed and a distribution can
# package the module apart.  Included by dnn/Makefile, in libavfilter's
# SUBDIR: the paths below are written out, as recipes run after it.

TORCH_MODULE_NAME = libavfilter-torch$(SLIBSUF)
# beside the file that holds libavfilter: the loader looks there first
TORCH_MODULE      = $(if $(CONFIG_SHARED),libavfilter/)$(TORCH_MODULE_NAME)
# where make install puts it, which the loader looks in next
TORCH_MODULE_DIR  = $(if $(DESTDIR),$(patsubst $(DESTDIR)%,%,$(SHLIBDIR)),$(SHLIBDIR))

TORCH-MODULE-OBJS-$(CONFIG_LIBTORCH) += dnn/dnn_backend_torch.o              \
                                        dnn/dnn_backend_torch_place.o        \
                                        dnn/dnn_backend_torch_precision.o    \
                                        dnn/dnn_backend_torch_output.o       \
                                        dnn/dnn_backend_torch_package.o      \
                                        dnn/dnn_backend_torch_aoti.o         \
                                        dnn/dnn_backend_torch_color.o        \
                                        dnn/dnn_backend_torch_temporal.o     \
                                        dnn/dnn_backend_torch_graph.o        \
                                        dnn/dnn_backend_torch_entry.o        \
                                        dnn/dnn_backend_common.o             \
                                        dnn/dnn_io_proc.o                    \
                                        dnn/dnn_color.o                      \
                                        dnn/queue.o                          \
                                        dnn/safe_queue.o
TORCH-MODULE-OBJS-$(CONFIG_DNN_CUDA) += dnn/dnn_backend_torch_cuda.o         \
                                        dnn/dnn_cuda.o                       \
                                        dnn/dnn_cuda_convert.ptx.o           \
                                        cuda/load_helper.o
TORCH_MODULE_OBJS := $(addprefix libavfilter/,$(TORCH-MODULE-OBJS-yes))
# their directories in the build tree, as FFmpeg's common.mak makes them
$(TORCH_MODULE_OBJS): | $(sort $(dir $(TORCH_MODULE_OBJS)))
OUTDIRS := $(OUTDIRS) $(dir $(TORCH_MODULE_OBJS))

ifdef CONFIG_LIBTORCH
all-yes: $(TORCH_MODULE)

libavfilter/dnn/dnn_backend_torch_loader.o: CPPFLAGS += -DTORCH_MODULE_NAME='"$(TORCH_MODULE_NAME)"' \
                                                         -DTORCH_MODULE_DIR='"$(TORCH_MODULE_DIR)"'
libavfilter/dnn/dnn_backend_torch_loader.o libavfilter/dnn/dnn_backend_torch_entry.o: libavutil/ffversion.h

# A shared build links the module with the libraries it calls; a static one
# takes them from the program (below).
TORCH_MODULE_FFLIBS = $(if $(CONFIG_SHARED),libswscale/libswscale$(SLIBSUF) libavutil/libavutil$(SLIBSUF))

# (in variables: the commas of -Wl would split LINK's argument)
TORCH_MODULE_SOFLAGS = -shared -Wl,-soname,$(TORCH_MODULE_NAME) \
                       -Wl,--version-script,$(SRC_PATH)/libavfilter/dnn/torch_module.ver
TORCH_MODULE_FFLINK  = $(if $(CONFIG_SHARED),-Llibswscale -Llibavutil -lswscale -lavutil)

$(TORCH_MODULE): $(TORCH_MODULE_OBJS) $(TORCH_MODULE_FFLIBS) $(SRC_PATH)/libavfilter/dnn/torch_module.ver
	$(call LINK,$(TORCH_MODULE_SOFLAGS) $(LDFLAGS) $(LDSOFLAGS) $(LD_O) $(filter %.o,$^) \
	    $(TORCH_MODULE_FFLINK) $(TORCH_MODULE_LIBS) $(EXTRALIBS-avfilter) -lstdc++)

ifndef CONFIG_SHARED
# In a static build libavutil and libswscale are in the program: the
# programs that hold libavfilter link in the functions the module calls and
# export them, and only them, to it.
TORCH_MODULE_EXPORTS = libavfilter/torch-module.exports

$(TORCH_MODULE_EXPORTS): $(TORCH_MODULE)
	$(Q)nm -D --undefined-only $< | awk '$$2 ~ /^(av|avpriv|sws)_/ { print $$2 }' | sort -u > $@.syms
	$(Q){ echo '{'; sed 's/.*/    &;/' $@.syms; echo '};'; } > $@.list
	$(Q){ echo "-Wl,--dynamic-list=$@.list"; sed 's/^/-Wl,-u,/' $@.syms; } > $@

ffmpeg$(PROGSSUF)_g$(EXESUF) ffplay$(PROGSSUF)_g$(EXESUF): $(TORCH_MODULE_EXPORTS)
ffmpeg$(PROGSSUF)_g$(EXESUF) ffplay$(PROGSSUF)_g$(EXESUF): LDEXEFLAGS += @$(TORCH_MODULE_EXPORTS)
endif

install-libs-yes: install-torch-module
install-torch-module: $(TORCH_MODULE)
	$(Q)mkdir -p "$(SHLIBDIR)"
	$(INSTALL) -m 755 $(TORCH_MODULE) "$(SHLIBDIR)/$(TORCH_MODULE_NAME)"

uninstall-libs:: uninstall-torch-module
uninstall-torch-module:
	$(RM) "$(SHLIBDIR)/$(TORCH_MODULE_NAME)"

clean::
	$(RM) $(TORCH_MODULE) libavfilter/torch-module.exports*

-include $(wildcard $(TORCH_MODULE_OBJS:.o=.d))

.PHONY: install-torch-module uninstall-torch-module
endif
