// SPDX-License-Identifier: MIT
/*
 * patch: hook a function on x86-64.
 *
 *      F (in the program's text)             stub_F (our page, within 2 GiB)
 *   +------------------------------+       +--------------------------------+
 *   | endbr64          (kept)      |       | fast path (stub_fast.S), when  |
 *   | jmp stub_F  -----------------+-----> |   the counter has one: counts  |
 *   | int3 ...   (rest of the      |       |   and calls orig itself; any   |
 *   |            moved insns)      |       |   doubt: on to the head        |
 *   | ...rest of F... <------------+--+    +- head (stub_layout.h) ---------+
 *   | ret                          |  |    | push $idx                      |
 *   +------------------------------+  |    | call *enter  -> xp_thunk_enter |
 *                                     |    | call orig   ---------------+   |
 *                                     |    | sub $8,%rsp  <- F returns  |   |
 *                                     |    | call *exit   -> xp_thunk_exit  |
 *                                     |    | ret          -> the caller |   |
 *                                     |    | orig: endbr64           <--+   |
 *                                     |    |   moved insns (re-aimed)       |
 *                                     +----+-- jmp *[rip] F+start+length    |
 *                                          +--------------------------------+
 *
 * The stub is per function, with the declaration's index baked in: no
 * lookup on the way in.  Only the entry jmp needs the stub within +-2 GiB;
 * the moved rip-relative operands need it too, so all of a stub lives there.
 * Patching happens at start-up, before main, while the process has one
 * thread; the stub pages are sealed read+execute afterwards.  In a process
 * already running (extprof attach) the tracer writes the entries itself,
 * every thread stopped, and only the jmp: the moved instructions behind it
 * stay in place (arch_entry_bytes), for a thread that was among them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/arch.h"
#include "codemem.h"
#include "core/log.h"
#include "core/state.h"
#include "core/sys.h"
#include "count/eval.h"
#include "insn.h"
#include "stub_fast.h"
#include "stub_layout.h"

/* The exit thunk new stubs' heads use: the plain one, or the callers' one. */
static char *patch_exit_thunk = xp_thunk_exit;

void arch_use_callers_thunk(void)
{
	patch_exit_thunk = xp_thunk_exit_callers;
}

static void stub_put_call_lit(uint8_t *stub, int at, int lit)
{
	int32_t disp = lit - (at + 6);

	stub[at] = 0xff;
	stub[at + 1] = 0x15;
	memcpy(stub + at + 2, &disp, 4);
}

/* The fixed part of a stub: see stub_layout.h. */
static void stub_write_head(uint8_t *s, uint32_t idx)
{
	uint64_t enter = (uint64_t)xp_thunk_enter, exitp = (uint64_t)patch_exit_thunk;
	uint64_t orig = (uint64_t)(s + STUB_ORIG);
	static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	int32_t rel;

	s[0] = 0x68;
	memcpy(s + 1, &idx, 4);
	stub_put_call_lit(s, STUB_CALL_ENTER, STUB_LIT_ENTER);
	/* nop; call orig: direct, orig being in the stub */
	s[STUB_AFTER_ENTER] = 0x90;
	s[STUB_AFTER_ENTER + 1] = 0xe8;
	rel = STUB_ORIG - STUB_RET;
	memcpy(s + STUB_AFTER_ENTER + 2, &rel, 4);
	s[STUB_RET] = 0x48;
	s[STUB_RET + 1] = 0x83;
	s[STUB_RET + 2] = 0xec;
	s[STUB_RET + 3] = 0x08;
	stub_put_call_lit(s, STUB_RET + 4, STUB_LIT_EXIT);
	s[STUB_RET + 10] = 0xc3;
	/* the steps counter's words: none until the prologue is relocated */
	memset(s + STUB_STEP_ENTRY, 0, STUB_LIT_ENTER - STUB_STEP_ENTRY);
	memcpy(s + STUB_LIT_ENTER, &enter, 8);
	memcpy(s + STUB_LIT_ORIG, &orig, 8);
	memcpy(s + STUB_LIT_EXIT, &exitp, 8);
	memcpy(s + STUB_ORIG, endbr64, sizeof(endbr64));
}

