# SPDX-License-Identifier: GPL-2.0
#
# cmocka unit tests for pure logic, built for the host.
# selftests/unit/test_X.c tests kmod/X.c (logic that mplane.ko shares with
# user space) or, when there is no such file, tools/lib/mp_X.c (the tools')
# or tools/mplanectl/X.c.

UNIT_OUT	:= $(BUILD)/unit
UNIT_NAMES	:= $(patsubst $(ROOT)/selftests/unit/test_%.c,%,$(wildcard $(ROOT)/selftests/unit/test_*.c))
UNIT_BINS	:= $(UNIT_NAMES:%=$(UNIT_OUT)/test_%)
UNIT_CFLAGS	:= -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
		   -include $(ROOT)/selftests/unit/kshim.h -I$(ROOT)/kmod -I$(ROOT)/uapi \
		   -I$(ROOT)/tools/include \
		   -I$(ROOT)/tools/lib -I$(ROOT)/tools/mplanectl -DMPLANE_SRC_ROOT='"$(ROOT)"' \
		   $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
# libmnl: for the tools' netlink message code (test_linkmsg); json-c: for
# their JSON output (test_print, and mp_out.c wherever a test takes it in)
# and the fabric's state file (test_fabric).
UNIT_LDLIBS	:= $(shell $(PKG_CONFIG) --libs cmocka libmnl json-c 2>/dev/null || echo -lcmocka -lmnl -ljson-c)

.PHONY: unit
unit: $(UNIT_BINS)

define unit_build
	$(Q)mkdir -p $(@D)
	$(Q)echo "  UNIT    $(@F)"
	$(Q)$(CC) $(UNIT_CFLAGS) -o $@ $(filter %.c,$^) $(UNIT_LDLIBS)
endef

# Of two pattern rules make takes the first whose sources exist: kmod/ first.
$(UNIT_OUT)/test_%: $(ROOT)/selftests/unit/test_%.c $(ROOT)/kmod/%.c $(wildcard $(ROOT)/kmod/*.h) $(ROOT)/selftests/unit/kshim.h
	$(unit_build)

$(UNIT_OUT)/test_%: $(ROOT)/selftests/unit/test_%.c $(ROOT)/tools/lib/mp_%.c $(wildcard $(ROOT)/tools/lib/*.h) $(ROOT)/selftests/unit/kshim.h
	$(unit_build)

# The fabric's state file names its congestion control as mp_names does.
$(UNIT_OUT)/test_fabric: $(ROOT)/tools/lib/mp_names.c

# The roce transport's connection manager sets up a peer's QPs.
$(UNIT_OUT)/test_collective_roce_cm: $(ROOT)/tools/mplanectl/collective_roce_qp.c

# The switch's PI marking is a header that ar.bpf.c and the test share.
$(UNIT_OUT)/test_aqm_pi: $(ROOT)/selftests/unit/test_aqm_pi.c $(ROOT)/tools/include/mp_aqm_pi.h $(ROOT)/selftests/unit/kshim.h
	$(unit_build)

# Then mplanectl's own logic that needs no sockets: test_X.c tests
# tools/mplanectl/X.c (the roce transport's QPs).
$(UNIT_OUT)/test_%: $(ROOT)/selftests/unit/test_%.c $(ROOT)/tools/mplanectl/%.c $(wildcard $(ROOT)/tools/mplanectl/*.h) $(ROOT)/selftests/unit/kshim.h
	$(unit_build)
