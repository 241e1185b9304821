# The torch DNN backend as a module of its own, libavfilter-torch, which
# libavfilter loads the first time a filter loads a model
# (dnn_backend_torch_loader.c): LibTorch is linked into the module alone, so
# that FFmpeg runs where LibTorch is not installed and a distribution can
# package the module apart.  Included by dnn/Makefile, in libavfilter's
# SUBDIR: the paths below are written out, as recipes run after it.

# versioned with --build-suffix, as FFmpeg's libraries are, so that two
# builds install side by side
TORCH_MODULE_NAME = libavfilter-torch$(BUILDSUF)$(SLIBSUF)
# beside the file that holds libavfilter: the loader looks there first
TORCH_MODULE      = $(if $(CONFIG_SHARED),libavfilter/)$(TORCH_MODULE_NAME)
# where make install puts it, which the loader looks in next (and last)
TORCH_MODULE_DIR  = $(if $(DESTDIR),$(patsubst $(DESTDIR)%,%,$(SHLIBDIR)),$(SHLIBDIR))
# the layout hash that the loader and the module compare (below)
TORCH_MODULE_LAYOUT_H = libavfilter/dnn/torch_module_layout.h

# The module's own objects, which libavfilter does not link
TORCH-MODULE-OBJS-$(CONFIG_LIBTORCH) += dnn/dnn_backend_torch.o              \
                                        dnn/dnn_backend_torch_place.o        \
                                        dnn/dnn_backend_torch_precision.o    \
                                        dnn/dnn_backend_torch_output.o       \
                                        dnn/dnn_backend_torch_package.o      \
                                        dnn/dnn_backend_torch_archive.o      \
                                        dnn/dnn_backend_torch_aoti.o         \
                                        dnn/dnn_backend_torch_color.o        \
                                        dnn/dnn_backend_torch_io.o           \
                                        dnn/dnn_backend_torch_temporal.o     \
                                        dnn/dnn_backend_torch_graph.o        \
                                        dnn/dnn_backend_torch_runner.o       \
                                        dnn/dnn_backend_torch_boundary.o     \
                                        dnn/dnn_backend_torch_entry.o
TORCH-MODULE-OBJS-$(CONFIG_DNN_CUDA) += dnn/dnn_backend_torch_cuda.o         \
                                        dnn/dnn_cuda.o                       \
                                        dnn/dnn_cuda_convert.ptx.o
# and those it shares with libavfilter: listed in libavfilter's OBJS too
# (where they are already, common.mak's sort keeps one), so that each is
# compiled once, by libavfilter's rules
TORCH-MODULE-LAVFI-OBJS-$(CONFIG_LIBTORCH) += dnn/dnn_backend_common.o       \
                                              dnn/dnn_io_proc.o              \
                                              dnn/dnn_color.o                \
                                              dnn/queue.o                    \
                                              dnn/safe_queue.o
TORCH-MODULE-LAVFI-OBJS-$(CONFIG_DNN_CUDA) += cuda/load_helper.o
OBJS-$(CONFIG_LIBTORCH) += $(TORCH-MODULE-LAVFI-OBJS-yes)

TORCH_MODULE_OWN_OBJS := $(addprefix libavfilter/,$(TORCH-MODULE-OBJS-yes))
TORCH_MODULE_OBJS     := $(TORCH_MODULE_OWN_OBJS) $(addprefix libavfilter/,$(TORCH-MODULE-LAVFI-OBJS-yes))
# their directories in the build tree, as FFmpeg's common.mak makes them
$(TORCH_MODULE_OBJS): | $(sort $(dir $(TORCH_MODULE_OBJS)))
OUTDIRS := $(OUTDIRS) $(dir $(TORCH_MODULE_OBJS))
# The module's own objects are compiled as libavfilter's are: library.mak
# gives its objects (LIBOBJS) -DHAVE_AV_CONFIG_H, which these are not (the
# C++ files go through common.mak's %.o: %.cpp rule, whose CXXFLAGS begin
# with CPPFLAGS); the shared ones have it from there.
$(TORCH_MODULE_OWN_OBJS): CPPFLAGS += -DHAVE_AV_CONFIG_H

ifdef CONFIG_LIBTORCH
all-yes: $(TORCH_MODULE)

libavfilter/dnn/dnn_backend_torch_loader.o: CPPFLAGS += -DTORCH_MODULE_NAME='"$(TORCH_MODULE_NAME)"' \
                                                         -DTORCH_MODULE_DIR='"$(TORCH_MODULE_DIR)"'
libavfilter/dnn/dnn_backend_torch_loader.o libavfilter/dnn/dnn_backend_torch_entry.o: libavutil/ffversion.h \
                                                                                  $(TORCH_MODULE_LAYOUT_H)

