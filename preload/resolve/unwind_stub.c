// SPDX-License-Identifier: MIT
/*
 * unwind_stub: the stubs described to libgcc's unwinder, the one glibc
 * unwinds a cancelled thread with (pthread_cancel, pthread_exit: glibc's
 * __pthread_unwind calls _Unwind_ForcedUnwind of the libgcc_s.so.1 it
 * loads itself, through its own pointer, so unwind.c's wrapper never sees
 * it).  A stub is code the shim made at run time, in no object: without
 * rows of its own, the unwinder that reaches one stops ("end of stack"),
 * and the frames above it never run their cleanups (C++ destructors,
 * __attribute__((cleanup))), or, in the shim's thunks, walks wrong and
 * crashes.
 *
 *   hooks.c commits a hook      unwind_stub_add: an FDE for its stub, the
 *                               fast path's copy (the template's own rows,
 *                               the assembler's, stub_fast.S), the head and
 *                               the moved prologue (arch_stub_cfi)
 *   the hooks are in            unwind_stub_publish: the FDEs so far
 *   (start-up, a dlopen)        registered (__register_frame), if
 *                               libgcc_s.so.1 is loaded
 *   pthread_cancel,             libgcc_s.so.1 loaded (glibc loads it there
 *   pthread_exit                anyway, a moment later), everything
 *                               registered before any thread unwinds
 *
 * Every FDE names unwind_stub_personality as its personality routine:
 * while F runs, the return address in its slot is R2, back into the stub,
 * and R1, the caller's, is on the shadow stack.  The unwinder calls the
 * routine for the stub's frame before it reads the return address; the
 * routine puts R1 back in the slot and marks the activation restored, as
 * activation_restore_frames() does for an exception (host/unwind.c): the unwinder
 * goes on into the caller, and the activation, which never returns, is
 * counted abandoned when its thread ends (count/thread.c) or where the
 * exception lands (__cxa_begin_catch, unwind.c).
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/arch.h"
#include "ehframe.h"
#include "core/interpose.h"
#include "core/log.h"
#include "core/state.h"
#include "resolve/unwind_stub.h"
#include "steps/xlate.h"

#define XP_EXPORT __attribute__((visibility("default")))

/* libgcc's own: no header, as the shim links no unwinder of libgcc's */
typedef void (*register_frame_fn)(void *begin);
typedef const void *(*find_fde_fn)(void *pc, void *bases);
typedef uint64_t (*get_cfa_fn)(void *context);
#define URC_CONTINUE_UNWIND 8

static register_frame_fn unwind_register_frame;
static find_fde_fn unwind_find_fde;
static get_cfa_fn unwind_get_cfa;

/* ---- the personality routine ------------------------------------------- */

/*
 * Called by libgcc's unwinder for a stub's frame (and for F's first
 * instructions, in the stub too), in both phases of an exception and in a
 * forced unwind: R1 back in the slot, so that the return address the
 * unwinder reads next is the caller's.  No lock, no libc: it may run in a
 * signal handler (an asynchronous cancellation's).
 */
static int unwind_stub_personality(int version, int actions, uint64_t exc_class, void *exc,
				   void *context)
{
	uint64_t slot = unwind_get_cfa(context) - 8;
	/* the unwinding thread's own state, told by the slot, on its stack (clone.c) */
	struct xp_thread *t = state_self(slot, false);

	(void)version;
	(void)actions;
	(void)exc_class;
	(void)exc;
	for (uint32_t i = t ? t->depth : 0; i > 0 && t->stack; i--) {
		struct xp_frame *f = &t->stack[i - 1];

		if (f->slot != slot)
			continue;
		if (!(f->flags & XP_FRAME_RESTORED)) {
			*(uint64_t *)slot = f->ret;
			f->flags |= XP_FRAME_RESTORED;
		}
		break;
	}
	return URC_CONTINUE_UNWIND;
}

/* ---- the FDEs ------------------------------------------------------------ */

/*
 * The FDEs not registered yet: one CIE, then an FDE per stub, as in an
 * .eh_frame section; registered whole (with a terminator), then never
 * moved nor freed (the stubs live as long as the process).
 */
static struct {
	uint8_t *buf;
	size_t len, cap;
	uint32_t nfde;
	uint64_t first_pc;
} unwind_pending;

static int unwind_room(size_t more)
{
	size_t cap = unwind_pending.cap ? unwind_pending.cap : 65536;
	void *p;

	if (unwind_pending.len + more <= unwind_pending.cap)
		return 0;
	while (cap < unwind_pending.len + more)
		cap *= 2;
	p = unwind_pending.buf
		    ? mremap(unwind_pending.buf, unwind_pending.cap, cap, MREMAP_MAYMOVE)
		    : mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	unwind_pending.buf = p;
	unwind_pending.cap = cap;
	return 0;
}

static void unwind_put(const void *p, size_t n)
{
	memcpy(unwind_pending.buf + unwind_pending.len, p, n);
	unwind_pending.len += n;
}

static void unwind_put_u32(uint32_t v)
{
	unwind_put(&v, sizeof(v));
}

