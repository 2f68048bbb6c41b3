# SPDX-License-Identifier: GPL-2.0
#
# make install [DESTDIR=...] [PREFIX=/usr/local]: mplanectl, ip's plugin,
# the man pages, bash completion, the mark client's header and pkg-config
# file, the systemd units and the documentation.  make install-dkms puts
# the module's source where DKMS builds it (/usr/src/mplane-VERSION).
# Included by the top-level Makefile.
#
# ip looks for plugins in one directory that it was built with, whatever
# PREFIX is: IPLIBDIR is that directory (Debian's, by default).

PREFIX		?= /usr/local
SBINDIR		?= $(PREFIX)/sbin
DATADIR		?= $(PREFIX)/share/mplane
MANDIR		?= $(PREFIX)/share/man
DOCDIR		?= $(PREFIX)/share/doc/mplane
INCLUDEDIR	?= $(PREFIX)/include
MULTIARCH	:= $(shell $(CC) -print-multiarch 2>/dev/null)
LIBDIR		?= $(PREFIX)/lib/$(MULTIARCH)
PKGCONFIGDIR	?= $(LIBDIR)/pkgconfig
IPLIBDIR	?= /usr/lib/$(MULTIARCH)/ip
BASHCOMPDIR	?= $(PREFIX)/share/bash-completion/completions
UNITDIR		?= $(PREFIX)/lib/systemd/system
DKMSSRCDIR	?= /usr/src/mplane-$(MPLANE_VERSION)
INSTALL		?= install

INSTALL_DOCS	:= $(ROOT)/README.md $(wildcard $(ROOT)/Documentation/*.md)

.PHONY: install install-dkms uninstall
install: tools
	$(Q)echo "  INSTALL $(DESTDIR)$(PREFIX)"
	$(Q)$(INSTALL) -D -m 0755 $(MPLANECTL) $(DESTDIR)$(SBINDIR)/mplanectl
	$(Q)$(INSTALL) -D -m 0644 $(IP_PLUGIN) $(DESTDIR)$(IPLIBDIR)/link_mplane.so
	$(Q)ln -sf link_mplane.so $(DESTDIR)$(IPLIBDIR)/link_mplane_slave.so
	$(Q)$(INSTALL) -D -m 0644 $(ROOT)/Documentation/mplanectl.8 \
		$(DESTDIR)$(MANDIR)/man8/mplanectl.8
	$(Q)$(INSTALL) -D -m 0644 $(ROOT)/Documentation/mplane.4 \
		$(DESTDIR)$(MANDIR)/man4/mplane.4
	$(Q)$(INSTALL) -D -m 0644 $(ROOT)/tools/completion/mplanectl.bash \
		$(DESTDIR)$(BASHCOMPDIR)/mplanectl
	$(Q)$(INSTALL) -D -m 0644 $(ROOT)/tools/include/mplane_mark_proto.h \
		$(DESTDIR)$(INCLUDEDIR)/mplane/mplane_mark_proto.h
	$(Q)$(INSTALL) -D -m 0644 $(ROOT)/tools/include/mplane_mark.h \
		$(DESTDIR)$(INCLUDEDIR)/mplane/mplane_mark.h
	$(Q)$(INSTALL) -d $(DESTDIR)$(PKGCONFIGDIR)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)/mplane|' \
		-e 's|@VERSION@|$(MPLANE_VERSION)|' -e '/^# SPDX/d' \
		$(ROOT)/tools/include/mplane-mark.pc.in \
		>$(DESTDIR)$(PKGCONFIGDIR)/mplane-mark.pc
	$(Q)$(INSTALL) -D -m 0644 $(ROOT)/tools/accept/expect.conf \
		$(DESTDIR)$(DATADIR)/expect.conf
	$(Q)$(INSTALL) -D -m 0755 $(ROOT)/tools/torch/launch.sh \
		$(DESTDIR)$(DATADIR)/torch/launch.sh
	$(Q)$(INSTALL) -D -m 0644 $(ROOT)/tools/torch/allreduce_train.py \
		$(DESTDIR)$(DATADIR)/torch/allreduce_train.py
	$(Q)$(INSTALL) -D -m 0644 $(ROOT)/tools/grafana/mplane.json \
		$(DESTDIR)$(DATADIR)/grafana/mplane.json
	$(Q)$(INSTALL) -D -m 0644 $(ROOT)/tools/include/mplane_mark.py \
		$(DESTDIR)$(DATADIR)/python/mplane_mark.py
	$(Q)$(INSTALL) -d $(DESTDIR)$(UNITDIR)
	$(Q)sed 's|@SBINDIR@|$(SBINDIR)|' $(ROOT)/tools/systemd/mplane-exporter.service \
		>$(DESTDIR)$(UNITDIR)/mplane-exporter.service
	$(Q)$(INSTALL) -m 0644 '$(ROOT)/tools/systemd/mplane-link@.service' \
		$(DESTDIR)$(UNITDIR)/
	$(Q)$(INSTALL) -D -m 0644 $(ROOT)/tools/systemd/mp0.conf.example \
		$(DESTDIR)$(DOCDIR)/examples/mp0.conf
	$(Q)$(INSTALL) -m 0644 $(INSTALL_DOCS) $(DESTDIR)$(DOCDIR)/

# The sources Kbuild needs and nothing else, with dkms.conf.
install-dkms:
	$(Q)echo "  INSTALL $(DESTDIR)$(DKMSSRCDIR)"
	$(Q)$(INSTALL) -d $(DESTDIR)$(DKMSSRCDIR)/kmod $(DESTDIR)$(DKMSSRCDIR)/uapi/linux
	$(Q)$(INSTALL) -m 0644 $(ROOT)/Kbuild $(ROOT)/VERSION $(DESTDIR)$(DKMSSRCDIR)/
	$(Q)$(INSTALL) -m 0644 $(ROOT)/kmod/Kbuild $(wildcard $(ROOT)/kmod/*.[ch]) \
		$(DESTDIR)$(DKMSSRCDIR)/kmod/
	$(Q)$(INSTALL) -m 0644 $(ROOT)/uapi/linux/mplane.h \
		$(DESTDIR)$(DKMSSRCDIR)/uapi/linux/
	$(Q)sed 's|@VERSION@|$(MPLANE_VERSION)|' $(ROOT)/kmod/dkms.conf.in \
		>$(DESTDIR)$(DKMSSRCDIR)/dkms.conf

uninstall:
	$(Q)rm -f $(DESTDIR)$(SBINDIR)/mplanectl \
		$(DESTDIR)$(IPLIBDIR)/link_mplane.so \
		$(DESTDIR)$(IPLIBDIR)/link_mplane_slave.so \
		$(DESTDIR)$(MANDIR)/man8/mplanectl.8 \
		$(DESTDIR)$(MANDIR)/man4/mplane.4 \
		$(DESTDIR)$(BASHCOMPDIR)/mplanectl \
		$(DESTDIR)$(PKGCONFIGDIR)/mplane-mark.pc \
		$(DESTDIR)$(UNITDIR)/mplane-exporter.service \
		'$(DESTDIR)$(UNITDIR)/mplane-link@.service'
	$(Q)rm -rf $(DESTDIR)$(INCLUDEDIR)/mplane $(DESTDIR)$(DATADIR) \
		$(DESTDIR)$(DOCDIR)

# make deb: mplane-tools and mplane-dkms, built by dpkg-buildpackage from a
# copy of the tree's files (what git tracks or would), so that the package
# build's clean never touches this tree's .build.  Into $(BUILD)/deb/.
# A tree whose files hash as the last build's keeps its packages: make
# check builds them once (30 s), for lintian and for the VM's install.
DEB_OUT		:= $(BUILD)/deb
DEB_TREE_FILES	:= cd $(ROOT) && git ls-files -z --cached --others --exclude-standard
.PHONY: deb deb-trixie
deb:
	$(Q)$(ROOT)/scripts/deps.sh --quiet package
	$(Q)sum=$$($(DEB_TREE_FILES) | xargs -0 sha256sum | sha256sum); \
	if [ "$$(cat $(DEB_OUT)/tree.sha256 2>/dev/null)" = "$$sum" ] && \
	   ls $(DEB_OUT)/mplane-tools_*.deb $(DEB_OUT)/mplane-dkms_*.deb >/dev/null 2>&1; then \
		echo "  DEB     $(DEB_OUT) (the tree is unchanged)"; \
	else \
		rm -rf $(DEB_OUT) && mkdir -p $(DEB_OUT)/mplane-$(MPLANE_VERSION) && \
		{ $(DEB_TREE_FILES) | xargs -0 cp --parents -t $(DEB_OUT)/mplane-$(MPLANE_VERSION); } && \
		echo "  DEB     $(DEB_OUT)" && \
		{ cd $(DEB_OUT)/mplane-$(MPLANE_VERSION) && \
		  dpkg-buildpackage -b -us -uc >$(DEB_OUT)/build.log 2>&1 || \
		  { tail -n 30 $(DEB_OUT)/build.log; exit 1; }; } && \
		echo "$$sum" >$(DEB_OUT)/tree.sha256; \
	fi
	$(Q)ls $(DEB_OUT)/*.deb

# make deb-trixie: the same packages for Debian 13, built by
# dpkg-buildpackage inside the trixie build root (scripts/deb-trixie.sh),
# into $(BUILD)/deb-trixie/: what selftests/deb/boot.sh installs on the
# 7.3 kernel's trixie machine.
deb-trixie:
	$(Q)$(ROOT)/scripts/deb-trixie.sh
