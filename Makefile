# btslab: every entry point.
#
#   make run      build, boot the default suite in QEMU, print the log, write the report
#   make test     host unit tests, fuzzing (bounded), tool tests, QEMU boot matrix
#   make kernel   build/btslab.elf (64-bit, symbols) and build/btslab32.elf (QEMU -kernel)
#   make iso      build/btslab.iso (GRUB, BIOS + UEFI, CD or USB stick)
#   make efi      build/BOOTX64.EFI (the direct EFI application, GNU-EFI)
#   make usb      build/btslab-usb.img (raw disk image for a USB stick, BIOS + UEFI)
#   make check    host unit tests only
#   make format / make lint / make clean
#
# Missing Debian packages are installed when run as root, named otherwise.

.DEFAULT_GOAL := all
.SUFFIXES:

BUILD ?= build
# V=1 shows the full commands.
ifeq ($(V),1)
Q :=
say := @true
else
Q := @
say := @printf '  %-7s %s\n'
endif
CC := gcc
NASM := nasm
LD := ld
OBJCOPY := objcopy
PYTHON := python3
VERSION := 0.1.0

PACKAGES := gcc make binutils nasm python3 perl git \
	grub-common grub-pc-bin grub-efi-amd64-bin xorriso mtools dosfstools \
	fdisk gnu-efi \
	qemu-system-x86 ovmf seabios libcmocka-dev clang libclang-rt-14-dev \
	clang-format cppcheck python3-matplotlib

# --- kernel ---------------------------------------------------------------

KERNEL_CFLAGS := -std=gnu11 -ffreestanding -nostdinc \
	-isystem $(shell $(CC) -print-file-name=include) \
	-I. -I$(BUILD)/include \
	-mno-red-zone -mgeneral-regs-only -fno-pic -fno-pie \
	-fno-stack-protector -fno-omit-frame-pointer \
	-fno-asynchronous-unwind-tables -fcf-protection=none \
	-fno-toplevel-reorder -O2 -g -Wall -Wextra -Werror -MMD -MP
KERNEL_LDFLAGS := -nostdlib -static -z max-page-size=0x1000 \
	-z noexecstack --no-warn-rwx-segments -T linker.ld

