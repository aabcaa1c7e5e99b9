// SPDX-License-Identifier: MIT
/*
 * unwind: let exceptions and stack walks see the program's own frames.
 *
 * While a hooked function F runs, the return address on the stack is R2,
 * inside F's stub, and the real one (R1) sits on the shadow stack.  An
 * unwinder that meets R2 finds no unwind information for it and gives up,
 * so before any unwinding starts this thread's hooked frames get their real
 * return addresses back (the uftrace way, prior-art.md 1.5):
 *
 *   _Unwind_RaiseException, _Unwind_Resume, _Unwind_Resume_or_Rethrow,
 *   _Unwind_ForcedUnwind      restore R1 in every slot, then unwind
 *   __cxa_begin_catch         the exception landed: frames below the catch
 *                             are gone (abandoned); the live ones get R2
 *                             back, so their returns are counted again
 *   backtrace                 restore, walk, put R2 back
 *
 * These run only when a program throws or walks its stack: never on the
 * evaluation path.  The real functions are found with dlsym(RTLD_NEXT).
 */
#include <dlfcn.h>
#include <stdint.h>

#include "arch/x86_64/stub_layout.h"
#include "shim.h"

#define XP_EXPORT __attribute__((visibility("default")))

/* Put R1 back in every slot of this thread's activations. */
void unwind_restore_frames(void)
{
	struct xp_thread *t = &xp_self;

	for (uint32_t i = 0; t->stack && i < t->depth; i++) {
		struct xp_frame *f = &t->stack[i];

		if (f->flags & XP_FRAME_RESTORED)
			continue;
		*(uint64_t *)f->slot = f->ret;
		f->flags |= XP_FRAME_RESTORED;
	}
}

/*
 * Frames whose slot lies below @sp were unwound; the others are live again
 * and go back through their stubs when they return.
 */
void unwind_rehook_frames(uint64_t sp)
{
	struct xp_thread *t = &xp_self;
	struct xp_worker *w = t->worker;

	while (t->stack && t->depth && t->stack[t->depth - 1].slot < sp) {
		struct xp_frame *f = &t->stack[--t->depth];

		if (w && !(f->flags & XP_FRAME_UNCOUNTED)) {
			w->map.decls[f->idx].open--;
			if (f->flags & XP_FRAME_WINDOW)
				__atomic_sub_fetch(&xp_window_open, 1, __ATOMIC_RELAXED);
			w->map.decls[f->idx].abandoned++;
		}
	}
	for (uint32_t i = 0; t->stack && i < t->depth; i++) {
		struct xp_frame *f = &t->stack[i];

		if (!(f->flags & XP_FRAME_RESTORED))
			continue;
		*(uint64_t *)f->slot = (uint64_t)xp.decls[f->idx].stub + STUB_RET;
		f->flags &= ~XP_FRAME_RESTORED;
	}
}

static void *unwind_real(void **cache, const char *name)
{
	void *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = dlsym(RTLD_NEXT, name);
		__atomic_store_n(cache, fn, __ATOMIC_RELEASE);
	}
	return fn;
}

#define UNWIND_REAL(type, name)                                                                    \
	static void *name##_cache;                                                                 \
	type real = (type)unwind_real(&name##_cache, #name)

typedef int (*unwind_raise_fn)(void *exc);
typedef void (*unwind_resume_fn)(void *exc);
typedef int (*unwind_forced_fn)(void *exc, void *stop, void *arg);
typedef void *(*begin_catch_fn)(void *exc);
typedef int (*backtrace_fn)(void **buf, int size);

XP_EXPORT int _Unwind_RaiseException(void *exc)
{
	UNWIND_REAL(unwind_raise_fn, _Unwind_RaiseException);

	unwind_restore_frames();
	return real(exc);
}

XP_EXPORT int _Unwind_Resume_or_Rethrow(void *exc)
{
	UNWIND_REAL(unwind_raise_fn, _Unwind_Resume_or_Rethrow);

	unwind_restore_frames();
	return real(exc);
}

XP_EXPORT void _Unwind_Resume(void *exc)
{
	UNWIND_REAL(unwind_resume_fn, _Unwind_Resume);

	unwind_restore_frames();
	real(exc);
	__builtin_unreachable();
}

XP_EXPORT int _Unwind_ForcedUnwind(void *exc, void *stop, void *arg)
{
	UNWIND_REAL(unwind_forced_fn, _Unwind_ForcedUnwind);

	unwind_restore_frames();
	return real(exc, stop, arg);
}

XP_EXPORT void *__cxa_begin_catch(void *exc)
{
	UNWIND_REAL(begin_catch_fn, __cxa_begin_catch);

	/* our caller is the landing pad: its stack pointer is our CFA */
	unwind_rehook_frames((uint64_t)__builtin_frame_address(0) + 16);
	return real(exc);
}

XP_EXPORT int backtrace(void **buf, int size)
{
	UNWIND_REAL(backtrace_fn, backtrace);
	int n;

	unwind_restore_frames();
	n = real(buf, size);
	unwind_rehook_frames(0);
	return n;
}
