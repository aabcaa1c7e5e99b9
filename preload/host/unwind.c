// SPDX-License-Identifier: MIT
/*
 * unwind: let exceptions and stack walks see the program's own frames.
 *
 * While a hooked function F runs, the return address on the stack is R2,
 * inside F's stub, and the real one (R1) sits on the shadow stack.  An
 * unwinder that meets R2 finds no unwind information for it and gives up,
 * so before any unwinding starts this thread's hooked frames get their real
 * return addresses back (as uftrace does for its own return hooks):
 *
 *   _Unwind_RaiseException, _Unwind_Resume, _Unwind_Resume_or_Rethrow,
 *   _Unwind_ForcedUnwind      restore R1 in every slot, then unwind
 *   __cxa_begin_catch         the exception landed: frames below the catch
 *                             are gone (abandoned); the live ones get R2
 *                             back, so their returns are counted again
 *   backtrace                 restore, walk, put R2 back
 *
 * These run only when a program throws or walks its stack: never on the
 * evaluation path.  Preloaded, the shim interposes them; attached (extprof
 * attach), it redirects the real functions' entries to them instead.
 */
#include <dlfcn.h>
#include <stdint.h>

#include "count/activation.h"
#include "arch/arch.h"
#include "core/interpose.h"
#include "core/state.h"
#include "host/unwind.h"

#define XP_EXPORT __attribute__((visibility("default")))

/*
 * The real functions: found with dlsym(RTLD_NEXT) when preloaded; when the
 * shim was attached instead (attach.c), the entries of the real ones jump
 * to these wrappers, which call them through trampolines set here.
 */
enum { UW_RAISE, UW_RESUME_OR_RETHROW, UW_RESUME, UW_FORCED, UW_BEGIN_CATCH, UW_BACKTRACE, UW_N };

static const char *const unwind_names[UW_N] = {
	"_Unwind_RaiseException", "_Unwind_Resume_or_Rethrow", "_Unwind_Resume",
	"_Unwind_ForcedUnwind",	  "__cxa_begin_catch",	       "backtrace",
};

static void *unwind_cache[UW_N];
static const struct interpose_table unwind_reals = {unwind_names, unwind_cache, UW_N};

static void *unwind_real(int i)
{
	return interpose_real(&unwind_reals, i);
}

typedef int (*unwind_raise_fn)(void *exc);
typedef void (*unwind_resume_fn)(void *exc);
typedef int (*unwind_forced_fn)(void *exc, void *stop, void *arg);
typedef void *(*begin_catch_fn)(void *exc);
typedef int (*backtrace_fn)(void **buf, int size);

/*
 * The wrappers are hidden functions, exported under the real names by
 * aliases: the shim's own references to them (unwind_wrapper) must not
 * bind to the real ones, which come first in the program's scope.
 */
static int unwind_raise(void *exc)
{
	activation_restore_frames();
	return ((unwind_raise_fn)unwind_real(UW_RAISE))(exc);
}

static int unwind_resume_or_rethrow(void *exc)
{
	activation_restore_frames();
	return ((unwind_raise_fn)unwind_real(UW_RESUME_OR_RETHROW))(exc);
}

static void unwind_resume(void *exc)
{
	activation_restore_frames();
	((unwind_resume_fn)unwind_real(UW_RESUME))(exc);
	__builtin_unreachable();
}

static int unwind_forced(void *exc, void *stop, void *arg)
{
	activation_restore_frames();
	return ((unwind_forced_fn)unwind_real(UW_FORCED))(exc, stop, arg);
}

static __attribute__((noinline)) void *unwind_begin_catch(void *exc)
{
	/* our caller is the landing pad: its stack pointer is our CFA */
	activation_rehook_frames((uint64_t)__builtin_frame_address(0) + 16);
	return ((begin_catch_fn)unwind_real(UW_BEGIN_CATCH))(exc);
}

static int unwind_backtrace(void **buf, int size)
{
	int n;

	activation_restore_frames();
	n = ((backtrace_fn)unwind_real(UW_BACKTRACE))(buf, size);
	activation_rehook_frames(0);
	return n;
}

XP_EXPORT int _Unwind_RaiseException(void *exc) __attribute__((alias("unwind_raise")));
XP_EXPORT int _Unwind_Resume_or_Rethrow(void *exc)
	__attribute__((alias("unwind_resume_or_rethrow")));
XP_EXPORT void _Unwind_Resume(void *exc) __attribute__((alias("unwind_resume")));
XP_EXPORT int _Unwind_ForcedUnwind(void *exc, void *stop, void *arg)
	__attribute__((alias("unwind_forced")));
XP_EXPORT void *__cxa_begin_catch(void *exc) __attribute__((alias("unwind_begin_catch")));
XP_EXPORT int backtrace(void **buf, int size) __attribute__((alias("unwind_backtrace")));

static void *const unwind_wrappers[UW_N] = {
	unwind_raise,  unwind_resume_or_rethrow, unwind_resume,
	unwind_forced, unwind_begin_catch,	 unwind_backtrace,
};

int unwind_wrapper(int index, const char **name, void **wrapper)
{
	if (index < 0 || index >= UW_N)
		return -1;
	*name = unwind_names[index];
	*wrapper = unwind_wrappers[index];
	return 0;
}

void unwind_set_real(int index, void *fn)
{
	if (index >= 0 && index < UW_N)
		__atomic_store_n(&unwind_cache[index], fn, __ATOMIC_RELEASE);
}
