; Interrupt and exception entry stubs for all 256 vectors.
;
; Each stub makes the stack look the same (a dummy error code where the CPU
; pushes none, then the vector), the common path saves every general
; register into a struct trap_frame (kernel/trap.h) and calls
; trap_dispatch(frame). Whatever the handler leaves in the frame is what
; IRETQ restores, which is how faults are fixed up and how a hung or
; faulting test is sent back to the runner.

bits 64

%include "kernel/frame.inc"
section .text

extern trap_dispatch
global isr_stubs
global isr_iret

; Vectors for which the CPU pushes an error code.
%define HAS_ERR(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

%macro STUB 1
isr_stub_%1:
%if HAS_ERR(%1) == 0
	push 0
%endif
	push %1
	jmp isr_common
%endmacro

%assign v 0
%rep 256
	STUB v
%assign v v + 1
%endrep

isr_common:
	PUSH_GPRS
	cld
	mov rdi, rsp
	call trap_dispatch
	POP_GPRS
	add rsp, 16			; vector and error code
isr_iret:
	iretq

section .rodata
align 8
isr_stubs:
%assign v 0
%rep 256
	dq isr_stub_%+v
%assign v v + 1
%endrep
