# SPDX-License-Identifier: GPL-2.0
#
# cmocka unit tests for the pure logic that mplane.ko shares with user
# space.  selftests/unit/test_X.c tests kmod/X.c, built here for the host.

UNIT_OUT	:= $(BUILD)/unit
UNIT_NAMES	:= $(patsubst $(ROOT)/selftests/unit/test_%.c,%,$(wildcard $(ROOT)/selftests/unit/test_*.c))
UNIT_BINS	:= $(UNIT_NAMES:%=$(UNIT_OUT)/test_%)
UNIT_CFLAGS	:= -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
		   -include $(ROOT)/selftests/unit/kshim.h -I$(ROOT)/kmod -I$(ROOT)/uapi $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
UNIT_LDLIBS	:= $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

.PHONY: unit
unit: $(UNIT_BINS)

$(UNIT_OUT)/test_%: $(ROOT)/selftests/unit/test_%.c $(ROOT)/kmod/%.c $(wildcard $(ROOT)/kmod/*.h) $(ROOT)/selftests/unit/kshim.h
	$(Q)mkdir -p $(@D)
	$(Q)echo "  UNIT    $(@F)"
	$(Q)$(CC) $(UNIT_CFLAGS) -o $@ $(filter %.c,$^) $(UNIT_LDLIBS)
