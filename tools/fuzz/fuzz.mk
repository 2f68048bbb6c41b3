# SPDX-License-Identifier: GPL-2.0
#
# Fuzzers (libFuzzer, clang), built with ASan and UBSan into
# $(BUILD)/fuzz/: 'make fuzz'.  Each runs on its corpus from the command
# line, and selftests/run's fuzz suite runs each one briefly:
#
#   .build/fuzz/fuzz_capture -rss_limit_mb=512 -timeout=10 \
#           tools/fuzz/corpus/capture
#
# fuzz_capture: the capture reader, the telemetry model and the views
# over a capture ('telemetry dump|report|hist'), tools/fuzz/fuzz_capture.c.

FUZZ_CC		?= clang
FUZZ_OUT	:= $(BUILD)/fuzz
FUZZ_CFLAGS	:= -O1 -g -fsanitize=fuzzer-no-link,address,undefined \
		   -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
		   -Wall -Wextra -Werror -std=gnu11 \
		   -Wno-gnu-variable-sized-type-not-at-end \
		   -I$(ROOT)/tools/mplanectl $(filter -I% -D%,$(TOOLS_CFLAGS))
# What the capture views are made of: the tools' library and the views'
# own files.  Nothing else of mplanectl.
FUZZ_CAPTURE_SRCS := $(wildcard $(ROOT)/tools/lib/*.c) \
		   $(addprefix $(ROOT)/tools/mplanectl/, \
		     telemetry_dump.c telemetry_report.c telemetry_hist.c \
		     telemetry_views.c telemetry_html.c html.c) \
		   $(ROOT)/tools/fuzz/fuzz_capture.c
FUZZ_CAPTURE_OBJS := $(patsubst $(ROOT)/tools/%.c,$(FUZZ_OUT)/obj/%.o, \
		     $(FUZZ_CAPTURE_SRCS))

.PHONY: fuzz
fuzz: $(FUZZ_OUT)/fuzz_capture

$(FUZZ_OUT)/obj/%.o: $(ROOT)/tools/%.c | $(BPF_SKELS)
	$(Q)mkdir -p $(@D)
	$(Q)echo "  FUZZCC  $(patsubst $(FUZZ_OUT)/obj/%,%,$@)"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_OUT)/fuzz_capture: $(FUZZ_CAPTURE_OBJS)
	$(Q)echo "  FUZZLD  $(@F)"
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ \
		$(TOOLS_LDLIBS) -lm

-include $(FUZZ_CAPTURE_OBJS:.o=.d)
