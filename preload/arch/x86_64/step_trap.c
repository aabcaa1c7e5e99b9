// SPDX-License-Identifier: MIT
/*
 * step_trap: what a single-step trap retired, on x86-64 (the steps counter,
 * preload/steps/step.c; its SIGTRAP handler, preload/steps/step_signal.c).  EFLAGS.TF
 * makes the CPU trap after every instruction it retires; each trap reports
 * the address of the *next* instruction, so the handler counts the one
 * before it, the previous trap's pc, when it is the program's:
 *
 *   trap at pc      retired: prev (the last trap's pc)      counted
 *   ----------      ---------------------------------      -------
 *   any             in the shim's text                     0
 *   any             in a stub, a relocated instruction     1 if it is the first of
 *                   of the function's prologue             a moved one, else 0
 *   any             in a stub, anything else               0
 *   any             the patched entry's jmp (a jmp rel8    0
 *                   and the jmp rel32 it goes to, for a
 *                   short patch)
 *   a stub's head   anything else: a jmp from a patch     0
 *   pc == prev      a rep-prefixed string instruction      0: once, when it ends
 *                   not done yet
 *   any             a syscall, an int3 or int n: the       both prev and the one
 *                   kernel returns with iret, which runs   after it, unless pc is
 *                   the next one too before the trap       right after it
 *   any             anything else                          1
 *
 * What the program could see of the flag is mended: the flags pushf pushes
 * have TF cleared after it ran; a popf of flags without TF gets them with TF
 * set in memory, put back after it ran, so that stepping goes on; and an
 * rt_sigprocmask that would block SIGTRAP (a step trap then kills the
 * process) is given a copy of its set without it (the program's wish is
 * kept and granted when stepping ends).  The program's memory is read and
 * written with process_vm_readv/writev, which fail where a plain access
 * would fault.
 */
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include <Zydis/Zydis.h>

#include "arch/arch.h"
#include "core/state.h"
#include "steps/step.h"
#include "stub_layout.h"

#define TF 0x100ull

/* What the instruction at prev is (xp_step.prev_rep). */
enum step_kind {
	STEP_PLAIN,
	STEP_REP,    /* rep-prefixed string: traps once per iteration, at the same pc */
	STEP_KERNEL, /* syscall, int3, int n: the kernel returns with iret, which runs the
		      * instruction at prev_end before the next trap */
	STEP_PATCH,  /* a jump of a patched entry to its stub: the shim's */
};

enum step_fix {
	FIX_NONE,
	FIX_PUSHF, /* clear TF in the flags pushf pushed at sp: fix_val bytes */
	FIX_POPF,  /* clear TF again in the flags popf took at fix_addr: fix_val bytes */
	FIX_MASK,  /* rt_sigprocmask was given our set: rsi back to fix_addr */
};

/* The thunks' entries (start-up gives them: host/init.c links them). */
static struct arch_thunks step_thunks;

static greg_t *ctx_regs(void *uc)
{
	return ((ucontext_t *)uc)->uc_mcontext.gregs;
}

/* The program's memory, where it may not be mapped: 0, or -1. */
static int step_peek(uint64_t addr, void *buf, size_t len)
{
	struct iovec l = {buf, len}, r = {(void *)addr, len};

	return arch_syscall6(SYS_process_vm_readv, arch_syscall4(SYS_getpid, 0, 0, 0, 0), (long)&l,
			     1, (long)&r, 1, 0) == (long)len
		       ? 0
		       : -1;
}

static int step_poke(uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = {(void *)buf, len}, r = {(void *)addr, len};

	return arch_syscall6(SYS_process_vm_writev, arch_syscall4(SYS_getpid, 0, 0, 0, 0), (long)&l,
			     1, (long)&r, 1, 0) == (long)len
		       ? 0
		       : -1;
}

/* The instruction of the program's at @pc: it is about to run, so it is mapped. */
static bool step_decode(uint64_t pc, ZydisDecodedInstruction *in)
{
	ZydisDecoder dec;
	uint64_t page_left = 4096 - (pc & 4095);

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	/* not past its page unless it needs to be: then the CPU reads the next one too */
	if (ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL, (const void *)pc,
						       page_left < ZYDIS_MAX_INSTRUCTION_LENGTH
							       ? page_left
							       : ZYDIS_MAX_INSTRUCTION_LENGTH,
						       in)))
		return true;
	return page_left < ZYDIS_MAX_INSTRUCTION_LENGTH &&
	       ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL, (const void *)pc,
							  ZYDIS_MAX_INSTRUCTION_LENGTH, in));
}

/* The flags word pushf or popf moves: 2 bytes (pushfw, popfw) or 8. */
static size_t step_flags_size(const ZydisDecodedInstruction *in)
{
	return in->operand_width == 16 ? 2 : 8;
}

static void step_flags_clear(uint64_t addr, size_t size)
{
	uint64_t v = 0;

	if (!step_peek(addr, &v, size) && (v & TF)) {
		v &= ~TF;
		step_poke(addr, &v, size);
	}
}

