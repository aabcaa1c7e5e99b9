/* SPDX-License-Identifier: MIT */
/*
 * arch: what the rest of the shim asks of the architecture code, in
 * arch/CPU_FAMILY/ (preload/meson.build picks the folder; docs/porting.md
 * says what a port provides, file by file).
 */
#ifndef EXTPROF_PRELOAD_ARCH_H
#define EXTPROF_PRELOAD_ARCH_H

/* Hooked calls of xp_cal_empty in one call of xp_cal_outer (the port's calibrate.S). */
#define ARCH_CAL_NESTED 8

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The architecture's inline part: counter reads, fences, the thread pointer. */
#include "arch_inline.h"
#include "arch/arch_syscall.h"
/* The port's patch planner, which the ELF reader holds: arch_plan_hook, struct arch_plan. */
#include "plan.h"

/*
 * struct arch_hook, a function's patch, planned and with its stub built,
 * not yet written, is the port's own (arch_inline.h); the rest of the shim
 * reads its stub (the stub's head) and entry (where the patched entry
 * jumps) only.
 */
struct functab;

/*
 * Plan the patch of the function at @addr (@size bytes, from its symbol) so
 * that every call goes through a stub with @idx baked in.  @table: the
 * functions of its object (loaded at @base, its branches scanned), for the
 * branches other functions aim into its first bytes; NULL when unknown.
 * Returns 0, or -errno with the reason, one short phrase, in @why.
 */
int arch_prepare_hook(uint64_t addr, uint64_t size, uint32_t idx, const struct functab *table,
		      uint64_t base, struct arch_hook *hook, char *why, size_t whylen);

/* Build the stub of @plan for the function at @addr, with @idx baked in: 0, or -errno with @why. */
int arch_build_hook(uint64_t addr, const struct arch_plan *plan, uint32_t idx,
		    struct arch_hook *hook, char *why, size_t whylen);
/* Write the patch @hook planned, so that calls go through its stub: 0, or -errno with @why. */
int arch_commit_hook(const struct arch_hook *hook, char *why, size_t whylen);

/* Put back what arch_commit_hook overwrote (calibration's own functions). */
int arch_unhook(const struct arch_hook *hook);

/*
 * The functions calibration hooks, shaped as a program's (in the port's assembly):
 * empty holds a 5-byte nop and returns; outer calls it ARCH_CAL_NESTED
 * times; the _plain twins are the same and are never hooked.  Each _end
 * marks where its function ends.
 */
void xp_cal_empty(void), xp_cal_empty_end(void);
/* The unhooked twin of xp_cal_empty. */
void xp_cal_empty_plain(void), xp_cal_empty_plain_end(void);
/* ARCH_CAL_NESTED calls of xp_cal_empty. */
void xp_cal_outer(void), xp_cal_outer_end(void);
/* The unhooked twin of xp_cal_outer (it calls xp_cal_empty_plain). */
void xp_cal_outer_plain(void), xp_cal_outer_plain_end(void);

/* The code the stubs' fast path is a copy of (its unwinder rows are the assembler's), or NULL. */
const void *arch_fast_path_code(void);

/* Stubs made from now on attribute callers (EXTPROF_CALLERS). */
void arch_use_callers_thunk(void);

struct xp_counter;

/*
 * Stubs made from now on carry the fast path for @counter, if it has one
 * and there are neither callers nor a window (stub_fast.c).
 */
void arch_choose_fast_path(const struct xp_counter *counter, bool callers, bool window);

/* One write of code: @len bytes at @at, and those they replace. */
struct arch_patch_bytes {
	uint64_t at;
	uint32_t len;
	uint8_t code[16];
	uint8_t orig[16];
};

/*
 * For a process already running (extprof attach): the writes that send
 * @hook's entry to its stub, at most @max (2 do: a short patch's padding, then
 * its entry), each the bytes of a jump alone and those it replaces: the
 * moved instructions behind it stay, so that a thread that was among them
 * runs on correctly.  Returns how many, or -EINVAL.
 */
int arch_entry_bytes(const struct arch_hook *hook, struct arch_patch_bytes *writes, int max);

/*
 * Plan @addr's entry (@size bytes) to jump to @target instead; the function
 * stays callable through the trampoline *@orig.  Nothing is written yet
 * (arch_entry_bytes says what to write).  0, or -errno with @why.
 */
int arch_prepare_redirect(uint64_t addr, uint64_t size, uint64_t target, struct arch_hook *hook,
			  void **orig, char *why, size_t whylen);

/* Write @len bytes of code at @at in this process (a fork child undoing an attachment). */
int arch_write_code(uint64_t at, const uint8_t *bytes, uint32_t len);

/*
 * Many functions of one code segment to patch: the whole pages of
 * [@lo, @hi) made writable once (and still executable), so that
 * arch_write_code there changes no protection, until arch_code_close_all().
 * 0 or -errno; without it, each write makes its own pages writable and back.
 */
int arch_code_open(uint64_t lo, uint64_t hi);
/* Every range arch_code_open opened: read and execute again. */
void arch_code_close_all(void);

struct extprof_attach_range;

/* The address ranges of every stub made so far, at most @max: how many there are. */
int arch_code_ranges(struct extprof_attach_range *ranges, int max);

/* Whether @pc lies in one of the stubs' pages. */
bool arch_code_owns(uint64_t pc);

/* ---- single-stepping, for the steps counter (steps/step*.c, arch/CPU_FAMILY/step*.c) ---- */

struct xp_thread;
struct xp_step;

/* Set or clear the calling thread's trap flag. */
void arch_step_self(bool on);

/* Set or clear the trap flag in a signal handler's saved context @uc. */
void arch_ctx_step(void *uc, bool on);

/* The instruction pointer of a signal handler's saved context @uc. */
uint64_t arch_ctx_pc(const void *uc);
/* The stack pointer of a signal handler's saved context @uc. */
uint64_t arch_ctx_sp(const void *uc);

/* System calls without errno (arch_syscall4, arch_syscall6): arch_syscall.h. */

/* The function's own instructions that run before its stub @stub (a landing pad): 0 or 1. */
uint32_t arch_step_entry_credit(const void *stub);

/*
 * A single-step trap on @thread (context @uc): mend what the instruction
 * that retired left to mend, and return how many of the program's own
 * instructions it stands for (the table atop the architecture's step_trap.c).
 */
uint32_t arch_step_retired(struct xp_thread *thread, void *uc);

/*
 * The thunks' entries a trap may land on (thunk.S's): given to the trap
 * engine at set-up by start-up (host/init.c, which links them), so
 * that the engine itself calls nothing of the evaluation path's.
 */
struct arch_thunks {
	uint64_t enter;	       /* xp_thunk_enter */
	uint64_t exit;	       /* xp_thunk_exit */
	uint64_t exit_callers; /* xp_thunk_exit_callers */
};

/* The trap engine learns the thunks' entries (arch_step_thunk compares with them). */
void arch_step_know_thunks(const struct arch_thunks *thunks);

/*
 * Whether the trap's next instruction is the entry of a thunk, where the
 * shim's own work starts: the slot of the activation it enters (@exit
 * false) or leaves (@exit true); 0 otherwise.
 */
uint64_t arch_step_thunk(const void *uc, bool *exit);

/*
 * The instruction about to run at the trap's pc: remember it (it is the
 * next trap's prev), and prepare what it needs (the port's table says which).
 * False when stepping must end before it runs (it replaces SIGTRAP's
 * handler, and a step trap after it would kill the process).
 */
bool arch_step_look(struct xp_step *step, void *uc);

/*
 * Start the libunwind walk @cursor (an unw_cursor_t) at the caller of a
 * hooked function as its exit thunk found it: returning to @ret from the
 * return address at @slot, with the callee-saved registers @regs that
 * xp_thunk_exit_callers saved.  Returns 0, or -1 when libunwind refuses.
 */
int arch_unwind_start(void *cursor, const uint64_t *regs, uint64_t ret, uint64_t slot);

/* ---- the code cache, for the steps counter's translation engine (preload/steps/xlate*.c,
 * arch/CPU_FAMILY/xlate*.c) ---- */

struct xl_block;
struct xl_exit;
struct xl_routines;

/* Where a block's translation goes: it runs where it is written. */
struct xl_where {
	uint8_t *out;
	size_t room;
	uint64_t lo, hi; /* its arena: every rip-relative operand must reach all of it */
	const struct xl_routines *r; /* the arena's routines */
};

/*
 * Translate the block of native code at @pc into @where (xlate_block.c draws
 * it), its record in @block: the code's length, or -1 when @pc cannot be
 * translated (it then runs natively).
 */
