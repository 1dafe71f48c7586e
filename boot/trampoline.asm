; Application processor start-up code.
;
; A STARTUP IPI starts an AP in real mode at CS:IP = (vector << 8):0, that
; is at physical address vector << 12. kernel/smp.c copies this blob to a
; free page below 1 MiB, fills in the parameter block at its end, and sends
; the IPIs. The code cannot know where it runs until it asks: in real mode
; CS gives the base, in protected mode a CALL/POP does. It takes the AP
; through protected mode into long mode on the kernel's page tables and
; calls ap_main(struct cpu *) on the AP's own stack.

bits 16
section .rodata

global trampoline_start
global trampoline_end
global trampoline_params

TR_CODE32	equ 0x08
TR_DATA		equ 0x10
TR_CODE64	equ 0x18

%define OFF(x) ((x) - trampoline_start)

align 16
trampoline_start:
	cli
	cld
	mov ax, cs
	mov ds, ax
	; Our linear base is CS * 16: finish the GDT pointer and jump target.
	xor ebx, ebx
	mov bx, cs
	shl ebx, 4
	lea eax, [ebx + OFF(tr_gdt)]
	mov [OFF(tr_gdt_ptr) + 2], eax
	lea eax, [ebx + OFF(tr_prot32)]
	mov [OFF(tr_far32)], eax
	lea eax, [ebx + OFF(tr_long64)]
	mov [OFF(tr_far64)], eax
	lgdt [OFF(tr_gdt_ptr)]
	mov eax, cr0
	or eax, 1			; PE
	mov cr0, eax
	jmp dword far [OFF(tr_far32)]

bits 32
tr_prot32:
	mov ax, TR_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	; ebx still holds our base.
	mov eax, cr4
	or eax, 1 << 5			; PAE
	mov cr4, eax
	mov eax, [ebx + OFF(trampoline_params) + 0]	; CR3
	mov cr3, eax
	mov ecx, 0xC0000080		; EFER
	rdmsr
	or eax, 1 << 8			; LME
	wrmsr
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16)	; PG, WP
	mov cr0, eax
	; No stack yet: an indirect far jump, not a far return.
	jmp far [ebx + OFF(tr_far64)]

bits 64
tr_long64:
	mov ax, TR_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov ebx, ebx			; upper half undefined after the switch
	mov rsp, [rbx + OFF(trampoline_params) + 8]	; stack top
	mov rdi, [rbx + OFF(trampoline_params) + 16]	; struct cpu *
	mov rax, [rbx + OFF(trampoline_params) + 24]	; ap_main
	xor ebp, ebp
	call rax
.hang:
	cli
	hlt
	jmp .hang

align 8
tr_gdt:
	dq 0
	dq 0x00CF9A000000FFFF		; 0x08: 32-bit code
	dq 0x00CF92000000FFFF		; 0x10: data
	dq 0x00AF9A000000FFFF		; 0x18: 64-bit code
tr_gdt_end:
tr_gdt_ptr:
	dw tr_gdt_end - tr_gdt - 1
	dd 0				; filled in: linear address of tr_gdt
tr_far32:
	dd 0				; filled in: linear address of tr_prot32
	dw TR_CODE32
tr_far64:
	dd 0				; filled in: linear address of tr_long64
	dw TR_CODE64

; Filled in by kernel/smp.c for each AP (struct trampoline_params).
align 8
trampoline_params:
	dq 0				; CR3 (below 4 GiB)
	dq 0				; stack top
	dq 0				; struct cpu *
	dq 0				; ap_main
	dq 0				; set to 1 by the AP in ap_main
trampoline_end:
