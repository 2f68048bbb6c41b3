# SPDX-License-Identifier: GPL-2.0
#
# User-space tools: tools/lib (helpers shared by every tool, built as one
# archive) and tools/mplanectl -> $(BUILD)/mplanectl.  Included by the
# top-level Makefile after bpf/bpf.mk, whose skeletons mplanectl embeds.

CC		?= cc
PKG_CONFIG	?= pkg-config
# One version for the tools, the module and the packages: VERSION.
MPLANE_VERSION	?= $(shell cat $(ROOT)/VERSION)
Q		?= @

TOOLS_OUT	:= $(BUILD)/tools
TOOLS_PKGS	:= libxdp libbpf libmnl json-c libmicrohttpd
TOOLS_CFLAGS	:= -O2 -g -Wall -Wextra -Werror -std=gnu11 \
		   -I$(ROOT)/tools/lib -I$(ROOT)/tools/include -I$(ROOT)/uapi \
		   -I$(BPF_OUT) \
		   -DMPLANE_VERSION='"$(MPLANE_VERSION)"' \
		   -DMPLANE_ACCEPT_EXPECT='"$(ROOT)/tools/accept/expect.conf"' \
		   -DMPLANE_TORCH_LAUNCH='"$(ROOT)/tools/torch/launch.sh"' \
		   $(shell $(PKG_CONFIG) --cflags $(TOOLS_PKGS))
# libxdp, libbpf, libelf, zlib and json-c are linked in, and libmicrohttpd is
# loaded only by the command that serves HTTP (tools/lib/mp_http.h): each
# shared object costs an exec ~40 ms in a debug guest under TCG, where the
# tests start mplanectl hundreds of times.  libmnl has no archive.
# TOOLS_STATIC= links every library as a shared one: Debian's packages
# do (debian/rules), as policy wants no library embedded.
TOOLS_STATIC	?= libxdp libbpf json-c
comma		:= ,
TOOLS_SHARED	:= $(filter-out $(TOOLS_STATIC),libxdp libbpf json-c) libmnl
TOOLS_LDLIBS	:= $(if $(TOOLS_STATIC),-Wl$(comma)-Bstatic $(shell $(PKG_CONFIG) \
		     --static --libs-only-l $(TOOLS_STATIC)) -Wl$(comma)-Bdynamic) \
		   $(shell $(PKG_CONFIG) --libs $(TOOLS_SHARED))

LIBMP		:= $(TOOLS_OUT)/libmp.a
LIBMP_OBJS	:= $(patsubst $(ROOT)/tools/%.c,$(TOOLS_OUT)/%.o, \
		   $(wildcard $(ROOT)/tools/lib/*.c))
MPLANECTL	:= $(BUILD)/mplanectl
MPLANECTL_OBJS	:= $(patsubst $(ROOT)/tools/%.c,$(TOOLS_OUT)/%.o, \
		   $(wildcard $(ROOT)/tools/mplanectl/*.c))

.PHONY: tools
tools: $(MPLANECTL)

# Skeletons must exist before the first compile; after it, the .d files
# record which object includes which skeleton.
$(MPLANECTL_OBJS): | $(BPF_SKELS)

$(TOOLS_OUT)/%.o: $(ROOT)/tools/%.c
	$(Q)mkdir -p $(@D)
	$(Q)echo "  CC      $(patsubst $(TOOLS_OUT)/%,%,$@)"
	$(Q)$(CC) $(TOOLS_CFLAGS) -MMD -MP -c $< -o $@

$(LIBMP): $(LIBMP_OBJS)
	$(Q)echo "  AR      $(@F)"
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

$(MPLANECTL): $(MPLANECTL_OBJS) $(LIBMP)
	$(Q)echo "  LD      $(@F)"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(TOOLS_LDLIBS)

-include $(LIBMP_OBJS:.o=.d) $(MPLANECTL_OBJS:.o=.d)
