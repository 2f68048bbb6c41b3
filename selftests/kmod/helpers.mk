# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the kmod tests: selftests/kmod/mpnl.c -> $(BUILD)/mpnl, raw
# rtnetlink requests for device.sh.  Included by the top-level Makefile
# after tools/tools.mk, whose libmp.a it links.

MPNL		:= $(BUILD)/mpnl
MPNL_OBJ	:= $(TOOLS_OUT)/selftests/mpnl.o

# Built with the tools, so that the VM runs that use it find it.
tools: $(MPNL)

$(MPNL_OBJ): $(ROOT)/selftests/kmod/mpnl.c
	$(Q)mkdir -p $(@D)
	$(Q)echo "  CC      selftests/$(@F)"
	$(Q)$(CC) $(TOOLS_CFLAGS) -MMD -MP -c $< -o $@

$(MPNL): $(MPNL_OBJ) $(LIBMP)
	$(Q)echo "  LD      $(@F)"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(TOOLS_LDLIBS)

-include $(MPNL_OBJ:.o=.d)
