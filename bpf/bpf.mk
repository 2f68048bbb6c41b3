# SPDX-License-Identifier: GPL-2.0
#
# BPF programs: bpf/X.bpf.c -> $(BUILD)/bpf/X.bpf.o -> $(BUILD)/bpf/X.skel.h.
# Included by the top-level Makefile, which sets ROOT and BUILD.  Programs
# are CO-RE, so one vmlinux.h from the build host serves every kernel.

CLANG		?= clang
BPFTOOL		?= bpftool
VMLINUX_BTF	?= /sys/kernel/btf/vmlinux
Q		?= @

BPF_OUT		:= $(BUILD)/bpf
BPF_PROGS	:= pktcount ar hostacct pass marks kmtrace fault_loss
BPF_OBJS	:= $(BPF_PROGS:%=$(BPF_OUT)/%.bpf.o)
BPF_SKELS	:= $(BPF_PROGS:%=$(BPF_OUT)/%.skel.h)
BPF_CFLAGS	:= -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86 \
		   -I$(BPF_OUT) -I$(ROOT)/uapi -I$(ROOT)/tools/include

.PHONY: bpf
bpf: $(BPF_OBJS) $(BPF_SKELS)

$(BPF_OUT):
	$(Q)mkdir -p $@

# Generated once, not on every kernel change: CO-RE relocates at load time.
$(BPF_OUT)/vmlinux.h: | $(BPF_OUT)
	$(Q)echo "  GEN     $(@F)"
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c >$@.tmp
	$(Q)mv $@.tmp $@

$(BPF_OUT)/%.bpf.o: $(ROOT)/bpf/%.bpf.c $(BPF_OUT)/vmlinux.h
	$(Q)echo "  CLANG   $(@F)"
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -c $< -o $@

$(BPF_OUT)/%.skel.h: $(BPF_OUT)/%.bpf.o
	$(Q)echo "  GENSKEL $(@F)"
	$(Q)$(BPFTOOL) gen skeleton $< name $* >$@.tmp
	$(Q)mv $@.tmp $@

-include $(BPF_OBJS:.o=.d)