KERNEL_C := $(wildcard kernel/*.c drivers/*.c lib/*.c tests/kernel/*.c)
KERNEL_ASM := $(wildcard boot/*.asm kernel/*.asm tests/kernel/*.asm)
# User programs (ring 3): position independent, linked into the .user
# section (linker.ld), which the kernel maps a second time for user mode.
USER_C := $(wildcard user/*.c)
USER_CFLAGS := $(filter-out -fno-pic -fno-pie,$(KERNEL_CFLAGS)) \
	-fpie -fvisibility=hidden -fno-jump-tables -fno-builtin
KERNEL_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(KERNEL_C)) \
	$(patsubst %.asm,$(BUILD)/obj/%.o,$(KERNEL_ASM)) \
	$(patsubst %.c,$(BUILD)/obj/%.o,$(USER_C))
VERSION_H := $(BUILD)/include/kernel/version.h

.PHONY: all kernel iso efi usb run test check bench format lint clean deps FORCE

all: kernel iso efi usb

deps:
	@tools/deps.sh $(PACKAGES)

kernel: $(BUILD)/btslab.elf $(BUILD)/btslab32.elf

$(BUILD)/obj/%.o: %.c $(VERSION_H) | deps
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@

# A user object may reach nothing outside the .user section.
$(BUILD)/obj/user/%.o: user/%.c $(VERSION_H) | deps
	@mkdir -p $(dir $@)
	$(say) CC-USER $<
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@.tmp
	$(Q)undef=$$(nm -u $@.tmp); if [ -n "$$undef" ]; then \
		echo "$<: user code calls outside user/: $$undef" >&2; \
		rm -f $@.tmp; exit 1; fi
	$(Q)objcopy --prefix-alloc-sections=.user $@.tmp $@ && rm -f $@.tmp

$(BUILD)/obj/%.o: %.asm | deps
	@mkdir -p $(dir $@)
	$(say) NASM $<
	$(Q)$(NASM) -f elf64 -g -w+all -o $@ $<

# NASM's -MD output omits included files here (2.16): say it by hand.
$(BUILD)/obj/kernel/isr.o $(BUILD)/obj/kernel/uentry.o: kernel/frame.inc

# The BTS model's real-branch source: every basic block calls
# __sanitizer_cov_trace_pc (drivers/bts_model.c).
$(BUILD)/obj/tests/kernel/workload_branches.o: KERNEL_CFLAGS += -fsanitize-coverage=trace-pc

# Rewritten only when the version or commit changes.
$(VERSION_H): FORCE
	@mkdir -p $(dir $@)
	@git_id=$$(git describe --always --dirty 2>/dev/null || echo unknown); \
	printf '#define BTSLAB_VERSION "%s"\n#define BTSLAB_GIT "%s"\n' \
		"$(VERSION)" "$$git_id" > $@.tmp; \
	cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

# Two links: the first without symbols, to learn the addresses; the
# second with the table, which sits after the code and moves none of it.
$(BUILD)/ksyms0.o: tools/gen-ksyms | deps
	@mkdir -p $(BUILD)
	$(Q)tools/gen-ksyms --empty $(BUILD)/ksyms0.asm
	$(Q)$(NASM) -f elf64 -o $@ $(BUILD)/ksyms0.asm

$(BUILD)/btslab.pass1.elf: $(KERNEL_OBJ) $(BUILD)/ksyms0.o linker.ld
	$(say) LD $@
	$(Q)$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJ) $(BUILD)/ksyms0.o

$(BUILD)/ksyms.o: $(BUILD)/btslab.pass1.elf tools/gen-ksyms
	$(say) KSYMS $@
	$(Q)tools/gen-ksyms $< $(BUILD)/ksyms.asm
	$(Q)$(NASM) -f elf64 -o $@ $(BUILD)/ksyms.asm

$(BUILD)/btslab.elf: $(KERNEL_OBJ) $(BUILD)/ksyms.o linker.ld
	$(say) LD $@
	$(Q)$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJ) $(BUILD)/ksyms.o
	$(Q)tools/gen-ksyms --check $(BUILD)/btslab.pass1.elf $@

# QEMU's multiboot loader takes only 32-bit ELF: same image, 32-bit container.
$(BUILD)/btslab32.elf: $(BUILD)/btslab.elf
	$(say) OBJCOPY $@
	$(Q)$(OBJCOPY) -O elf32-i386 $< $@

# --- images ---------------------------------------------------------------

iso: $(BUILD)/btslab.iso

# $(call grub-iso,STAGING-DIR,GRUB.CFG): the kernel and GRUB.CFG in a GRUB
# ISO (BIOS + UEFI) at $@.
define grub-iso
	@rm -rf $(1) && mkdir -p $(1)/boot/grub
	$(Q)cp $(BUILD)/btslab.elf $(1)/boot/btslab.elf
	$(Q)cp $(2) $(1)/boot/grub/grub.cfg
	$(say) ISO $@
	$(Q)grub-mkrescue -o $@ $(1) 2> $(1)-grub-mkrescue.log || \
		{ cat $(1)-grub-mkrescue.log; exit 1; }
endef

$(BUILD)/btslab.iso: $(BUILD)/btslab.elf boot/grub.cfg | deps
	$(call grub-iso,$(BUILD)/iso,boot/grub.cfg)

# Test only (make test, matrix scenario x2apic-handover): GRUB sets x2APIC
# mode in IA32_APIC_BASE before it boots the kernel.
TEST_ISOS := $(BUILD)/test/btslab-x2apic.iso

$(BUILD)/test/btslab-x2apic.iso: $(BUILD)/btslab.elf tests/qemu/x2apic-handover.cfg | deps
	$(call grub-iso,$(BUILD)/test/x2apic-iso,tests/qemu/x2apic-handover.cfg)

# The direct EFI application: boot/efi_loader.c built with GNU-EFI as a
# PE image, with the kernel ELF (debug information stripped) embedded.
EFI_INC := /usr/include/efi
EFI_LIB := /usr/lib
EFI_CFLAGS := -std=gnu11 -I$(EFI_INC) -I$(EFI_INC)/x86_64 -I. -fpic \
	-fshort-wchar -ffreestanding -fno-stack-protector -fno-strict-aliasing \
	-mno-red-zone -maccumulate-outgoing-args -DGNU_EFI_USE_MS_ABI -O2 \
	-Wall -Wextra -Werror
EFI_LDFLAGS := -nostdlib -znocombreloc -z noexecstack -shared -Bsymbolic \
	-T $(EFI_LIB)/elf_x86_64_efi.lds
EFI_SECTIONS := .text .sdata .data .dynamic .dynsym .rel .rela .rel.* \
	.rela.* .reloc

efi: $(BUILD)/BOOTX64.EFI

$(BUILD)/efi/kernel_blob.o: $(BUILD)/btslab.elf
	@mkdir -p $(dir $@)
	$(Q)$(OBJCOPY) --strip-debug $< $(BUILD)/efi/kernel.elf
	$(Q)cd $(BUILD)/efi && $(OBJCOPY) -I binary -O elf64-x86-64 \
		-B i386:x86-64 kernel.elf kernel_blob.o

$(BUILD)/efi/efi_loader.o: boot/efi_loader.c kernel/boot_info.h | deps
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(EFI_CFLAGS) -c $< -o $@

$(BUILD)/BOOTX64.EFI: $(BUILD)/efi/efi_loader.o $(BUILD)/efi/kernel_blob.o
	$(say) EFI $@
	$(Q)$(LD) $(EFI_LDFLAGS) -o $(BUILD)/efi/btslab-efi.so \
		$(EFI_LIB)/crt0-efi-x86_64.o $^ -L$(EFI_LIB) -lefi -lgnuefi
	$(Q)$(OBJCOPY) $(foreach s,$(EFI_SECTIONS),-j '$(s)') \
		--target efi-app-x86_64 --subsystem=10 \
		$(BUILD)/efi/btslab-efi.so $@

usb: $(BUILD)/btslab-usb.img

$(BUILD)/btslab-usb.img: $(BUILD)/btslab.elf $(BUILD)/BOOTX64.EFI \
		boot/grub.cfg tools/mkusb | deps
	$(say) USB $@
	$(Q)tools/mkusb $@ $(BUILD)/btslab.elf boot/grub.cfg $(BUILD)/BOOTX64.EFI

# --- running and testing --------------------------------------------------

RUN_ARGS ?=
# Then the report of the run (tools/report, docs/report.md), found through
# the log path in btslab-run's last line; the exit status stays the run's.
run: kernel
	@out=$$(mktemp) || exit 2; \
	{ tools/btslab-run $(RUN_ARGS); echo $$? > $$out.status; } | tee $$out; \
	status=$$(cat $$out.status 2>/dev/null || echo 2); \
	log=$$(sed -n 's/^btslab-run: .* log=//p' $$out | tail -n 1); \
	rm -f $$out $$out.status; \
	if [ -n "$$log" ] && [ -s "$$log" ]; then \
		tools/report "$$log" || echo "make run: no report for $$log"; \
	fi; \
	exit $$status

include tests/host/host.mk
-include tests/host/bench.mk

check: host-test

# Figures, not verdicts: the host benchmark of the drain path, then the
# kernel's own drain.cost in one boot (KVM where usable: native speed).
bench: host-bench kernel
	tools/btslab-run --quiet --append "tests=drain.cost" --timeout 600 \
		--log $(BUILD)/logs/bench.log --qemu-arg=-vga --qemu-arg=none
	tools/bench-table $(BUILD)/logs/bench.log

# Every stage runs even when an earlier one fails; each leaves
# build/results/STAGE.txt, and the summary adds them up.
test: kernel iso efi usb $(TEST_ISOS)
	@rm -rf $(BUILD)/results && mkdir -p $(BUILD)/results
	@status=0; \
	stage() { name=$$1; shift; \
		echo "=== $$name"; \
		if ! "$$@"; then status=1; \
			[ -f $(BUILD)/results/$$name.txt ] || \
			echo "passed=0 failed=1 skipped=0" > $(BUILD)/results/$$name.txt; \
		fi; }; \
	stage host $(MAKE) --no-print-directory host-test; \
	stage fuzz $(MAKE) --no-print-directory fuzz; \
	stage tools tests/tools/run; \
	stage qemu tests/qemu/matrix; \
	tools/test-summary $(BUILD)/results || status=1; \
	exit $$status

# --- hygiene --------------------------------------------------------------

SOURCES := $(wildcard boot/*.c kernel/*.[ch] drivers/*.[ch] lib/*.[ch] tests/kernel/*.c tests/host/*.[ch])

format: | deps
	clang-format -i $(SOURCES)

lint: | deps
	clang-format --dry-run --Werror $(SOURCES)
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
		--inline-suppr --std=c11 -I. -D__GNUC__ \
		--suppress=missingIncludeSystem $(SOURCES)

clean:
	rm -rf $(BUILD)

-include $(KERNEL_OBJ:.o=.d)
