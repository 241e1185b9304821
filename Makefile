# Top-level Makefile of the fork: prepares the FFmpeg tree (pristine tarball +
# patches/ + our files), configures it out of tree and builds it.
#
#   make              build $(BUILDDIR)/ffmpeg
#   make check        FATE tests of the torch backend (CPU); ends "N passed, N failed"
#   make check-gpu    FATE tests that need a CUDA device (GPU_JOBS at a time, 1;
#                     FATE_GPU="fate-X ..." runs those only)
#   make check-refs   every FATE test of ours has its reference (no GPU needed)
#   make check-ptx    our kernels' PTX needs no stack frame (ptxas; no GPU needed)
#   make check-upstream  FFmpeg's own FATE tests that need no samples, and ours
#   make install      install FFmpeg and dnn-torch-parts (--prefix etc. of ./configure; DESTDIR)
#   make uninstall    remove what "make install" installed
#   make check-install  install into a temporary DESTDIR, check it, uninstall
#   make demo         run the demo pipeline (fps + a playable file)
#   make bench        throughput table on a CUDA machine
#   make patches      export commits made in the prepared tree into patches/
#   make check-patches  fail if patches/ differs from a fresh export
#   make check-prefixes  build each prefix of the series (small config, incremental)
#   make dist         write dist/: the quilt series, each patch with its files of ours
#   make lint         patch and commit messages, shellcheck, whitespace (no ./configure needed)

# Goals that need no ./configure (dist finds the tarball itself, clean and
# distclean have the build directory's default).
NOCONFIG_GOALS := lint dist clean distclean

ifneq ($(filter-out $(NOCONFIG_GOALS),$(or $(MAKECMDGOALS),all)),)
ifeq ($(wildcard config.mk),)
$(error config.mk missing: run ./configure first)
endif
endif
-include config.mk
include UPSTREAM
BUILDDIR ?= build

NPROC    ?= $(shell nproc 2>/dev/null || echo 2)
# the CUDA tests share one GPU: one at a time unless asked (gpu-memory reads
# the whole device's memory, so run it alone)
GPU_JOBS ?= 1
SERIES   := $(shell sed -e '/^\#/d' -e '/^$$/d' patches/series)
OURFILES := $(shell scripts/our-files.sh)
PREPARED := $(SRCDIR)/.git/fork-prepared
LINKED   := $(SRCDIR)/.git/fork-linked
FFCONFIG := $(BUILDDIR)/ffbuild/config.mak
FATE_ENV  = TORCH_PYTHON=$(TORCH_PYTHON) DNN_TORCH_SPANDREL=$(SPANDREL)
# Without a RUNPATH (./configure --disable-libtorch-rpath) the programs in the
# build tree find LibTorch through the library path.
ifeq ($(LIBTORCH_RPATH),no)
RUN_ENV   = LD_LIBRARY_PATH=$(LIBTORCH)/lib$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}
endif

.PHONY: all build prepare check check-gpu check-refs check-ptx check-upstream demo bench bench-parts architectures patches check-patches check-prefixes \
	dist install uninstall check-install lint clean distclean

all: build

prepare: $(LINKED)

# The series: applying it may change configure, so FFmpeg is configured again.
$(PREPARED): UPSTREAM patches/series $(addprefix patches/,$(SERIES)) scripts/prepare-tree.sh $(TARBALL)
	scripts/prepare-tree.sh $(TARBALL) $(SRCDIR)
	@touch $@

# Our files: linked in; FFmpeg's own dependencies rebuild what uses them.
$(LINKED): $(PREPARED) $(OURFILES)
	@scripts/prepare-tree.sh $(TARBALL) $(SRCDIR)
	@touch $@

# FFmpeg is configured again when its own flags change, not for every edit
# of config.mk (what our tests use, such as SPANDREL, is not FFmpeg's)
FFFLAGS := $(BUILDDIR)/ffmpeg-flags
$(FFFLAGS): config.mk
	@mkdir -p $(@D) && printf '%s\n' "$(FFMPEG_PKG_CONFIG_PATH)" $(FFMPEG_FLAGS) >$@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi

