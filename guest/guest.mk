# guest/guest.mk, included by the GNUmakefile: the guest programs (static
# x86-64 binaries built with musl) and the guest image build/guest/initramfs.cpio.
# `make all` builds $(GUEST_ALL).

# Where this file is included must not change the default goal.
guest_saved_goal := $(.DEFAULT_GOAL)

GUEST_CC     := musl-gcc
# -ffile-prefix-map keeps the checkout's path out of the binaries, so the
# image is the same wherever it is built.
GUEST_CFLAGS := -std=c11 -O2 -g -pthread -ffile-prefix-map=$(CURDIR)=. $(WARN)
GUEST_CPPFLAGS := -I. -Iinclude -I$(BUILD)/guest/include -D_GNU_SOURCE -MMD -MP
GUEST_LDFLAGS  := -static -pthread

# Programs installed as /bin/NAME (from guest/NAME.c); /init is rewind-init.
GUEST_PROGS := hello adversarial hostile panic spin deadlock true false echo sleep cat dirty yield \
	ledger tally net_echo clock_wait id env wordfreq imgstat passes cksum
GUEST_BIN   := $(BUILD)/guest/bin
GUEST_OBJ   := $(BUILD)/guest/obj
# The racy example suite (guest/tests/NAME.c, NAME.cc): built with
# guest/rewind-cc and guest/rewind-c++ (schedule events at shared accesses
# and synchronisation, guest/runtime/), installed as /tests/NAME. Those in
# GUEST_PLAIN_TESTS are also built without instrumentation, as
# /tests/plain/NAME (what a user's unmodified binary looks like: C with
# musl, C++ with g++ and glibc, both static).
GUEST_TESTS := $(basename $(notdir $(wildcard guest/tests/*.c)))
GUEST_CXX_TESTS := $(basename $(notdir $(wildcard guest/tests/*.cc)))
GUEST_PLAIN_TESTS := $(GUEST_TESTS) $(GUEST_CXX_TESTS)
GUEST_RT_SRC := start counter call tsan sync feedback threads spin fair sites walk
GUEST_RT := $(GUEST_OBJ)/runtime/rewind-rt.o
GUEST_RT_GLIBC := $(GUEST_OBJ)/runtime/rewind-rt-glibc.o
GUEST_BINS  := $(GUEST_BIN)/rewind-init $(GUEST_PROGS:%=$(GUEST_BIN)/%) \
	$(GUEST_TESTS:%=$(GUEST_BIN)/tests/%) $(GUEST_CXX_TESTS:%=$(GUEST_BIN)/tests/%) \
	$(GUEST_PLAIN_TESTS:%=$(GUEST_BIN)/tests/plain/%)
GUEST_INITRAMFS := $(BUILD)/guest/initramfs.cpio
GUEST_ALL   := $(GUEST_INITRAMFS)
# Kept after linking (make would delete them as intermediate files).
GUEST_OBJS  := $(patsubst %,$(GUEST_OBJ)/%.o,rewind-init $(GUEST_PROGS) util job_file init_system \
	$(GUEST_RT_SRC:%=runtime/%))
.SECONDARY: $(GUEST_OBJS)
# Empty mount points and directories in the image.
GUEST_DIRS  := proc sys dev tmp run rewind tests tests/plain home root:0700
# A minimal /etc: users (root, rewind 1000, nobody), groups, localhost.
GUEST_ETC   := passwd group hosts host.conf nsswitch.conf protocols resolv.conf services
# The userland a test's scripts expect on PATH: Debian's busybox-static as
# /usr/bin/busybox, each of its applets a link beside it, and /bin/sh
# (/bin, first on PATH, keeps the programs above and what a job adds).
GUEST_BUSYBOX := /bin/busybox
GUEST_APPLETS := $(filter-out busybox,$(shell $(GUEST_BUSYBOX) --list 2>/dev/null))

all: $(GUEST_ALL) $(GUEST_RT) $(GUEST_RT_GLIBC)

# musl ships no kernel UAPI headers; include/rewind/abi.h needs <linux/types.h>.
# Only linux/, asm/ and asm-generic/ of linux-libc-dev are exposed, never glibc's.
GUEST_INCLUDE := $(BUILD)/guest/include/.stamp
$(GUEST_INCLUDE):
	@mkdir -p $(@D)
	ln -sfn /usr/include/linux $(@D)/linux
	ln -sfn /usr/include/asm-generic $(@D)/asm-generic
	ln -sfn /usr/include/x86_64-linux-gnu/asm $(@D)/asm
	@touch $@

$(GUEST_OBJ)/%.o: guest/%.c | $(GUEST_INCLUDE)
	@mkdir -p $(@D)
	$(GUEST_CC) $(GUEST_CPPFLAGS) $(GUEST_CFLAGS) -c -o $@ $<

# Every program links the shared helpers; rewind-init also the job-file parser and its system setup.
$(GUEST_BIN)/%: $(GUEST_OBJ)/%.o $(GUEST_OBJ)/util.o
	@mkdir -p $(@D)
	$(GUEST_CC) $(GUEST_CFLAGS) $(GUEST_LDFLAGS) -o $@ $^
$(GUEST_BIN)/rewind-init: $(GUEST_OBJ)/job_file.o $(GUEST_OBJ)/init_system.o

# The runtime of instrumented programs, never instrumented itself: one
# relocatable object for musl (rewind-cc) and one for glibc (rewind-c++).
$(GUEST_RT): $(GUEST_RT_SRC:%=$(GUEST_OBJ)/runtime/%.o)
	ld -r -o $@ $^
$(GUEST_OBJ)/runtime/glibc/%.o: guest/runtime/%.c | $(GUEST_INCLUDE)
	@mkdir -p $(@D)
	gcc -I. -Iinclude -D_GNU_SOURCE -MMD -MP $(GUEST_CFLAGS) -c -o $@ $<
$(GUEST_RT_GLIBC): $(GUEST_RT_SRC:%=$(GUEST_OBJ)/runtime/glibc/%.o)
	ld -r -o $@ $^

# The racy suite: built the documented way.
$(GUEST_BIN)/tests/%: guest/tests/%.c $(GUEST_RT) guest/rewind-cc | $(GUEST_INCLUDE)
	@mkdir -p $(@D)
	REWIND_RUNTIME=$(GUEST_RT) guest/rewind-cc -D_GNU_SOURCE $(GUEST_CFLAGS) -o $@ $<
$(GUEST_BIN)/tests/%: guest/tests/%.cc $(GUEST_RT_GLIBC) guest/rewind-cc guest/rewind-c++
	@mkdir -p $(@D)
	REWIND_RUNTIME=$(GUEST_RT_GLIBC) guest/rewind-c++ -std=c++17 -O2 -g -pthread \
		-ffile-prefix-map=$(CURDIR)=. -Wall -Wextra -Werror -o $@ $<
$(GUEST_BIN)/tests/plain/%: guest/tests/%.c | $(GUEST_INCLUDE)
	@mkdir -p $(@D)
	$(GUEST_CC) -D_GNU_SOURCE $(GUEST_CFLAGS) $(GUEST_LDFLAGS) -o $@ $<
$(GUEST_BIN)/tests/plain/%: guest/tests/%.cc
	@mkdir -p $(@D)
	g++ -std=c++17 -O2 -g -pthread -static -ffile-prefix-map=$(CURDIR)=. \
		-Wall -Wextra -Werror -o $@ $<
guest: $(GUEST_RT) $(GUEST_RT_GLIBC)

$(GUEST_INITRAMFS): $(GUEST_BINS) $(BUILD)/bin/rewind-mkinitramfs guest/guest.mk \
		$(GUEST_ETC:%=guest/etc/%) $(GUEST_BUSYBOX)
	$(BUILD)/bin/rewind-mkinitramfs -o $@ \
		--file $(GUEST_BUSYBOX):usr/bin/busybox:0755 --symlink bin/sh:../usr/bin/busybox \
		$(foreach a,$(GUEST_APPLETS),--symlink usr/bin/$(a):busybox) \
		--file $(GUEST_BIN)/rewind-init:init:0755 \
		$(foreach p,$(GUEST_PROGS),--file $(GUEST_BIN)/$(p):bin/$(p):0755) \
		$(foreach t,$(GUEST_TESTS) $(GUEST_CXX_TESTS),--file $(GUEST_BIN)/tests/$(t):tests/$(t):0755) \
		$(foreach t,$(GUEST_PLAIN_TESTS),--file $(GUEST_BIN)/tests/plain/$(t):tests/plain/$(t):0755) \
		$(foreach f,$(GUEST_ETC),--file guest/etc/$(f):etc/$(f):0644) \
		$(foreach d,$(GUEST_DIRS),--dir $(d))

.PHONY: guest
guest: $(GUEST_ALL)

.DEFAULT_GOAL := $(guest_saved_goal)