/* What the instruction that just retired left to mend. */
static void step_mend(struct xp_step *s, greg_t *g)
{
	uint64_t trap = 1ull << (SIGTRAP - 1);

	switch (s->fix) {
	case FIX_PUSHF:
		step_flags_clear((uint64_t)g[REG_RSP], s->fix_val);
		break;
	case FIX_POPF:
		step_flags_clear(s->fix_addr, s->fix_val);
		break;
	case FIX_MASK:
		/* the instruction after the syscall ran too: it may have set rsi itself */
		if ((uint64_t)g[REG_RSI] == (uint64_t)&s->mask)
			g[REG_RSI] = (greg_t)s->fix_addr;
		if (s->fix_old && s->fix_val) {
			/* the old set it reads back has SIGTRAP, as it asked before */
			uint64_t old;

			if (!step_peek(s->fix_old, &old, sizeof(old))) {
				old |= trap;
				step_poke(s->fix_old, &old, sizeof(old));
			}
		}
		break;
	default:
		break;
	}
	s->fix = FIX_NONE;
}

/* The relocated instruction at @pc of @stub's prologue: 1 if it stands for one of F's. */
static uint32_t step_stub_credit(const uint8_t *stub, uint64_t pc)
{
	uint32_t n = stub[STUB_STEP_N];
	uint16_t list, off;

	memcpy(&list, stub + STUB_STEP_LIST, sizeof(list));
	if (!list || pc < (uint64_t)stub + STUB_ORIG)
		return 0;
	for (uint32_t k = 0; k < n; k++) {
		memcpy(&off, stub + list + 2 * k, sizeof(off));
		if (pc == (uint64_t)stub + off)
			return 1;
	}
	return 0;
}

/* Whether @pc is the head of a stub (reached by a patched entry's jmp). */
static bool step_is_head(uint64_t pc);

/*
 * Whether the jmp @in at @pc is a patched entry's: to a stub's head, or
 * (a short patch) a jmp rel8 to a jmp rel32 to one.
 */
static bool step_is_patch(const ZydisDecodedInstruction *in, uint64_t pc)
{
	uint64_t to = pc + in->length + (uint64_t)in->raw.imm[0].value.s;
	const uint8_t *p = (const uint8_t *)to;
	int32_t rel;

	if (in->mnemonic != ZYDIS_MNEMONIC_JMP || !in->raw.imm[0].is_relative)
		return false;
	if (arch_code_owns(to))
		return step_is_head(to);
	if (in->length != 2 || p[0] != 0xe9)
		return false;
	memcpy(&rel, p + 1, sizeof(rel));
	to += 5 + (uint64_t)(int64_t)rel;
	return arch_code_owns(to) && step_is_head(to);
}

/* Whether @pc is the head of a stub (reached by a patched entry's jmp). */
static bool step_is_head(uint64_t pc)
{
	const uint8_t *p = (const uint8_t *)pc;
	uint32_t idx;

	if (p[0] != 0x68) /* push $idx */
		return false;
	memcpy(&idx, p + 1, sizeof(idx));
	return xp.decls && idx < __atomic_load_n(&xp.ndecls, __ATOMIC_ACQUIRE) &&
	       xp.decls[idx].stub == (const void *)p;
}

/* The program's instructions the one at @at stands for, when the next trap is at @pc. */
static uint32_t step_credit(const struct xp_thread *t, uint64_t at, uint64_t pc)
{
	if (!at || step_in_shim(at))
		return 0;
	if (arch_code_owns(at)) {
		/* the prologue of the activation on top: its stub's relocated part */
		if (!t->depth || !t->stack)
			return 0;
		return step_stub_credit(xp.decls[t->stack[t->depth - 1].idx].stub, at);
	}
	if (arch_code_owns(pc))
		return step_is_head(pc) ? 0 : 1;
	return 1;
}

uint32_t arch_step_retired(struct xp_thread *thread, void *uc)
{
	struct xp_step *s = &thread->step;
	greg_t *g = ctx_regs(uc);
	uint64_t pc = (uint64_t)g[REG_RIP], prev = s->prev;

	step_mend(s, g);
	if ((s->prev_rep == STEP_REP && pc == prev) || s->prev_rep == STEP_PATCH)
		return 0;
	/* into the kernel and back by iret: the next one ran before this trap */
	if (s->prev_rep == STEP_KERNEL && pc != s->prev_end)
		return step_credit(thread, prev, s->prev_end) +
		       step_credit(thread, s->prev_end, pc);
	return step_credit(thread, prev, pc);
}

void arch_step_know_thunks(const struct arch_thunks *thunks)
{
	step_thunks = *thunks;
}