# configure comes with the prepared tree (make -j must not look for it first)
$(SRCDIR)/configure: $(PREPARED) ;

$(FFCONFIG): $(PREPARED) $(FFFLAGS) $(SRCDIR)/configure
	cd $(BUILDDIR) && PKG_CONFIG_PATH=$(FFMPEG_PKG_CONFIG_PATH)$${PKG_CONFIG_PATH:+:$$PKG_CONFIG_PATH} \
		$(SRCDIR)/configure $(FFMPEG_FLAGS)
	@if [ "$(LIBTORCH_CUDA)" = yes ] && ! grep -q '^CONFIG_LIBTORCH_CUDA=yes' $@; then \
		echo "LibTorch's CUDA library did not link (see $(BUILDDIR)/ffbuild/config.log); configure with --disable-cuda to build without it" >&2; \
		rm -f $@; exit 1; fi

build: $(FFCONFIG) $(LINKED)
	$(MAKE) -C $(BUILDDIR) -j$(NPROC)

FATE_CPU = fate-dnn-torch
FATE_GPU = fate-dnn-torch-cuda

check: build
	@$(MAKE) -C $(BUILDDIR) fate-clear-reports >/dev/null
	-@$(RUN_ENV) $(MAKE) -k -C $(BUILDDIR) -j$(NPROC) $(FATE_ENV) $(FATE_CPU)
	@$(FATE_ENV) scripts/fate-summary.sh $(BUILDDIR) $(FATE_CPU)

check-gpu: build
	@$(MAKE) -C $(BUILDDIR) fate-clear-reports >/dev/null
	-@$(RUN_ENV) $(MAKE) -k -C $(BUILDDIR) -j$(GPU_JOBS) $(FATE_ENV) $(FATE_GPU)
	@$(FATE_ENV) scripts/fate-summary.sh $(BUILDDIR) $(FATE_GPU)

# every test of ours, the CUDA ones too, has its reference file (make -n:
# no GPU needed, nothing run)
check-refs: $(FFCONFIG) $(LINKED)
	@$(FATE_ENV) scripts/check-refs.sh $(BUILDDIR) $(FATE_CPU) $(FATE_GPU)

# our kernels, as built (clang's PTX by default), keep their parameters and
# locals in registers: ptxas -v, no GPU needed
check-ptx: build
	@scripts/check-ptx.sh $(BUILDDIR)

# FFmpeg's "make fate" without samples (SAMPLES empty, FATE_SAMPLES ignored):
# upstream's tests plus ours, which are part of FATE.
check-upstream: build
	@$(RUN_ENV) scripts/check-upstream.sh $(BUILDDIR) $(NPROC) $(FATE_ENV)

demo: build
	$(RUN_ENV) TORCH_PYTHON=$(TORCH_PYTHON) tools/dnn-torch-demo.sh $(BUILDDIR)

# The table also goes into doc/benchmarks.md (scripts/bench-doc.sh).
bench: build
	$(RUN_ENV) TORCH_PYTHON=$(TORCH_PYTHON) CUDA_INCLUDE=$(CUDA_INCLUDE) tools/bench/dnn-torch-bench.sh $(BUILDDIR) >$(BUILDDIR)/bench.txt
	@cat $(BUILDDIR)/bench.txt
	scripts/bench-doc.sh $(BUILDDIR)/bench.txt

# The parts runner on one GPU against one ffmpeg; into doc/benchmarks.md too
bench-parts: build
	$(RUN_ENV) TORCH_PYTHON=$(TORCH_PYTHON) tools/bench/dnn-torch-bench-parts.sh $(BUILDDIR) >$(BUILDDIR)/bench-parts.txt
	@cat $(BUILDDIR)/bench-parts.txt
	scripts/bench-doc.sh $(BUILDDIR)/bench-parts.txt doc/benchmarks.md bench-parts

