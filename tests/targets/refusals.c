// SPDX-License-Identifier: MIT
/*
 * Matrix case "refusals": function entries written in asm, byte by byte,
 * so that every cell has the same shapes whatever the compiler does.
 * In the cells built with CET each starts with endbr64 (ASM_ENDBR), as a
 * compiler would put it; endbr_back always has one.
 *
 * The shim must refuse, with its reason, what it cannot patch safely:
 *
 *   tiny4        4 bytes (8 with endbr64): shorter than the 5-byte jmp
 *   ret_early    a ret inside the first 5 bytes
 *   loop_back    a loop whose jnz goes back to +2, inside the patched bytes
 *   endbr_back   endbr64, then a loop back to +6: inside the bytes patched
 *                from +4 (uftrace #1692 measured the range from +0 and missed it)
 *   jrcxz_first  jrcxz first: no rel32 form to move it with
 *
 * and hook (and run correctly) what it can move:
 *
 *   rip_load     mov rl_base(%rip),%rax first
 *   rip_lea      lea rl_base(%rip),%rax first
 *   rip_store    mov %rdi,rs_slot(%rip) first
 *   rip_cmp      cmpq $0,rc_flag(%rip) first (an imm8 after the disp32)
 *   call_first   call cf_helper first (a call rel32, moved)
 *   icall_first  call *cf_ptr(%rip) first (an indirect call through a
 *                rip-relative operand, moved as a rip-relative instruction)
 *   jmp_first    jmp rel8 first (over two dead bytes)
 *   jcc_first    test; je rel8 within the first 5 bytes
 *   ret_last     xor; xor; ret: 5 bytes whose ret ends the patched bytes
 *   mov_ret      mov 8(%rdi),%rax; ret: the same with a load (short
 *                accessors, as jq's jv_invalid)
 *   plain_c      an ordinary C function
 *
 * Functions another one jumps into after their first instruction (as
 * glibc's __mempcpy_* jump into __memmove_*), each behind the padding of
 * the code before it, which a short patch may use only where nothing but
 * a fall-through enters it, at an instruction boundary:
 *
 *   pf_copy      after pf_chk, which falls through it (cmp; ja), over
 *                11+11+6 bytes of nop: the jmp goes at the 6-byte nop, and
 *                a call of pf_chk that passes becomes a counted pf_copy
 *   pr_copy      after a ret and int3 padding: hooked
 *   pj_copy      a jump lands in its padding: refused
 *   pl_copy      a symbol (pl_mark, called) names its padding: refused
 *   ps_copy      3 bytes of padding: refused
 *
 * Every function is called a known number of times and its results printed;
 * a refused function runs unhooked and must give the same results.
 */
#include <stdio.h>

#include "matrix.h"

long rl_base = 1000;
long rs_slot;
long rc_flag;

int tiny4(int a, int b);
long ret_early(long a);
long loop_back(long n);
long endbr_back(long n);
long jrcxz_first(long a, long b, long unused, long c);
long rip_load(long a);
long rip_lea(long a);
long rip_store(long a);
long rip_cmp(long a);
long call_first(long a);
long icall_first(long a);
long cf_helper(long a);
long (*cf_ptr)(long) = cf_helper;
long jmp_first(long a);
long jcc_first(long a);
long ret_last(long a);
long mov_ret(const long *a);

#define FN(name) ".text\n\t.p2align 4\n\t.globl " #name "\n\t.type " #name ",@function\n" #name ":\n\t"
#define END(name) ".size " #name ",.-" #name "\n"

