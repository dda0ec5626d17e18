# install.mk, included by the GNUmakefile: `make install`, `make uninstall`
# and `make deb`, and the files only they need that the build makes: the
# man pages and the bash completion (both from the programs' own --help
# texts) and the KVM box's probe program. The layout: docs/install.md.
#   make install PREFIX=/usr/local DESTDIR=    (the defaults)
#   make uninstall PREFIX=... DESTDIR=...      (the same values as install)
#   make deb                                   (BUILD/rewind_VERSION_ARCH.deb)

# Where this file is included must not change the default goal.
install_saved_goal := $(.DEFAULT_GOAL)

PREFIX  ?= /usr/local
DESTDIR ?=
INSTALL ?= install
REWIND_RELEASE := $(shell sed -n 's/^\#define REWIND_VERSION "\(.*\)"$$/\1/p' vmm/version.h)

inst_bin     = $(DESTDIR)$(PREFIX)/bin
inst_libexec = $(DESTDIR)$(PREFIX)/libexec/rewind
inst_lib     = $(DESTDIR)$(PREFIX)/lib/rewind
inst_share   = $(DESTDIR)$(PREFIX)/share/rewind
inst_man1    = $(DESTDIR)$(PREFIX)/share/man/man1
inst_bashcomp = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
inst_doc     = $(DESTDIR)$(PREFIX)/share/doc/rewind

# PREFIX/bin: what users type; PREFIX/libexec/rewind: what `rewind` runs.
INSTALL_BIN     := rewind rewind-harness
INSTALL_CC      := rewind-cc rewind-c++ rewind-cc-glibc
INSTALL_LIBEXEC := rewind-fuzz rewind-explore rewind-report rewind-mkinitramfs
INSTALL_BOX     := run qemu.sh init
INSTALL_DOCS    := README.md CONTRIBUTING.md LICENSE $(wildcard CHANGELOG.md)
MAN_SUBCOMMANDS := run fuzz replay explain bundle trace explore report keyframe box
MAN_PAGES       := rewind rewind-harness $(MAN_SUBCOMMANDS:%=rewind-%)
MAN_FILES       := $(MAN_PAGES:%=$(BUILD)/share/man/man1/%.1.gz)
COMPLETION      := $(BUILD)/share/bash-completion/rewind
BOX_PROBE       := $(BUILD)/box/kvm-probe

# What an installed Rewind is made of, built if missing.
INSTALL_INPUTS := $(INSTALL_BIN:%=$(BUILD)/bin/%) $(INSTALL_LIBEXEC:%=$(BUILD)/bin/%) \
	$(BUILD)/lib/rewind-mutator.so $(BUILD)/guest/bzImage $(GUEST_INITRAMFS) \
	$(GUEST_RT) $(GUEST_RT_GLIBC) $(BOX_PROBE) $(MAN_FILES) $(COMPLETION)

all: $(MAN_FILES) $(COMPLETION) $(BOX_PROBE)

# The help texts come from every program `rewind` runs, the box's from its script.
HELP_SOURCES := $(BUILD)/bin/rewind $(BUILD)/bin/rewind-harness $(BUILD)/bin/rewind-fuzz \
	$(BUILD)/bin/rewind-explore $(BUILD)/bin/rewind-report tests/box/run
$(BUILD)/share/man/man1/%.1.gz: packaging/gen-man $(HELP_SOURCES) vmm/version.h
	@mkdir -p $(@D)
	packaging/gen-man $(BUILD)/bin/rewind $* $(REWIND_RELEASE) >$(@:.gz=)
	gzip -9nf $(@:.gz=)
$(COMPLETION): completion/gen-completion $(HELP_SOURCES)
	@mkdir -p $(@D)
	completion/gen-completion $(BUILD)/bin/rewind >$@.tmp
	mv $@.tmp $@

# An installed box has no sources to build its probe from (tests/box/run).
$(BOX_PROBE): tests/box/kvm_probe.c vmm/kvm_speed.c vmm/kvm_speed.h lib/log.h
	@mkdir -p $(@D)
	$(CC) -I. -D_GNU_SOURCE $(CFLAGS) -o $@ tests/box/kvm_probe.c vmm/kvm_speed.c

.PHONY: install uninstall deb
install: $(INSTALL_INPUTS)
	$(INSTALL) -d $(inst_bin) $(inst_libexec)/box $(inst_lib)/guest $(inst_lib)/runtime \
		$(inst_share) $(inst_man1) $(inst_bashcomp) $(inst_doc)/docs
	$(INSTALL) -m 755 $(INSTALL_BIN:%=$(BUILD)/bin/%) $(INSTALL_CC:%=guest/%) $(inst_bin)
	$(INSTALL) -m 755 $(INSTALL_LIBEXEC:%=$(BUILD)/bin/%) $(inst_libexec)
	$(INSTALL) -m 755 tests/box/run tests/box/init $(BOX_PROBE) $(inst_libexec)/box
	$(INSTALL) -m 644 tests/box/qemu.sh $(inst_libexec)/box
	$(INSTALL) -m 644 $(BUILD)/lib/rewind-mutator.so $(inst_lib)
	$(INSTALL) -m 644 $(BUILD)/guest/bzImage $(BUILD)/guest/bzImage.map $(GUEST_INITRAMFS) \
		$(inst_lib)/guest
	$(INSTALL) -m 644 $(GUEST_RT) $(GUEST_RT_GLIBC) $(inst_lib)/runtime
	$(INSTALL) -m 644 guest/tests/suite.json $(inst_share)
	for f in $$(find corpus -type f | LC_ALL=C sort); do \
		$(INSTALL) -D -m 644 "$$f" "$(inst_share)/$$f" || exit 1; done
	$(INSTALL) -m 644 $(MAN_FILES) $(inst_man1)
	$(INSTALL) -m 644 $(COMPLETION) $(inst_bashcomp)/rewind
	$(INSTALL) -m 644 $(INSTALL_DOCS) $(inst_doc)
	$(INSTALL) -m 644 docs/*.md $(inst_doc)/docs

# Only what install put there: the shared folders (bin, man1, ...) stay.
uninstall:
	rm -f $(INSTALL_BIN:%=$(inst_bin)/%) $(INSTALL_CC:%=$(inst_bin)/%)
	rm -f $(MAN_PAGES:%=$(inst_man1)/%.1.gz) $(inst_bashcomp)/rewind
	rm -rf $(inst_libexec) $(inst_lib) $(inst_share) $(inst_doc)

# A Debian package of `make install PREFIX=/usr`: checked with dpkg-deb -I/-c.
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB      := $(BUILD)/rewind_$(REWIND_RELEASE)_$(DEB_ARCH).deb
DEB_ROOT := $(BUILD)/deb-root
deb: $(INSTALL_INPUTS) packaging/control.in
	rm -rf $(DEB_ROOT)
	$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(DEB_ROOT) PREFIX=/usr
	$(INSTALL) -m 644 LICENSE $(DEB_ROOT)/usr/share/doc/rewind/copyright
	$(INSTALL) -d $(DEB_ROOT)/DEBIAN
	sed -e 's/@VERSION@/$(REWIND_RELEASE)/' -e 's/@ARCH@/$(DEB_ARCH)/' \
		-e "s/@SIZE@/$$(du -sk --exclude=DEBIAN $(DEB_ROOT) | cut -f1)/" \
		packaging/control.in >$(DEB_ROOT)/DEBIAN/control
	dpkg-deb --root-owner-group -Zxz --build $(DEB_ROOT) $(DEB)
	rm -rf $(DEB_ROOT)

.DEFAULT_GOAL := $(install_saved_goal)