/*
 * Room for a stub near @near: the fast path's copy when the counter has one,
 * then the head and @tail bytes for the relocated prologue.  Returns where
 * the function's entry must jump, and the head in @head.
 */
static uint8_t *stub_alloc(uint64_t near, size_t tail, uint8_t **head)
{
	const struct stub_template *t = stub_fast_template();
	size_t copy = t ? (size_t)(t->end - t->start) : 0;
	uint8_t *entry = codemem_alloc_near(near, copy + STUB_HEADER_SIZE + tail);

	if (entry)
		*head = entry + copy;
	return entry;
}

/*
 * Fill @l, declaration @idx's copy's literals, whose relocated prologue is
 * @orig: where the shim's state is, the counter, and the evaluation's
 * functions the fast path calls when in doubt.
 */
static void stub_fill_lits(struct stub_lits *l, uint32_t idx, uint64_t orig)
{
	uint64_t tp;

	/* initial-exec TLS: the same offset from the thread pointer in every thread */
	__asm__("movq %%fs:0, %0" : "=r"(tp));
	l->tpoff = (uint64_t)&xp_self - tp;
	l->xp = (uint64_t)&xp;
	l->var = xp.counter.var_tls ? (uint64_t)xp.counter.var_tpoff : xp.counter.var_addr;
	l->idx = idx;
	l->doff = (uint64_t)idx * sizeof(struct extprof_dump_decl);
	l->nested = xp.meta.nested_overhead;
	l->orig = orig;
	l->exit_now = (uint64_t)xp_eval_exit_now;
	l->take_row = (uint64_t)xp_eval_take_row;
}

/* The head, and in front of it the fast path's copy with its literals. */
static void stub_write(uint8_t *entry, uint8_t *head, uint32_t idx)
{
	const struct stub_template *t = stub_fast_template();
	struct stub_lits lits;

	stub_write_head(head, idx);
	if (!t || entry == head)
		return;
	memcpy(entry, t->start, (size_t)(t->end - t->start));
	stub_fill_lits(&lits, idx, (uint64_t)(head + STUB_ORIG));
	memcpy(head - sizeof(lits), &lits, sizeof(lits));
}

/* Room after the relocated instructions for the steps counter's list. */
#define STUB_STEP_ROOM (2 + 2 * INSN_MAX_MOVED)

/*
 * What the steps counter needs to count the function's own instructions
 * through its stub (stub_layout.h): the endbr64 the patch leaves before it,
 * and the relocated instructions, @n bytes at @head + STUB_HEADER_SIZE, of
 * which each first one of a moved instruction (@starts) stands for it.
 */
static void stub_write_step(uint8_t *head, const struct insn_plan *plan, const uint16_t *starts,
			    long n)
{
	uint16_t list = (uint16_t)((STUB_HEADER_SIZE + n + 1) & ~1L);

	head[STUB_STEP_ENTRY] = plan->start ? 1 : 0;
	head[STUB_STEP_N] = (uint8_t)plan->nmoved;
	memcpy(head + STUB_STEP_LIST, &list, sizeof(list));
	for (uint32_t i = 0; i < plan->nmoved; i++) {
		uint16_t off = (uint16_t)(STUB_HEADER_SIZE + starts[i]);

		memcpy(head + list + 2 * i, &off, sizeof(off));
	}
}

/* jmp *0(%rip); .quad @target: 14 bytes, reaching anywhere. */
static void patch_put_abs_jmp(uint8_t *p, uint64_t target)
{
	p[0] = 0xff;
	p[1] = 0x25;
	memset(p + 2, 0, 4);
	memcpy(p + 6, &target, 8);
}

