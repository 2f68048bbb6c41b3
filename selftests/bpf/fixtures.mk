# SPDX-License-Identifier: GPL-2.0
#
# The BPF fixture runner: selftests/bpf/fixtures/*.c -> $(BUILD)/fixtures,
# run by selftests/bpf/fixtures.sh.  Included by the top-level Makefile
# after bpf/bpf.mk and tools/tools.mk (it embeds skeletons and uses
# TOOLS_CFLAGS).  A new fixture table is one more .c file here: the
# wildcard picks it up.

FIXTURES	:= $(BUILD)/fixtures
FIXTURES_OUT	:= $(BUILD)/fixtures.d
# Tables start from a base packet and override some of its fields.
FIXTURES_CFLAGS	:= $(TOOLS_CFLAGS) -Wno-override-init
FIXTURES_SRCS	:= $(wildcard $(ROOT)/selftests/bpf/fixtures/*.c)
FIXTURES_OBJS	:= $(patsubst $(ROOT)/selftests/bpf/fixtures/%.c,$(FIXTURES_OUT)/%.o, \
		   $(FIXTURES_SRCS))

.PHONY: fixtures
fixtures: $(FIXTURES)

# Built with the tools, so that every build step before a BPF test run
# (make tools, make check, make bpf-check) has it.
tools: $(FIXTURES)

$(FIXTURES_OBJS): | $(BPF_SKELS)

$(FIXTURES_OUT)/%.o: $(ROOT)/selftests/bpf/fixtures/%.c
	$(Q)mkdir -p $(@D)
	$(Q)echo "  CC      fixtures/$(@F)"
	$(Q)$(CC) $(FIXTURES_CFLAGS) -MMD -MP -c $< -o $@

$(FIXTURES): $(FIXTURES_OBJS)
	$(Q)echo "  LD      $(@F)"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(TOOLS_LDLIBS) -lm

-include $(FIXTURES_OBJS:.o=.d)