long arch_xl_translate(uint64_t pc, const struct xl_where *where, struct xl_block *block);

/* Write an arena's routines (lookup, ret_entry, dispatch) at @at: their length. */
size_t arch_xl_routines(uint8_t *at, struct xl_routines *routines);

/* Aim @block_exit of @block at the translated code @to. */
void arch_xl_link(struct xl_block *block, const struct xl_exit *block_exit, uint64_t to);

/* Whether @pc is a stub's head, where a patched entry jumps. */
bool arch_xl_is_head(uint64_t pc);

/*
 * A signal interrupted translated code at the pc of @uc, in @block (or
 * the arena's routines @routines when @block is NULL): rewrite @uc into the native
 * state it stands for (pc, the registers the translation borrowed, the
 * stack pointer) and say by how much the count must change so that it
 * holds the instructions retired before that pc (*@adj).  Returns 0, or -1
 * when the thread is inside the dispatcher (nothing to rewrite).
 */
int arch_xl_native_ctx(const struct xl_block *block, const struct xl_routines *routines, void *uc,
		       int64_t *adj);

/*
 * The dispatcher's entry, which an arena's dispatch routine calls with the
 * program's registers live (xlate_entry.S: it keeps them and calls
 * xlate_dispatch); xlate_setup hands its address to the routines (xl_cfg).
 */
extern char xlate_dispatch_entry[];

/* Call @fn(@arg) on the stack whose top is @top (16-byte aligned). */
void arch_call_on_stack(void (*fn)(void *), void *arg, uint64_t top);

/* Set the pc of a signal's saved context @uc (arch_ctx_pc reads it). */
void arch_ctx_set_pc(void *uc, uint64_t pc);
/* Copy the general registers, pc and flags of @uc into @regs (room for ARCH_CTX_NREGS), or back. */
#define ARCH_CTX_NREGS 23
void arch_ctx_get_regs(const void *uc, uint64_t *regs);
void arch_ctx_set_regs(void *uc, const uint64_t *regs);

/* The stack pointer a longjmp to the C library's jump buffer @env restores. */
uint64_t arch_jmpbuf_sp(const void *env);

/* Make every stub page read+execute only. */
void arch_seal_code(void);

/* The CIE the stubs' unwinder rows are read with (DWARF call frame information). */
struct arch_cfi_cie {
	uint8_t code_align;
	int8_t data_align;
	uint8_t ra;	 /* the return address column */
	uint8_t init[8]; /* the initial instructions: a function's first instruction */
	uint8_t init_len;
};

/* Fill @cie: what the rows of arch_stub_cfi() and of the fast path's template start from. */
void arch_cfi_cie(struct arch_cfi_cie *cie);

/*
 * The unwinder's rows for @hook's stub from its head to its end (DWARF call
 * frame instructions, locations absolute: DW_CFA_set_loc, 8 bytes) into
 * @ops, at most @cap bytes: how many, or -ENOSPC.  The rows of the fast
 * path's copy before the head are the template's own (unwind_stub.c).
 */
long arch_stub_cfi(const struct arch_hook *hook, uint8_t *ops, size_t cap);

/*
 * The return address rule of a stub's rows: read where a function's is,
 * but 0 (the unwinder's end) while it is @stub_return, the stub's own: into @ops,
 * at most @cap bytes; how many, or -ENOSPC.
 */
long arch_cfi_ra_unless(uint64_t stub_return, uint8_t *ops, size_t cap);

/* Learn what xp_call_preserving() must save of the CPU's extended state. */
void arch_probe_cpu(void);

/* The shim's own, as everything of the shim's: hidden. */
#pragma GCC visibility push(hidden)

/* The halves of every hooked call (thunk.S), which the stubs call. */
extern char xp_thunk_enter[], xp_thunk_exit[], xp_thunk_exit_callers[];

/* R2 of the stubs' fast path from their head (stub_fast.c), 0: none. */
extern int64_t xp_stub_fast_ret;

/*
 * Call @fn(@arg) with the extended state saved, on @stack (its top)
 * unless NULL: a slow path (worker_call_own).
 */
void xp_call_preserving(void (*fn)(void *), void *arg, void *stack);

#pragma GCC visibility pop

#endif /* __ASSEMBLER__ */
#endif