/*
 * A jmp at @at to @to: rel32, or rel8 when @short_jmp, then int3 up to 16
 * bytes (a jump into them, we looked for none, traps loudly).  Returns the
 * jmp's length.
 */
static uint32_t patch_jmp_bytes(uint8_t *jmp, uint64_t at, uint64_t to, bool short_jmp)
{
	uint32_t jlen = short_jmp ? INSN_SHORT_SIZE : INSN_PATCH_SIZE;
	int32_t rel = (int32_t)((int64_t)to - (int64_t)(at + jlen));

	if (short_jmp) {
		jmp[0] = 0xeb;
		jmp[1] = (uint8_t)(int8_t)rel;
	} else {
		jmp[0] = 0xe9;
		memcpy(jmp + 1, &rel, 4);
	}
	memset(jmp + jlen, 0xcc, 16 - jlen);
	return jlen;
}

/*
 * Code ranges open for writing (arch_code_open): whole pages only (the
 * caller leaves out a page another segment shares).  Hooking thousands of
 * functions of one library costs two mprotect calls, not two a function.
 */
#define CODE_OPEN_MAX 16

static struct {
	uint64_t lo, hi;
} code_open[CODE_OPEN_MAX];
static int code_nopen;

int arch_code_open(uint64_t lo, uint64_t hi)
{
	uint64_t page = (uint64_t)getpagesize();
	int err;

	lo = (lo + page - 1) & ~(page - 1);
	hi &= ~(page - 1);
	if (lo >= hi)
		return -EINVAL;
	for (int i = 0; i < code_nopen; i++) {
		if (code_open[i].lo == lo && code_open[i].hi == hi)
			return 0;
	}
	if (code_nopen == CODE_OPEN_MAX)
		return -ENOSPC;
	err = sys_mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC);
	if (err < 0)
		return err;
	code_open[code_nopen].lo = lo;
	code_open[code_nopen++].hi = hi;
	return 0;
}

void arch_code_close_all(void)
{
	for (int i = 0; i < code_nopen; i++)
		sys_mprotect((void *)code_open[i].lo, code_open[i].hi - code_open[i].lo,
			     PROT_READ | PROT_EXEC);
	code_nopen = 0;
}

/* Whether [@at, @at + @len) lies in a range arch_code_open opened. */
static bool code_is_open(uint64_t at, uint32_t len)
{
	for (int i = 0; i < code_nopen; i++) {
		if (at >= code_open[i].lo && at + len <= code_open[i].hi)
			return true;
	}
	return false;
}

int arch_write_code(uint64_t at, const uint8_t *bytes, uint32_t len)
{
	uint64_t page = at & ~(uint64_t)(getpagesize() - 1);
	size_t span = (size_t)(at + len - page);
	int err;

	if (code_is_open(at, len)) {
		memcpy((void *)at, bytes, len);
		return 0;
	}
	err = sys_mprotect((void *)page, span, PROT_READ | PROT_WRITE | PROT_EXEC);
	if (err < 0)
		return err;
	memcpy((void *)at, bytes, len);
	return sys_mprotect((void *)page, span, PROT_READ | PROT_EXEC);
}

/* At @at, over @length bytes: a jmp to @to, rel32, or rel8 when @short_jmp. */
static int patch_write_entry(uint64_t at, uint32_t length, const uint8_t *to, bool short_jmp)
{
	uint8_t jmp[sizeof(((struct arch_hook *)0)->saved)];

	if (length > sizeof(jmp))
		return -E2BIG;
	memset(jmp, 0xcc, sizeof(jmp));
	patch_jmp_bytes(jmp, at, (uint64_t)to, short_jmp);
	return arch_write_code(at, jmp, length);
}

_Static_assert(sizeof(((struct arch_hook *)0)->moved_sp) / sizeof(int32_t) == INSN_MAX_MOVED &&
		       sizeof(((struct arch_hook *)0)->moved_at) / sizeof(uint16_t) ==
			       INSN_MAX_MOVED + 1,
	       "a hook's rows hold every moved instruction");

