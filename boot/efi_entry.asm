; 64-bit entry from the direct EFI loader (boot/efi_loader.c).
;
; The loader has exited boot services and calls efi_entry64(bi) with the
; System V ABI: RDI = struct boot_info * (below 4 GiB). The CPU is in long
; mode on the firmware's identity page tables, GDT and stack. Like the
; multiboot entry (boot/entry.asm) we record the TSC, zero .bss, move to a
; stack of our own, identity-map the first 4 GiB with 2 MiB pages in the
; kernel's tables (boot_pml4, boot_pd; the top 32 MiB uncacheable; the
; rest is refined by kernel/paging.c), load our GDT, and call
; efi_boot_main(bi) in C. The kernel image is below 4 GiB, so this code
; runs at the same address before and after the switch.

PTE_P		equ 1 << 0
PTE_W		equ 1 << 1
PTE_PWT		equ 1 << 3
PTE_PCD		equ 1 << 4
PTE_PS		equ 1 << 7
MMIO_FIRST_2M	equ (0x100000000 - 0x2000000) >> 21	; 0xFE000000

global efi_entry64
extern efi_boot_main
extern boot_entry_tsc
extern boot_pml4
extern boot_pd
extern __bss_start
extern __bss_end

section .text
bits 64
efi_entry64:
	cli
	cld
	mov r12, rdi			; boot_info: callee-saved, survives rep stosb
	rdtsc
	shl rdx, 32
	or rax, rdx
	mov r13, rax

	mov rdi, __bss_start
	mov rcx, __bss_end
	sub rcx, rdi
	xor eax, eax
	rep stosb
	mov [rel boot_entry_tsc], r13
	mov rsp, efi_stack_top

	; PML4[0] -> efi_pdpt, PDPT[0..3] -> boot_pd's four directories.
	mov rax, efi_pdpt
	or rax, PTE_P | PTE_W
	mov [rel boot_pml4], rax
	xor ecx, ecx
.pdpt_loop:
	mov rax, rcx
	shl rax, 12
	add rax, boot_pd
	or rax, PTE_P | PTE_W
	mov [efi_pdpt + rcx * 8], rax
	inc ecx
	cmp ecx, 4
	jb .pdpt_loop

	xor ecx, ecx
.pd_loop:
	mov rax, rcx
	shl rax, 21
	or rax, PTE_P | PTE_W | PTE_PS
	cmp ecx, MMIO_FIRST_2M
	jb .pd_store
	or rax, PTE_PCD | PTE_PWT
.pd_store:
	mov [boot_pd + rcx * 8], rax
	inc ecx
	cmp ecx, 2048
	jb .pd_loop

	mov rax, boot_pml4
	mov cr3, rax

	lgdt [rel efi_gdt_ptr]
	push 0x08
	lea rax, [rel .reload_cs]
	push rax
	retfq
.reload_cs:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor eax, eax
	mov fs, ax
	mov gs, ax
	mov rdi, r12
	call efi_boot_main
.hang:
	cli
	hlt
	jmp .hang

section .rodata
align 8
efi_gdt:
	dq 0
	dq 0x00AF9A000000FFFF		; 0x08: 64-bit code (as boot/entry.asm)
	dq 0x00CF92000000FFFF		; 0x10: data
efi_gdt_end:
efi_gdt_ptr:
	dw efi_gdt_end - efi_gdt - 1
	dq efi_gdt

section .bss
align 4096
efi_pdpt: resb 4096
efi_stack: resb 16384
efi_stack_top:
