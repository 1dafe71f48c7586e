; 32-bit entry from a multiboot loader, and the switch to long mode.
;
; Multiboot (1 and 2) enters in 32-bit protected mode, paging off, EAX =
; loader magic, EBX = physical address of the boot information. We record
; the TSC first (the log reports the time from kernel entry to the first
; test), zero .bss, identity-map the first 4 GiB with 2 MiB pages, enable
; long mode and call boot_main(magic, info) in C.
;
; The top 32 MiB below 4 GiB (local APIC, IOAPIC, HPET, flash) are mapped
; uncacheable from the start; kernel/paging.c refines the rest from the
; memory map once it is known.

PTE_P		equ 1 << 0
PTE_W		equ 1 << 1
PTE_PWT		equ 1 << 3
PTE_PCD		equ 1 << 4
PTE_PS		equ 1 << 7
MMIO_FIRST_2M	equ (0x100000000 - 0x2000000) >> 21	; 0xFE000000

EFER_MSR	equ 0xC0000080
EFER_LME	equ 1 << 8
CR0_PE		equ 1 << 0
CR0_WP		equ 1 << 16
CR0_NW		equ 1 << 29
CR0_CD		equ 1 << 30
CR0_PG		equ 1 << 31
CR4_PAE		equ 1 << 5

COM1		equ 0x3F8

global _start
global boot_entry_tsc
global boot_pml4
global boot_pd
extern boot_main
extern __bss_start
extern __bss_end

section .boot.text
bits 32
_start:
	cli
	cld
	mov ebp, eax			; loader magic
	mov esi, ebx			; boot information
	rdtsc
	mov [boot_entry_tsc], eax
	mov [boot_entry_tsc + 4], edx

	; .bss holds the page tables and the boot stack: zero it before use.
	mov edi, __bss_start
	mov ecx, __bss_end
	sub ecx, edi
	shr ecx, 2
	xor eax, eax
	rep stosd
	mov esp, boot_stack_top

	; Long mode needs CPUID.80000001H:EDX[29].
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	jb .no_long_mode
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 29
	jz .no_long_mode

	; PML4[0] -> PDPT, PDPT[0..3] -> four page directories of 2 MiB pages.
	mov eax, boot_pdpt
	or eax, PTE_P | PTE_W
	mov [boot_pml4], eax
	mov ecx, 0
.pdpt_loop:
	mov eax, ecx
	shl eax, 12
	add eax, boot_pd
	or eax, PTE_P | PTE_W
	mov [boot_pdpt + ecx * 8], eax
	inc ecx
	cmp ecx, 4
	jb .pdpt_loop

	mov ecx, 0
.pd_loop:
	mov eax, ecx
	shl eax, 21
	or eax, PTE_P | PTE_W | PTE_PS
	cmp ecx, MMIO_FIRST_2M
	jb .pd_store
	or eax, PTE_PCD | PTE_PWT
.pd_store:
	mov [boot_pd + ecx * 8], eax
	inc ecx
	cmp ecx, 2048
	jb .pd_loop

	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	mov eax, boot_pml4
	mov cr3, eax
	mov ecx, EFER_MSR
	rdmsr
	or eax, EFER_LME
	wrmsr
	mov eax, cr0
	and eax, ~(CR0_CD | CR0_NW)
	or eax, CR0_PG | CR0_PE | CR0_WP
	mov cr0, eax

	lgdt [boot_gdt_ptr]
	jmp 0x08:.long_mode

.no_long_mode:
	mov esi, msg_no_long_mode
.putc:
	lodsb
	test al, al
	jz .halt
	mov dx, COM1
	out dx, al
	jmp .putc
.halt:
	hlt
	jmp .halt

bits 64
.long_mode:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor eax, eax
	mov fs, ax
	mov gs, ax
	mov rsp, boot_stack_top
	mov edi, ebp			; zero-extends: upper halves are undefined
	mov esi, esi
	call boot_main
.hang:
	cli
	hlt
	jmp .hang

section .rodata
msg_no_long_mode: db "btslab: this CPU has no long mode (CPUID.80000001H:EDX[29]=0)", 13, 10, 0

align 8
boot_gdt:
	dq 0
	dq 0x00AF9A000000FFFF		; 0x08: 64-bit code
	dq 0x00CF92000000FFFF		; 0x10: data
boot_gdt_end:
boot_gdt_ptr:
	dw boot_gdt_end - boot_gdt - 1
	dd boot_gdt

section .data
align 8
boot_entry_tsc: dq 0

section .bss
align 4096
boot_pml4: resb 4096
boot_pdpt: resb 4096
boot_pd: resb 4096 * 4
boot_stack: resb 16384
boot_stack_top:
