# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the kmod tests, each selftests/kmod/X.c -> $(BUILD)/X:
#   mpnl   raw rtnetlink requests (device.sh, netlink.sh)
#   mppkt  hand-made IPv4 packets through AF_PACKET (datapath.sh)
#   mptcx  tcx hooks seen and a foreign program put on them (bpf tests)
# Included by the top-level Makefile after tools/tools.mk, whose libmp.a
# they link.

KMOD_HELPERS	:= mpnl mppkt mptcx
KMOD_HELPER_BINS := $(KMOD_HELPERS:%=$(BUILD)/%)
KMOD_HELPER_OBJS := $(KMOD_HELPERS:%=$(TOOLS_OUT)/selftests/%.o)

# mpnl's generated netlink cases are a file of their own.
$(BUILD)/mpnl: $(TOOLS_OUT)/selftests/mpnl_cases.o

# Built with the tools, so that the VM runs that use them find them.
tools: $(KMOD_HELPER_BINS)

$(TOOLS_OUT)/selftests/%.o: $(ROOT)/selftests/kmod/%.c
	$(Q)mkdir -p $(@D)
	$(Q)echo "  CC      selftests/$(@F)"
	$(Q)$(CC) $(TOOLS_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/%: $(TOOLS_OUT)/selftests/%.o $(LIBMP)
	$(Q)echo "  LD      $(@F)"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(TOOLS_LDLIBS)

-include $(KMOD_HELPER_OBJS:.o=.d) $(TOOLS_OUT)/selftests/mpnl_cases.d