__asm__(FN(tiny4) ASM_ENDBR
	"lea (%rdi,%rsi),%eax\n\t"
	"ret\n\t" END(tiny4)

	FN(ret_early) ASM_ENDBR
	"mov %edi,%eax\n\t"
	"ret\n\t"
	"int3\n\tint3\n\tint3\n\t" END(ret_early)

	FN(loop_back) ASM_ENDBR
	"xor %eax,%eax\n"
	"1:\tadd %rdi,%rax\n\t"
	"dec %rdi\n\t"
	"jnz 1b\n\t"
	"ret\n\t" END(loop_back)

	FN(endbr_back)
	"endbr64\n\t"
	"xor %eax,%eax\n"
	"1:\tlea (%rax,%rdi,2),%rax\n\t"
	"dec %rdi\n\t"
	"jnz 1b\n\t"
	"ret\n\t" END(endbr_back)

	FN(jrcxz_first) ASM_ENDBR
	"jrcxz 1f\n\t"
	"lea (%rdi,%rsi),%rax\n\t"
	"ret\n"
	"1:\tmov %rdi,%rax\n\t"
	"ret\n\t" END(jrcxz_first)

	FN(rip_load) ASM_ENDBR
	"mov rl_base(%rip),%rax\n\t"
	"add %rdi,%rax\n\t"
	"ret\n\t" END(rip_load)

	FN(rip_lea) ASM_ENDBR
	"lea rl_base(%rip),%rax\n\t"
	"mov (%rax),%rax\n\t"
	"sub %rdi,%rax\n\t"
	"ret\n\t" END(rip_lea)

	FN(rip_store) ASM_ENDBR
	"mov %rdi,rs_slot(%rip)\n\t"
	"lea 1(%rdi),%rax\n\t"
	"ret\n\t" END(rip_store)

	FN(rip_cmp) ASM_ENDBR
	"cmpq $0,rc_flag(%rip)\n\t"
	"je 1f\n\t"
	"lea 2(%rdi),%rax\n\t"
	"ret\n"
	"1:\tlea 3(%rdi),%rax\n\t"
	"ret\n\t" END(rip_cmp)

	FN(cf_helper) ASM_ENDBR
	"lea (%rdi,%rdi),%rax\n\t"
	"ret\n\t" END(cf_helper)

	FN(call_first) ASM_ENDBR
	"call cf_helper\n\t"
	"add $1,%rax\n\t"
	"ret\n\t" END(call_first)

	FN(icall_first) ASM_ENDBR
	"call *cf_ptr(%rip)\n\t"
	"add $2,%rax\n\t"
	"ret\n\t" END(icall_first)

	FN(jmp_first) ASM_ENDBR
	"jmp 1f\n\t"
	"ud2\n\t"
	"nop\n"
	"1:\tlea (%rdi,%rdi,2),%rax\n\t"
	"ret\n\t" END(jmp_first)

	FN(jcc_first) ASM_ENDBR
	"test %rdi,%rdi\n\t"
	"je 1f\n\t"
	"lea 1(%rdi),%rax\n\t"
	"ret\n"
	"1:\tmov $-1,%rax\n\t"
	"ret\n\t" END(jcc_first)

	FN(ret_last) ASM_ENDBR
	"xor %eax,%eax\n\t"
	"xor %edx,%edx\n\t"
	"ret\n\t" END(ret_last)

	FN(mov_ret) ASM_ENDBR
	"mov 8(%rdi),%rax\n\t"
	"ret\n\t" END(mov_ret));

long pf_chk(long a);
long pf_copy(long a);
long pf_plus(long a);
long pr_prev(long a);
long pr_copy(long a);
long pr_plus(long a);
long pj_prev(long a);
long pj_copy(long a);
long pj_plus(long a);
long pj_into(long a);
long pl_prev(long a);
long pl_copy(long a);
long pl_plus(long a);
long pl_mark(long a);
long ps_prev(long a);
long ps_copy(long a);
long ps_plus(long a);

#define NOP3  ".byte 0x0f,0x1f,0x00\n\t"
#define NOP6  ".byte 0x66,0x0f,0x1f,0x44,0x00,0x00\n\t"
#define NOP11 ".byte 0x66,0x66,0x2e,0x0f,0x1f,0x84,0x00,0x00,0x00,0x00,0x00\n\t"
/* a function that starts right here, after the padding written before it */
#define FN_HERE(name) ".globl " #name "\n\t.type " #name ",@function\n" #name ":\n\t"
/* a label without .type or .size (a NOTYPE symbol), as hand-written asm has */
#define LABEL(name) ".globl " #name "\n" #name ":\n\t"
/* name: mov %rdi,%rax (3 bytes), then at @label the rest, which PLUS jumps to */
#define COPY(name, label, k)                                                                       \
	FN_HERE(name) ASM_ENDBR "mov %rdi,%rax\n" label ":\n\t"                                    \
	"lea " #k "(%rax,%rax),%rax\n\t"                                                           \
	"ret\n\t" END(name)
#define PLUS(name, label)                                                                          \
	FN(name) ASM_ENDBR "mov %rdi,%rax\n\t"                                                      \
	"add $10,%rax\n\t"                                                                         \
	"jmp " label "\n\t" END(name)

__asm__(".text\n\t.p2align 6\n\t" FN_HERE(pf_chk) ASM_ENDBR
	"cmp $1000,%rdi\n\t"
	"ja pf_fail\n\t" END(pf_chk)
	NOP11 NOP11 NOP6
	COPY(pf_copy, ".Lpf_body", 1)
	PLUS(pf_plus, ".Lpf_body")
	FN(pf_fail) ASM_ENDBR
	"mov $-1,%rax\n\t"
	"ret\n\t" END(pf_fail)

	FN(pr_prev) ASM_ENDBR
	"lea 5(%rdi),%rax\n\t"
	"ret\n\t" END(pr_prev)
	".byte 0xcc,0xcc,0xcc,0xcc,0xcc,0xcc,0xcc,0xcc\n\t"
	COPY(pr_copy, ".Lpr_body", 2)
	PLUS(pr_plus, ".Lpr_body")

	FN(pj_prev) ASM_ENDBR
	"lea 6(%rdi),%rax\n\t"
	"ret\n\t" END(pj_prev)
	NOP3 ".Lpj_land:\n\t" NOP3 NOP3
	COPY(pj_copy, ".Lpj_body", 3)
	PLUS(pj_plus, ".Lpj_body")
	FN(pj_into) ASM_ENDBR
	"mov %rdi,%rax\n\t"
	"jmp .Lpj_land\n\t" END(pj_into)

	FN(pl_prev) ASM_ENDBR
	"lea 7(%rdi),%rax\n\t"
	"ret\n\t" END(pl_prev)
	"nop\n\tnop\n\tnop\n\tnop\n\tnop\n\t" LABEL(pl_mark) "nop\n\tnop\n\tnop\n\t"
	COPY(pl_copy, ".Lpl_body", 4)
	PLUS(pl_plus, ".Lpl_body")

	FN(ps_prev) ASM_ENDBR
	"lea 8(%rdi),%rax\n\t"
	"ret\n\t" END(ps_prev)
	NOP3
	COPY(ps_copy, ".Lps_body", 5)
	PLUS(ps_plus, ".Lps_body"));