# TH_MODULE_LAYOUT (dnn_backend_torch_module.h): a hash of the headers that
# declare what the loader and the module pass each other, so that a module
# of another revision of them is refused even where the version and the
# configuration are the same.  cksum (POSIX): their CRC and length.
TORCH_MODULE_LAYOUT_HEADERS = $(sort $(wildcard $(addprefix $(SRC_PATH)/,            \
    libavfilter/dnn_interface.h libavfilter/dnn_filter_common.h                      \
    libavfilter/avfilter.h libavfilter/filters.h libavfilter/avfilter_internal.h     \
    libavfilter/dnn/*.h                                                              \
    libavutil/frame.h libavutil/buffer.h libavutil/hwcontext.h                       \
    libavutil/hwcontext_cuda.h libavutil/hwcontext_cuda_internal.h)))

$(TORCH_MODULE_LAYOUT_H): $(TORCH_MODULE_LAYOUT_HEADERS) $(SRC_PATH)/libavfilter/dnn/torch_module.mak | libavfilter/dnn/
	$(M)layout=$$(cat $(TORCH_MODULE_LAYOUT_HEADERS) | cksum | awk '{ print $$1 "-" $$2 }') && \
	printf '/* Generated by dnn/torch_module.mak: a hash of the headers that the layout of the torch module depends on */\n#ifndef TH_MODULE_LAYOUT\n#define TH_MODULE_LAYOUT "%s"\n#endif\n' "$$layout" >$@

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
endif
# where make install puts it (with DESTDIR), and the path it is used at
TORCH_MODULE_EXPORTS_INST = $(LIBDIR)/libavfilter-torch$(BUILDSUF).exports
TORCH_MODULE_EXPORTS_USE  = $(if $(DESTDIR),$(patsubst $(DESTDIR)%,%,$(TORCH_MODULE_EXPORTS_INST)),$(TORCH_MODULE_EXPORTS_INST))
ifndef CONFIG_SHARED

$(TORCH_MODULE_EXPORTS): $(TORCH_MODULE)
	$(Q)nm -D --undefined-only $< | awk '$$2 ~ /^(av|avpriv|sws)_/ { print $$2 }' | sort -u > $@.syms
	$(Q){ echo '{'; sed 's/.*/    &;/' $@.syms; echo '};'; } > $@.list
	$(Q){ echo "-Wl,--dynamic-list=$@.list"; sed 's/^/-Wl,-u,/' $@.syms; } > $@

ffmpeg$(PROGSSUF)_g$(EXESUF) ffplay$(PROGSSUF)_g$(EXESUF): $(TORCH_MODULE_EXPORTS)
ffmpeg$(PROGSSUF)_g$(EXESUF) ffplay$(PROGSSUF)_g$(EXESUF): LDEXEFLAGS += @$(TORCH_MODULE_EXPORTS)
endif

install-libs-yes: install-torch-module
install-torch-module: $(TORCH_MODULE) $(TORCH_MODULE_EXPORTS)
	$(Q)mkdir -p "$(SHLIBDIR)"
	$(INSTALL) -m 755 $(TORCH_MODULE) "$(SHLIBDIR)/$(TORCH_MODULE_NAME)"
ifndef CONFIG_SHARED
# The exports, for programs that link the static libavfilter (and a package
# that relinks ffmpeg): installed beside libavfilter.a, naming the installed
# dynamic list, quoted (gcc's @file)
	$(Q)mkdir -p "$(LIBDIR)"
	$(INSTALL) -m 644 $(TORCH_MODULE_EXPORTS).list "$(TORCH_MODULE_EXPORTS_INST).list"
	$(Q)sed '1s|.*|"-Wl,--dynamic-list=$(TORCH_MODULE_EXPORTS_USE).list"|' $(TORCH_MODULE_EXPORTS) >"$(TORCH_MODULE_EXPORTS_INST)"
	$(Q)chmod 644 "$(TORCH_MODULE_EXPORTS_INST)"
endif

uninstall-libs:: uninstall-torch-module
uninstall-torch-module:
	$(RM) "$(SHLIBDIR)/$(TORCH_MODULE_NAME)"
	$(RM) "$(TORCH_MODULE_EXPORTS_INST)" "$(TORCH_MODULE_EXPORTS_INST).list"

clean::
	$(RM) $(TORCH_MODULE) libavfilter/torch-module.exports* $(TORCH_MODULE_LAYOUT_H)

-include $(wildcard $(TORCH_MODULE_OBJS:.o=.d))

.PHONY: install-torch-module uninstall-torch-module
endif