/* What the unwinder's rows need of the moved instructions (@starts: insn_relocate's). */
static void patch_note_moved(struct arch_hook *h, const struct insn_plan *plan, const uint8_t *code,
			     const uint16_t *starts)
{
	h->nmoved = (uint8_t)plan->nmoved;
	h->moved_call = plan->nmoved && plan->moved[plan->nmoved - 1].move == INSN_CALL;
	for (uint32_t i = 0; i < plan->nmoved; i++) {
		const struct insn_moved *m = &plan->moved[i];

		h->moved_at[i] = (uint16_t)(STUB_HEADER_SIZE + starts[i]);
		h->moved_sp[i] = insn_sp_delta(code + m->offset, m->length);
	}
	h->moved_at[plan->nmoved] =
		h->moved_call ? 0 : (uint16_t)(STUB_HEADER_SIZE + starts[plan->nmoved]);
}

/* Build the stub of @plan for the function at @addr; fill @h. */
static int patch_build(uint64_t addr, const struct insn_plan *plan, uint32_t idx,
		       struct arch_hook *h, char *why, size_t whylen)
{
	const uint8_t *code = (const uint8_t *)addr;
	uint16_t starts[INSN_MAX_MOVED + 1];
	uint8_t *entry, *stub;
	long n;

	if (plan->length > sizeof(h->saved)) {
		snprintf(why, whylen, "its first instructions are too long to move");
		return -E2BIG;
	}
	entry = stub_alloc(addr, insn_relocated_size(plan) + STUB_STEP_ROOM, &stub);
	if (!entry && (errno == EEXIST || errno == ENOSPC)) {
		snprintf(why, whylen, "no memory for its stub within 2 GiB");
		return -ENOMEM;
	}
	if (!entry) {
		char text[160];

		/* refused, not out of reach: a limit on the address space, say */
		snprintf(why, whylen, "no memory for its stub (%s)",
			 log_strerror_limit(errno, text, sizeof(text)));
		return -ENOMEM;
	}
	stub_write(entry, stub, idx);
	n = insn_relocate(plan, code, addr, (uint64_t)stub + STUB_HEADER_SIZE,
			  stub + STUB_HEADER_SIZE, starts);
	if (n < 0) {
		snprintf(why, whylen, "a rip-relative operand is out of reach of its stub");
		return -ERANGE;
	}
	stub_write_step(stub, plan, starts, n);
	patch_note_moved(h, plan, code, starts);
	h->span = (uint32_t)(stub - entry) + STUB_HEADER_SIZE + (uint32_t)n;
	h->at = addr + plan->start;
	h->length = plan->length;
	h->pad_at = plan->pad_back ? h->at - plan->pad_back : 0;
	memcpy(h->saved, code + plan->start, plan->length);
	if (h->pad_at)
		memcpy(h->saved_pad, (const uint8_t *)h->pad_at, sizeof(h->saved_pad));
	h->entry = entry;
	h->stub = stub;
	return 0;
}

/* The loaded bytes at @value of the object at base @arg. */
static const uint8_t *patch_bytes(uint64_t value, uint64_t size, void *arg)
{
	(void)size;
	return (const uint8_t *)((uint64_t)arg + value);
}

int arch_prepare_hook(uint64_t addr, uint64_t size, uint32_t idx, const struct functab *table,
		      uint64_t base, struct arch_hook *hook, char *why, size_t whylen)
{
	struct arch_plan plan;

	if (arch_plan_hook((const uint8_t *)addr, size, addr, base, table, patch_bytes,
			   (void *)base, &plan, why, whylen))
		return -EINVAL;
	return patch_build(addr, &plan.insn, idx, hook, why, whylen);
}

int arch_build_hook(uint64_t addr, const struct arch_plan *plan, uint32_t idx,
		    struct arch_hook *hook, char *why, size_t whylen)
{
	return patch_build(addr, &plan->insn, idx, hook, why, whylen);
}

