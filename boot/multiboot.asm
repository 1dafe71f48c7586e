; Multiboot headers: multiboot2 for GRUB, multiboot1 for QEMU -kernel.
;
; Both live in the first page of the image (the specifications ask for the
; first 32 KiB and 8 KiB of the file). The multiboot2 header asks GRUB for a
; linear framebuffer, 1024x768x32 preferred, as an optional request: the
; screen console (drivers/screen.c) draws on it, and falls back to VGA text
; when GRUB could not set a mode. Multiboot1 asks for nothing (QEMU -kernel
; leaves VGA text mode). The ELF headers give the load addresses, so
; multiboot1's address fields (flag bit 16) are not used.

MB2_MAGIC	equ 0xE85250D6
MB2_ARCH_I386	equ 0
MB1_MAGIC	equ 0x1BADB002
MB1_FLAGS	equ 0x3			; bit 0: align modules, bit 1: memory map

section .multiboot
align 8
mb2_header:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd (0x100000000 - (MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))) & 0xFFFFFFFF
	align 8
	dw 5				; framebuffer request tag
	dw 1				; flags: optional
	dd 20
	dd 1024				; width, height, depth (preferred)
	dd 768
	dd 32
	align 8
	dw 0				; end tag
	dw 0
	dd 8
mb2_header_end:

align 4
mb1_header:
	dd MB1_MAGIC
	dd MB1_FLAGS
	dd (0x100000000 - (MB1_MAGIC + MB1_FLAGS)) & 0xFFFFFFFF
