; Context save/resume for the test runner, and running a function on a
; given stack. Only the callee-saved registers of the SysV ABI are kept.

bits 64
section .text

global ctx_save
global ctx_resume
global call_on_stack

; int ctx_save(struct ctx *c)
ctx_save:
	mov [rdi + 0], rbx
	mov [rdi + 8], rbp
	mov [rdi + 16], r12
	mov [rdi + 24], r13
	mov [rdi + 32], r14
	mov [rdi + 40], r15
	lea rax, [rsp + 8]		; the caller's rsp after our return
	mov [rdi + 48], rax
	mov rax, [rsp]			; our return address
	mov [rdi + 56], rax
	xor eax, eax
	ret

; void ctx_resume(const struct ctx *c, int val)
ctx_resume:
	mov rbx, [rdi + 0]
	mov rbp, [rdi + 8]
	mov r12, [rdi + 16]
	mov r13, [rdi + 24]
	mov r14, [rdi + 32]
	mov r15, [rdi + 40]
	mov rsp, [rdi + 48]
	mov eax, esi
	jmp [rdi + 56]

; void call_on_stack(void (*fn)(void *), void *arg, void *stack_top)
call_on_stack:
	push rbp
	mov rbp, rsp
	push rbx
	mov rbx, rsp			; the caller's stack, callee-saved
	and rdx, -16
	mov rsp, rdx
	mov rax, rdi
	mov rdi, rsi
	call rax
	mov rsp, rbx
	pop rbx
	pop rbp
	ret