uint64_t arch_step_thunk(const void *uc, bool *exit)
{
	const greg_t *g = ((const ucontext_t *)uc)->uc_mcontext.gregs;
	uint64_t pc = (uint64_t)g[REG_RIP], sp = (uint64_t)g[REG_RSP];

	/* thunk.S: [sp] back into the stub, then idx and R1 (enter) or R1's room (exit) */
	*exit = false;
	if (pc == step_thunks.enter)
		return sp + 16;
	*exit = true;
	if (pc == step_thunks.exit || pc == step_thunks.exit_callers)
		return sp + 8;
	return 0;
}

/*
 * rt_sigprocmask(how, set, old, 8) about to run: one that would block
 * SIGTRAP is given our copy of @set without it, and the program's wish is
 * kept for when stepping ends.
 */
static void step_look_sigmask(struct xp_step *s, greg_t *g)
{
	uint64_t trap = 1ull << (SIGTRAP - 1), set;
	long how = g[REG_RDI];

	if (g[REG_RAX] != SYS_rt_sigprocmask || g[REG_R10] != sizeof(set))
		return;
	/* the old set is written after the mask is changed: it shows the wish before */
	s->fix_val = s->trap_wanted;
	s->fix_old = (uint64_t)g[REG_RDX];
	if (g[REG_RSI] && !step_peek((uint64_t)g[REG_RSI], &set, sizeof(set))) {
		if (how == SIG_UNBLOCK && (set & trap))
			s->trap_wanted = 0;
		if (how == SIG_SETMASK)
			s->trap_wanted = !!(set & trap);
		if ((how == SIG_BLOCK || how == SIG_SETMASK) && (set & trap)) {
			s->trap_wanted = 1;
			s->mask = set & ~trap;
			s->fix = FIX_MASK;
			s->fix_addr = (uint64_t)g[REG_RSI];
			g[REG_RSI] = (greg_t)&s->mask;
		}
	}
	if (s->fix == FIX_NONE && s->fix_val && s->fix_old) {
		s->fix = FIX_MASK;
		s->fix_addr = (uint64_t)g[REG_RSI];
	}
}

/* A popf about to run: flags without TF get it in memory, taken off again after. */
static void step_look_popf(struct xp_step *s, const ZydisDecodedInstruction *in, uint64_t sp)
{
	size_t size = step_flags_size(in);
	uint64_t v = 0;

	if (step_peek(sp, &v, size) || (v & TF))
		return;
	v |= TF;
	if (step_poke(sp, &v, size))
		return;
	s->fix = FIX_POPF;
	s->fix_addr = sp;
	s->fix_val = size;
}

bool arch_step_look(struct xp_step *step, void *uc)
{
	greg_t *g = ctx_regs(uc);
	uint64_t pc = (uint64_t)g[REG_RIP];
	ZydisDecodedInstruction in, next;

	step->prev = pc;
	step->prev_rep = STEP_PLAIN;
	/* the relocated prologue may hold any of the program's instructions */
	if (step_in_shim(pc) || !step_decode(pc, &in))
		return true;
	if (in.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE))
		step->prev_rep = STEP_REP;
	switch (in.mnemonic) {
	case ZYDIS_MNEMONIC_JMP:
		if (!arch_code_owns(pc) && step_is_patch(&in, pc))
			step->prev_rep = STEP_PATCH;
		break;
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT1:
		step->prev_rep = STEP_KERNEL;
		step->prev_end = pc + in.length;
		break;
	case ZYDIS_MNEMONIC_PUSHF:
	case ZYDIS_MNEMONIC_PUSHFQ:
		step->fix = FIX_PUSHF;
		step->fix_val = step_flags_size(&in);
		break;
	case ZYDIS_MNEMONIC_POPF:
	case ZYDIS_MNEMONIC_POPFQ:
		step_look_popf(step, &in, (uint64_t)g[REG_RSP]);
		break;
	case ZYDIS_MNEMONIC_SYSCALL:
		/* SIGTRAP's action replaced (posix_spawn's child resets every handler):
		 * no step trap may come after it */
		if (g[REG_RAX] == SYS_rt_sigaction && g[REG_RDI] == SIGTRAP && g[REG_RSI])
			return false;
		/* the sigaltstack is the shim's meanwhile (step.c): the program's back first */
		if (g[REG_RAX] == SYS_sigaltstack)
			return false;
		step->prev_rep = STEP_KERNEL;
		step->prev_end = pc + in.length;
		step_look_sigmask(step, g);
		/* the one after it runs before the next trap: a pushf or popf there too */
		if (step->fix == FIX_NONE && step_decode(pc + in.length, &next)) {
			if (next.mnemonic == ZYDIS_MNEMONIC_PUSHF ||
			    next.mnemonic == ZYDIS_MNEMONIC_PUSHFQ) {
				step->fix = FIX_PUSHF;
				step->fix_val = step_flags_size(&next);
			} else if (next.mnemonic == ZYDIS_MNEMONIC_POPF ||
				   next.mnemonic == ZYDIS_MNEMONIC_POPFQ) {
				step_look_popf(step, &next, (uint64_t)g[REG_RSP]);
			}
		}
		break;
	default:
		break;
	}
	return true;
}
