// SPDX-License-Identifier: MIT
/*
 * xlate_routines: the three routines at the start of every arena of the
 * code cache, which the translated blocks reach with a rel32.  None writes
 * the flags or anything below the program's stack pointer: what they
 * borrow they keep in the thread's slots (struct xl_thread).
 *
 *   lookup:     %fs:tgt = a native address; the program's registers
 *     save rax, rcx, rdx
 *     e = &table[tgt & 0xffff]          (movzwl; lea; lea: no flags)
 *     rcx = e->pc - tgt                 (not; lea 1(a,b): no flags)
 *     jrcxz hit
 *     miss: rcx, rdx back; eax = 0; jmp dispatch
 *     hit:  jmp = e->code; rax, rcx, rdx back; jmp *%fs:jmp
 *
 *   ret_entry:  a thunk's return goes on in the cache: popq %fs:tgt; jmp lookup
 *
 *   dispatch:   rax = the exit stub (0: tgt); the program's rax in save_rax
 *     in_disp = 1; arg = rax; save_rsp = rsp; rsp = dstack; rax back
 *     call *xl_cfg.dispatch             (xlate_dispatch_entry, xlate_entry.S:
 *                                        registers, flags and the extended
 *                                        state kept; C sets jmp)
 *     rsp = save_rsp; in_disp = 0; jmp *%fs:jmp
 *
 * Each instruction's offset is kept with what it has borrowed (saved[]),
 * so that the signal path can give a handler the program's registers back
 * (xlate_ctx.c).
 */
#include <stddef.h>

#include "arch/arch.h"
#include "steps/state.h"
#include "steps/xlate.h"
#include "xlate_emit.h"
#include "xlate_kind.h"

#define XL_OFF(field) ((int32_t)(xl_cfg.tp_xl + offsetof(struct xl_thread, field)))

#define S_RAX 1
#define S_RCX 2
#define S_RDX 4

/* Note where the next instruction starts and what is borrowed before it runs. */
static void xr_mark(struct xl_routines *r, const uint8_t *base, const uint8_t *p, uint8_t saved,
		    uint8_t what)
{
	if (r->n >= sizeof(r->off) / sizeof(r->off[0]))
		return;
	r->off[r->n] = (uint16_t)(p - base);
	r->saved[r->n] = saved;
	r->what[r->n] = what;
	r->n++;
}

size_t arch_xl_routines(uint8_t *at, struct xl_routines *routines)
{
	uint8_t *p = at, *hit, *miss_jmp, *lit;

	routines->n = 0;
	/* ---- lookup */
	routines->lookup = p;
	xr_mark(routines, at, p, 0, XL_R_LOOKUP);
	p = xe_store_fs(p, XR_RAX, XL_OFF(save_rax));
	xr_mark(routines, at, p, S_RAX, XL_R_LOOKUP);
	p = xe_store_fs(p, XR_RCX, XL_OFF(save_rcx));
	xr_mark(routines, at, p, S_RAX | S_RCX, XL_R_LOOKUP);
	p = xe_store_fs(p, XR_RDX, XL_OFF(save_rdx));
	xr_mark(routines, at, p, S_RAX | S_RCX | S_RDX, XL_R_LOOKUP);
	p = xe_load_fs(p, XR_RAX, XL_OFF(tgt));
	/* movzwl %ax, %ecx; lea (%rcx,%rcx), %rcx: two words an entry */
	p = xe_bytes(p, "\x0f\xb7\xc8", 3);
	p = xe_bytes(p, "\x48\x8d\x0c\x09", 4);
	p = xe_load_fs(p, XR_RDX, XL_OFF(table));
	/* lea (%rdx,%rcx,8), %rdx; not %rax; mov (%rdx), %rcx */
	p = xe_bytes(p, "\x48\x8d\x14\xca", 4);
	p = xe_bytes(p, "\x48\xf7\xd0", 3);
	p = xe_bytes(p, "\x48\x8b\x0a", 3);
	/* lea 1(%rcx,%rax), %rcx: e->pc - tgt */
	p = xe_bytes(p, "\x48\x8d\x4c\x01\x01", 5);
	hit = p;
	p = xe_jrcxz(p, 0);
	/* miss */
	xr_mark(routines, at, p, S_RAX | S_RCX | S_RDX, XL_R_LOOKUP);
	p = xe_load_fs(p, XR_RCX, XL_OFF(save_rcx));
	xr_mark(routines, at, p, S_RAX | S_RDX, XL_R_LOOKUP);
	p = xe_load_fs(p, XR_RDX, XL_OFF(save_rdx));
	xr_mark(routines, at, p, S_RAX, XL_R_LOOKUP);
	p = xe_mov_imm32(p, XR_RAX, 0);
	xr_mark(routines, at, p, S_RAX, XL_R_LOOKUP);
	miss_jmp = p;
	p += 5;
	/* hit */
	hit[1] = (uint8_t)(p - (hit + 2));
	xr_mark(routines, at, p, S_RAX | S_RCX | S_RDX, XL_R_LOOKUP);
	/* mov 8(%rdx), %rcx */
	p = xe_bytes(p, "\x48\x8b\x4a\x08", 4);
	p = xe_store_fs(p, XR_RCX, XL_OFF(jmp));
	p = xe_load_fs(p, XR_RAX, XL_OFF(save_rax));
	xr_mark(routines, at, p, S_RCX | S_RDX, XL_R_LOOKUP);
	p = xe_load_fs(p, XR_RCX, XL_OFF(save_rcx));
	xr_mark(routines, at, p, S_RDX, XL_R_LOOKUP);
	p = xe_load_fs(p, XR_RDX, XL_OFF(save_rdx));
	/* the block of %fs:jmp is about to run: its native address is tgt's */
	xr_mark(routines, at, p, 0, XL_R_LOOKUP);
	p = xe_jmp_fs(p, XL_OFF(jmp));

	/* ---- ret_entry */
	routines->ret_entry = p;
	xr_mark(routines, at, p, 0, XL_R_RET);
	p = xe_pop_fs(p, XL_OFF(tgt));
	xr_mark(routines, at, p, 0, XL_R_LOOKUP);
	p = xe_jmp(p, (uint64_t)routines->lookup);

	/* ---- dispatch */
	routines->dispatch = p;
	xe_jmp(miss_jmp, (uint64_t)routines->dispatch);
	xr_mark(routines, at, p, S_RAX, XL_R_DISPATCH);
	p = xe_store_fs_imm(p, XL_OFF(in_disp), 1);
	xr_mark(routines, at, p, 0, XL_R_INSIDE);
	p = xe_store_fs(p, XR_RAX, XL_OFF(arg));
	p = xe_store_fs(p, XR_RSP, XL_OFF(save_rsp));
	p = xe_load_fs(p, XR_RSP, XL_OFF(dstack));
	p = xe_load_fs(p, XR_RAX, XL_OFF(save_rax));
	p = xe_call_rip(p, &lit);
	p = xe_load_fs(p, XR_RSP, XL_OFF(save_rsp));
	p = xe_store_fs_imm(p, XL_OFF(in_disp), 0);
	routines->dispatch_jmp = p;
	xr_mark(routines, at, p, 0, XL_R_JMP);
	p = xe_jmp_fs(p, XL_OFF(jmp));
	xr_mark(routines, at, p, 0, XL_R_END);
	p = (uint8_t *)(((uint64_t)p + 7) & ~7ull);
	xe_set_rel32(lit, (uint64_t)p);
	p = xe_u64(p, xl_cfg.dispatch);
	routines->len = (uint32_t)(p - at);
	return routines->len;
}
