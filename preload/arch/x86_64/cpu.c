// SPDX-License-Identifier: MIT
/* cpu: how much extended state a slow path must save (CPUID leaf 0xd). */
#include <cpuid.h>
#include <stdint.h>

#include "arch/arch.h"

/* Read by xp_call_preserving (call.S); 0 means fxsave. */
uint64_t xp_xsave_size __attribute__((visibility("hidden")));

void arch_probe_cpu(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return;
	if (__get_cpuid_max(0, NULL) < 0xd)
		return;
	__cpuid_count(0xd, 0, a, b, c, d);
	/* b: the area for every feature enabled in XCR0, plus room to align */
	if (b >= 576)
		xp_xsave_size = (uint64_t)b + 64;
}
