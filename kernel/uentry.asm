; Ring 3 entry and exit: SYSCALL/SYSRET and the first entry into a thread.
;
; SYSCALL leaves rcx = user rip, r11 = user rflags, rsp = user stack, and
; interrupts off (IA32_FMASK clears IF). The entry switches to the kernel
; stack in %gs:CPU_SYSCALL_KSTACK, builds the same struct trap_frame an
; interrupt would (kernel/trap.h), vector VEC_SYSCALL, and calls
; syscall_dispatch(frame). An NMI can arrive at any instruction here: it
; runs on its IST stack, so the moment the stack is still the user's does
; no harm.
;
; The way back is SYSRET when the frame still describes the user context
; it came from (code segment, canonical rip), else IRETQ: a frame
; redirected by the test runner or a thread switch goes where it says.

bits 64

%include "kernel/frame.inc"
section .text

extern syscall_dispatch

%define CPU_SYSCALL_KSTACK	8
%define CPU_SYSCALL_USER_RSP	16
%define SEL_UDATA		0x20
%define SEL_UCODE64		0x28
%define VEC_SYSCALL		0x100

; frame offsets (struct trap_frame)
%define F_RIP		(17 * 8)
%define F_CS		(18 * 8)
%define F_RFLAGS	(19 * 8)
%define F_RSP		(20 * 8)

global syscall_entry
global syscall_sysret
global user_iret
global user_enter

syscall_entry:
	mov [gs:CPU_SYSCALL_USER_RSP], rsp
	mov rsp, [gs:CPU_SYSCALL_KSTACK]
	push SEL_UDATA | 3		; ss
	push qword [gs:CPU_SYSCALL_USER_RSP] ; rsp
	push r11			; rflags
	push SEL_UCODE64 | 3		; cs
	push rcx			; rip
	push 0				; error code
	push VEC_SYSCALL		; vector
	PUSH_GPRS
	cld
	mov rdi, rsp
	call syscall_dispatch
	cmp qword [rsp + F_CS], SEL_UCODE64 | 3
	jne syscall_slow_exit
	; SYSRET to a non-canonical rip would fault in ring 0.
	mov rax, [rsp + F_RIP]
	mov rcx, rax
	shl rcx, 16
	sar rcx, 16
	cmp rcx, rax
	jne syscall_slow_exit
	POP_GPRS
	add rsp, 16			; vector and error code
	mov rcx, [rsp]			; rip
	mov r11, [rsp + 16]		; rflags
	mov rsp, [rsp + 24]		; user stack: from here on no stack use
syscall_sysret:
	o64 sysret
syscall_slow_exit:
	POP_GPRS
	add rsp, 16
	iretq

; void user_enter(uint64_t rip, uint64_t rsp, uint64_t rdi, uint64_t rsi)
; First entry of a thread into ring 3, interrupts on there. Registers
; other than the two arguments are cleared: nothing of the kernel leaks.
user_enter:
	push SEL_UDATA | 3		; ss
	push rsi			; rsp
	push 0x202			; rflags: IF
	push SEL_UCODE64 | 3		; cs
	push rdi			; rip
	mov rdi, rdx
	mov rsi, rcx
	xor eax, eax
	xor ebx, ebx
	xor ecx, ecx
	xor edx, edx
	xor ebp, ebp
	xor r8d, r8d
	xor r9d, r9d
	xor r10d, r10d
	xor r11d, r11d
	xor r12d, r12d
	xor r13d, r13d
	xor r14d, r14d
	xor r15d, r15d
user_iret:
	iretq

global thread_switch

; void thread_switch(uint64_t *save_rsp, uint64_t new_rsp)
; Kernel stack switch between the scheduler and a thread; only the
; callee-saved registers need keeping (the rest is the caller's concern).
thread_switch:
	push rbx
	push rbp
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp
	mov rsp, rsi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbp
	pop rbx
	ret
