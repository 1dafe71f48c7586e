; A chain of jumps at known addresses, for bts.records on hardware: with
; tracing on, calling bts_chain must produce exactly the (from, to) pairs
; in bts_chain_table, in order, between the call and the return.

bits 64
section .text

global bts_chain
global bts_chain_table
global bts_chain_len

CHAIN equ 8

bts_chain:
%assign i 0
%rep CHAIN
.j %+ i:
	jmp strict near .t %+ i
	ud2				; never executed: the jump skips it
.t %+ i:
%assign i i + 1
%endrep
	ret

section .rodata
align 8
bts_chain_len: dq CHAIN
bts_chain_table:
%assign i 0
%rep CHAIN
	dq bts_chain.j %+ i, bts_chain.t %+ i
%assign i i + 1
%endrep