static void unwind_put_u64(uint64_t v)
{
	unwind_put(&v, sizeof(v));
}

/* DW_CFA_nop to 8 bytes, and the entry's length in its first 4. */
static void unwind_close_entry(size_t start)
{
	uint32_t len;

	while ((unwind_pending.len - start) % 8)
		unwind_pending.buf[unwind_pending.len++] = 0;
	len = (uint32_t)(unwind_pending.len - start - 4);
	memcpy(unwind_pending.buf + start, &len, sizeof(len));
}

/* The CIE every FDE of the batch points at: addresses absolute, the personality routine. */
static void unwind_put_cie(void)
{
	struct arch_cfi_cie c;
	size_t start = unwind_pending.len;
	uint64_t pers = (uint64_t)unwind_stub_personality;
	uint8_t b;

	arch_cfi_cie(&c);
	unwind_put_u32(0); /* the length, at the end */
	unwind_put_u32(0); /* a CIE */
	b = 1;		   /* version */
	unwind_put(&b, 1);
	unwind_put("zPR", 4);
	unwind_put(&c.code_align, 1);	  /* uleb128, < 128 */
	b = (uint8_t)c.data_align & 0x7f; /* sleb128, -64 to 63 */
	unwind_put(&b, 1);
	unwind_put(&c.ra, 1);
	b = 1 + 8 + 1; /* augmentation data: P, its pointer, R */
	unwind_put(&b, 1);
	b = 0; /* DW_EH_PE_absptr */
	unwind_put(&b, 1);
	unwind_put_u64(pers);
	unwind_put(&b, 1);
	unwind_put(c.init, c.init_len);
	unwind_close_entry(start);
}

/* The rows of the fast path's template (stub_fast.S), the assembler's: found once. */
static struct {
	bool looked;
	const uint8_t *ops;
	size_t len;
	uint64_t size;
} unwind_template;

struct unwind_hdr_find {
	uint64_t self;
	const uint8_t *hdr;
};

static int unwind_hdr_visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct unwind_hdr_find *f = arg;
	const uint8_t *hdr = NULL;
	bool mine = false;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && f->self >= lo && f->self < lo + ph->p_memsz)
			mine = true;
		if (ph->p_type == PT_GNU_EH_FRAME)
			hdr = (const uint8_t *)lo;
	}
	if (mine)
		f->hdr = hdr;
	return mine;
}

/*
 * The FDE of @pc in the shim's own .eh_frame, from its .eh_frame_hdr's
 * table (as GNU ld writes it: entries datarel sdata4, sorted), or NULL.
 */