/* Send the function's entry to its stub: through the padding, for a short patch. */
int arch_commit_hook(const struct arch_hook *hook, char *why, size_t whylen)
{
	int err = 0;

	if (hook->pad_at) {
		/* the padding first: nothing runs there until the entry sends it */
		err = patch_write_entry(hook->pad_at, INSN_PATCH_SIZE, hook->entry, false);
		if (!err)
			err = patch_write_entry(hook->at, hook->length,
						(const uint8_t *)hook->pad_at, true);
	} else {
		err = patch_write_entry(hook->at, hook->length, hook->entry, false);
	}
	if (err)
		snprintf(why, whylen, "cannot write its entry: %s", strerror(-err));
	return err;
}

/* One write of arch_entry_bytes: the jmp alone, and what it replaces. */
static void patch_entry_write(struct arch_patch_bytes *w, uint64_t at, uint64_t to, bool short_jmp)
{
	uint8_t jmp[16];

	w->at = at;
	w->len = patch_jmp_bytes(jmp, at, to, short_jmp);
	memcpy(w->code, jmp, w->len);
	memcpy(w->orig, (const void *)at, w->len);
}

int arch_entry_bytes(const struct arch_hook *hook, struct arch_patch_bytes *writes, int max)
{
	if (hook->length > sizeof(writes->code) || max < (hook->pad_at ? 2 : 1))
		return -EINVAL;
	if (!hook->pad_at) {
		patch_entry_write(&writes[0], hook->at, (uint64_t)hook->entry, false);
		return 1;
	}
	/* the padding first, as arch_commit_hook writes it */
	patch_entry_write(&writes[0], hook->pad_at, (uint64_t)hook->entry, false);
	patch_entry_write(&writes[1], hook->at, hook->pad_at, true);
	return 2;
}

/*
 * A function's entry sent to @target, the function itself still callable
 * through the trampoline @orig returns (extprof attach: the unwinder's
 * entries, to the shim's wrappers):
 *
 *   F: jmp N --> N: jmp *[rip] target       (near F: the entry's rel32)
 *                T: endbr64                  <- *orig
 *                   F's moved instructions, re-aimed
 *                   jmp F + moved bytes
 */
int arch_prepare_redirect(uint64_t addr, uint64_t size, uint64_t target, struct arch_hook *hook,
			  void **orig, char *why, size_t whylen)
{
	static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	const uint8_t *code = (const uint8_t *)addr;
	struct insn_plan plan;
	uint8_t *n;
	long k;

	if (insn_plan_patch(code, size, addr, &plan, why, whylen))
		return -EINVAL;
	n = codemem_alloc_near(addr, 16 + sizeof(endbr64) + insn_relocated_size(&plan));
	if (!n) {
		snprintf(why, whylen, "no memory for its trampoline within 2 GiB");
		return -ENOMEM;
	}
	patch_put_abs_jmp(n, target);
	memset(n + 14, 0xcc, 2);
	memcpy(n + 16, endbr64, sizeof(endbr64));
	k = insn_relocate(&plan, code, addr, (uint64_t)n + 20, n + 20, NULL);
	if (k < 0) {
		snprintf(why, whylen, "a rip-relative operand is out of reach of its trampoline");
		return -ERANGE;
	}
	hook->at = addr + plan.start;
	hook->length = plan.length;
	hook->pad_at = 0;
	hook->entry = n;
	hook->stub = n;
	*orig = n + 16;
	return 0;
}

_Static_assert(sizeof(((struct arch_hook *)0)->saved_pad) == INSN_PATCH_SIZE,
	       "a short patch's padding holds one jmp rel32");

/* The entry first: once it is back, nothing goes through the padding. */
int arch_unhook(const struct arch_hook *hook)
{
	int err = arch_write_code(hook->at, hook->saved, hook->length);

	if (!err && hook->pad_at)
		err = arch_write_code(hook->pad_at, hook->saved_pad, sizeof(hook->saved_pad));
	return err;
}