/* The padding cases, each called a known number of times; their results hashed. */
static unsigned long pad_calls[2], pad_hash;

static void pad_round(long i)
{
	long r[14];

	r[0] = pf_copy(i), pad_calls[0]++;
	r[1] = pf_chk(i * 100);
	pad_calls[0] += r[1] >= 0; /* it passed: it ran pf_copy's code */
	r[2] = pf_plus(i);
	r[3] = pr_copy(i), pad_calls[1]++;
	r[4] = pr_plus(i) + pr_prev(i);
	r[5] = pj_copy(i) + pj_plus(i);
	r[6] = pj_into(i) + pj_prev(i);
	r[7] = pl_copy(i) + pl_plus(i);
	r[8] = pl_mark(i) + pl_prev(i);
	r[9] = ps_copy(i) + ps_plus(i) + ps_prev(i);
	for (int k = 0; k < 10; k++)
		pad_hash = pad_hash * 131 + (unsigned long)r[k];
}

enum { F_TINY4, F_RET_EARLY, F_LOOP_BACK, F_ENDBR_BACK, F_JRCXZ, F_RIP_LOAD, F_RIP_LEA,
       F_RIP_STORE, F_RIP_CMP, F_CALL_FIRST, F_ICALL_FIRST, F_JMP_FIRST, F_JCC_FIRST, F_RET_LAST,
       F_MOV_RET, F_PLAIN_C, F_N };
static const char *const names[F_N] = {
	"tiny4",    "ret_early", "loop_back",  "endbr_back", "jrcxz_first", "rip_load", "rip_lea",
	"rip_store", "rip_cmp",  "call_first", "icall_first", "jmp_first",  "jcc_first", "ret_last",
	"mov_ret",   "plain_c",
};
static unsigned long calls[F_N];

static unsigned long n_plain;

HOOKED long plain_c(long a)
{
	n_plain++;
	return a * 11 - 4;
}

int main(void)
{
	unsigned long h = 0;

	for (long i = 0; i < 40; i++) {
		long r[F_N];

		r[F_TINY4] = tiny4((int)i, 5), calls[F_TINY4]++;
		r[F_RET_EARLY] = ret_early(i), calls[F_RET_EARLY]++;
		r[F_LOOP_BACK] = loop_back(i + 1), calls[F_LOOP_BACK]++;
		r[F_ENDBR_BACK] = endbr_back(i + 1), calls[F_ENDBR_BACK]++;
		r[F_JRCXZ] = jrcxz_first(i, 100, 0, i % 2), calls[F_JRCXZ]++;
		r[F_RIP_LOAD] = rip_load(i), calls[F_RIP_LOAD]++;
		r[F_RIP_LEA] = rip_lea(i), calls[F_RIP_LEA]++;
		r[F_RIP_STORE] = rip_store(i) + rs_slot, calls[F_RIP_STORE]++;
		rc_flag = i % 3;
		r[F_RIP_CMP] = rip_cmp(i), calls[F_RIP_CMP]++;
		r[F_CALL_FIRST] = call_first(i), calls[F_CALL_FIRST]++;
		r[F_ICALL_FIRST] = icall_first(i), calls[F_ICALL_FIRST]++;
		r[F_JMP_FIRST] = jmp_first(i), calls[F_JMP_FIRST]++;
		r[F_JCC_FIRST] = jcc_first(i), calls[F_JCC_FIRST]++;
		r[F_RET_LAST] = ret_last(i) + i, calls[F_RET_LAST]++;
		{
			long pair[2] = {i, i * 7};

			r[F_MOV_RET] = mov_ret(pair), calls[F_MOV_RET]++;
		}
		r[F_PLAIN_C] = plain_c(i), calls[F_PLAIN_C]++;
		if (i % 10 == 0 || i == 39) {
			printf("%2ld:", i);
			for (int f = 0; f < F_N; f++)
				printf(" %ld", r[f]);
			printf("\n");
		}
		for (int f = 0; f < F_N; f++)
			h = h * 31 + (unsigned long)r[f];
		pad_round(i);
	}
	printf("hash %lu\n", h);
	printf("padding hash %lu\n", pad_hash);
	printf("%s\n", n_plain == calls[F_PLAIN_C] ? "counts agree" : "plain_c miscounted");
	for (int f = 0; f < F_N; f++)
		TRUTH("truth", names[f], calls[f]);
	TRUTH("truth", "pf_copy", pad_calls[0]);
	TRUTH("truth", "pr_copy", pad_calls[1]);
	return 0;
}