static const uint8_t *unwind_own_fde(uint64_t pc)
{
	struct unwind_hdr_find f = {(uint64_t)unwind_own_fde, NULL};
	const uint8_t *hdr;
	uint32_t count, lo = 0, hi;
	int32_t v;

	dl_iterate_phdr(unwind_hdr_visit, &f);
	hdr = f.hdr;
	/* version 1; eh_frame_ptr pcrel sdata4, fde_count udata4, table datarel sdata4 */
	if (!hdr || hdr[0] != 1 || hdr[1] != 0x1b || hdr[2] != 0x03 || hdr[3] != 0x3b)
		return NULL;
	memcpy(&count, hdr + 8, 4);
	hi = count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint64_t loc;

		memcpy(&v, hdr + 12 + 8 * (size_t)mid, 4);
		loc = (uint64_t)hdr + (uint64_t)(int64_t)v;
		if (loc == pc) {
			memcpy(&v, hdr + 12 + 8 * (size_t)mid + 4, 4);
			return hdr + v;
		}
		if (loc < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The template's rows, if its CIE starts them where ours does. */
static void unwind_find_template(void)
{
	const uint8_t *code = arch_fast_path_code();
	const uint8_t *fde;
	struct arch_cfi_cie c;
	struct ehframe_prog p;

	unwind_template.looked = true;
	if (!code || !(fde = unwind_own_fde((uint64_t)code)) || ehframe_fde_prog(fde, &p))
		return;
	arch_cfi_cie(&c);
	if (p.start != (uint64_t)code || p.code_align != c.code_align ||
	    p.data_align != c.data_align || p.ra != c.ra || p.init_len < c.init_len ||
	    memcmp(p.init, c.init, c.init_len))
		return;
	for (size_t i = c.init_len; i < p.init_len; i++) {
		if (p.init[i]) /* anything but DW_CFA_nop */
			return;
	}
	unwind_template.ops = p.ops;
	unwind_template.len = p.ops_len;
	unwind_template.size = p.size;
}

void unwind_stub_add(const struct arch_hook *hook)
{
	const uint8_t *entry = hook->entry, *head = hook->stub;
	uint8_t ops[512], ra[64];
	long n = arch_stub_cfi(hook, ops, sizeof(ops)), nra = 0;
	size_t start, copy = 0;

	if (n < 0)
		return;
	if (entry != head) {
		if (!unwind_template.looked)
			unwind_find_template();
		/* without the template's rows, the copy's are the CIE's: wrong but for
		 * its first instruction; the unwinder may then stop there */
		if (unwind_template.size == (uint64_t)(head - entry))
			copy = unwind_template.len;
		/* the copy's R2, where F returns to it */
		nra = arch_cfi_ra_unless((uint64_t)head + (uint64_t)xp_stub_fast_ret, ra,
					 sizeof(ra));
		if (nra < 0)
			return;
	}
	if (unwind_room(64 + (size_t)nra + copy + (size_t)n + 8))
		return;
	if (!unwind_pending.len)
		unwind_put_cie();
	start = unwind_pending.len;
	unwind_put_u32(0);
	/* back to the CIE, at 0: this field's own offset */
	unwind_put_u32((uint32_t)unwind_pending.len);
	unwind_put_u64((uint64_t)entry);
	unwind_put_u64(hook->span);
	unwind_put("", 1); /* no augmentation data */
	if (nra)
		unwind_put(ra, (size_t)nra);
	if (copy)
		unwind_put(unwind_template.ops, copy);
	unwind_put(ops, (size_t)n);
	unwind_close_entry(start);
	if (!unwind_pending.nfde++)
		unwind_pending.first_pc = (uint64_t)entry;
}

/* ---- registration ---------------------------------------------------------- */

/*
 * The real functions this file calls or wraps: libc's dlopen (not the
 * shim's wrapper: an object the shim loads hooks nothing), pthread_cancel
 * and pthread_exit (below).
 */
enum { UWS_DLOPEN, UWS_CANCEL, UWS_EXIT, UWS_N };
static const char *const unwind_stub_names[UWS_N] = {"dlopen", "pthread_cancel", "pthread_exit"};
static void *unwind_stub_cache[UWS_N];
static const struct interpose_table unwind_stub_reals = {unwind_stub_names, unwind_stub_cache,
							 UWS_N};

/*
 * libgcc_s.so.1's functions, found once it is loaded (@load: loaded now,
 * with the real dlopen, as glibc loads it: none of its functions hooked).
 */
static bool unwind_libgcc(bool load)
{
	void *h;

	if (__atomic_load_n(&unwind_register_frame, __ATOMIC_ACQUIRE))
		return true;
	h = ((void *(*)(const char *, int))interpose_real(&unwind_stub_reals, UWS_DLOPEN))(
		"libgcc_s.so.1", RTLD_NOW | (load ? 0 : RTLD_NOLOAD));
	if (!h)
		return false;
	/* the personality routine's first: it may run once a frame is registered */
	unwind_get_cfa = (get_cfa_fn)dlsym(h, "_Unwind_GetCFA");
	unwind_find_fde = (find_fde_fn)dlsym(h, "_Unwind_Find_FDE");
	if (!unwind_get_cfa || !unwind_find_fde)
		return false;
	__atomic_store_n(&unwind_register_frame, (register_frame_fn)dlsym(h, "__register_frame"),
			 __ATOMIC_RELEASE);
	return unwind_register_frame != NULL;
}

/* Register what is pending, if libgcc's unwinder is there (@load: load it). */
static void unwind_publish(bool load)
{
	void *bases[3];

	if (!unwind_pending.nfde || !unwind_libgcc(load) || unwind_room(4))
		return;
	unwind_put_u32(0); /* the terminator */
	unwind_register_frame(unwind_pending.buf);
	/* libgcc sorts a registered object at its first lookup, with malloc: now,
	 * in the program's context, not in a cancelled thread's signal handler */
	unwind_find_fde((void *)(unwind_pending.first_pc + 1), bases);
	memset(&unwind_pending, 0, sizeof(unwind_pending));
}

void unwind_stub_publish(void)
{
	unwind_publish(false);
}

/*
 * pthread_cancel and pthread_exit: before a thread unwinds, every stub is
 * registered.  A dlopen adding hooks meanwhile (it holds the declarations'
 * lock) registers its own at its end, libgcc_s being there.
 */
void unwind_stub_resolve(void)
{
	interpose_resolve(&unwind_stub_reals);
}

void unwind_stub_prepare(void)
{
	/* under a seccomp filter, nothing is loaded: registered if it is there */
	if (!xp.enabled || !unwind_libgcc(!xp.sandboxed))
		return;
	if (!pthread_mutex_trylock(&xp.decls_lock)) {
		unwind_publish(false);
		pthread_mutex_unlock(&xp.decls_lock);
	}
}

XP_EXPORT int pthread_cancel(pthread_t thread)
{
	int (*real)(pthread_t) = (int (*)(pthread_t))interpose_real(&unwind_stub_reals, UWS_CANCEL);

	unwind_stub_prepare();
	if (__atomic_load_n(&xl_signals_on, __ATOMIC_ACQUIRE) && real)
		xlate_cancel_prepare(real);
	return real(thread);
}

XP_EXPORT __attribute__((noreturn)) void pthread_exit(void *ret)
{
	unwind_stub_prepare();
	((void (*)(void *))interpose_real(&unwind_stub_reals, UWS_EXIT))(ret);
	__builtin_unreachable();
}