# doc/architectures.md: what the export tool makes of every architecture
# spandrel knows (no GPU needed), with the speeds of a make bench run with
# BENCH_ARCHITECTURES where BUILDDIR/bench.txt holds them
architectures:
	$(TORCH_PYTHON) tools/dnn-torch-architectures.py survey $(BUILDDIR)/architectures.jsonl
	$(TORCH_PYTHON) tools/dnn-torch-architectures.py doc $(BUILDDIR)/architectures.jsonl \
		doc/architectures.md $(wildcard $(BUILDDIR)/bench.txt)

# FFmpeg's own install: --prefix, --bindir, --libdir... of ./configure, and
# DESTDIR from the command line (make install DESTDIR=/tmp/stage).
# With FFmpeg's programs, tools/dnn-torch-parts.py as dnn-torch-parts (the
# parts of a video over several GPUs or a Ray cluster), in FFmpeg's bindir.
install: build
	$(MAKE) -C $(BUILDDIR) install
	@bindir=$$(printf 'print-bindir:\n\t@echo $$(BINDIR)\n' | $(MAKE) -s -C $(BUILDDIR) --no-print-directory -f Makefile -f - DESTDIR= print-bindir) && \
	    install -d "$(DESTDIR)$$bindir" && install -m 755 tools/dnn-torch-parts.py "$(DESTDIR)$$bindir/dnn-torch-parts"

uninstall:
	@test -f $(FFCONFIG) || { echo "$(BUILDDIR) is not configured: nothing to uninstall" >&2; exit 1; }
	$(MAKE) -C $(BUILDDIR) uninstall
	@bindir=$$(printf 'print-bindir:\n\t@echo $$(BINDIR)\n' | $(MAKE) -s -C $(BUILDDIR) --no-print-directory -f Makefile -f - DESTDIR= print-bindir) && \
	    rm -f "$(DESTDIR)$$bindir/dnn-torch-parts"

check-install: build
	@scripts/check-install.sh

# Export the commits on top of "upstream" in the prepared tree
# (scripts/export-series.sh holds the git format-patch flags).
patches: $(PREPARED)
	@if [ -n "$$(git -C $(SRCDIR) status --porcelain --untracked-files=no)" ]; then \
		echo "$(SRCDIR) has uncommitted edits: commit them first" >&2; exit 1; fi
	scripts/export-series.sh $(SRCDIR) patches
	scripts/prepare-tree.sh --record $(SRCDIR)
	@cat patches/series

check-patches: $(PREPARED)
	@tmp=$$(mktemp -d) && scripts/export-series.sh $(SRCDIR) $$tmp && \
	if diff -r -x '.*' -x our-files patches $$tmp >/dev/null; then echo "patches/ matches a fresh export"; rm -rf $$tmp; \
	else diff -ru -x our-files patches $$tmp | head -40; rm -rf $$tmp; echo "patches/ differs from a fresh export of $(SRCDIR): run make patches" >&2; exit 1; fi

# Every prefix of the series, with the files of ours patches/our-files
# assigns to it, builds: in $(BUILDDIR)/prefixes, FFmpeg configured with the
# flags of ./configure but only the DNN filters, rebuilt incrementally.
check-prefixes:
	@PKG_CONFIG_PATH=$(FFMPEG_PKG_CONFIG_PATH)$${PKG_CONFIG_PATH:+:$$PKG_CONFIG_PATH} \
		NPROC=$(NPROC) scripts/check-prefixes.sh $(TARBALL) $(BUILDDIR)/prefixes $(FFMPEG_FLAGS)

# make-dist.sh prepares a tree of its own from the pinned tarball: the one
# ./configure found, or else the one fetch-upstream.sh finds or fetches.
dist:
	tarball=$$(scripts/fetch-upstream.sh $(TARBALL)) && scripts/make-dist.sh "$$tarball" dist

lint:
	@scripts/lint.sh

clean:
	-[ ! -f $(BUILDDIR)/Makefile ] || $(MAKE) -C $(BUILDDIR) clean

distclean:
	rm -rf $(BUILDDIR) dist config.mk
