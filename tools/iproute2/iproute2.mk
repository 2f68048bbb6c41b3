# SPDX-License-Identifier: GPL-2.0
#
# The ip(8) plugin: tools/iproute2/link_mplane.c and the tools/lib files
# it shares with mplanectl, built position-independent into
# $(BUILD)/ip/link_mplane.so, with link_mplane_slave.so naming the same
# object for planes.  Only the two link_util tables are exported: the
# rest is hidden, so that nothing of ours shadows a symbol of ip's.
# Included by the top-level Makefile after tools/tools.mk.

IP_PLUGIN_OUT	:= $(BUILD)/ip
IP_PLUGIN	:= $(IP_PLUGIN_OUT)/link_mplane.so
IP_PLUGIN_SRCS	:= $(ROOT)/tools/iproute2/link_mplane.c \
		   $(ROOT)/tools/lib/mp_linkmsg.c $(ROOT)/tools/lib/mp_names.c
IP_PLUGIN_OBJS	:= $(patsubst %.c,$(IP_PLUGIN_OUT)/%.o,$(notdir $(IP_PLUGIN_SRCS)))
IP_PLUGIN_CFLAGS := -O2 -g -Wall -Wextra -Werror -std=gnu11 -fPIC \
		   -fvisibility=hidden -I$(ROOT)/tools/lib \
		   -I$(ROOT)/tools/include -I$(ROOT)/uapi

.PHONY: ip-plugin
ip-plugin: $(IP_PLUGIN)
tools: $(IP_PLUGIN)

$(IP_PLUGIN_OUT)/%.o: $(ROOT)/tools/iproute2/%.c
	$(Q)mkdir -p $(@D)
	$(Q)echo "  CC      ip/$(@F)"
	$(Q)$(CC) $(IP_PLUGIN_CFLAGS) -MMD -MP -c $< -o $@

$(IP_PLUGIN_OUT)/%.o: $(ROOT)/tools/lib/%.c
	$(Q)mkdir -p $(@D)
	$(Q)echo "  CC      ip/$(@F)"
	$(Q)$(CC) $(IP_PLUGIN_CFLAGS) -MMD -MP -c $< -o $@

# ip resolves print_*() and the JSON writer when it loads the object.
$(IP_PLUGIN): $(IP_PLUGIN_OBJS)
	$(Q)echo "  LD      ip/$(@F)"
	$(Q)$(CC) -shared $(LDFLAGS) -o $@ $^ $(shell $(PKG_CONFIG) --libs libmnl)
	$(Q)ln -sf $(@F) $(@D)/link_mplane_slave.so

-include $(IP_PLUGIN_OBJS:.o=.d)
